"""Minesweeper with an exact mine-posterior oracle (``agentgym/Minesweeper-v0``).

The maths lives in :mod:`.logic` (board generation, flood reveal, exact posterior, a
brute-force reference); the env in :mod:`.env`.

>>> from agentgym.environments.games.minesweeper import MinesweeperEnv
>>> MinesweeperEnv().reset(seed=0)[0].startswith("Minesweeper 5x5")
True
"""

from agentgym.environments.games.minesweeper.env import MinesweeperEnv
from agentgym.environments.games.minesweeper.logic import (
    Posterior,
    brute_force_posterior,
    local_deduction,
    mine_posterior,
)

__all__ = [
    "MinesweeperEnv",
    "Posterior",
    "brute_force_posterior",
    "local_deduction",
    "mine_posterior",
]
