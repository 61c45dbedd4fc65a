"""Sudoku with the VPR forced-cell / fewest-candidates process verifier.

``logic`` holds the pure maths (generation, uniqueness, candidates, oracle cells); ``env``
holds :class:`SudokuEnv`, registered as ``agentgym/Sudoku-v0``.

>>> from agentgym.environments.games.sudoku import SudokuEnv
>>> obs, info = SudokuEnv(size=4).reset(seed=0)
>>> "Sudoku 4x4" in obs
True
"""

from agentgym.environments.games.sudoku.env import SudokuEnv

__all__ = ["SudokuEnv"]
