"""TicTacToe-v0's declared kwargs (see :mod:`agentgym.config`)."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import model_validator

from agentgym.config import TextEnvConfig, setting

__all__ = ["TicTacToeConfig"]

AgentFirst = Literal[True, False, "random"]


class TicTacToeConfig(TextEnvConfig):
    """The kwargs of :class:`~.env.TicTacToeEnv`; the game is 3x3 whatever they say, so
    strangers may set all of them.

    >>> TicTacToeConfig.parse({"agent_first": 1})
    Traceback (most recent call last):
    ...
    ValueError: agent_first must be one of (True, False, 'random'), got 1
    """

    opponent: Literal["random", "optimal"] = setting(
        "random", "random: a uniformly random empty cell; optimal: minimax, never loses")
    agent_first: AgentFirst = setting(
        True, "true: the agent is X and opens; false: the opponent opens; random: per episode")
    optimal_reward: float = setting(
        0.0, "process reward of a move that keeps the minimax value (> legal_reward)")
    legal_reward: float = setting(-1.0, "process reward of any other legal move")
    success_reward: float = setting(1.0, "the outcome of a successful game")
    preset: Literal["vpr"] | None = setting(None, "null, or vpr: the VPR paper's setup")
    max_steps: int = setting(9, "step budget; running out truncates", ge=1, le=100_000)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.optimal_reward <= self.legal_reward:
            raise ValueError(
                f"optimal_reward ({self.optimal_reward}) must be larger than legal_reward "
                f"({self.legal_reward}), or the oracle would not be the best move"
            )
        return self
