"""Household-v0's declared config (environments/household/config.py)."""

from __future__ import annotations

import inspect
import typing

import gymnasium as gym
import numpy as np
import pytest

import agentgym  # noqa: F401  (registers the ids)
from agentgym.config import ScopeError
from agentgym.envinfo import config_model
from agentgym.environments.household import env as household_env
from agentgym.environments.household.config import (
    MAX_PLANNER_NODES,
    PUBLIC_PLANNER_NODES,
    HouseholdConfig,
)
from agentgym.environments.household.env import HouseholdEnv
from agentgym.environments.household.generator import SPLITS
from agentgym.environments.household.planner import PLANNER_MAX_NODES
from agentgym.environments.household.tasks import TASK_TYPES


def test_the_env_declares_its_signature():
    assert HouseholdEnv.config_model is HouseholdConfig
    assert config_model("agentgym/Household-v0") is HouseholdConfig
    params = {k: p for k, p in inspect.signature(HouseholdEnv).parameters.items()}
    assert set(params) == set(HouseholdConfig.model_fields)
    for name, p in params.items():
        assert p.default == HouseholdConfig.model_fields[name].default, name
    for row in HouseholdConfig.table():
        assert row.description and row.scope == "public", row
    assert not hasattr(household_env, "_check_gamma")


def test_choices_follow_the_code():
    fields = HouseholdConfig.model_fields
    assert typing.get_args(fields["task_type"].annotation) == ("any", *TASK_TYPES)
    assert typing.get_args(fields["split"].annotation) == SPLITS
    assert fields["planner_nodes"].default == PLANNER_MAX_NODES == PUBLIC_PLANNER_NODES


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"gamma": 0}, "gamma must be in (0, 1], got 0"),
    ({"gamma": 1.01}, "gamma must be in (0, 1], got 1.01"),
    ({"gamma": False}, "gamma must be a finite number in (0, 1], got False"),
    ({"gamma": float("nan")}, "gamma must be a finite number in (0, 1], got nan"),
    ({"planner_nodes": 0}, "planner_nodes must be in [1, 10000000], got 0"),
    ({"planner_nodes": 2.0}, "planner_nodes must be an integer in [1, 10000000], got 2.0"),
    ({"split": "test"}, "split must be one of ('train', 'seen', 'unseen'), got 'test'"),
    ({"max_invalid": 0}, "max_invalid must be in [1, 100000], got 0"),
])
def test_bad_kwargs_get_one_line(kwargs, message):
    with pytest.raises(ValueError) as exc:
        gym.make("agentgym/Household-v0", **kwargs)
    assert str(exc.value) == message


def test_an_unknown_task_type_names_the_valid_ones():
    with pytest.raises(ValueError, match=r"task_type must be one of \('any', 'pick_and_place"):
        HouseholdEnv(task_type="make coffee")


def test_numpy_values_are_accepted():
    env = HouseholdEnv(gamma=np.float32(0.5), planner_nodes=np.int64(300))
    assert (env.gamma, env.planner_nodes) == (0.5, 300) and type(env.planner_nodes) is int


@pytest.mark.parametrize("who", ["client", "bundle"])
def test_strangers_may_not_raise_the_planner_budget(who):
    HouseholdConfig.refuse_strangers({"planner_nodes": PUBLIC_PLANNER_NODES, "gamma": 0.9,
                                      "task_type": "pick_two_obj_and_place"}, who)
    messages = set()
    for value in (PUBLIC_PLANNER_NODES + 1, MAX_PLANNER_NODES, np.int64(10**6)):
        with pytest.raises(ScopeError) as exc:
            HouseholdConfig.refuse_strangers({"planner_nodes": value}, who)
        messages.add(str(exc.value))
    assert messages == {
        f"planner_nodes must be in [1, {PUBLIC_PLANNER_NODES}] when "
        f"{'a remote client' if who == 'client' else 'a leaderboard bundle'} sets it; the "
        f"operator may set up to {MAX_PLANNER_NODES} (agentgym serve ID -k planner_nodes=...)"
    }
    schema = HouseholdConfig.stranger_schema(who)["properties"]
    assert schema["planner_nodes"]["maximum"] == PUBLIC_PLANNER_NODES


def test_the_env_builds_and_plans_at_the_operator_maximum():
    # The budget only bounds a search; generated tasks need a few hundred states.
    env = gym.make("agentgym/Household-v0", planner_nodes=MAX_PLANNER_NODES,
                   task_type="pick_two_obj_and_place").unwrapped
    env.reset(seed=0)
    assert env.oracle_actions() and env.planner.expanded < 1000
