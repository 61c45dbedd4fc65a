"""Tic-tac-toe: a whole game's moves, new-game time and minimax oracle scoring.

Peer: TextArena ``TicTacToe-v0``, a two-player env. One agentgym ``step`` is the agent's move
*plus* the built-in opponent's reply, so the peer side replays the very same game with both
players' moves (9 TextArena steps for our 5). The unit on both sides is one agent move.
"""

from __future__ import annotations

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
from peers import bench_textarena_steps, peer_label, require_peer, textarena_tictactoe_episode

ENV_ID = "agentgym/TicTacToe-v0"
SEEDS = range(6)
AGENT_MOVES = 5  # X against the optimal opponent, oracle play: always a 9-move draw


def _cell(action: str) -> int:
    row, col = (int(x) for x in action.split())
    return 3 * (row - 1) + col - 1


def _ours_games(env: Any) -> tuple[list[OursEpisode], list[list[int]]]:
    """Oracle games against the optimal opponent, and each game's full move list (0-8)."""
    episodes, games = [], []
    for seed in SEEDS:
        env.reset(seed=seed)
        snapshot = env.unwrapped.get_state()
        actions, cells, terminated = [], [], False
        while not terminated:
            action = env.unwrapped.oracle_actions()[0]
            _, _, terminated, _, info = env.step(action)
            actions.append(action)
            cells.append(_cell(action))
            if info["opponent_move"]:
                cells.append(_cell(info["opponent_move"]))
        assert len(actions) == AGENT_MOVES and len(cells) == 9, (actions, cells)
        episodes.append(OursEpisode(snapshot, actions))
        games.append(cells)
    return episodes, games


def test_tictactoe_step_agentgym(benchmark: Any) -> None:
    """A whole game: 5 agent moves, each with the opponent's reply and the minimax reward."""
    env = make_ours(ENV_ID, opponent="optimal", agent_first=True)
    episodes, _ = _ours_games(env)
    bench_ours_steps(
        benchmark,
        env,
        episodes,
        scaled(300),
        group="tictactoe-step",
        impl="agentgym (gym.make, minimax reward on, opponent inside step)",
        unit="agent move",
        primary=True,
    )


def _textarena_step(benchmark: Any, raw: bool) -> None:
    env = make_ours(ENV_ID, opponent="optimal", agent_first=True)
    _, games = _ours_games(env)
    episodes = [textarena_tictactoe_episode(cells, raw=raw) for cells in games]
    variant = "-raw, no wrappers" if raw else ""
    bench_textarena_steps(
        benchmark,
        episodes,
        scaled(300),
        group="tictactoe-step",
        impl=peer_label("textarena", (variant or "default wrappers") + ", both players"),
        variant=variant,
        unit="agent move",
    )


def test_tictactoe_step_textarena(benchmark: Any) -> None:
    """TextArena ``TicTacToe-v0`` replaying the same 9-move games (default wrappers)."""
    _textarena_step(benchmark, raw=False)


def test_tictactoe_step_textarena_raw(benchmark: Any) -> None:
    """TextArena ``TicTacToe-v0-raw``: no wrappers."""
    _textarena_step(benchmark, raw=True)


def test_tictactoe_reset_agentgym(benchmark: Any) -> None:
    """``reset(seed)`` with the agent second, so the opponent's opening move is included."""
    env = make_ours(ENV_ID, opponent="optimal", agent_first=False)
    next_seed = seed_counter(1000)
    describe(
        benchmark,
        group="tictactoe-reset",
        side="agentgym",
        impl="agentgym (reset, opponent opens)",
        unit="game",
        primary=True,
    )
    benchmark(lambda: env.reset(seed=next_seed()))


def test_tictactoe_reset_textarena(benchmark: Any) -> None:
    """TextArena ``reset(num_players=2)`` (no opening move: the agent sides alternate)."""
    ta = require_peer("textarena")
    env = ta.make("TicTacToe-v0")
    next_seed = seed_counter(1000)
    describe(
        benchmark,
        group="tictactoe-reset",
        side="peer",
        impl=peer_label("textarena", "reset"),
        peer="textarena",
        unit="game",
    )
    benchmark(lambda: env.reset(num_players=2, seed=next_seed()))


def test_tictactoe_oracle_score_all(benchmark: Any) -> None:
    """``score_actions(every empty cell)`` from the positions of an oracle game."""
    env = make_ours(ENV_ID, opponent="random", agent_first=True)
    states, legal = [], []
    for seed in SEEDS:
        _, info = env.reset(seed=seed)
        for _ in range(seed % 3):
            _, _, terminated, _, info = env.step(env.unwrapped.oracle_actions()[0])
            if terminated:
                break
        if info["available_actions"]:
            states.append(env.unwrapped.get_state())
            legal.append(list(info["available_actions"]))
    bench_score_all(
        benchmark,
        env,
        states,
        legal,
        scaled(300),
        group="tictactoe-oracle",
        impl="agentgym score_actions(all legal)",
        primary=True,
    )
