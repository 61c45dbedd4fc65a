"""Terminal-v0's declared config: what a stranger may set, the checks the model now makes.

None of these needs Docker: the env only reaches a sandbox backend on its first reset.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from terminal_support import FIXTURES

from agentgym.config import ScopeError
from agentgym.environments.terminal.config import BUNDLED_TASK_IDS, TerminalConfig
from agentgym.environments.terminal.env import TerminalEnv
from agentgym.environments.terminal.task import bundled_tasks

STRANGERS = ("client", "bundle")
WHO = {"client": "a remote client", "bundle": "a leaderboard bundle"}
BUNDLED = BUNDLED_TASK_IDS[0]


def refusal(kwargs: dict, who: str) -> str:
    with pytest.raises(ScopeError) as caught:
        TerminalEnv.config_model.refuse_strangers(kwargs, who)
    return str(caught.value)


def test_the_env_declares_its_config():
    assert TerminalEnv.config_model is TerminalConfig
    assert TerminalConfig.replay_overrides == {"backend": "docker"}


def test_constructor_defaults_are_the_models():
    params = inspect.signature(TerminalEnv.__init__).parameters
    assert set(params) - {"self"} == set(TerminalConfig.model_fields)
    for name, field in TerminalConfig.model_fields.items():
        assert params[name].default == field.default, name


def test_the_public_tasks_are_the_bundled_ids():
    assert tuple(t.id for t in bundled_tasks()) == BUNDLED_TASK_IDS
    row = {r.name: r for r in TerminalConfig.table()}["task"]
    assert row.public_choices == (None, *BUNDLED_TASK_IDS)


@pytest.mark.parametrize("who", STRANGERS)
@pytest.mark.parametrize("backend", ["auto", "docker", "bwrap", "podman"])
def test_a_stranger_may_not_choose_the_backend(who, backend):
    text = refusal({"backend": backend}, who)
    assert text == f"backend is operator-only: {WHO[who]} may not set it"


@pytest.mark.parametrize("who", STRANGERS)
def test_a_stranger_may_not_name_a_task_directory(who, tmp_path):
    existing = str(FIXTURES / "sum-numbers")
    missing = str(tmp_path / "no-such-task")
    texts = {refusal({"task": path}, who) for path in (existing, missing, "/etc", "../tasks")}
    assert len(texts) == 1  # the same words whether or not the directory exists
    (text,) = texts
    assert text.startswith("task must be one of (None, ") and "operator-only" in text
    # An id with the prefix find_task also accepts is still only the operator's to write.
    assert refusal({"task": f"agentgym/{BUNDLED}"}, who) == text


@pytest.mark.parametrize("who", STRANGERS)
def test_a_stranger_may_pick_a_bundled_task_split_and_rewards(who):
    for task in (None, *BUNDLED_TASK_IDS):
        TerminalConfig.refuse_strangers({"task": task}, who)
    TerminalConfig.refuse_strangers(
        {"split": "test", "gamma": 0.9, "max_steps": 100, "invalid_penalty": -1.0,
         "max_invalid": 7, "score_process": False, "reward_mode": "outcome"}, who)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"gamma": 0}, "gamma must be in (0, 1], got 0"),
        ({"gamma": 1.5}, "gamma must be in (0, 1], got 1.5"),
        ({"gamma": True}, "gamma must be a finite number in (0, 1], got True"),
        ({"gamma": float("nan")}, "gamma must be a finite number in (0, 1], got nan"),
        ({"split": "dev"}, "split must be one of ('train', 'test'), got 'dev'"),
        ({"backend": "podman"}, "backend must be one of ('auto', 'docker', 'bwrap'), got "
                                "'podman'"),
        ({"task": 5}, "task must be None or a string, got 5"),
        ({"max_steps": 0}, "max_steps must be in [1, 100000], got 0"),
        ({"max_steps": 1.5}, "max_steps must be None or an integer in [1, 100000], got 1.5"),
        ({"max_invalid": 0}, "max_invalid must be in [1, 100000], got 0"),
        ({"invalid_penalty": 0.5}, "invalid_penalty must be <= 0, got 0.5"),
    ],
)
def test_bad_kwargs_are_refused_before_any_task_is_read(kwargs, message):
    with pytest.raises(ValueError) as caught:
        TerminalEnv(**{"task": BUNDLED, **kwargs})
    assert str(caught.value).startswith(message)


def test_an_unknown_kwarg_lists_the_valid_ones():
    with pytest.raises(ValueError, match=r"^TerminalEnv takes no kwarg 'tsak'; valid kwargs: "
                       r"reward_mode, .*task, split, backend, gamma"):
        TerminalConfig.parse({"tsak": "x"}, owner="TerminalEnv")


def test_the_env_builds_with_every_setting_at_its_operator_maximum():
    env = TerminalEnv(BUNDLED, split="test", backend="bwrap", gamma=np.float64(0.5),
                      max_steps=100_000, invalid_penalty=-1e6, max_invalid=100_000)
    try:
        assert (env.gamma, env.max_steps, env.max_invalid) == (0.5, 100_000, 100_000)
        assert type(env.gamma) is float and env.backend_name == "bwrap"
        assert env.config()["max_steps"] == 100_000
    finally:
        env.close()


def test_max_steps_none_takes_the_tasks_budget():
    env = TerminalEnv(BUNDLED)
    try:
        assert env.max_steps == bundled_tasks()[0].max_steps
        assert env.config()["max_steps"] is None
    finally:
        env.close()


@pytest.mark.parametrize(("budget", "history", "words"), [
    # A client's snapshot set the episode's budget to 10**12 ("steps left 999999999999") ...
    (10**12, 0, "snapshot has a step budget of 1000000000000"),
    # ... or replayed 381,000 commands, holding a worker thread and a container past the 504.
    (None, 1000, "snapshot replays 1000 commands, more than the step budget"),
])
def test_a_snapshot_cannot_lift_the_budget_or_replay_more_than_it(budget, history, words):
    import json

    task = bundled_tasks()[0]
    env = TerminalEnv(task=task.id)
    payload = {
        "env": "TerminalEnv", "config": env.config(), "seed": 0,
        "rng": np.random.default_rng(0).bit_generator.state, "steps": 0, "invalid": 0,
        "ended": None,
        "state": {"task": task.id, "max_steps": budget or task.max_steps,
                  "history": ["sleep 9"] * history, "files": [], "phi": 0.0, "share": 0.0,
                  "obs": "", "verdict": None},
    }
    try:
        with pytest.raises(ValueError, match=words):  # refused before any command runs
            env.set_state(json.dumps(payload).encode())
    finally:
        env.close()


def test_a_bundle_may_ask_for_at_most_100_steps():
    """A replayed step costs seconds: 100,000 steps held the validator for days."""
    assert "max_steps must be in [1, 100] when a leaderboard bundle" in refusal(
        {"max_steps": 101}, "bundle")
    TerminalConfig.refuse_strangers({"max_steps": 100}, "bundle")
