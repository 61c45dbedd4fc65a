"""The declared configs (agentgym.config): one typed model per env, read by everything else."""

from __future__ import annotations

import inspect
from typing import Literal

import gymnasium as gym
import numpy as np
import pytest

import agentgym
from agentgym.config import EnvConfig, ScopeError, TextEnvConfig, setting
from agentgym.envinfo import config_model, env_creator, refuse_strangers

# The integer bounds each env enforced by hand (check_range) before the models, as the
# registry's kwargs_doc documented them: the models must keep every one.
OLD_BOUNDS: dict[str, dict[str, tuple[int, int]]] = {
    "agentgym/Sokoban-v0": {"size": (5, 10), "boxes": (1, 3), "search_depth": (1, 100),
                            "max_steps": (1, 100), "max_invalid": (1, 100_000)},
    "agentgym/Sudoku-v0": {"max_steps": (1, 1000), "max_wrong": (1, 1000),
                           "max_invalid": (1, 100_000)},
    "agentgym/Minesweeper-v0": {"rows": (3, 16), "cols": (3, 16), "max_steps": (1, 100_000),
                                "posterior_budget": (1, 1_000_000_000)},
    "agentgym/TicTacToe-v0": {"max_invalid": (1, 100_000)},
    "agentgym/WebShop-v0": {"num_products": (100, 1_200_000), "viewport_width": (320, 3840),
                            "viewport_height": (240, 2160), "timeout_ms": (1000, 120_000)},
    "agentgym/Negotiation-v0": {"max_rounds": (1, 50), "max_invalid": (1, 100_000)},
    "agentgym/BazaarB2C-v0": {"firms": (2, 8), "rate": (1, 100), "capacity": (1, 100),
                              "rounds": (1, 1000), "max_invalid": (1, 100_000)},
    "agentgym/BazaarC2C-v0": {"honest": (1, 12), "buyers": (0, 12), "rounds": (1, 20)},
    "agentgym/Household-v0": {"planner_nodes": (1, 10_000_000), "max_steps": (1, 100_000),
                              "max_invalid": (1, 100_000)},
    "agentgym/Terminal-v0": {"max_steps": (1, 100_000)},
    "agentgym/SearchQA-v0": {"top_k": (1, 10), "max_searches": (1, 20), "min_hops": (1, 3),
                             "scale": (1, 742), "max_steps": (1, 100_000),
                             "max_invalid": (1, 100_000)},
}


def _int_bounds(model: type[EnvConfig], name: str) -> tuple[int, int]:
    field = model.model_fields[name]
    bounds = {k: getattr(m, k) for m in field.metadata for k in ("ge", "le")
              if getattr(m, k, None) is not None}
    return bounds["ge"], bounds["le"]


@pytest.mark.parametrize("env_id", sorted(OLD_BOUNDS))
def test_the_models_keep_the_bounds_the_envs_checked_by_hand(env_id):
    model = config_model(env_id)
    assert model is not None, f"{env_id} declares no config"
    for name, bounds in OLD_BOUNDS[env_id].items():
        assert _int_bounds(model, name) == bounds, (env_id, name)


@pytest.mark.parametrize("entry", agentgym.ENVIRONMENTS, ids=lambda e: e.id)
def test_every_id_declares_every_kwarg_with_a_description_and_a_scope(entry):
    model = config_model(entry.id)
    assert model is not None
    creator = env_creator(entry.id)
    if isinstance(creator, type):  # a factory (WebShop's) has no signature to compare
        signature = inspect.signature(creator).parameters
        assert set(signature) - {"self"} == set(model.model_fields)
        for name, p in signature.items():
            assert p.default == model.model_fields[name].default, (entry.id, name)
    for row in model.table():
        assert row.description and row.scope in ("operator", "client", "public"), row


@pytest.mark.parametrize("entry", agentgym.ENVIRONMENTS, ids=lambda e: e.id)
def test_every_default_config_is_valid_and_open_to_strangers(entry):
    model = config_model(entry.id)
    model.parse({})
    refuse_strangers(entry.id, {}, "client")


def test_host_reading_kwargs_are_operator_only_for_every_id():
    # Anything that names a file, a directory or a sandbox backend.
    host = {("agentgym/SearchQA-v0", "questions"), ("agentgym/Terminal-v0", "backend")}
    for env_id, name in host:
        for who in ("client", "bundle"):
            with pytest.raises(ScopeError, match=f"{name} is operator-only"):
                refuse_strangers(env_id, {name: "anything"}, who)
    for env_id, name in (("agentgym/SearchQA-v0", "corpus"), ("agentgym/Terminal-v0", "task")):
        for who in ("client", "bundle"):
            with pytest.raises(ScopeError, match=f"{name} must be one of"):
                refuse_strangers(env_id, {name: "/etc"}, who)


# ---------------------------------------------------------------------- the machinery
class Grid(TextEnvConfig):
    size: int = setting(6, "grid side", ge=3, le=1000, public_max=20)
    rate: float = setting(0.5, "a rate", gt=0, le=1)
    mode: Literal["a", "b"] = setting("a", "a mode")
    depth: int | None = setting(None, "a depth", ge=1, le=9)
    corpus: str | None = setting(None, "a file", scope="operator")
    dataset: str | None = setting(None, "a bundled name or a path", public_choices=[None, "ex"])
    local: bool = setting(False, "clients only", scope="client")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"size": 2000}, "size must be in [3, 1000], got 2000"),
    ({"size": "7"}, "size must be an integer in [3, 1000], got '7'"),
    ({"size": True}, "size must be an integer in [3, 1000], got True"),
    ({"size": 7.0}, "size must be an integer in [3, 1000], got 7.0"),
    ({"rate": 0}, "rate must be in (0, 1], got 0"),
    ({"rate": float("nan")}, "rate must be a finite number in (0, 1], got nan"),
    ({"rate": "x"}, "rate must be a finite number in (0, 1], got 'x'"),
    ({"mode": "c"}, "mode must be one of ('a', 'b'), got 'c'"),
    ({"depth": 0}, "depth must be in [1, 9], got 0"),
    ({"depth": "x"}, "depth must be None or an integer in [1, 9], got 'x'"),
    ({"local": 1}, "local must be True or False, got 1"),
    ({"invalid_penalty": 1}, "invalid_penalty must be <= 0, got 1"),
    # Reward constants of 1e308 summed to inf: a results file then held Infinity and NaN.
    ({"invalid_penalty": -1e308}, "invalid_penalty must be within +-1e+06, got -1e+308"),
    ({"sise": 3}, "Grid takes no kwarg 'sise'; valid kwargs: reward_mode, "),
])
def test_bad_values_get_one_line_naming_the_key_and_the_rule(kwargs, message):
    with pytest.raises(ValueError) as exc:
        Grid.parse(kwargs)
    assert str(exc.value).startswith(message) and "\n" not in str(exc.value)


def test_numpy_scalars_are_their_python_values():
    grid = Grid.parse({"size": np.int64(8), "rate": np.float32(0.25), "local": np.bool_(True)})
    assert (grid.size, grid.rate, grid.local) == (8, 0.25, True)
    assert type(grid.size) is int


def test_the_operator_may_set_anything_valid():
    grid = Grid.parse({"size": 1000, "corpus": "/data/c.jsonl", "dataset": "/data/x"})
    assert grid.size == 1000 and grid.corpus == "/data/c.jsonl"


@pytest.mark.parametrize("who", ["client", "bundle"])
def test_strangers_get_the_same_refusal_whatever_the_value(who, tmp_path):
    real = tmp_path / "real.jsonl"
    real.write_text("{}\n")
    messages = set()
    for path in (str(real), str(tmp_path / "missing.jsonl"), "/etc/passwd"):
        with pytest.raises(ScopeError) as exc:
            Grid.refuse_strangers({"corpus": path}, who)
        messages.add(str(exc.value))
    assert len(messages) == 1
    messages = set()
    for path in (str(real), str(tmp_path / "missing.jsonl")):
        with pytest.raises(ScopeError) as exc:
            Grid.refuse_strangers({"dataset": path}, who)
        messages.add(str(exc.value))
    assert len(messages) == 1 and "one of (None, 'ex')" in messages.pop()
    Grid.refuse_strangers({"dataset": "ex", "size": 20, "mode": "b"}, who)
    with pytest.raises(ScopeError, match=r"size must be in \[3, 20\] when"):
        Grid.refuse_strangers({"size": 21}, who)


def test_client_scope_is_not_bundle_scope():
    Grid.refuse_strangers({"local": True}, "client")
    with pytest.raises(ScopeError, match="local is operator-only: a leaderboard bundle"):
        Grid.refuse_strangers({"local": True}, "bundle")


def test_the_stranger_schema_shows_only_what_they_may_set_with_their_ceilings():
    schema = Grid.stranger_schema("client")
    props = schema["properties"]
    assert "corpus" not in props and "local" in props
    assert props["size"]["maximum"] == 20 and props["size"]["minimum"] == 3
    assert props["dataset"]["enum"] == [None, "ex"]
    assert schema["additionalProperties"] is False
    assert "local" not in Grid.stranger_schema("bundle")["properties"]
    rows = {row.name: row for row in Grid.table("client")}
    assert rows["size"].allowed == "3-20" and rows["dataset"].allowed == "null | ex"
    assert "corpus" not in rows


def test_an_env_without_a_declared_config_lets_strangers_set_only_the_contract():
    from toy_env import CounterEnv  # a TextEnv with an undeclared kwarg, goal

    env_id = "agentgym-test/CounterUndeclared-v0"
    if env_id not in gym.registry:
        gym.register(env_id, entry_point=CounterEnv)
    assert config_model(env_id) is None
    refuse_strangers(env_id, {"max_steps": 5}, "client")
    with pytest.raises(ScopeError, match="goal is operator-only"):
        refuse_strangers(env_id, {"goal": 5}, "client")
