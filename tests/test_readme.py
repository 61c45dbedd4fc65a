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


# ---------------------------------------------------------------------- the env table
DOCS_ENVS = README.parent / "docs" / "envs.md"


def _env_rows() -> dict[str, str]:
    rows = re.findall(r"^\| `(agentgym/[\w-]+)` \| (.*)$", README.read_text(), re.MULTILINE)
    return dict(rows)


def test_the_env_table_has_every_id_and_its_kwarg_claims_are_the_models():
    """Each kwarg the table names with a range (`size` 5-10), a default (`max_steps` 15) or
    choices (`oracle="shortest"|"solvable"`) is checked against the id's declared config."""
    import agentgym
    from agentgym.envinfo import config_model

    rows = _env_rows()
    assert set(rows) == set(agentgym.env_ids())
    checked = 0
    for env_id, text in rows.items():
        fields = config_model(env_id).model_fields
        what = text.split(" | ")[0]  # the "what" column names the kwargs
        for name, low, high in re.findall(r"`(\w+)` \(?(\d+)-(\d+)\)?", what):
            bounds = {k: getattr(m, k) for m in fields[name].metadata for k in ("ge", "le")
                      if getattr(m, k, None) is not None}
            assert (bounds["ge"], bounds["le"]) == (int(low), int(high)), (env_id, name)
            checked += 1
        for name, value in re.findall(r"`(\w+)` \(?(\d+)\)?(?=[,;) ])(?!-)", what):
            if name in fields:
                assert fields[name].default == int(value), (env_id, name)
                checked += 1
        for name, choices in re.findall(r'`(\w+)="(.*?)"`', what):
            args = set(re.findall(r'"?([\w-]+)"?', choices))
            allowed = {row.allowed for row in config_model(env_id).table() if row.name == name}
            assert args <= set(allowed.pop().split(" | ")), (env_id, name)
            checked += 1
    assert checked >= 10


def test_docs_envs_is_the_generated_kwargs_reference():
    from agentgym.envinfo import kwargs_markdown

    assert DOCS_ENVS.read_text() == kwargs_markdown(), (
        "docs/envs.md is out of date: agentgym list --markdown > docs/envs.md")
