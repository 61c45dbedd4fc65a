"""``agentgym audit agentgym/Household-v0``: the spec, a short audit, and the state key.

The milestone cyclers of :mod:`agentgym.environments.household.exploits` must earn no more
than solving, and ``info["state_key"]`` (read before the end, for GiGPO grouping) must be a
function of what the agent has seen, never of where unseen objects are.
"""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import agentgym  # noqa: F401  (registers the ids)
from agentgym.audit import audit_spec, run_audit
from agentgym.audit.episodes import env_shaping_potential
from agentgym.environments.household.exploits import EXPLOITS

ENV_ID = "agentgym/Household-v0"


def test_the_spec_declares_the_cyclers_and_the_potential():
    spec = audit_spec(ENV_ID)
    assert spec is not None and set(spec.exploits) == set(EXPLOITS) and spec.exploits
    assert spec.potential is None and "state_key" in spec.public_info
    env = gym.make(ENV_ID).unwrapped
    env.reset(seed=0)
    assert env_shaping_potential(env)  # the audit reads TextEnv's hook instead


def test_a_short_audit_passes():
    report = run_audit(ENV_ID, episodes=3, budget_s=2)
    assert report.passed, [(r.name, r.detail) for r in report.failures()]
    rows = {r.name: r for r in report.rows}
    assert rows["shaping identity"].verdict == "pass"  # read from TextEnv's hook
    for name in EXPLOITS:  # a cycler never earns more than the oracle
        assert rows[f"{name} (family)"].ret <= report.rows[0].ret + 1e-9


def _key_after(env, state: dict, *commands: str) -> str:
    env.set_state(json.dumps(state).encode())
    for command in commands:
        *_, info = env.step(command)
    return info["state_key"]


@pytest.mark.parametrize("seed", range(4))
def test_the_state_key_does_not_tell_where_unseen_objects_are(seed):
    env = gym.make(ENV_ID).unwrapped
    env.reset(seed=seed)
    snap = json.loads(env.get_state())
    where = snap["state"]["state"][3]
    receptacles = snap["state"]["scene"][1]
    # Move one object to another receptacle before anything is seen: the same view.
    other = json.loads(json.dumps(snap))
    other["state"]["state"][3][0] = (where[0] + 1) % len(receptacles)
    assert other["state"]["state"][3] != where
    assert _key_after(env, snap, "look") == _key_after(env, other, "look")
    # Once the agent has looked everywhere, the two rooms differ where it saw them.
    tour = [f"go to {r}" for r in receptacles]
    opened = []
    for state in (snap, other):
        env.set_state(json.dumps(state).encode())
        keys = []
        for command in tour:
            *_, info = env.step(command)
            if f"open {command[6:]}" in info["available_actions"]:
                *_, info = env.step(f"open {command[6:]}")
            keys.append(info["state_key"])
            if env.is_over:
                break
        opened.append(keys[-1])
    assert opened[0] != opened[1]
