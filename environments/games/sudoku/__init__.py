"""Sudoku with a forced-cell / fewest-candidates process verifier (after VPR).

``logic`` holds the pure maths (generation, uniqueness, candidates, oracle cells); ``env``
holds :class:`SudokuEnv`, registered as ``agentgym/Sudoku-v0``.

>>> from agentgym.environments.games.sudoku import SudokuEnv
>>> obs, info = SudokuEnv(size=4).reset(seed=0)
>>> obs.splitlines()[0]
'    1 2   3 4'
"""

from agentgym.environments.games.sudoku.env import SudokuEnv

__all__ = ["SudokuEnv"]
