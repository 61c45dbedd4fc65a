"""Sokoban: level generation per difficulty, step throughput and oracle scoring.

Sizes include the outer walls on every side (agentgym ``size``, gym-sokoban ``dim``,
TextArena ``dim_room`` and reasoning-gym ``min_w``/``max_w`` all count them), so "6x6" is the
same grid everywhere. gym-sokoban and TextArena take 3 s+ (up to ~17 s) per 10x10 / 3-box
room, so those two entries run only with ``AGENTGYM_BENCH_SLOW=1``.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest
from bench_common import (
    OursEpisode,
    bench_ours_steps,
    bench_score_all,
    describe,
    make_ours,
    scaled,
    seed_counter,
)
from peers import (
    TextArenaEpisode,
    bench_textarena_steps,
    gym_sokoban_room,
    peer_label,
    reasoning_gym_dataset,
    require_peer,
    textarena_sokoban_reset,
)

ENV_ID = "agentgym/Sokoban-v0"
DIFFICULTIES = [(6, 1), (8, 2), (10, 3)]
SLOW = os.environ.get("AGENTGYM_BENCH_SLOW", "") not in ("", "0")
STEPS = 3  # valid moves timed per round in the step benchmark
SEEDS = range(40)
EPISODES = 6


def _group(size: int, boxes: int) -> str:
    return f"sokoban-reset-{size}x{size}-{boxes}box"


def _slow_peer(size: int, boxes: int) -> None:
    if (size, boxes) == (10, 3) and not SLOW:
        pytest.skip("10x10 / 3-box takes seconds per room for this peer; AGENTGYM_BENCH_SLOW=1")


def _ids(diff: tuple[int, int]) -> str:
    return f"{diff[0]}x{diff[0]}-{diff[1]}box"


# ------------------------------------------------------------------------ generation
@pytest.mark.parametrize("diff", DIFFICULTIES, ids=_ids)
def test_sokoban_reset_agentgym(benchmark: Any, diff: tuple[int, int]) -> None:
    """``reset(seed)``: a generated level with a BFS-verified solution, first observation."""
    size, boxes = diff
    env = make_ours(ENV_ID, size=size, boxes=boxes)
    next_seed = seed_counter(1000)
    describe(
        benchmark,
        group=_group(size, boxes),
        side="agentgym",
        impl=f"agentgym (reset, {size}x{size}, {boxes} box)",
        unit="level",
        primary=True,
        target={"against": "gym-sokoban", "min_ratio": 100} if diff == (6, 1) else None,
    )
    obs, _ = benchmark(lambda: env.reset(seed=next_seed()))
    assert obs


@pytest.mark.parametrize("diff", DIFFICULTIES, ids=_ids)
def test_sokoban_reset_gym_sokoban(benchmark: Any, diff: tuple[int, int]) -> None:
    """gym-sokoban ``generate_room`` (its reverse-play DFS), retried until it succeeds."""
    size, boxes = diff
    _slow_peer(size, boxes)
    generate = gym_sokoban_room(size, boxes)
    describe(
        benchmark,
        group=_group(size, boxes),
        side="peer",
        impl=peer_label("gym-sokoban", f"generate_room {size}x{size}, {boxes} box"),
        peer="gym-sokoban",
        unit="level",
    )
    room, _ = benchmark(generate)
    assert int(np.sum(room == 5)) == 1  # one player


@pytest.mark.parametrize("diff", DIFFICULTIES, ids=_ids)
def test_sokoban_reset_textarena(benchmark: Any, diff: tuple[int, int]) -> None:
    """TextArena ``Sokoban-v0`` ``reset`` (its own copy of the gym-sokoban generator)."""
    size, boxes = diff
    _slow_peer(size, boxes)
    reset = textarena_sokoban_reset(size, boxes)
    next_seed = seed_counter(1000)
    describe(
        benchmark,
        group=_group(size, boxes),
        side="peer",
        impl=peer_label("textarena", f"Sokoban-v0 reset {size}x{size}, {boxes} box"),
        peer="textarena",
        variant="Sokoban-v0 reset",
        unit="level",
    )
    benchmark(lambda: reset(next_seed()))


@pytest.mark.parametrize("diff", DIFFICULTIES, ids=_ids)
def test_sokoban_reset_reasoning_gym(benchmark: Any, diff: tuple[int, int]) -> None:
    """reasoning-gym ``sokoban`` item (reverse-play generator plus an A* solution)."""
    size, boxes = diff
    dataset = reasoning_gym_dataset(
        "sokoban",
        min_w=size,
        max_w=size,
        min_h=size,
        max_h=size,
        min_boxes=boxes,
        max_boxes=boxes,
        seed=0,
        size=1_000_000,
    )
    next_index = seed_counter(0)
    describe(
        benchmark,
        group=_group(size, boxes),
        side="peer",
        impl=peer_label("reasoning-gym", f"sokoban item {size}x{size}, {boxes} box"),
        peer="reasoning-gym",
        unit="level",
    )
    item = benchmark(lambda: dataset[next_index()])
    assert item["answer"]


# ------------------------------------------------------------------------ step throughput
def test_sokoban_step_agentgym(benchmark: Any) -> None:
    """6x6 / 1 box: one move on a shortest solution; the BFS oracle scores every step."""
    env = make_ours(ENV_ID, size=6, boxes=1)
    episodes = []
    for seed in SEEDS:
        env.reset(seed=seed)
        snapshot = env.unwrapped.get_state()
        actions, terminated = [], False
        while not terminated and len(actions) < STEPS:
            best = env.unwrapped.oracle_actions()[0]
            _, _, terminated, _, _ = env.step(best)
            actions.append(best)
        if len(actions) == STEPS and not terminated:
            episodes.append(OursEpisode(snapshot, actions))
        if len(episodes) == EPISODES:
            break
    bench_ours_steps(
        benchmark,
        env,
        episodes,
        scaled(200),
        group="sokoban-step",
        impl="agentgym (gym.make, BFS oracle reward on)",
        primary=True,
    )


def _textarena_walk(seed: int) -> TextArenaEpisode | None:
    """A TextArena 6x6 / 1-box level plus ``STEPS`` legal moves that do not end the game."""
    ta = require_peer("textarena")
    env = ta.make("Sokoban-v0", dim_room=(6, 6), num_boxes=1)
    env.reset(num_players=1, seed=seed)
    rng = np.random.default_rng(seed)
    probe, actions = TextArenaEpisode(env, []).fresh(), []
    for _ in range(STEPS):
        for direction in rng.permutation(["up", "down", "left", "right"]):
            trial = TextArenaEpisode(probe, []).fresh()
            trial.get_observation()
            done, _ = trial.step(f"[{direction}]")
            inner = trial
            while hasattr(inner, "env"):
                inner = inner.env
            if not done and inner.state.error_count == 0:
                probe = trial
                actions.append(f"[{direction}]")
                break
        else:
            return None
    return TextArenaEpisode(env, actions)


def test_sokoban_step_textarena(benchmark: Any) -> None:
    """TextArena ``Sokoban-v0`` 6x6 / 1 box (default wrappers): legal moves, no oracle."""
    episodes = [ep for ep in map(_textarena_walk, SEEDS) if ep is not None][:EPISODES]
    bench_textarena_steps(
        benchmark,
        episodes,
        scaled(200),
        group="sokoban-step",
        impl=peer_label("textarena", "Sokoban-v0, default wrappers"),
    )


# ------------------------------------------------------------------------ oracle scoring
@pytest.mark.parametrize("diff", DIFFICULTIES, ids=_ids)
def test_sokoban_oracle_score_all(benchmark: Any, diff: tuple[int, int]) -> None:
    """``score_actions(every unblocked move)`` in fresh levels (BFS from each successor)."""
    size, boxes = diff
    env = make_ours(ENV_ID, size=size, boxes=boxes)
    states, legal = [], []
    for seed in range(8):
        _, info = env.reset(seed=seed)
        states.append(env.unwrapped.get_state())
        legal.append(list(info["available_actions"]))
    bench_score_all(
        benchmark,
        env,
        states,
        legal,
        scaled(100),
        group="sokoban-oracle",
        impl=f"agentgym score_actions(all legal), {size}x{size}, {boxes} box",
        primary=diff == (6, 1),
    )
