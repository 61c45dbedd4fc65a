"""Minesweeper-v0's declared kwargs (see :mod:`agentgym.config`)."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import model_validator

from agentgym.config import TextEnvConfig, setting

from ..shaping import ProcessReward
from .solver import DEFAULT_POSTERIOR_BUDGET

__all__ = ["MAX_SIDE", "PUBLIC_SIDE", "MinesweeperConfig", "max_mines"]

#: The largest board side.
MAX_SIDE = 16
#: The largest side a stranger may ask for (see :class:`MinesweeperConfig`).
PUBLIC_SIDE = 12


def max_mines(rows: int, cols: int) -> int:
    """Mines a board may hold: all but the 9 cells the first reveal keeps clear (1 on 3x3).

    >>> max_mines(5, 5), max_mines(3, 3)
    (16, 1)
    """
    return max(1, rows * cols - 9)


class MinesweeperConfig(TextEnvConfig):
    """The kwargs of :class:`~.env.MinesweeperEnv`.

    One step costs what the exact posterior of the frontier costs, which the board's side
    and ``posterior_budget`` (the oracle's work on one frontier component) bound. A
    frontier made to be hard (a loaded snapshot, or reveals planned on the board a seed
    fixes) was measured at up to 0.5 s and 40 MB at 12x12 with the default budget, but
    2-7 s and 0.3-0.4 GB at 16x16 (10-20 s and 0.55 GB with no budget to stop it). So
    strangers may ask for boards up to :data:`PUBLIC_SIDE` a side and may lower the
    budget, not raise it; the operator may set up to 16 and 10^9.

    >>> MinesweeperConfig.parse({"mines": 17})
    Traceback (most recent call last):
    ...
    ValueError: mines must be in [1, 16], got 17
    """

    rows: int = setting(5, "board rows", ge=3, le=MAX_SIDE, public_max=PUBLIC_SIDE)
    cols: int = setting(5, "board columns", ge=3, le=MAX_SIDE, public_max=PUBLIC_SIDE)
    # Bounded by the board (the validator below), not by a number of its own.
    mines: int = setting(5, "mines, 1 to rows x cols - 9 (1 on 3x3)", ge=1)
    posterior_budget: int = setting(
        DEFAULT_POSTERIOR_BUDGET,
        "work per frontier component before the exact oracle degrades to local deduction",
        ge=1, le=10**9, public_max=DEFAULT_POSTERIOR_BUDGET)
    process_reward: ProcessReward = setting(
        "progress", "progress (settled potential difference) or verdict (VPR's scores)")
    preset: Literal["vpr"] | None = setting(None, "null, or vpr: the VPR paper's setup")
    safe_reveal_reward: float = setting(2.0, "verdict for a reveal with P(mine) = 0")
    certain_flag_reward: float = setting(1.0, "verdict for a flag with P(mine) = 1")
    guess_reward: float = setting(1.0, "verdict for a lowest-P reveal when no cell is safe")
    other_reveal_reward: float = setting(0.0, "verdict for any other reveal")
    uncertain_flag_reward: float = setting(-1.0, "verdict for a flag with P(mine) < 1")
    win_reward: float = setting(1.0, "the outcome of a cleared board")
    max_steps: int | None = setting(  # type: ignore[assignment]
        None, "step budget; running out truncates; null: 2 x rows x cols", ge=1, le=100_000)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        limit = max_mines(self.rows, self.cols)
        if self.mines > limit:
            raise ValueError(f"mines must be in [1, {limit}], got {self.mines}")
        return self

    def contract(self) -> dict[str, Any]:
        """The contract's kwargs, with the default step budget filled in."""
        out = super().contract()
        if self.max_steps is None:
            out["max_steps"] = 2 * self.rows * self.cols
        return out
