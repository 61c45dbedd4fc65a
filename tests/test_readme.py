"""The README's quickstart runs, and the values its comments promise are the real ones."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def test_quickstart_runs_and_its_comments_hold():
    block = re.search(r"```python\n(.*?)```", README.read_text(), re.DOTALL).group(1)
    scope: dict = {}
    exec(compile(block, "README.md quickstart", "exec"), scope)
    env = scope["env"]
    env.reset(seed=42)
    # The values the comments show (rounded to 4 decimals there), read from the README.
    shown = dict(re.findall(r"^(env\.unwrapped\.\w+|info\[.*?\]).*# (?:[a-z ,]+: )?(\S.*)$",
                            block, re.MULTILINE))
    assert len(shown) == 3, shown
    scores = env.unwrapped.score_actions(["up", "down"])
    assert scores == pytest.approx(ast.literal_eval(shown["env.unwrapped.score_actions"]),
                                   abs=5e-5)
    assert env.unwrapped.oracle_actions() == ast.literal_eval(shown["env.unwrapped.oracle_actions"])
    components = scope["info"]["reward_components"]
    expected = ast.literal_eval(shown['info["reward_components"]'])
    assert components == pytest.approx(expected, abs=5e-5) and components.keys() == expected.keys()
