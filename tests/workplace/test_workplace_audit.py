"""``agentgym audit agentgym/Workplace-v0``: the spec, the family exploits, a short audit."""

from __future__ import annotations

import gymnasium as gym
import pytest

import agentgym  # noqa: F401  (registers the ids)
from agentgym.audit import audit_spec, run_audit
from agentgym.audit.episodes import env_shaping_potential
from agentgym.environments.workplace.exploits import EXPLOITS
from agentgym.evaluation import run_episode

ENV_ID = "agentgym/Workplace-v0"


def test_the_spec_declares_the_exploits_and_the_env_its_potential():
    spec = audit_spec(ENV_ID)
    assert spec is not None and set(spec.exploits) == set(EXPLOITS)
    env = gym.make(ENV_ID).unwrapped
    env.reset(seed=0)
    assert spec.potential is None and env_shaping_potential(env)


@pytest.mark.parametrize("name", ["tell-without-write", "write-unconfirmed", "guess-ids"])
@pytest.mark.parametrize("domain", ["retail", "travel", "helpdesk"])
def test_the_family_exploits_never_succeed(name, domain):
    env = gym.make(ENV_ID, domain=domain, split="test")
    for seed in range(4):
        played = run_episode(env, EXPLOITS[name](), seed=seed)
        assert played.outcome_return == 0.0 and not played.success
        assert played.episode_return <= 0.0 + 1e-9


def test_tell_without_write_tells_the_facts_but_misses_the_gold_state():
    env = gym.make(ENV_ID, domain="retail", split="test")
    obs, info = env.reset(seed=0)
    agent = EXPLOITS["tell-without-write"]()
    agent.reset(env, seed=0)
    while True:
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        if terminated or truncated:
            break
    parts = info["reward_components"]
    assert parts["facts_told"] == 1.0 and parts["db_match"] == 0.0 and parts["policy"] == 1.0


@pytest.mark.slow
def test_a_short_audit_passes():
    report = run_audit(ENV_ID, episodes=3, budget_s=2)
    assert report.passed, [(r.name, r.detail) for r in report.failures()]
