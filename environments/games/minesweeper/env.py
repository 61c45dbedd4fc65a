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
Running out of steps (invalid actions included) ends it with outcome 0. If counting a
frontier component would cost more than ``posterior_budget``, that step is scored with local
deduction instead (certain cells still exact, the rest at the leftover mine density) and
``info["oracle_degraded"]`` is True.

Cost per step: the posterior lives in a
:class:`~agentgym.environments.games.minesweeper.logic.PosteriorSolver`, which reworks only
what a reveal changed and answers at most once per state (``step``, :meth:`score_actions`
and :meth:`oracle_actions` share it); with ``score_process=False`` a reveal never asks it.
The observation, the action list and the flood are kept up to date cell by cell.

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

import operator
import re
from itertools import compress
from typing import Any, ClassVar

import numpy as np

from agentgym.core import Outcome, TextEnv, check_range

from .logic import (
    DEFAULT_POSTERIOR_BUDGET,
    Posterior,
    PosteriorSolver,
    cell_bits,
    cells_of,
    flood_mask,
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
_LEGEND = (
    "Legend: # hidden, F flagged, . revealed with no mine around it, 1-8 revealed "
    "with that many mines among its 8 neighbours, * mine (shown when the game ends)."
)
_PLAYING_LINE = (
    "Reveal every cell without a mine. Actions: 'reveal ROW COL' opens a cell, "
    "'flag ROW COL' marks a cell you are certain is a mine (a wrong flag ends the "
    "game). Rows and columns count from 1. Answer like <action>reveal 2 3</action>."
)


class MinesweeperEnv(TextEnv):
    """Clear a Minesweeper board; each action is scored by the exact mine posterior.

    Arguments: ``rows`` and ``cols`` (3..16, default 5), ``mines`` (1..rows*cols-9; a 3x3
    board allows 1; default 5), ``max_steps`` (1..100000, default ``2 * rows * cols``),
    ``posterior_budget`` (work per frontier component before the oracle degrades to local
    deduction, default 200000), and the keyword-only ``reward_mode``, ``render_mode`` and
    ``score_process`` (False skips the posterior on reveals; flags still need it, since a flag
    on a cell that is not certainly a mine ends the game).

    Actions (1-based, case-insensitive): ``reveal R C`` and ``flag R C``; ``r``/``open`` and
    ``f``/``mark`` are accepted as verbs, as are commas, parentheses and ``row``/``col``
    words (``reveal (3, 4)``, ``R 3 4``, ``flag row 2 col 5``).

    ``info`` extras on reset and every step: ``oracle_degraded`` (the posterior used this
    step came from local deduction), ``safe_cells_left`` and ``p_mine`` (P(mine) of the acted
    cell before the action; ``None`` on reset, for invalid actions, and for reveals when
    ``score_process`` is False).

    >>> env = MinesweeperEnv(rows=4, cols=4, mines=3)
    >>> obs, info = env.reset(seed=1)
    >>> env.oracle_actions()[:2]
    ['reveal 1 1', 'reveal 1 2']
    >>> env.score_actions(["reveal 1 1", "flag 1 1", "nonsense"])
    [2.0, -1.0, 0.0]
    """

    verifier_name: ClassVar[str] = "minesweeper-exact-posterior"
    verifier_version: ClassVar[str] = "1"
    rules: ClassVar[str] = (
        "You play Minesweeper on a grid of hidden cells, some of which hide mines. Reveal "
        "every cell that is not a mine. A revealed cell shows how many of its 8 neighbours "
        "are mines ('.' for none); revealing a cell with no mine around it also opens its "
        "neighbours. The first reveal is always safe. 'reveal ROW COL' opens a cell (rows and "
        "columns count from 1); revealing a mine ends the game. 'flag ROW COL' marks a cell "
        "you can prove is a mine; flagging a cell that is not certainly a mine ends the game. "
        "Revealing cells that are certainly safe earns the most reward; when none is, reveal "
        "the cell least likely to be a mine. Answer with one action, e.g. "
        "<action>reveal 2 3</action>."
    )

    def __init__(
        self,
        rows: int = 5,
        cols: int = 5,
        mines: int = 5,
        max_steps: int | None = None,
        posterior_budget: int = DEFAULT_POSTERIOR_BUDGET,
        *,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
    ) -> None:
        super().__init__(
            reward_mode=reward_mode, render_mode=render_mode, score_process=score_process
        )
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
        self._safe_total = n - self.mines
        # Everything that depends only on the board size is built once: the action strings
        # (and the exact-match table the parser tries first), the row of each cell, and the
        # pieces of the observation.
        cols = self.cols
        self._reveal_text = [f"reveal {i // cols + 1} {i % cols + 1}" for i in range(n)]
        self._flag_text = [f"flag {i // cols + 1} {i % cols + 1}" for i in range(n)]
        self._canonical = {text: ("reveal", i) for i, text in enumerate(self._reveal_text)}
        self._canonical.update({text: ("flag", i) for i, text in enumerate(self._flag_text)})
        self._row_of = [i // cols for i in range(n)]
        width = len(str(cols)) + 1
        label = len(str(self.rows))
        self._title = f"Minesweeper {self.rows}x{cols} with {self.mines} mines. Flags placed: "
        self._col_header = " " * (label + 1) + "".join(str(c + 1).rjust(width) for c in range(cols))
        self._row_label = [str(r + 1).rjust(label) + " " for r in range(self.rows)]
        self._number_sym = [(str(k) if k else ".").rjust(width) for k in range(9)]
        self._hidden_sym = "#".rjust(width)
        self._flag_sym = "F".rjust(width)
        self._mine_sym = "*".rjust(width)
        self._clear_board()

    # ------------------------------------------------------------------ oracle API
    def oracle_actions(self) -> list[str]:
        """Every legal action with the top score, in :meth:`_legal_actions` order.

        Certain-safe reveals (+2) when there are any; otherwise certain-mine flags and the
        lowest-P reveals (+1 each).
        """
        self._require_started()
        if self._done or self._status != _PLAYING or not self._open_reveal:
            return []
        solver = self._synced_solver()
        if solver is None:
            return list(self._open_reveal.values())  # before the first reveal all are safe
        post = solver.posterior()
        nums = post.numerators
        low = min(nums[i] for i in self._open_reveal)  # type: ignore[type-var]
        best = [text for i, text in self._open_reveal.items() if nums[i] == low]
        if low == 0:
            return best
        den = post.denominator
        return best + [text for i, text in self._open_flag.items() if nums[i] == den]

    def score_actions(self, actions: list[str]) -> list[float]:
        """Process reward each action would earn from the current state; the state is unchanged.

        Same scores as :meth:`TextEnv.score_actions`, read from the posterior kept for this
        state instead of snapshot-and-restore: parsing changes nothing, and an invalid action
        always scores 0.
        """
        self._require_started()
        if self._done:
            return [0.0 for _ in actions]
        scores = []
        canonical, open_cells = self._canonical, self._open_reveal
        for action in actions:
            move = canonical.get(action) if isinstance(action, str) else None
            if move is None or move[1] not in open_cells or self._status != _PLAYING:
                # Anything but a legal action as listed: parse it as step would.
                move, _ = self._interpret(action)
            scores.append(0.0 if move is None else float(self._judge(*move)[0]))
        return scores

    def posterior(self) -> Posterior:
        """The oracle's P(mine) for every cell in the current state (all 0 before the first
        reveal, which is always safe)."""
        self._require_started()
        solver = self._synced_solver()
        if solver is None:
            return Posterior((0,) * self._n, 1, False)
        return solver.posterior()

    # ------------------------------------------------------------------ hooks
    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        # Nothing is drawn yet: the mines are placed at the first reveal, from this same rng.
        self._clear_board()

    def _clear_board(self) -> None:
        n = self._n
        self._placed = False
        self._mine_cells: list[int] = []
        self._is_mine = [False] * n
        self._counts = [0] * n
        self._revealed = [False] * n
        self._flags = [False] * n
        self._status = _PLAYING
        self._last_cell = -1
        self._rebuild_caches()

    def _reset_info(self) -> dict[str, Any]:
        # Same extras as every step, so a consumer can read them without a key check.
        return {
            "oracle_degraded": False,
            "safe_cells_left": self._safe_total - self._revealed_count,
            "p_mine": None,
        }

    def _observe(self) -> str:
        dirty = self._dirty_rows
        if dirty:
            rows, syms, cols, labels = self._row_text, self._syms, self.cols, self._row_label
            for r in dirty:
                rows[r] = labels[r] + "".join(syms[r * cols : (r + 1) * cols])
            dirty.clear()
            self._grid = "\n".join(rows)
        status = _PLAYING_LINE if self._status == _PLAYING else self._status_line()
        return (
            f"{self._title}{self._flag_count}. Safe cells left to reveal: "
            f"{self._safe_total - self._revealed_count}. Steps left: "
            f"{max(0, self.max_steps - self._steps)}.\n\n{self._col_header}\n{self._grid}\n\n"
            f"{_LEGEND}\n{status}"
        )

    def _status_line(self) -> str:
        if self._status == _PLAYING:
            return _PLAYING_LINE
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
        return [*self._open_reveal.values(), *self._open_flag.values()]

    def _parse(self, text: str) -> tuple[Any, str]:
        # The canonical actions (what _legal_actions lists) skip the tokenizer; anything
        # else, every error included, takes the general path below.
        move = self._canonical.get(text)
        if move is not None and move[1] in self._open_reveal and self._status == _PLAYING:
            return move, ""
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
        # A flag's fate depends on the posterior (only certain mines may be flagged), so flags
        # always consult it; a reveal does only when its score is wanted.
        p_mine: float | None
        if kind == "flag" or self.score_process:
            process, p_mine, degraded = self._judge(kind, cell)
        else:
            process, p_mine, degraded = 0, None, False
        self._last_cell = cell
        if kind == "flag":
            # TextEnv zeroes the reward when scores are off; the verdict still stands.
            if process == 1:
                self._flags[cell] = True
                self._flag_count += 1
                self._closed |= 1 << cell
                del self._open_reveal[cell]
                del self._open_flag[cell]
                self._syms[cell] = self._flag_sym
                self._dirty_rows.add(self._row_of[cell])
            else:
                self._end("wrong_flag")
        else:
            if not self._placed:
                self._place(cell)
            counts = self._counts
            if self._is_mine[cell]:
                self._end("mine")
            else:
                # A number opens only itself; a zero floods.
                if counts[cell]:
                    opened = [cell]
                    self._closed |= 1 << cell
                else:
                    region = flood_mask(self.rows, self.cols, self._zeros, self._closed, cell)
                    opened = cells_of(region)
                    self._closed |= region
                revealed, syms, number = self._revealed, self._syms, self._number_sym
                open_reveal, open_flag = self._open_reveal, self._open_flag
                dirty, row_of = self._dirty_rows, self._row_of
                for i in opened:
                    revealed[i] = True
                    del open_reveal[i]
                    del open_flag[i]
                    syms[i] = number[counts[i]]
                    dirty.add(row_of[i])
                self._revealed_count += len(opened)
                self._unsynced += opened
                if self._revealed_count == self._safe_total:
                    self._end("won")
        if self._status == _PLAYING and self._steps >= self.max_steps:
            self._end("out_of_steps")
        won = self._status == "won"
        return Outcome(
            process=float(process),
            outcome=1.0 if won else 0.0,
            terminated=self._status != _PLAYING,
            success=won,
            info={
                "oracle_degraded": degraded,
                "safe_cells_left": self._safe_total - self._revealed_count,
                "p_mine": p_mine,
            },
        )

    def _reject(self, error: str) -> Outcome:
        # Invalid actions cost nothing but a step; the board is unchanged. The step budget
        # still runs, so a model cannot stall forever on malformed answers.
        if self._status == _PLAYING and self._steps >= self.max_steps:
            self._end("out_of_steps")
        return Outcome(
            process=0.0,
            terminated=self._status != _PLAYING,
            info={
                "oracle_degraded": False,
                "safe_cells_left": self._safe_total - self._revealed_count,
                "p_mine": None,
            },
        )

    def _score(self, move: tuple[str, int], snapshot: bytes) -> float:
        return float(self._judge(*move)[0])

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
        self._rebuild_caches()

    # ------------------------------------------------------------------ oracle
    def _judge(self, kind: str, cell: int) -> tuple[int, float, bool]:
        """Score of a legal move in the current state, with the acted cell's P(mine) and
        whether the posterior is degraded.

        The solver brings the posterior up to date at most once per state (the first
        question after a reveal) and then works out only what is asked: a certain-safe
        reveal usually needs nothing beyond the cell's own component.
        """
        solver = self._synced_solver()
        if solver is None:
            # Before the first reveal every cell is safe to open: the mines avoid it.
            return (2 if kind == "reveal" else -1), 0.0, False
        if kind == "reveal" and solver.safe(cell):
            return 2, 0.0, solver.degraded()
        num, den, degraded = solver.cell(cell)
        p_mine = num / den  # type: ignore[operator]  # the cell is hidden
        if kind == "flag":
            return (1 if num == den else -1), p_mine, degraded
        return (1 if num == self._lowest_open(solver) else 0), p_mine, degraded

    def _lowest_open(self, solver: PosteriorSolver) -> int:
        """The lowest P(mine) numerator among open (hidden, unflagged) cells."""
        if not self._flag_count:
            # With no flag, the open cells are the hidden ones.
            return solver.lowest()  # type: ignore[return-value]  # open cells exist here
        nums = solver.posterior().numerators
        return min(nums[i] for i in self._open_reveal)  # type: ignore[type-var]

    def _synced_solver(self) -> PosteriorSolver | None:
        """The posterior solver, told of every reveal so far (``None`` before the mines)."""
        solver = self._solver
        if solver is not None and self._unsynced:
            # Reveals reach the solver only when a question needs it, so a game played with
            # score_process=False and no flags never pays for it.
            solver.reveal(self._unsynced)
            self._unsynced = []
        return solver

    # ------------------------------------------------------------------ helpers
    def _place(self, first: int) -> None:
        self._mine_cells = place_mines(self.rows, self.cols, self.mines, first, self.np_random)
        self._is_mine = [False] * self._n
        for i in self._mine_cells:
            self._is_mine[i] = True
        self._counts = neighbour_counts(self.rows, self.cols, self._mine_cells)
        self._zeros = self._zero_mask()
        self._placed = True
        self._solver = PosteriorSolver(
            self.rows, self.cols, self.mines, self._counts, self.posterior_budget
        )

    def _rebuild_caches(self) -> None:
        """Derive every incremental structure from the plain state (new episode or load)."""
        n, revealed, flags = self._n, self._revealed, self._flags
        self._revealed_count = sum(revealed)
        self._flag_count = sum(flags)
        self._closed = sum(1 << i for i in range(n) if revealed[i] or flags[i])
        self._zeros = self._zero_mask()
        open_cells = [i for i in range(n) if not revealed[i] and not flags[i]]
        # Insertion-ordered, so the listed actions stay ascending as cells leave.
        self._open_reveal = {i: self._reveal_text[i] for i in open_cells}
        self._open_flag = {i: self._flag_text[i] for i in open_cells}
        self._syms = [
            self._number_sym[self._counts[i]]
            if revealed[i]
            else self._flag_sym
            if flags[i]
            else self._hidden_sym
            for i in range(n)
        ]
        self._row_text = [""] * self.rows
        self._dirty_rows = set(range(self.rows))
        self._grid = ""
        if self._status != _PLAYING:
            self._show_mines()
        self._solver: PosteriorSolver | None = None
        self._unsynced: list[int] = []
        if self._placed:
            self._solver = PosteriorSolver(
                self.rows, self.cols, self.mines, self._counts, self.posterior_budget
            )
            self._unsynced = [i for i in range(n) if revealed[i]]

    def _zero_mask(self) -> int:
        """The cells showing 0 (where a flood spreads), as a mask."""
        # Mines are left in: a mine never neighbours a 0, so the flood cannot reach one.
        return sum(compress(cell_bits(self._n), map(operator.not_, self._counts)))

    def _end(self, status: str) -> None:
        self._status = status
        self._show_mines()

    def _show_mines(self) -> None:
        """Draw the hidden mines, as a finished game shows them."""
        for i in self._mine_cells:
            if not self._revealed[i] and not self._flags[i]:
                self._syms[i] = self._mine_sym
                self._dirty_rows.add(self._row_of[i])
