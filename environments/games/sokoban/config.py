"""Sokoban-v0's declared kwargs (see :mod:`agentgym.config`)."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import model_validator

from agentgym.config import TextEnvConfig, setting

from .logic import MAX_BOXES, MAX_SIDE

__all__ = ["SokobanConfig", "max_boxes"]


def max_boxes(size: int) -> int:
    """Boxes a ``size`` board may hold: a quarter of the interior each (1-2 on 5x5, 3 above)."""
    return min(MAX_BOXES, (size - 2) ** 2 // 4)


class SokobanConfig(TextEnvConfig):
    """The kwargs of :class:`~.env.SokobanEnv`; every one is cheap, so strangers may set all."""

    size: int = setting(6, "grid side including the outer walls", ge=5, le=MAX_SIDE)
    boxes: int = setting(1, "boxes on the board (at most 2 on a 5x5 grid)", ge=1, le=MAX_BOXES)
    max_steps: int = setting(15, "step budget; running out truncates", ge=1, le=100)
    oracle: Literal["shortest", "solvable"] = setting(
        "shortest", "which moves the verdict pays: shortest-solution moves, or any that keeps "
        "a solution in reach")
    process_reward: Literal["progress", "verdict"] = setting(
        "progress", "progress (settled potential difference) or verdict (VPR's scores)")
    search_depth: int | None = setting(
        None, "null: a solution must fit the steps left; else VPR's fixed search horizon",
        ge=1, le=100)
    optimal_reward: float = setting(2.0, "verdict for a move on a shortest solution")
    legal_reward: float = setting(0.0, "verdict for another move that keeps a solution in reach")
    deadlock_penalty: float = setting(
        -2.0, "verdict for a move after which no solution is in reach", le=0)
    success_reward: float = setting(1.0, "the outcome of a solved level")
    preset: Literal["vpr"] | None = setting(None, "null, or vpr: the VPR paper's setup")
    invalid_penalty: float = setting(-2.0, "process reward of an invalid action", le=0)
    # 3 like the other games: one typo does not end an episode (and Gymnasium's check_env, whose
    # first random action is unreadable, passes); preset="vpr" keeps VPR's 1.
    max_invalid: int = setting(3, "invalid actions that end the episode, truncated",
                               ge=1, le=100_000)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        limit = max_boxes(self.size)
        if self.boxes > limit:
            raise ValueError(f"boxes must be in [1, {limit}] for size {self.size}, "
                             f"got {self.boxes}")
        if not self.deadlock_penalty <= self.legal_reward <= self.optimal_reward:
            raise ValueError(
                "the rewards must satisfy deadlock_penalty <= legal_reward <= optimal_reward, "
                f"got {self.deadlock_penalty}, {self.legal_reward}, {self.optimal_reward}"
            )
        return self
