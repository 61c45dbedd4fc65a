"""Registers every agentgym id with Gymnasium when :mod:`agentgym` is imported.

One table, so ``agentgym list``, the conformance suite and the docs all read the same ids.

>>> import gymnasium as gym
>>> import agentgym
>>> "agentgym/Sokoban-v0" in gym.registry
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym


@dataclass(frozen=True)
class EnvEntry:
    """One registered environment: its id, where its class lives and what it is."""

    id: str
    entry_point: str
    family: str
    summary: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    #: Extra kwarg sets the conformance suite also checks (difficulties, modes).
    variants: tuple[dict[str, Any], ...] = ()


ENVIRONMENTS: tuple[EnvEntry, ...] = (
    EnvEntry(
        "agentgym/Sokoban-v0",
        "agentgym.environments.games.sokoban.env:SokobanEnv",
        "games",
        "push boxes onto goals; BFS shortest-path oracle (kwargs: size, boxes, max_steps, oracle)",
        variants=({"size": 8, "boxes": 2}, {"oracle": "solvable"}),
    ),
    EnvEntry(
        "agentgym/Sudoku-v0",
        "agentgym.environments.games.sudoku.env:SudokuEnv",
        "games",
        "fill a unique-solution grid; forced-cell / fewest-candidates oracle "
        "(kwargs: size, blanks)",
        variants=({"size": 4},),
    ),
    EnvEntry(
        "agentgym/Minesweeper-v0",
        "agentgym.environments.games.minesweeper.env:MinesweeperEnv",
        "games",
        "clear the board; exact mine-posterior oracle (kwargs: rows, cols, mines)",
        variants=({"rows": 9, "cols": 9, "mines": 10},),
    ),
    EnvEntry(
        "agentgym/TicTacToe-v0",
        "agentgym.environments.games.tictactoe.env:TicTacToeEnv",
        "games",
        "beat a built-in opponent; minimax oracle (kwargs: opponent)",
        variants=({"opponent": "random"},),
    ),
    EnvEntry(
        "agentgym/WebShop-v0",
        "agentgym.environments.webshop.env:WebShopEnv",
        "webshop",
        "buy the product an instruction asks for; WebShop reward + potential-based process "
        "reward (kwargs: mode=text|browser, split, num_products, max_steps, gamma)",
        variants=(
            {"num_products": 2000, "split": "train"},
            {"num_products": 2000, "gamma": 0.9, "max_steps": 8},
            {"mode": "browser", "num_products": 2000},
        ),
    ),
)

__all__ = ["ENVIRONMENTS", "EnvEntry", "env_ids", "register_all"]


def env_ids() -> list[str]:
    """Every agentgym id, in registration order."""
    return [entry.id for entry in ENVIRONMENTS]


def register_all() -> None:
    """Register the table with Gymnasium; safe to call more than once."""
    for entry in ENVIRONMENTS:
        if entry.id in gym.registry:
            continue
        # No TimeLimit or order-enforcing wrapper: each env owns its step budget, and the
        # passive checker stays on so misuse is reported.
        gym.register(
            id=entry.id,
            entry_point=entry.entry_point,
            kwargs=dict(entry.kwargs),
            disable_env_checker=False,
            order_enforce=True,
        )
