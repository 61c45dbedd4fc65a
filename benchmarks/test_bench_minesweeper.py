"""Minesweeper: step throughput and new-game time on 8x8 / 10 mines (TextArena's default
``Minesweeper-v0`` board), oracle scoring and the exact mine posterior on 9x9 / 10 mines,
and the posterior on dense 16x16 / 70 boards (which is why there are two exact counters).

reasoning-gym 0.1.25 has no Minesweeper generator, so TextArena is the only peer here.
"""

from __future__ import annotations

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
    bench_textarena_steps,
    peer_label,
    require_peer,
    textarena_minesweeper_episodes,
)

from agentgym.draws import below, pick
from agentgym.environments.games.minesweeper.board import (
    flood_reveal,
    neighbour_counts,
    place_mines,
)
from agentgym.environments.games.minesweeper.env import MinesweeperEnv
from agentgym.environments.games.minesweeper.solver import mine_posterior

ENV_ID = "agentgym/Minesweeper-v0"
ROWS, COLS, MINES = 8, 8, 10  # TextArena's Minesweeper-v0 board
STEPS = 5  # safe reveals timed per round, after the first (mine-placing) reveal
SEEDS = range(16)  # spare seeds: boards with fewer than STEPS + 1 safe reveals are dropped
EPISODES = 6
STEP_ROUNDS = 200
POSTERIOR = (9, 9, 10)
POSTERIOR_TARGET_S = 0.005
DENSE = (16, 16, 70)


def _first_reveal(rows: int, cols: int) -> str:
    # The same cell TextArena's side opens first ([rows//2 cols//2] 0-based), 1-based here.
    return f"reveal {rows // 2 + 1} {cols // 2 + 1}"


def _ours_episodes(env: Any) -> list[OursEpisode]:
    """Start states after the first reveal plus ``STEPS`` P(mine)=0 reveals from the oracle."""
    episodes = []
    for seed in SEEDS:
        env.reset(seed=seed)
        _, _, terminated, _, _ = env.step(_first_reveal(ROWS, COLS))
        snapshot = env.unwrapped.get_state()
        actions = []
        while not terminated and len(actions) < STEPS:
            best = env.unwrapped.oracle_actions()
            # Only certain-safe reveals (+2), so every timed step is valid and never ends it.
            if not best or env.unwrapped.score_actions(best[:1]) != [2.0]:
                break
            _, _, terminated, _, _ = env.step(best[0])
            actions.append(best[0])
        if len(actions) == STEPS and not terminated:
            episodes.append(OursEpisode(snapshot, actions))
        if len(episodes) == EPISODES:
            return episodes
    raise RuntimeError(f"only {len(episodes)} of the seeds gave {STEPS} safe reveals")


# ------------------------------------------------------------------------ step throughput
@pytest.mark.parametrize("score_process", [True, False], ids=["oracle-on", "oracle-off"])
def test_minesweeper_step_agentgym(benchmark: Any, score_process: bool) -> None:
    """One certain-safe reveal through ``gym.make``; the exact posterior runs on every step.

    ``oracle-off`` is the like-for-like row: ``score_process=False`` skips the process reward,
    which the peer does not compute either; the game, observation and info are the same.
    """
    episodes = _ours_episodes(make_ours(ENV_ID, rows=ROWS, cols=COLS, mines=MINES))
    env = make_ours(ENV_ID, rows=ROWS, cols=COLS, mines=MINES, score_process=score_process)
    env.reset(seed=0)  # gym.make's order check wants one reset before set_state + step
    if score_process:
        row: dict[str, Any] = {
            "impl": "agentgym (gym.make, exact-posterior reward on)",
            "primary": True,
            "target": {"against": "textarena", "min_ratio": 10},
        }
    else:
        row = {
            "impl": "agentgym (gym.make, score_process=False: no process reward, like the peer)",
            "variant": "score_process=False, like for like",
            "ratio_row": True,
        }
    bench_ours_steps(benchmark, env, episodes, scaled(STEP_ROUNDS), group="minesweeper-step", **row)


def _textarena_step(benchmark: Any, raw: bool) -> None:
    episodes = textarena_minesweeper_episodes(
        SEEDS, STEPS, rows=ROWS, cols=COLS, mines=MINES, raw=raw
    )[:EPISODES]
    variant = "-raw, no wrappers" if raw else ""
    bench_textarena_steps(
        benchmark,
        episodes,
        scaled(STEP_ROUNDS),
        group="minesweeper-step",
        impl=peer_label("textarena", variant or "default wrappers"),
        variant=variant,
    )


def test_minesweeper_step_textarena(benchmark: Any) -> None:
    """TextArena ``Minesweeper-v0`` (LLM observation wrapper), numbered-cell reveals."""
    _textarena_step(benchmark, raw=False)


def test_minesweeper_step_textarena_raw(benchmark: Any) -> None:
    """TextArena ``Minesweeper-v0-raw``: no wrappers."""
    _textarena_step(benchmark, raw=True)


# ------------------------------------------------------------------------ new game
def test_minesweeper_reset_agentgym(benchmark: Any) -> None:
    """``reset(seed)`` plus the first reveal, which places the mines (as TextArena does)."""
    env = make_ours(ENV_ID, rows=ROWS, cols=COLS, mines=MINES)
    next_seed = seed_counter(1000)
    first = _first_reveal(ROWS, COLS)

    def new_game() -> float:
        env.reset(seed=next_seed())
        return env.step(first)[1]

    describe(
        benchmark,
        group="minesweeper-reset",
        side="agentgym",
        impl="agentgym (reset + first reveal)",
        unit="game",
        primary=True,
    )
    assert benchmark(new_game) == 2.0


def test_minesweeper_reset_textarena(benchmark: Any) -> None:
    """TextArena ``reset`` plus the first reveal (mines are placed on the first move)."""
    ta = require_peer("textarena")
    env = ta.make("Minesweeper-v0", rows=ROWS, cols=COLS, num_mines=MINES)
    next_seed = seed_counter(1000)
    first = f"[{ROWS // 2} {COLS // 2}]"

    def new_game() -> None:
        env.reset(num_players=1, seed=next_seed())
        env.get_observation()
        env.step(first)

    describe(
        benchmark,
        group="minesweeper-reset",
        side="peer",
        impl=peer_label("textarena", "reset + first reveal"),
        peer="textarena",
        unit="game",
    )
    benchmark(new_game)


# ------------------------------------------------------------------------ oracle
def test_minesweeper_oracle_score_all(benchmark: Any) -> None:
    """``score_actions(every legal action)`` (reveal and flag of each hidden cell), 9x9/10."""
    rows, cols, mines = POSTERIOR
    env = make_ours(ENV_ID, rows=rows, cols=cols, mines=mines)
    states, legal = [], []
    for seed in range(12):
        env.reset(seed=seed)
        _, _, terminated, _, info = env.step(_first_reveal(rows, cols))
        for _ in range(2):
            if terminated:
                break
            _, _, terminated, _, info = env.step(env.unwrapped.oracle_actions()[0])
        if not terminated:
            states.append(env.unwrapped.get_state())
            legal.append(list(info["available_actions"]))
    bench_score_all(
        benchmark,
        env,
        states,
        legal,
        scaled(200),
        group="minesweeper-oracle",
        impl="agentgym score_actions(all legal), 9x9/10",
        primary=True,
    )


def _posterior_states(
    rows: int, cols: int, mines: int, count: int, seed: int = 2024
) -> list[tuple[list[bool], list[int]]]:
    """Mid-game boards: first reveal, then 0-6 random safe reveals (fixed seed)."""
    n = rows * cols
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        first = below(rng, n)
        layout = set(place_mines(rows, cols, mines, first, rng))
        counts = neighbour_counts(rows, cols, sorted(layout))
        revealed = [False] * n
        flags = [False] * n
        for _ in range(1 + below(rng, 7)):
            safe = [i for i in range(n) if not revealed[i] and i not in layout]
            if not safe:
                break
            cell = first if not any(revealed) else pick(rng, safe)
            for j in flood_reveal(rows, cols, counts, revealed, flags, cell):
                revealed[j] = True
        if any(not revealed[i] and i not in layout for i in range(n)):
            states.append((revealed, counts))
    return states


def _oracle_play_games(rows: int, cols: int, mines: int, games: int) -> list[list[tuple]]:
    """Per oracle-played game (seeds 0 on), every state after the first reveal: late in a
    dense board's game the frontier is long and tangled."""
    env = MinesweeperEnv(rows=rows, cols=cols, mines=mines, max_steps=10_000)
    out = []
    for seed in range(games):
        env.reset(seed=seed)
        states: list[tuple[list[bool], list[int]]] = []
        done = False
        while not done:
            if env._placed:
                states.append((list(env._revealed), list(env._counts)))
            _, _, terminated, truncated, _ = env.step(env.oracle_actions()[0])
            done = terminated or truncated
        out.append(states)
    return out


def _bench_posterior(
    benchmark: Any,
    board: tuple[int, int, int],
    states: list[tuple[list[bool], list[int]]],
    method: str,
    rounds: int,
    **row: Any,
) -> None:
    rows, cols, mines = board
    order = iter(range(10**9))

    def setup() -> tuple[tuple[Any, ...], dict[str, Any]]:
        revealed, counts = states[next(order) % len(states)]
        return (rows, cols, mines, revealed, counts), {"method": method}

    degraded = sum(
        mine_posterior(rows, cols, mines, r, c, method=method).degraded for r, c in states
    )
    describe(benchmark, side="agentgym", unit="posterior", degraded=degraded, **row)
    post = benchmark.pedantic(mine_posterior, setup=setup, rounds=rounds)
    assert not post.degraded


# The two exact counters (environments/games/minesweeper/counting.py) are both kept because
# of these rows: listing alone ("bitmask") is fastest on 9x9 / 10 but blows up on dense
# 16x16 boards (7x slower over a game there, single states take 0.1-0.2 s); counting alone
# ("transfer") is 2-3x slower on 9x9 / 10 and cannot extend listed layouts between steps,
# which minesweeper-step's oracle-on row relies on. "auto" is the env's default.
@pytest.mark.parametrize("method", ["auto", "bitmask", "transfer"])
def test_minesweeper_posterior(benchmark: Any, method: str) -> None:
    """``mine_posterior`` (exact, all hidden cells) on 40 mid-game 9x9 / 10-mine boards."""
    row: dict[str, Any] = {"impl": f"agentgym mine_posterior, 9x9/10, method={method}"}
    if method == "auto":
        row.update(primary=True, target={"max_median_s": POSTERIOR_TARGET_S})
    else:
        row["variant"] = f"method={method}"
    states = _posterior_states(*POSTERIOR, 40)
    _bench_posterior(
        benchmark, POSTERIOR, states, method, scaled(400), group="minesweeper-posterior", **row
    )


@pytest.mark.parametrize("method", ["auto", "bitmask", "transfer"])
def test_minesweeper_posterior_dense(benchmark: Any, method: str) -> None:
    """``mine_posterior`` of every state of 20 oracle-played 16x16 / 70-mine games (~1,100
    states) per round: the rare states with 10^5 layouts, where listing alone blows up,
    weigh in as they do over a game."""
    rows, cols, mines = DENSE
    states = [state for game in _oracle_play_games(rows, cols, mines, 20) for state in game]

    def every_state() -> bool:
        return any(
            mine_posterior(rows, cols, mines, r, c, method=method).degraded for r, c in states
        )

    row: dict[str, Any] = {"impl": f"agentgym mine_posterior, 16x16/70 games, method={method}"}
    if method == "auto":
        row["primary"] = True
    else:
        row["variant"] = f"method={method}"
    describe(
        benchmark,
        group="minesweeper-posterior-dense",
        side="agentgym",
        unit="posterior",
        per_round=len(states),
        **row,
    )
    assert not benchmark.pedantic(every_state, rounds=scaled(3))
