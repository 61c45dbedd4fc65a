"""Minesweeper with an exact mine-posterior oracle (``agentgym/Minesweeper-v0``).

One concept per module: :mod:`.board` (neighbours, mine placement, the flood of a reveal),
:mod:`.posterior` (the answer type), :mod:`.counting` (one frontier component's layouts,
counted exactly), :mod:`.combine` (components into one posterior), :mod:`.solver` (the
posterior kept up to date as cells open, and :func:`mine_posterior`), :mod:`.deduction`
(the sound fallback when the count runs out of budget) and :mod:`.env` (the text env).

>>> from agentgym.environments.games.minesweeper import MinesweeperEnv
>>> MinesweeperEnv().reset(seed=0)[0].startswith("Minesweeper 5x5")
True
"""

from agentgym.environments.games.minesweeper.deduction import local_deduction
from agentgym.environments.games.minesweeper.env import PRESETS, MinesweeperEnv
from agentgym.environments.games.minesweeper.posterior import Posterior
from agentgym.environments.games.minesweeper.solver import PosteriorSolver, mine_posterior

__all__ = [
    "PRESETS",
    "MinesweeperEnv",
    "Posterior",
    "PosteriorSolver",
    "local_deduction",
    "mine_posterior",
]
