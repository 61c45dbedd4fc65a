"""The README's quickstart runs, and the values its comments promise are the real ones."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_quickstart_runs_and_its_comments_hold():
    block = re.search(r"```python\n(.*?)```", README.read_text(), re.DOTALL).group(1)
    scope: dict = {}
    exec(compile(block, "README.md quickstart", "exec"), scope)
    env = scope["env"]
    env.reset(seed=42)
    assert env.unwrapped.score_actions(["up", "down"]) == [-2.0, 2.0]
    assert env.unwrapped.oracle_actions() == ["down"]
    assert scope["info"]["reward_components"] == {"process": 2.0, "outcome": 0.0}
