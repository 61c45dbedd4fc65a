"""BazaarC2C-v0: steps/s of the guardian's loop at each K, reset time, and episode length.

The issue's like-for-like reference is TextArena's SimpleNegotiation (about 49k steps/s with
random offers, measured in ``test_bench_negotiation.py``); a C2C step does more (the ledger,
the process reward from ground truth, the listing table, and at a round's end the scripted
buyers' purchases with and without the flags), so this file records our side only, with the
episode length in ``extra_info`` so trainers can see the env is never the bottleneck.
"""

from __future__ import annotations

from typing import Any

import pytest
from bench_common import OursEpisode, bench_ours_steps, describe, make_ours, scaled, seed_counter

from agentgym.environments.markets.bazaar_c2c.agents import BaselineAgent

ENV_ID = "agentgym/BazaarC2C-v0"
SEEDS = range(6)
ACTIONS = 50  # every baseline episode at K >= 3 is longer (about 60 / 72 / 84 steps)


def _baseline_episodes(env: Any) -> tuple[list[OursEpisode], float]:
    """The baseline guardian's first ``ACTIONS`` moves per seed, and the mean full length."""
    agent, episodes, lengths = BaselineAgent(), [], []
    for seed in SEEDS:
        obs, info = env.reset(seed=seed)
        snapshot = env.unwrapped.get_state()
        actions, done = [], False
        while not done:
            action = agent.act(obs, info)
            obs, _, terminated, truncated, info = env.step(action)
            actions.append(action)
            done = terminated or truncated
        assert len(actions) >= ACTIONS, len(actions)
        lengths.append(len(actions))
        episodes.append(OursEpisode(snapshot, actions[:ACTIONS]))
    return episodes, sum(lengths) / len(lengths)


@pytest.mark.parametrize("sybils", [3, 6, 9])
def test_bazaar_c2c_step_agentgym(benchmark: Any, sybils: int) -> None:
    """The baseline guardian's inspect / flag / buy / skip steps, process reward on."""
    env = make_ours(ENV_ID, sybils=sybils)
    episodes, length = _baseline_episodes(env)
    bench_ours_steps(
        benchmark,
        env,
        episodes,
        scaled(100),
        group=f"bazaar-c2c-step-k{sybils}",
        impl=f"agentgym (gym.make, sybils={sybils}, baseline guardian)",
        primary=True,
        episode_length=length,
    )


def test_bazaar_c2c_reset_agentgym(benchmark: Any) -> None:
    """``reset(seed)``: every round's listings of the episode drawn up front (K = 9)."""
    env = make_ours(ENV_ID, sybils=9)
    next_seed = seed_counter(1000)
    describe(benchmark, group="bazaar-c2c-reset", side="agentgym",
             impl="agentgym (reset, sybils=9)", unit="episode", primary=True)
    benchmark(lambda: env.reset(seed=next_seed()))
