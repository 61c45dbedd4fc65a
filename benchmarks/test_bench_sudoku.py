"""Sudoku 9x9, 40 blanks: step throughput, puzzle generation and oracle scoring.

Peers: TextArena ``Sudoku-v0`` (``clues=41``, i.e. 40 blanks) and reasoning-gym ``sudoku``
(``min_empty = max_empty = 40``). Run with ``scripts/bench.sh`` or
``pytest benchmarks/test_bench_sudoku.py --benchmark-only``.
"""

from __future__ import annotations

from typing import Any

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
    bench_textarena_steps,
    peer_label,
    reasoning_gym_dataset,
    require_peer,
    textarena_sudoku_episodes,
)

ENV_ID = "agentgym/Sudoku-v0"
BLANKS = 40
STEPS = 30  # correct placements timed per round, on both sides
SEEDS = range(6)
STEP_ROUNDS = 150


def _ours_episodes(env: Any) -> list[OursEpisode]:
    """Start states plus ``STEPS`` oracle-chosen correct placements from each."""
    episodes = []
    for seed in SEEDS:
        env.reset(seed=seed)
        snapshot = env.unwrapped.get_state()
        actions = []
        for _ in range(STEPS):
            action = env.unwrapped.oracle_actions()[0]
            _, reward, terminated, _, info = env.step(action)
            assert info["valid_action"] and reward > 0 and not terminated, (action, reward)
            actions.append(action)
        episodes.append(OursEpisode(snapshot, actions))
    return episodes


# ------------------------------------------------------------------------ step throughput
@pytest.mark.parametrize("score_process", [True, False], ids=["oracle-on", "oracle-off"])
def test_sudoku_step_agentgym(benchmark: Any, score_process: bool) -> None:
    """One correct placement through ``gym.make`` (oracle process reward always computed).

    ``oracle-off`` is the like-for-like row: ``score_process=False`` skips the process reward,
    which the peer does not compute either; the game, observation and info are the same.
    """
    episodes = _ours_episodes(make_ours(ENV_ID, blanks=BLANKS))
    env = make_ours(ENV_ID, blanks=BLANKS, score_process=score_process)
    env.reset(seed=0)  # gym.make's order check wants one reset before set_state + step
    if score_process:
        row: dict[str, Any] = {
            "impl": "agentgym (gym.make, oracle reward on)",
            "primary": True,
            "target": {"against": "textarena", "min_ratio": 10},
        }
    else:
        row = {
            "impl": "agentgym (gym.make, score_process=False: no process reward, like the peer)",
            "variant": "score_process=False, like for like",
            "ratio_row": True,
        }
    bench_ours_steps(benchmark, env, episodes, scaled(STEP_ROUNDS), group="sudoku-step", **row)


def _textarena_step(benchmark: Any, raw: bool) -> None:
    episodes = textarena_sudoku_episodes(SEEDS, STEPS, clues=81 - BLANKS, raw=raw)
    variant = "-raw, no wrappers" if raw else ""
    bench_textarena_steps(
        benchmark,
        episodes,
        scaled(STEP_ROUNDS),
        group="sudoku-step",
        impl=peer_label("textarena", variant or "default wrappers"),
        variant=variant,
    )


def test_sudoku_step_textarena(benchmark: Any) -> None:
    """TextArena ``Sudoku-v0`` as made by ``ta.make`` (LLM observation wrapper)."""
    _textarena_step(benchmark, raw=False)


def test_sudoku_step_textarena_raw(benchmark: Any) -> None:
    """TextArena ``Sudoku-v0-raw``: no wrappers, its cheapest possible step."""
    _textarena_step(benchmark, raw=True)


# ------------------------------------------------------------------------ generation
def test_sudoku_reset_agentgym(benchmark: Any) -> None:
    """``reset(seed)``: a unique-solution 9x9 puzzle with 40 blanks, first observation."""
    env = make_ours(ENV_ID, blanks=BLANKS)
    next_seed = seed_counter(1000)
    describe(
        benchmark,
        group="sudoku-reset",
        side="agentgym",
        impl="agentgym (reset, 40 blanks)",
        unit="puzzle",
        primary=True,
    )
    obs, _ = benchmark(lambda: env.reset(seed=next_seed()))
    assert obs.count(".") >= BLANKS


def test_sudoku_reset_textarena(benchmark: Any) -> None:
    """TextArena ``reset``: full grid, then clue removal with a uniqueness check (41 clues)."""
    textarena = require_peer("textarena")
    env = textarena.make("Sudoku-v0", clues=81 - BLANKS)
    next_seed = seed_counter(1000)
    describe(
        benchmark,
        group="sudoku-reset",
        side="peer",
        impl=peer_label("textarena", "reset, clues=41"),
        peer="textarena",
        unit="puzzle",
    )
    benchmark(lambda: env.reset(num_players=1, seed=next_seed()))


def test_sudoku_reset_reasoning_gym(benchmark: Any) -> None:
    """reasoning-gym ``sudoku`` item (puzzle with 40 empty cells, question, answer)."""
    dataset = reasoning_gym_dataset(
        "sudoku", min_empty=BLANKS, max_empty=BLANKS, seed=0, size=1_000_000
    )
    next_index = seed_counter(0)
    describe(
        benchmark,
        group="sudoku-reset",
        side="peer",
        impl=peer_label("reasoning-gym", "sudoku item, 40 empty"),
        peer="reasoning-gym",
        unit="puzzle",
    )
    item = benchmark(lambda: dataset[next_index()])
    assert item["metadata"]["num_empty"] == BLANKS


# ------------------------------------------------------------------------ oracle scoring
def test_sudoku_oracle_score_all(benchmark: Any) -> None:
    """``score_actions(every legal action)`` in mid-game states (10 placements in)."""
    env = make_ours(ENV_ID, blanks=BLANKS)
    states, legal = [], []
    for seed in SEEDS:
        _, info = env.reset(seed=seed)
        for _ in range(10):
            _, _, _, _, info = env.step(env.unwrapped.oracle_actions()[0])
        states.append(env.unwrapped.get_state())
        legal.append(list(info["available_actions"]))
    bench_score_all(
        benchmark,
        env,
        states,
        legal,
        scaled(200),
        group="sudoku-oracle",
        impl="agentgym score_actions(all legal)",
        primary=True,
    )


# A unique puzzle with no naked single but hidden singles (tests/games/test_sudoku.py checks
# it by hand), and Arto Inkala's, which has no single of either kind: the states where the
# oracle must look past the candidate-count histogram.
NO_NAKED_SINGLE = (
    ".6.74.52.52......49..51......7.....5..91754.6.4.6.3....52.....83.....7.9..6.5.1.."
)
NO_SINGLE = (
    "8........" "..36....." ".7..9.2.." ".5...7..." "....457.."
    "...1...3." "..1....68" "..85...1." ".9....4.."
)  # fmt: skip


@pytest.mark.parametrize("oracle", ["singles", "naked"])
def test_sudoku_oracle_score_all_without_naked_singles(benchmark: Any, oracle: str) -> None:
    """``score_actions(every legal action)`` where no cell has one candidate.

    The singles oracle answers from the per-digit candidate bitboards it keeps up to date
    (three ANDs per action, one cached scan of the units per state); ``naked`` is VPR's rule.
    """
    env = make_ours(ENV_ID, oracle=oracle)
    states, legal = [], []
    for puzzle in (NO_NAKED_SINGLE, NO_SINGLE):
        _, info = env.reset(seed=0, options={"puzzle": puzzle})
        states.append(env.unwrapped.get_state())
        legal.append(list(info["available_actions"]))
    bench_score_all(
        benchmark,
        env,
        states,
        legal,
        scaled(200),
        group="sudoku-oracle-no-naked-single",
        impl=f"agentgym score_actions(all legal), oracle={oracle}",
        variant="" if oracle == "singles" else "oracle=naked (VPR)",
        primary=oracle == "singles",
    )
