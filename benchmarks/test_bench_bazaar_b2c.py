"""BazaarB2C-v0: steps/s of a market round (agent price, scripted firms, Poisson consumers,
ledger record, process reward), reset time, and a whole episode.

No peer: no published B2C market simulator is packaged. The step unit is one round: one
agent price, ``firms - 1`` scripted prices, ~``rate`` consumers served, one ledger record.
"""

from __future__ import annotations

from typing import Any

from bench_common import OursEpisode, bench_ours_steps, describe, make_ours, scaled, seed_counter

ENV_ID = "agentgym/BazaarB2C-v0"
SEEDS = range(6)
ROUNDS = 50  # cost-plus rivals never crash, so every replay is exactly this long


def _episodes(env: Any, action: str) -> list[OursEpisode]:
    out = []
    for seed in SEEDS:
        env.reset(seed=seed)
        out.append(OursEpisode(env.unwrapped.get_state(), [action] * ROUNDS))
    return out


def test_bazaar_b2c_step_agentgym(benchmark: Any) -> None:
    """50 rounds of 4 firms, 20 consumers a round on average, process reward on."""
    env = make_ours(ENV_ID, strategies="cost-plus", max_steps=1000)
    bench_ours_steps(
        benchmark,
        env,
        _episodes(env, "price 13.00"),
        scaled(100),
        group="bazaar-b2c-step",
        impl="agentgym (gym.make, 4 firms, rate 20, ledger + process reward)",
        unit="round",
        primary=True,
    )


def test_bazaar_b2c_step_big_market(benchmark: Any) -> None:
    """The same with 8 firms, 50 consumers a round, capacity 20."""
    env = make_ours(ENV_ID, strategies="cost-plus", firms=8, rate=50, capacity=20, max_steps=1000)
    bench_ours_steps(
        benchmark,
        env,
        _episodes(env, "price 13.00"),
        scaled(100),
        group="bazaar-b2c-step",
        impl="agentgym (8 firms, rate 50, capacity 20)",
        variant="big market",
        unit="round",
    )


def test_bazaar_b2c_reset_agentgym(benchmark: Any) -> None:
    """``reset(seed)``: the seeded opening prices."""
    env = make_ours(ENV_ID)
    next_seed = seed_counter(1000)
    describe(
        benchmark,
        group="bazaar-b2c-reset",
        side="agentgym",
        impl="agentgym (reset)",
        unit="episode",
        primary=True,
    )
    benchmark(lambda: env.reset(seed=next_seed()))


def test_bazaar_b2c_episode_default(benchmark: Any) -> None:
    """A whole default episode (mixed rivals, 100 rounds at most) with the cost-plus price,
    reset included: what one rollout costs. ``episode_length`` is its mean length."""
    env = make_ours(ENV_ID)
    next_seed = seed_counter(0)
    lengths: list[int] = []

    def episode() -> None:
        env.reset(seed=next_seed())
        n = 0
        while True:
            n += 1
            _, _, terminated, truncated, _ = env.step("price 13.00")
            if terminated or truncated:
                break
        lengths.append(n)

    describe(
        benchmark,
        group="bazaar-b2c-episode",
        side="agentgym",
        impl="agentgym (reset + cost-plus episode, EAS at the end)",
        unit="episode",
        primary=True,
    )
    benchmark.pedantic(episode, rounds=scaled(50), warmup_rounds=1)
    benchmark.extra_info["episode_length"] = round(sum(lengths) / len(lengths), 2)
