"""CONTRIBUTING.md's "Adding an env in one page", followed literally, gives a passing env.

The page's first python block (the env) and second (its ``EnvEntry``) are cut out of the
page, the env is written to a module that registers it (as the registry would), and every
check in ``tests/test_conformance.py`` runs on it and on the entry's variants. The third
block (its audit spec) must make ``agentgym audit`` pass on it.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
import sys
import textwrap
import tomllib
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
import test_conformance

import agentgym
from agentgym.envinfo import env_kwargs
from agentgym.registry import EnvEntry

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "CONTRIBUTING.md").read_text()
MODULE = "contributing_example"


def section(page: str, title: str) -> str:
    start = page.index(f"## {title}")
    end = page.find("\n## ", start + 1)
    return page[start : end if end >= 0 else len(page)]


HOW_TO = section(PAGE, "Adding an env in one page")
BLOCKS = [textwrap.dedent(block) for block in re.findall(r"```python\n(.*?)```", HOW_TO, re.S)]
assert len(BLOCKS) == 3, "the page shows the env, its registry entry, then its audit spec"
ENV_CODE, ENTRY_CODE, AUDIT_CODE = BLOCKS
ENTRY: EnvEntry = eval(ENTRY_CODE, {"EnvEntry": EnvEntry})  # the page's own entry
CLASS_NAME = ENTRY.entry_point.rpartition(":")[2]
# Registered under a namespace of its own, so the example never collides with a real id.
ENV_ID = "agentgym-example/" + ENTRY.id.partition("/")[2]
KWARG_SETS = [{}, *ENTRY.variants]

REGISTER = f"""

import gymnasium as _gym

if {ENV_ID!r} not in _gym.registry:
    _gym.register(id={ENV_ID!r}, entry_point="{MODULE}:{CLASS_NAME}")
"""


@pytest.fixture(scope="module", autouse=True)
def example_module(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The page's env as an importable module (also in the subprocesses a check spawns)."""
    folder = tmp_path_factory.mktemp("contributing")
    (folder / f"{MODULE}.py").write_text(ENV_CODE + REGISTER)
    sys.path.insert(0, str(folder))
    patch = pytest.MonkeyPatch()
    paths = [str(folder), *filter(None, [__import__("os").environ.get("PYTHONPATH")])]
    patch.setenv("PYTHONPATH", ":".join(paths))
    try:
        yield importlib.import_module(MODULE)
    finally:
        patch.undo()
        sys.path.remove(str(folder))
        sys.modules.pop(MODULE, None)
        gym.registry.pop(ENV_ID, None)


def conformance_cases() -> list[Any]:
    """(check, its arguments) for every check of the conformance suite, on the example."""
    cases = []
    for name, check in sorted(vars(test_conformance).items()):
        if not name.startswith("test_") or not inspect.isfunction(check):
            continue
        params = inspect.signature(check).parameters
        # A check that starts another Python must name an id that process can import: the
        # "module:id" form makes gym.make import (and so register) the example there first.
        env_id = f"{MODULE}:{ENV_ID}" if "subprocess" in inspect.getsource(check) else ENV_ID
        kwarg_sets = KWARG_SETS if "kwargs" in params else [None]
        modes = agentgym.REWARD_MODES if "mode" in params else [None]
        for kwargs in kwarg_sets:
            for mode in modes:
                args = {"env_id": env_id}
                if kwargs is not None:
                    args["kwargs"] = kwargs
                if mode is not None:
                    args["mode"] = mode
                label = "-".join([name, *(f"{k}={v}" for k, v in (kwargs or {}).items())])
                cases.append(pytest.param(check, args, id=label + (f"-{mode}" if mode else "")))
    return cases


@pytest.mark.parametrize(("check", "args"), conformance_cases())
def test_the_page_example_passes_the_conformance_suite(check, args):
    check(**args)


def test_the_page_example_is_a_complete_text_env(example_module):
    cls = getattr(example_module, CLASS_NAME)
    assert issubclass(cls, agentgym.TextEnv)
    # Every contract kwarg is in the env's own signature with an explicit default.
    own = inspect.signature(cls.__init__).parameters
    for name in ("reward_mode", "render_mode", "score_process", "max_steps", "invalid_penalty",
                 "max_invalid"):
        assert name in own and own[name].default is not inspect.Parameter.empty, name
    # Its config model declares every kwarg, with the signature's defaults.
    assert cls.config_model.__name__ == "SortConfig"
    assert {k.name: k.default for k in env_kwargs(ENV_ID)} == {
        name: p.default for name, p in own.items() if name != "self"}
    # Its docstring examples run.
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    for test in finder.find(example_module):
        runner.run(test)
    assert runner.failures == 0 and runner.tries > 0


def test_the_page_example_rewards_what_its_docstring_says(example_module):
    env = gym.make(ENV_ID, size=4).unwrapped
    env.reset(seed=0)
    env.row = [2, 1, 4, 3]  # a hand-built state: two out-of-order pairs, two swaps from sorted
    assert env.score_actions(["swap 1", "swap 2", "swap 3"]) == [1.0, -1.0, 1.0]
    _, reward, terminated, _, info = env.step("<action>swap 1</action>")
    assert (reward, terminated, env.row) == (1.0, False, [1, 2, 4, 3])
    _, reward, _, _, info = env.step("swap 4")  # no position 4 to swap with 5: invalid
    assert not info["valid_action"] and "out of range" in info["action_error"]
    assert reward == -1.0 and env.row == [1, 2, 4, 3]
    _, reward, terminated, _, info = env.step("swap 3")
    assert terminated and info["success"] and env.row == [1, 2, 3, 4]
    assert info["reward_components"] == {"process": 1.0, "outcome": 1.0}


def test_the_page_example_passes_its_audit(example_module):
    from agentgym.audit import run_audit

    exec(AUDIT_CODE.replace(ENTRY.id, ENV_ID), {})  # the page's spec, for the example's id
    report = run_audit(ENV_ID, episodes=3, budget_s=2.0)
    assert report.passed, [(row.name, row.detail) for row in report.failures()]
    names = {row.name for row in report.rows}
    assert "swap-back (family)" in names and "shaping identity" in names
    shaping = next(row for row in report.rows if row.name == "shaping identity")
    assert shaping.verdict == "pass"


def test_copying_the_rules_example_verbatim_is_not_rewarded(example_module):
    env = gym.make(ENV_ID).unwrapped
    env.reset(seed=0)
    example = re.search(r"<action>(.*?)</action>", env.rules).group(0)
    _, reward, *_, info = env.step(example)
    assert not info["valid_action"] and reward < 0


def test_pyproject_license_is_an_spdx_string_setuptools_reads_without_warning():
    # A license table is deprecated (setuptools warns on every build); the SPDX string of
    # PEP 639 needs setuptools >= 77 in the build requirements.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "Apache-2.0"
    requires = project["build-system"]["requires"]
    setuptools = next(r for r in requires if r.startswith("setuptools"))
    assert re.fullmatch(r"setuptools>=(\d+)", setuptools) and int(setuptools[12:]) >= 77
