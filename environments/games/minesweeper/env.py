"""Minesweeper as a text env, scored by the exact mine posterior.

The agent reveals or flags cells on a grid. Every action is scored in the state before it
runs against P(mine) of each hidden cell, computed exactly (see
:func:`~agentgym.environments.games.minesweeper.logic.mine_posterior`):

==========================================================  =======  =======================
action                                                      process  effect
==========================================================  =======  =======================
reveal a cell with P(mine) = 0                              +2       opens it (flood on 0)
reveal a lowest-P cell when no hidden cell has P = 0        +1       may hit a mine
any other reveal                                            0        may hit a mine
flag a cell with P(mine) = 1                                +1       marks it
flag a cell with P(mine) < 1 (not certainly a mine)         -1       episode ends, failure
invalid (unparseable, off the board, revealed or flagged    0        nothing; counted in
cell, flag on a flag)                                                ``info``
==========================================================  =======  =======================

Revealing a mine ends the episode (outcome 0). Revealing every safe cell wins (outcome 1).
Running out of steps (invalid actions included) ends it with outcome 0.

The board is fair by construction: the mines are placed from the episode generator at the
first reveal, outside that cell and (when the board has room) its neighbours, so the first
reveal always scores +2 and opens an area. Flags are never taken as knowledge by the oracle;
they can only be placed on certain mines anyway, because a wrong flag ends the episode, so
there is no "unflag" action.

>>> import gymnasium as gym
>>> import agentgym
>>> env = gym.make("agentgym/Minesweeper-v0")
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step("<action>reveal 3 3</action>")
>>> reward, info["valid_action"], info["oracle_degraded"]
(2.0, True, False)
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import numpy as np

from agentgym.core import Outcome, TextEnv, check_range

from .logic import (
    DEFAULT_POSTERIOR_BUDGET,
    Posterior,
    flood_reveal,
    mine_posterior,
    neighbour_counts,
    place_mines,
)

__all__ = ["MinesweeperEnv"]

_REVEAL_WORDS = frozenset({"reveal", "r", "open", "o", "click", "dig", "uncover"})
_FLAG_WORDS = frozenset({"flag", "f", "mark"})
# Words a model may put around the coordinates without changing their meaning.
_FILLER_WORDS = frozenset({"row", "col", "column", "cell", "at"})
_SEPARATORS = re.compile(r"[\s,;()\[\]{}:=]+")
_NUMBER = re.compile(r"[0-9]+")
_FORMAT = "use 'reveal ROW COL' or 'flag ROW COL' with 1-based numbers, e.g. 'reveal 2 3'"

_PLAYING = "playing"


class MinesweeperEnv(TextEnv):
    """Clear a Minesweeper board; each action is scored by the exact mine posterior.

    Keyword arguments: ``rows`` and ``cols`` (3..16, default 5), ``mines`` (1..rows*cols-9,
    at least 1; default 5), ``max_steps`` (default ``2 * rows * cols``), ``posterior_budget``
    (search nodes per frontier component before the oracle degrades to local deduction),
    ``reward_mode`` and ``render_mode``.

    Actions (1-based, case-insensitive): ``reveal R C`` and ``flag R C``; ``r``/``open`` and
    ``f``/``mark`` are accepted as verbs, as are commas, parentheses and ``row``/``col``
    words (``reveal (3, 4)``, ``R 3 4``, ``flag row 2 col 5``).

    ``info`` extras on every step: ``oracle_degraded`` (the posterior that scored this step
    came from local deduction), ``safe_cells_left`` and ``p_mine`` (P(mine) of the acted cell
    before the action; ``None`` for invalid actions).

    >>> env = MinesweeperEnv(rows=4, cols=4, mines=3)
    >>> obs, info = env.reset(seed=1)
    >>> env.oracle_actions()[:2]
    ['reveal 1 1', 'reveal 1 2']
    >>> env.score_actions(["reveal 1 1", "flag 1 1", "nonsense"])
    [2.0, -1.0, 0.0]
    """

    verifier_name: ClassVar[str] = "minesweeper-exact-posterior"
    verifier_version: ClassVar[str] = "1"

    def __init__(
        self,
        *,
        rows: int = 5,
        cols: int = 5,
        mines: int = 5,
        max_steps: int | None = None,
        posterior_budget: int = DEFAULT_POSTERIOR_BUDGET,
        reward_mode: str = "both",
        render_mode: str | None = None,
    ) -> None:
        super().__init__(reward_mode=reward_mode, render_mode=render_mode)
        self.rows = check_range("rows", rows, 3, 16)
        self.cols = check_range("cols", cols, 3, 16)
        # Leaving 9 cells free lets the first reveal's 3x3 neighbourhood stay clear; a 3x3
        # board still gets its one mine (then only the first cell is kept clear).
        self.mines = check_range("mines", mines, 1, max(1, self.rows * self.cols - 9))
        n = self.rows * self.cols
        self.max_steps = check_range(
            "max_steps", 2 * n if max_steps is None else max_steps, 1, 100_000
        )
        self.posterior_budget = check_range("posterior_budget", posterior_budget, 1, 10**9)
        self._n = n
        self._placed = False
        self._mine_cells: list[int] = []
        self._is_mine = [False] * n
        self._counts = [0] * n
        self._revealed = [False] * n
        self._flags = [False] * n
        self._status = _PLAYING
        self._last_cell = -1
        self._cache: tuple[Posterior, bool, int] | None = None

    # ------------------------------------------------------------------ Gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        obs, info = super().reset(seed=seed, options=options)
        # Same extras as every step, so a consumer can read them without a key check.
        info.update(oracle_degraded=False, safe_cells_left=self._safe_left(), p_mine=None)
        return obs, info

    def oracle_actions(self) -> list[str]:
        """Every legal action with the top score, in :meth:`_legal_actions` order.

        Certain-safe reveals (+2) when there are any; otherwise certain-mine flags and the
        lowest-P reveals (+1 each).
        """
        self._require_started()
        if self._done or self._status != _PLAYING:
            return []
        moves = [
            (kind, cell)
            for kind in ("reveal", "flag")
            for cell in range(self._n)
            if not self._revealed[cell] and not self._flags[cell]
        ]
        scores = [self._process(kind, cell) for kind, cell in moves]
        if not scores:
            return []
        top = max(scores)
        return [self._action(*m) for m, s in zip(moves, scores, strict=True) if s == top]

    def posterior(self) -> Posterior:
        """The oracle's P(mine) for every cell in the current state (all 0 before the first
        reveal, which is always safe)."""
        self._require_started()
        return self._oracle()[0]

    # ------------------------------------------------------------------ hooks
    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        # Nothing is drawn yet: the mines are placed at the first reveal, from this same rng.
        n = self._n
        self._placed = False
        self._mine_cells = []
        self._is_mine = [False] * n
        self._counts = [0] * n
        self._revealed = [False] * n
        self._flags = [False] * n
        self._status = _PLAYING
        self._last_cell = -1
        self._cache = None

    def _observe(self) -> str:
        width = len(str(self.cols)) + 1
        label = len(str(self.rows))
        show_mines = self._status != _PLAYING
        lines = [
            f"Minesweeper {self.rows}x{self.cols} with {self.mines} mines. "
            f"Flags placed: {sum(self._flags)}. Safe cells left to reveal: {self._safe_left()}. "
            f"Steps left: {max(0, self.max_steps - self.steps)}.",
            "",
            " " * (label + 1) + "".join(str(c + 1).rjust(width) for c in range(self.cols)),
        ]
        for r in range(self.rows):
            row = []
            for c in range(self.cols):
                i = r * self.cols + c
                if self._revealed[i]:
                    sym = str(self._counts[i]) if self._counts[i] else "."
                elif self._flags[i]:
                    sym = "F"
                elif show_mines and self._is_mine[i]:
                    sym = "*"
                else:
                    sym = "#"
                row.append(sym.rjust(width))
            lines.append(str(r + 1).rjust(label) + " " + "".join(row))
        lines += [
            "",
            "Legend: # hidden, F flagged, . revealed with no mine around it, 1-8 revealed "
            "with that many mines among its 8 neighbours, * mine (shown when the game ends).",
        ]
        lines.append(self._status_line())
        return "\n".join(lines)

    def _status_line(self) -> str:
        if self._status == _PLAYING:
            return (
                "Reveal every cell without a mine. Actions: 'reveal ROW COL' opens a cell, "
                "'flag ROW COL' marks a cell you are certain is a mine (a wrong flag ends the "
                "game). Rows and columns count from 1. Answer like <action>reveal 2 3</action>."
            )
        r, c = divmod(self._last_cell, self.cols)
        where = f"row {r + 1}, column {c + 1}"
        return {
            "won": "Game over: every safe cell is revealed. You win.",
            "mine": f"Game over: you revealed a mine at {where}.",
            "wrong_flag": f"Game over: you flagged {where}, which was not certain to be a mine.",
            "out_of_steps": "Game over: no steps left.",
        }.get(self._status, "Game over.")

    def _legal_actions(self) -> list[str] | None:
        if self._status != _PLAYING:
            return []
        open_cells = [i for i in range(self._n) if not self._revealed[i] and not self._flags[i]]
        return [self._action(kind, i) for kind in ("reveal", "flag") for i in open_cells]

    def _parse(self, text: str) -> tuple[Any, str]:
        if self._status != _PLAYING:
            return None, "the game is over"
        cleaned = text.strip().lower().rstrip(".!")
        tokens = [t for t in _SEPARATORS.split(cleaned) if t]
        if not tokens:
            return None, f"empty action; {_FORMAT}"
        verb, rest = tokens[0], [t for t in tokens[1:] if t not in _FILLER_WORDS]
        if verb in _REVEAL_WORDS:
            kind = "reveal"
        elif verb in _FLAG_WORDS:
            kind = "flag"
        else:
            return None, f"unknown command {verb[:20]!r}; {_FORMAT}"
        if len(rest) != 2 or not all(_NUMBER.fullmatch(t) for t in rest):
            shown = " ".join(rest)[:40]
            return None, f"expected two whole numbers ROW COL after {kind!r}, got {shown!r}; " + (
                _FORMAT
            )
        # Compared as text first so a 10,000-digit "number" is never turned into an int.
        if any(len(t.lstrip("0")) > 3 for t in rest):
            return None, f"row and column must be in 1..{self.rows} and 1..{self.cols}"
        r, c = int(rest[0]), int(rest[1])
        if not 1 <= r <= self.rows:
            return None, f"row {r} is off the board; rows are 1..{self.rows}"
        if not 1 <= c <= self.cols:
            return None, f"column {c} is off the board; columns are 1..{self.cols}"
        cell = (r - 1) * self.cols + (c - 1)
        if self._revealed[cell]:
            return None, f"row {r}, column {c} is already revealed; pick a hidden (#) cell"
        if self._flags[cell]:
            if kind == "flag":
                return None, f"row {r}, column {c} is already flagged; pick a hidden (#) cell"
            return None, f"row {r}, column {c} is flagged as a mine; it cannot be revealed"
        return (kind, cell), ""

    def _apply(self, move: tuple[str, int]) -> Outcome:
        kind, cell = move
        post, _, _ = self._oracle()
        process = self._process(kind, cell)
        p_mine = post.prob(cell)
        degraded = post.degraded
        self._last_cell = cell
        self._cache = None
        if kind == "flag":
            if post.numerators[cell] == post.denominator:
                self._flags[cell] = True
            else:
                self._status = "wrong_flag"
        else:
            if not self._placed:
                self._place(cell)
            if self._is_mine[cell]:
                self._status = "mine"
            else:
                for i in flood_reveal(
                    self.rows, self.cols, self._counts, self._revealed, self._flags, cell
                ):
                    self._revealed[i] = True
                if self._safe_left() == 0:
                    self._status = "won"
        if self._status == _PLAYING and self.steps >= self.max_steps:
            self._status = "out_of_steps"
        won = self._status == "won"
        return Outcome(
            process=float(process),
            outcome=1.0 if won else 0.0,
            terminated=self._status != _PLAYING,
            success=won,
            info={
                "oracle_degraded": degraded,
                "safe_cells_left": self._safe_left(),
                "p_mine": p_mine,
            },
        )

    def _reject(self, error: str) -> Outcome:
        # Invalid actions cost nothing but a step; the board is unchanged. The step budget
        # still runs, so a model cannot stall forever on malformed answers.
        if self._status == _PLAYING and self.steps >= self.max_steps:
            self._status = "out_of_steps"
        return Outcome(
            process=0.0,
            terminated=self._status != _PLAYING,
            info={
                "oracle_degraded": False,
                "safe_cells_left": self._safe_left(),
                "p_mine": None,
            },
        )

    def _score(self, move: tuple[str, int], snapshot: bytes) -> float:
        return float(self._process(*move))

    def _state_dict(self) -> dict[str, Any]:
        return {
            "placed": self._placed,
            "mines": list(self._mine_cells),
            "revealed": [i for i in range(self._n) if self._revealed[i]],
            "flags": [i for i in range(self._n) if self._flags[i]],
            "status": self._status,
            "last_cell": self._last_cell,
        }

    def _load_state_dict(self, state: dict[str, Any]) -> None:
        n = self._n
        self._placed = bool(state["placed"])
        self._mine_cells = sorted(int(i) for i in state["mines"])
        self._is_mine = [False] * n
        for i in self._mine_cells:
            self._is_mine[i] = True
        self._counts = neighbour_counts(self.rows, self.cols, self._mine_cells)
        self._revealed = [False] * n
        for i in state["revealed"]:
            self._revealed[int(i)] = True
        self._flags = [False] * n
        for i in state["flags"]:
            self._flags[int(i)] = True
        self._status = str(state["status"])
        self._last_cell = int(state["last_cell"])
        self._cache = None

    # ------------------------------------------------------------------ oracle
    def _oracle(self) -> tuple[Posterior, bool, int]:
        """Posterior of the current state, whether any open cell is certainly safe, and the
        lowest numerator among open (hidden, unflagged) cells; cached until the state changes."""
        if self._cache is None:
            if not self._placed:
                # Before the first reveal every cell is safe to open: the mines avoid it.
                post = Posterior(tuple(0 for _ in range(self._n)), 1, False)
            else:
                post = mine_posterior(
                    self.rows,
                    self.cols,
                    self.mines,
                    self._revealed,
                    self._counts,
                    self.posterior_budget,
                )
            open_nums = [
                int(post.numerators[i] or 0)
                for i in range(self._n)
                if not self._revealed[i] and not self._flags[i]
            ]
            low = min(open_nums) if open_nums else post.denominator
            self._cache = (post, low == 0, low)
        return self._cache

    def _process(self, kind: str, cell: int) -> int:
        post, has_zero, low = self._oracle()
        num = post.numerators[cell]
        if kind == "flag":
            return 1 if num == post.denominator else -1
        if num == 0:
            return 2
        if not has_zero and num == low:
            return 1
        return 0

    # ------------------------------------------------------------------ helpers
    def _place(self, first: int) -> None:
        self._mine_cells = place_mines(self.rows, self.cols, self.mines, first, self.np_random)
        self._is_mine = [False] * self._n
        for i in self._mine_cells:
            self._is_mine[i] = True
        self._counts = neighbour_counts(self.rows, self.cols, self._mine_cells)
        self._placed = True

    def _safe_left(self) -> int:
        return self._n - self.mines - sum(self._revealed)

    def _action(self, kind: str, cell: int) -> str:
        r, c = divmod(cell, self.cols)
        return f"{kind} {r + 1} {c + 1}"
