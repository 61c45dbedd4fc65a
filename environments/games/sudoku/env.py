"""Sudoku as a text env with the VPR forced-cell / fewest-candidates process verifier.

Each episode is a seeded puzzle with exactly one solution. The agent writes one digit per
step as ``"row column digit"`` (1-based). Every placement is scored in the state before it:

* ``+2.0`` correct digit in a forced cell (a cell with exactly one candidate);
* ``+1.0`` correct digit in a fewest-candidates (MRV) cell, when no cell is forced;
* ``+0.5`` correct digit in any other cell;
* ``-1.0`` and the episode ends (fail): a digit that differs from the unique solution;
* ``-1.0`` and the episode ends (fail): an invalid action (unreadable text, a number out of
  range, a given or filled cell, a digit already in the row / column / box).

Candidates come from the row / column / box rule only (no hidden singles), and the oracle
cells are the forced cells, or the MRV cells when none is forced. ``info["move_kind"]`` says
which case applied (``forced``, ``mrv``, ``other``, ``wrong``, ``invalid``) and
``info["empty_cells"]`` how many cells are left.

Invalid actions end the episode like a wrong digit, as in VPR, where format errors count as
failures; the observation then says what was wrong. The outcome reward is 1.0 on the step that
completes the grid and 0.0 otherwise; running out of ``max_steps`` first ends the episode with
outcome 0.0. Because each step either fills a cell or ends the episode, a budget of at least
``blanks`` never binds; smaller budgets give short-horizon episodes that cannot succeed.

>>> import gymnasium as gym
>>> import agentgym
>>> env = gym.make("agentgym/Sudoku-v0", size=4, blanks=6)
>>> obs, info = env.reset(seed=0)
>>> best = env.unwrapped.oracle_actions()[0]
>>> env.unwrapped.score_actions([best])
[2.0]
>>> obs, reward, terminated, truncated, info = env.step(f"<action>{best}</action>")
>>> reward, terminated, info["move_kind"]
(2.0, False, 'forced')
"""

from __future__ import annotations

import re
from functools import cache
from itertools import chain
from operator import or_
from typing import Any, ClassVar

import numpy as np

from agentgym.core import Outcome, TextEnv, check_range
from agentgym.environments.games.sudoku.logic import (
    REWARD_WRONG,
    SIZES,
    blank_range,
    box_size,
    candidate_masks,
    conflicts,
    count_solutions,
    format_grid,
    make_puzzle,
    mask_table,
    parse_grid,
    peers,
    placement_reward,
    solve,
)

__all__ = ["DEFAULT_BLANKS", "SudokuEnv"]

DEFAULT_BLANKS: dict[int, int] = {4: 8, 9: 40}
MAX_STEPS_LIMIT = 1000

_PLAYING, _SOLVED, _FAILED, _OUT_OF_STEPS = "playing", "solved", "failed", "out_of_steps"
_STATUSES = (_PLAYING, _SOLVED, _FAILED, _OUT_OF_STEPS)

_TOKEN = re.compile(r"[a-z]+|[0-9]+|\S")
_SLOT_WORDS: dict[str, int] = {
    "r": 0, "row": 0,
    "c": 1, "col": 1, "column": 1,
    "d": 2, "digit": 2, "v": 2, "val": 2, "value": 2, "n": 2, "num": 2, "number": 2,
}  # fmt: skip
_FILLER_WORDS = frozenset(
    {"put", "place", "write", "set", "fill", "enter", "at", "in", "into", "to", "cell", "with"}
)
_PUNCTUATION = frozenset(",()[]{}=:;./")
_SLOT_NAMES = ("row", "column", "digit")


class _CellActions(dict):
    """``(cell << size) | mask`` -> canonical actions of that cell for that candidate mask.

    Filled lazily; a step then builds its action list from a few dict hits instead of
    formatting strings.
    """

    def __init__(self, size: int, actions: tuple[tuple[str, ...], ...]) -> None:
        super().__init__()
        self.size = size
        self.actions = actions
        self.digits = mask_table(size)

    def __missing__(self, code: int) -> tuple[str, ...]:
        cell, mask = code >> self.size, code & ((1 << self.size) - 1)
        value = tuple(self.actions[cell][d] for d in self.digits[mask])
        self[code] = value
        return value


class _Tables:
    """Per-size lookup tables shared by every env of that size."""

    def __init__(self, size: int) -> None:
        n = size * size
        # actions[cell][digit] is the canonical action string.
        self.actions = tuple(
            tuple(f"{c // size + 1} {c % size + 1} {d}" if d else "" for d in range(size + 1))
            for c in range(n)
        )
        self.canonical = {
            self.actions[c][d]: (c // size + 1, c % size + 1, d)
            for c in range(n)
            for d in range(1, size + 1)
        }
        self.cell_actions = _CellActions(size, self.actions)
        self.cell_base = [c << size for c in range(n)]
        # Candidate count per mask, with filled cells (mask 0) sorting after every real count.
        self.count = [m.bit_count() or size + 1 for m in range(1 << size)]


@cache
def _tables(size: int) -> _Tables:
    return _Tables(size)


class SudokuEnv(TextEnv):
    """Fill a unique-solution Sudoku one digit at a time; VPR forced-cell / MRV oracle.

    Keyword arguments:

    * ``size``: 4 or 9 (default 9); boxes are 2x2 or 3x3.
    * ``blanks``: empty cells in the puzzle, default 40 (9x9) or 8 (4x4); allowed 1-56 on 9x9
      and 1-12 on 4x4 (:func:`logic.blank_range`). The generator blanks cells greedily while the
      solution stays unique, trying up to 20 seeded grids; if none reaches ``blanks`` (rare,
      only near the cap) the episode uses the one with the most blanks, still deterministic in
      the seed. ``info["empty_cells"]`` and the observation give the actual count.
    * ``max_steps``: step budget, default ``2 * blanks``, allowed 1-1000.
    * ``reward_mode``, ``render_mode``: as for every :class:`~agentgym.core.TextEnv`.

    ``reset(options={"puzzle": "53..7...."})`` plays a given puzzle instead (digits, ``.`` or
    ``0`` for blanks; it must have exactly one solution).

    Actions: ``"row column digit"``, e.g. ``"3 5 7"``; also ``"r3c5=7"``, ``"(3,5) 7"``,
    ``"3,5,7"`` or ``"357"``. ``info["available_actions"]`` lists ``"r c d"`` for every empty
    cell and every digit not already in its row, column or box.

    >>> env = SudokuEnv(size=9, blanks=40)
    >>> obs, info = env.reset(seed=3)
    >>> obs.count(".") >= 40, len(env.oracle_actions()) > 0
    (True, True)
    """

    verifier_name: ClassVar[str] = "sudoku-forced-mrv"
    verifier_version: ClassVar[str] = "1"
    max_observation_length: ClassVar[int] = 4096
    max_action_length: ClassVar[int] = 1024

    def __init__(
        self,
        size: int = 9,
        blanks: int | None = None,
        max_steps: int | None = None,
        *,
        reward_mode: str = "both",
        render_mode: str | None = None,
    ) -> None:
        super().__init__(reward_mode=reward_mode, render_mode=render_mode)
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size not in SIZES:
            raise ValueError(f"size must be one of {SIZES}, got {size!r}")
        self.size = int(size)
        self.box = box_size(self.size)
        low, high = blank_range(self.size)
        if blanks is None:
            blanks = DEFAULT_BLANKS[self.size]
        self.blanks = check_range("blanks", blanks, low, high)
        if max_steps is None:
            max_steps = 2 * self.blanks
        self.max_steps = check_range("max_steps", max_steps, 1, MAX_STEPS_LIMIT)
        self._text = self._text_parts()

        n = self.size * self.size
        self._grid: list[int] = [0] * n
        self._given: list[bool] = [False] * n
        self._solution: list[int] = [0] * n
        self._status = _PLAYING
        self._message = ""
        # Candidate analysis of the current grid, shared by scoring, the oracle and the
        # action list; every grid change clears it.
        self._cache: tuple[str, frozenset[int], list[int], list[str]] | None = None
        self._masks: list[int] | None = None

    # ------------------------------------------------------------------ episode
    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        if options.get("puzzle") is not None:
            puzzle = self._puzzle_from_option(options["puzzle"])
            solution = solve(puzzle, self.size)
            assert solution is not None  # _puzzle_from_option checked uniqueness
        else:
            puzzle, solution = make_puzzle(self.size, self.blanks, rng)
        self._grid = puzzle
        self._given = [v != 0 for v in puzzle]
        self._solution = solution
        self._status = _PLAYING
        self._message = ""
        self._cache = None
        self._masks = None

    def _puzzle_from_option(self, text: Any) -> list[int]:
        if not isinstance(text, str):
            raise ValueError(f"options['puzzle'] must be a string, got {type(text).__name__}")
        puzzle = parse_grid(text, self.size)
        if count_solutions(puzzle, self.size, limit=2) != 1:
            raise ValueError("options['puzzle'] must have exactly one solution")
        if 0 not in puzzle:
            raise ValueError("options['puzzle'] has no empty cell")
        return puzzle

    # ------------------------------------------------------------------ analysis
    def _analysis(self) -> tuple[str, frozenset[int], list[int], list[str]]:
        """(oracle kind, oracle cells, candidate masks, legal actions) of the current grid."""
        if self._cache is None:
            if self._masks is None:
                self._masks = candidate_masks(self._grid, self.size)
            masks = self._masks
            t = _tables(self.size)
            # Only builtins walk the masks (map/min/count/index/chain): a 9x9 analysis then
            # costs a few microseconds, which is most of a step.
            counts = list(map(t.count.__getitem__, masks))
            best = min(counts)
            cells: list[int] = []
            if best > self.size:
                kind = "none"
            else:
                # The fewest-candidates cells; when that minimum is 1 they are exactly the
                # forced cells.
                kind = "forced" if best == 1 else "mrv"
                i = -1
                for _ in range(counts.count(best)):
                    i = counts.index(best, i + 1)
                    cells.append(i)
            codes = map(or_, t.cell_base, masks)
            legal = list(chain.from_iterable(map(t.cell_actions.__getitem__, codes)))
            self._cache = (kind, frozenset(cells), masks, legal)
        return self._cache

    def _judge(self, cell: int, digit: int) -> tuple[float, str]:
        if digit != self._solution[cell]:
            return REWARD_WRONG, "wrong"
        kind, cells, _, _ = self._analysis()
        return placement_reward(kind, cell in cells)

    # ------------------------------------------------------------------ hooks
    def _legal_actions(self) -> list[str]:
        if self._status != _PLAYING:
            return []
        return self._analysis()[3]  # cached; TextEnv copies it into info

    def _parse(self, action: str) -> tuple[Any, str]:
        n = self.size
        canonical = _tables(n).canonical.get(action)
        if canonical is not None:
            return self._check_move(*canonical)
        fmt = (
            f'use "row column digit" with rows, columns and digits 1-{n}, e.g. "{self._example()}"'
        )
        slots: list[str | None] = [None, None, None]
        loose: list[str] = []
        pending: int | None = None
        for tok in _TOKEN.findall(action.lower()):
            if tok.isascii() and tok.isdigit():
                if pending is None:
                    loose.append(tok)
                elif slots[pending] is not None:
                    return None, f"the {_SLOT_NAMES[pending]} is given twice; {fmt}"
                else:
                    slots[pending] = tok
                    pending = None
            elif tok in _SLOT_WORDS:
                if pending is not None:
                    return None, f"'{tok}' follows a label with no number; {fmt}"
                pending = _SLOT_WORDS[tok]
            elif tok in _FILLER_WORDS or tok in _PUNCTUATION:
                continue
            else:
                return None, f"unexpected text {tok[:20]!a} in {action[:40]!a}; {fmt}"
        if pending is not None:
            return None, f"the {_SLOT_NAMES[pending]} label has no number; {fmt}"
        if slots == [None, None, None] and len(loose) == 1 and len(loose[0]) == 3:
            loose = list(loose[0])  # compact "357"
        for k in range(3):
            if slots[k] is None and loose:
                slots[k] = loose.pop(0)
        if loose:
            return None, f"too many numbers in {action[:40]!a}; expected 3; {fmt}"
        missing = [name for name, s in zip(_SLOT_NAMES, slots, strict=True) if s is None]
        if missing:
            return None, f"missing {' and '.join(missing)} in {action[:40]!a}; {fmt}"
        values = []
        for name, s in zip(_SLOT_NAMES, slots, strict=True):
            assert s is not None
            # Length check first: int() of a huge digit string is slow and may raise.
            if len(s) > 3 or not 1 <= int(s) <= n:
                return None, f"{name} {s[:10]} is out of range; it must be 1-{n}; {fmt}"
            values.append(int(s))
        return self._check_move(*values)

    def _check_move(self, r: int, c: int, d: int) -> tuple[Any, str]:
        """The move for 1-based ``(r, c, d)`` in range, or why the cell or digit is not allowed."""
        n = self.size
        cell = (r - 1) * n + (c - 1)
        if self._grid[cell]:
            what = "a given clue" if self._given[cell] else "already filled"
            return None, (
                f"row {r}, column {c} is {what} ({self._grid[cell]}); "
                f"write only into empty '.' cells"
            )
        # The cached candidate mask answers the common case; the slow unit scan only runs to
        # word the error.
        clash = (
            [] if self._analysis()[2][cell] >> (d - 1) & 1 else conflicts(self._grid, n, cell, d)
        )
        if clash:
            return None, (
                f"{d} already appears in the {' and '.join(clash)} of row {r}, column {c}"
            )
        return (cell, d), ""

    def _apply(self, move: tuple[int, int]) -> Outcome:
        cell, digit = move
        r, c = cell // self.size + 1, cell % self.size + 1
        process, kind = self._judge(cell, digit)
        if kind == "wrong":
            self._status = _FAILED
            self._message = (
                f"{digit} at row {r}, column {c} is not the solution's digit; the episode is over."
            )
            return Outcome(
                process=process,
                terminated=True,
                info={"move_kind": kind, "empty_cells": self._grid.count(0)},
            )
        self._grid[cell] = digit
        if self._masks is not None:
            # Incremental update: only the placed cell and its peers change.
            keep = ~(1 << (digit - 1))
            masks = self._masks
            masks[cell] = 0
            for j in peers(self.size)[cell]:
                masks[j] &= keep
        self._cache = None
        left = self._grid.count(0)
        outcome, terminated, success = 0.0, False, False
        if left == 0:
            self._status = _SOLVED
            self._message = f"You wrote {digit} at row {r}, column {c}. The grid is solved!"
            outcome, terminated, success = 1.0, True, True
        elif self._steps >= self.max_steps:
            self._status = _OUT_OF_STEPS
            self._message = (
                f"You wrote {digit} at row {r}, column {c}. No steps left; the episode is over."
            )
            terminated = True
        else:
            self._message = f"You wrote {digit} at row {r}, column {c}."
        return Outcome(
            process=process,
            outcome=outcome,
            terminated=terminated,
            success=success,
            info={"move_kind": kind, "empty_cells": left},
        )

    def _reject(self, error: str) -> Outcome:
        self._status = _FAILED
        self._message = f"Invalid action: {error}. The episode is over."
        return Outcome(
            process=REWARD_WRONG,
            terminated=True,
            info={"move_kind": "invalid", "empty_cells": self._grid.count(0)},
        )

    def _score(self, move: tuple[int, int], snapshot: bytes) -> float:
        return self._judge(*move)[0]

    def oracle_actions(self) -> list[str]:
        """Correct digits for the forced cells, or for the MRV cells when none is forced.

        >>> env = SudokuEnv(size=4, blanks=4)
        >>> _ = env.reset(options={"puzzle": "1234 3412 2143 43.."})
        >>> env.oracle_actions()
        ['4 3 2', '4 4 1']
        """
        self._require_started()
        if self._done or self._status != _PLAYING:
            return []
        _, cells, _, _ = self._analysis()
        table = _tables(self.size).actions
        return [table[i][self._solution[i]] for i in sorted(cells)]

    # ------------------------------------------------------------------ text
    def _example(self) -> str:
        n = self.size
        return f"{min(3, n)} {min(5, n)} {min(7, n)}"

    def _text_parts(self) -> tuple[str, str]:
        """The fixed text above and below the board (built once; observations are hot)."""
        n, b = self.size, self.box
        r, c, d = self._example().split()
        head = (
            f"Sudoku {n}x{n}. Fill every '.' so that each row, each column and each {b}x{b} "
            f"box contains the digits 1-{n} exactly once. The puzzle has exactly one solution.\n"
        )
        tail = (
            f"Legend: '.' = empty cell; a digit = a given clue or a digit you placed. "
            f"Rows are numbered 1-{n} from top to bottom, columns 1-{n} from left to right.\n"
            f'Action format: "row column digit", e.g. <action>{r} {c} {d}</action> '
            f"writes {d} in row {r}, column {c}.\n"
            "Write only into empty cells. A digit that differs from the solution, or an "
            "invalid action, ends the episode.\n"
        )
        return head, tail

    def _observe(self) -> str:
        head, tail = self._text
        steps_left = max(0, self.max_steps - self._steps)
        text = (
            f"{head}\n{format_grid(self._grid, self.size)}\n\n{tail}"
            f"Empty cells: {self._grid.count(0)}. Steps left: {steps_left}."
        )
        if self._message:
            text += f"\nLast action: {self._message}"
        if self._status == _SOLVED:
            text += "\nStatus: solved."
        elif self._status != _PLAYING:
            text += "\nStatus: episode over (not solved)."
        return text

    # ------------------------------------------------------------------ snapshots
    def _state_dict(self) -> dict[str, Any]:
        return {
            "size": self.size,
            "grid": list(self._grid),
            "given": list(self._given),
            "solution": list(self._solution),
            "status": self._status,
            "message": self._message,
        }

    def _load_state_dict(self, d: dict[str, Any]) -> None:
        if int(d["size"]) != self.size:
            raise ValueError(f"snapshot is for size {d['size']}, this env has size {self.size}")
        n = self.size * self.size
        grid = [int(v) for v in d["grid"]]
        solution = [int(v) for v in d["solution"]]
        given = [bool(v) for v in d["given"]]
        if not len(grid) == len(solution) == len(given) == n:
            raise ValueError(f"snapshot grids must have {n} cells")
        if d["status"] not in _STATUSES:
            raise ValueError(f"unknown status {d['status']!r} in snapshot")
        self._grid, self._solution, self._given = grid, solution, given
        self._status = str(d["status"])
        self._message = str(d["message"])
        self._cache = None
        self._masks = None
