"""Negotiation: steps of random offers, new-episode time, and the oracle's scoring.

Peer: TextArena ``SimpleNegotiation-v0`` (two players trading resources, 10 turns, default
wrappers), stepped with random ``[Offer: ...]`` / ``[Deny]`` actions as TextArena's own loop
does. Our side: ``agentgym/Negotiation-v0`` with random grid offers against the ``tough``
counterparty over 10 rounds; the offers are redrawn (untimed, seeded) until the counterparty
turns each one down, so every timed round is 10 full steps like the peer's 10 turns. One of
our steps is the agent's offer *plus* the counterparty's reply and the per-offer checks;
ours runs with process rewards on and with ``score_process=False``.
"""

from __future__ import annotations

import random
from typing import Any

from bench_common import (
    OursEpisode,
    bench_ours_steps,
    bench_score_all,
    describe,
    make_ours,
    scaled,
    seed_counter,
)
from peers import TextArenaEpisode, bench_textarena_steps, peer_label, require_peer

ENV_ID = "agentgym/Negotiation-v0"
SEEDS = range(8)
TURNS = 10  # TextArena SimpleNegotiation-v0's max_turns; our max_rounds
RESOURCES = ("Wheat", "Wood", "Sheep", "Brick", "Ore")


def _ours_episodes(env: Any) -> list[OursEpisode]:
    """Per seed, 10 random grid offers the tough counterparty turns down (the 10th ends it)."""
    episodes = []
    picker = random.Random(0)  # the benchmark's own choice of actions, not the env's
    for seed in SEEDS:
        _, start_info = env.reset(seed=seed)
        snapshot = env.unwrapped.get_state()
        actions: list[str] = []
        while len(actions) < TURNS:
            env.unwrapped.set_state(snapshot)
            info = start_info
            for action in actions:
                info = env.step(action)[4]
            candidate = picker.choice([a for a in info["available_actions"] if "offer" in a])
            _, _, terminated, _, info = env.step(candidate)
            if not terminated or (len(actions) == TURNS - 1 and not info["deal"]):
                actions.append(candidate)
        episodes.append(OursEpisode(snapshot, actions))
    return episodes


def _ours_step(benchmark: Any, score_process: bool) -> None:
    env = make_ours(ENV_ID, opponent="tough", max_rounds=TURNS, score_process=score_process)
    episodes = _ours_episodes(env)
    bench_ours_steps(
        benchmark,
        env,
        episodes,
        scaled(300),
        group="negotiation-step",
        impl="agentgym (gym.make, counterparty inside step, "
        + ("per-offer checks on)" if score_process else "score_process=False)"),
        unit="step",
        primary=score_process,
        episode_length=TURNS,
    )


def test_negotiation_step_agentgym(benchmark: Any) -> None:
    """10 random offers, each with the tough counterparty's counter-offer and the checks."""
    _ours_step(benchmark, score_process=True)


def test_negotiation_step_agentgym_no_process(benchmark: Any) -> None:
    """The same episodes with ``score_process=False`` (the checks' scoring skipped)."""
    _ours_step(benchmark, score_process=False)


def _textarena_episodes() -> list[TextArenaEpisode]:
    ta = require_peer("textarena")
    picker = random.Random(0)
    episodes = []
    for seed in SEEDS:
        env = ta.make("SimpleNegotiation-v0")
        env.reset(num_players=2, seed=seed)
        actions = []
        for _ in range(TURNS):
            if picker.random() < 0.2:
                actions.append("[Deny]")
                continue
            give, want = picker.sample(RESOURCES, 2)
            actions.append(
                f"[Offer: {picker.randint(1, 3)} {give} -> {picker.randint(1, 3)} {want}]"
            )
        episodes.append(TextArenaEpisode(env, actions))
    return episodes


def test_negotiation_step_textarena(benchmark: Any) -> None:
    """TextArena ``SimpleNegotiation-v0`` (default wrappers): 10 random offers / denials."""
    bench_textarena_steps(
        benchmark,
        _textarena_episodes(),
        scaled(300),
        group="negotiation-step",
        impl=peer_label("textarena", "SimpleNegotiation-v0, default wrappers, random offers"),
    )


def test_negotiation_reset_agentgym(benchmark: Any) -> None:
    """``reset(seed)``: the values, role and counterparty drawn from the seed."""
    env = make_ours(ENV_ID, role="random", opponent="any")
    next_seed = seed_counter(1000)
    describe(
        benchmark,
        group="negotiation-reset",
        side="agentgym",
        impl="agentgym (reset)",
        unit="episode",
        primary=True,
    )
    benchmark(lambda: env.reset(seed=next_seed()))


def test_negotiation_reset_textarena(benchmark: Any) -> None:
    """TextArena ``reset(num_players=2)``: resources and values drawn."""
    ta = require_peer("textarena")
    env = ta.make("SimpleNegotiation-v0")
    next_seed = seed_counter(1000)
    describe(
        benchmark,
        group="negotiation-reset",
        side="peer",
        impl=peer_label("textarena", "reset"),
        peer="textarena",
        unit="episode",
    )
    benchmark(lambda: env.reset(num_players=2, seed=next_seed()))


def test_negotiation_oracle_score_all(benchmark: Any) -> None:
    """``score_actions(every listed action)`` (35 offers, accept, reject) mid-episode."""
    env = make_ours(ENV_ID, opponent="tough")
    states, legal = [], []
    for seed in SEEDS:
        env.reset(seed=seed)
        _, _, _, _, info = env.step("offer(10)")
        states.append(env.unwrapped.get_state())
        legal.append(list(info["available_actions"]))
    bench_score_all(
        benchmark,
        env,
        states,
        legal,
        scaled(300),
        group="negotiation-oracle",
        impl="agentgym (score_actions, per-offer checks)",
        primary=True,
    )
