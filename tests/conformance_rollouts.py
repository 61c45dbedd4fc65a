"""The conformance suite's seeded random rollouts, importable without pytest or hypothesis.

``test_same_seed_same_episode_in_another_process`` replays them in fresh interpreters (two per
case, across the suite, the server suite and the CONTRIBUTING example); importing only
gymnasium, agentgym and this module there costs a third of what importing the test module did.
"""

from __future__ import annotations

import json

import gymnasium as gym

from agentgym.agents import make_agent


def first_and_rollout(
    env: gym.Env, seed: int, steps: int, agent_seed: int | None = None
) -> tuple[str, list[tuple]]:
    """The first observation of ``env.reset(seed=seed)`` and up to ``steps`` random-agent steps
    after it as (action, obs, reward, terminated, info-json), from one reset.

    The agent is seeded with ``agent_seed`` (default: the env's ``seed``).
    """
    agent = make_agent("random")
    obs, info = env.reset(seed=seed)
    first = obs
    agent.reset(env, seed=seed if agent_seed is None else agent_seed)
    out = []
    for _ in range(steps):
        action = agent.act(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        out.append((action, obs, reward, terminated, json.dumps(info, sort_keys=True)))
        if terminated or truncated:
            break
    return first, out


def random_rollout(
    env: gym.Env, seed: int, steps: int, agent_seed: int | None = None
) -> list[tuple]:
    """(action, obs, reward, terminated, info-json) for up to ``steps`` random-agent steps.

    The agent is seeded with ``agent_seed`` (default: the env's ``seed``).
    """
    return first_and_rollout(env, seed, steps, agent_seed)[1]
