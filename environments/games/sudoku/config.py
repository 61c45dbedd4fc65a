"""Sudoku-v0's declared kwargs (see :mod:`agentgym.config`)."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import model_validator

from agentgym.config import TextEnvConfig, setting

from .logic import blank_range

__all__ = ["SudokuConfig"]

_RULE = "reward_forced >= reward_mrv > reward_other > reward_wrong"


class SudokuConfig(TextEnvConfig):
    """The kwargs of :class:`~.env.SudokuEnv`. Every one is cheap (a 9x9 puzzle with the
    most blanks is made in milliseconds), so strangers may set all of them.

    >>> SudokuConfig.parse({"size": 4, "blanks": 13})
    Traceback (most recent call last):
    ...
    ValueError: blanks must be in [1, 12], got 13
    """

    size: Literal[4, 9] = setting(9, "grid side: 4 (2x2 boxes) or 9 (3x3 boxes)")
    blanks: int | None = setting(
        None, "empty cells, 1-12 on 4x4 and 1-56 on 9x9; null: 8 or 40", ge=1,
        le=blank_range(9)[1])
    max_steps: int = setting(100, "step budget; running out truncates", ge=1, le=1000)
    oracle: Literal["singles", "naked"] = setting(
        "singles", "forced cells: naked and hidden singles, or naked singles only (VPR)")
    wrong_digit_ends: bool = setting(
        True, "a wrong digit ends the episode, lost; false: it is not written and play goes on")
    max_wrong: int = setting(
        3, "with wrong_digit_ends=false, the wrong digit that loses the game", ge=1, le=1000)
    repeats_are_wrong: bool = setting(
        False, "a digit its row, column or box already holds is a wrong digit, not invalid")
    reward_forced: float = setting(2.0, "process reward of the correct digit in a forced cell")
    reward_mrv: float = setting(
        1.0, "process reward of the correct digit in a fewest-candidates cell, none forced")
    reward_other: float = setting(0.5, "process reward of any other correct digit")
    reward_wrong: float = setting(-1.0, "process reward of a digit the solution does not have")
    preset: Literal["vpr"] | None = setting(None, "null, or vpr: the VPR paper's setup")

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        low, high = blank_range(self.size)
        if self.blanks is not None and not low <= self.blanks <= high:
            raise ValueError(f"blanks must be in [{low}, {high}], got {self.blanks}")
        if not self.reward_forced >= self.reward_mrv > self.reward_other > self.reward_wrong:
            raise ValueError(
                f"rewards must satisfy {_RULE}, got {self.reward_forced}, {self.reward_mrv}, "
                f"{self.reward_other}, {self.reward_wrong}"
            )
        return self
