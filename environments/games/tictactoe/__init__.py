"""Tic-tac-toe against a built-in opponent, scored by exact minimax (``agentgym/TicTacToe-v0``).

:mod:`.logic` holds the pure game maths (boards, winner, memoised minimax, opponents);
:mod:`.env` holds :class:`TicTacToeEnv`.

>>> import gymnasium as gym
>>> import agentgym
>>> env = gym.make("agentgym/TicTacToe-v0", opponent="optimal")
>>> obs, info = env.reset(seed=0)
>>> env.unwrapped.oracle_actions()[4]
'2 2'
"""

from .env import TicTacToeEnv

__all__ = ["TicTacToeEnv"]
