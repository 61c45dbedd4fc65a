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
which case applied (``forced``, ``mrv``, ``other``, ``wrong``, ``invalid``; ``correct`` for a
right digit when ``score_process=False``, which skips the forced / MRV classification) and
``info["empty_cells"]`` how many cells are left.

Invalid actions end the episode like a wrong digit, as in VPR, where format errors count as
failures; the observation then says what was wrong. The outcome reward is 1.0 on the step that
completes the grid and 0.0 otherwise; running out of ``max_steps`` first ends the episode with
outcome 0.0. Because each step either fills a cell or ends the episode, a budget of at least
``blanks`` never binds; smaller budgets give short-horizon episodes that cannot succeed.

A step touches only the placed cell and its peers: candidate masks, per-digit candidate
bitboards, the sorted legal-action list, the rendered board and (when scoring) a histogram of
candidate counts are all updated in place, so a step costs a few microseconds.

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
from bisect import bisect_left
from functools import cache
from typing import Any, ClassVar

import numpy as np

from agentgym.core import Outcome, TextEnv, check_range
from agentgym.environments.games.sudoku.logic import (
    REWARD_FORCED,
    REWARD_MRV,
    REWARD_OTHER,
    REWARD_WRONG,
    SIZES,
    blank_range,
    box_size,
    candidate_masks,
    cell_offsets,
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


class _Tables:
    """Per-size constants shared by every env of that size (strings are built once here, so a
    step formats nothing but the two counters at the end of the observation)."""

    def __init__(self, size: int) -> None:
        n = size * size
        b = box_size(size)
        digits = range(size + 1)
        # actions[cell][digit] is the canonical action string. With one-character rows,
        # columns and digits, string order is (row, column, digit) order, so the legal list
        # stays sorted under bisect.
        self.actions = tuple(
            tuple(f"{c // size + 1} {c % size + 1} {d}" if d else "" for d in range(size + 1))
            for c in range(n)
        )
        self.moves = {self.actions[c][d]: (c, d) for c in range(n) for d in range(1, size + 1)}
        self.placed = tuple(
            tuple(f"You wrote {d} at row {c // size + 1}, column {c % size + 1}." for d in digits)
            for c in range(n)
        )
        self.digits = mask_table(size)
        self.pop = tuple(m.bit_count() for m in range(1 << size))
        self.cell_bits = tuple(1 << c for c in range(n))
        self.peer_bits = tuple(sum(1 << j for j in peers(size)[c]) for c in range(n))
        r, c, d = min(3, size), min(5, size), min(7, size)
        self.example = f"{r} {c} {d}"
        head = (
            f"Sudoku {size}x{size}. Fill every '.' so that each row, each column and each "
            f"{b}x{b} box contains the digits 1-{size} exactly once. The puzzle has exactly "
            "one solution.\n\n"
        )
        tail = (
            "\n\n"
            f"Legend: '.' = empty cell; a digit = a given clue or a digit you placed. "
            f"Rows are numbered 1-{size} from top to bottom, columns 1-{size} from left to "
            "right.\n"
            f'Action format: "row column digit", e.g. <action>{r} {c} {d}</action> '
            f"writes {d} in row {r}, column {c}.\n"
            "Write only into empty cells. A digit that differs from the solution, or an "
            "invalid action, ends the episode.\n"
        )
        # The observation up to its counters: head, empty board, legend. A placement rewrites
        # one byte of the env's copy of it (offsets[cell]).
        self.page = (head + format_grid([0] * n, size) + tail).encode("ascii")
        self.offsets = tuple(len(head) + k for k in cell_offsets(size))


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
    * ``score_process`` (default True): False skips the forced / MRV classification on each
      step (the process reward is then 0.0 and ``info["move_kind"]`` is ``"correct"`` for a
      right digit); the game itself is unchanged, and :meth:`score_actions` /
      :meth:`oracle_actions` still consult the oracle.

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
    rules: ClassVar[str] = (
        "You play Sudoku. Fill every empty '.' cell of the grid with a digit so that each row, "
        "each column and each box holds every digit exactly once; the puzzle has exactly one "
        "solution. Write one digit per turn as 'ROW COLUMN DIGIT' (rows and columns count from "
        "1). A digit that differs from the solution, a filled cell, a digit already in the "
        "row, column or box, or an unreadable action ends the game. Filling a cell that has "
        "only one possible digit earns the most reward; when there is none, fill a cell with "
        "the fewest possible digits. Answer with one action, e.g. <action>3 5 7</action>."
    )
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
        score_process: bool = True,
    ) -> None:
        super().__init__(
            reward_mode=reward_mode, render_mode=render_mode, score_process=score_process
        )
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
        self._t = _tables(self.size)

        n = self.size * self.size
        self._grid: list[int] = [0] * n
        self._given: list[bool] = [False] * n
        self._solution: list[int] = [0] * n
        self._status = _PLAYING
        self._message = ""
        # Derived from the grid by _rebuild and then kept in step with it by _place:
        # candidate mask per cell (0 when filled), per-digit bitboards of the empty cells
        # that still allow the digit, the sorted canonical legal actions, the observation
        # bytes up to the step counter, and the number of empty cells.
        self._masks: list[int] = [0] * n
        self._cand: list[int] = [0] * (self.size + 1)
        self._legal: list[str] = []
        self._page = bytearray(self._t.page)
        self._empty = 0
        # _hist[k] for k >= 1: empty cells with exactly k candidates (_hist[0] means nothing).
        # The forced / MRV oracle reads only this; None until the oracle is consulted, and
        # dropped by unscored steps, which do not maintain it.
        self._hist: list[int] | None = None

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
        self._rebuild()

    def _puzzle_from_option(self, text: Any) -> list[int]:
        if not isinstance(text, str):
            raise ValueError(f"options['puzzle'] must be a string, got {type(text).__name__}")
        puzzle = parse_grid(text, self.size)
        if count_solutions(puzzle, self.size, limit=2) != 1:
            raise ValueError("options['puzzle'] must have exactly one solution")
        if 0 not in puzzle:
            raise ValueError("options['puzzle'] has no empty cell")
        return puzzle

    # ------------------------------------------------------------------ derived state
    def _rebuild(self) -> None:
        """Recompute every structure derived from the grid (new episode or snapshot load)."""
        t = self._t
        grid = self._grid
        masks = candidate_masks(grid, self.size)
        cand = [0] * (self.size + 1)
        for cell, m in enumerate(masks):
            for d in t.digits[m]:
                cand[d] |= t.cell_bits[cell]
        page = bytearray(t.page)
        for cell, v in enumerate(grid):
            if v:
                page[t.offsets[cell]] = 48 + v  # ASCII digit
        self._masks = masks
        self._cand = cand
        self._legal = [t.actions[c][d] for c, m in enumerate(masks) for d in t.digits[m]]
        self._page = page
        self._empty = grid.count(0)
        self._hist = self._count_hist() if self.score_process else None

    def _count_hist(self) -> list[int]:
        hist = [0] * (self.size + 1)
        for k in map(self._t.pop.__getitem__, self._masks):
            hist[k] += 1
        return hist

    def _fewest(self) -> int:
        """Fewest candidates of an empty cell (1: forced cells exist); 0 if none has any."""
        hist = self._hist
        if hist is None:
            hist = self._hist = self._count_hist()
        for k in range(1, self.size + 1):
            if hist[k]:
                return k
        return 0

    def _place(self, cell: int, digit: int) -> None:
        """Write a candidate ``digit`` into empty ``cell`` and update what derives from it.

        Only the peers of ``cell`` that still allowed ``digit`` change; the per-digit bitboards
        find them without scanning all 20 peers.
        """
        t = self._t
        masks, cand, legal, hist = self._masks, self._cand, self._legal, self._hist
        self._grid[cell] = digit
        self._empty -= 1
        self._page[t.offsets[cell]] = 48 + digit
        m = masks[cell]
        masks[cell] = 0
        k = t.pop[m]
        i = bisect_left(legal, t.actions[cell][1])  # the cell's first action, if any
        del legal[i : i + k]
        cbit = t.cell_bits[cell]
        for d in t.digits[m]:
            cand[d] ^= cbit
        hit = cand[digit] & t.peer_bits[cell]
        cand[digit] ^= hit
        bit = 1 << (digit - 1)
        actions = t.actions
        if hist is None:
            while hit:
                low = hit & -hit
                hit ^= low
                j = low.bit_length() - 1
                masks[j] ^= bit
                del legal[bisect_left(legal, actions[j][digit])]
        else:
            pop = t.pop
            hist[k] -= 1
            while hit:
                low = hit & -hit
                hit ^= low
                j = low.bit_length() - 1
                m = masks[j]
                masks[j] = m ^ bit
                k = pop[m]
                hist[k] -= 1
                hist[k - 1] += 1
                del legal[bisect_left(legal, actions[j][digit])]

    def _judge(self, cell: int, digit: int) -> tuple[float, str]:
        """Process reward and kind of writing ``digit`` into empty ``cell``, before the move."""
        if digit != self._solution[cell]:
            return REWARD_WRONG, "wrong"
        best = self._fewest()
        return placement_reward(
            "forced" if best == 1 else "mrv", best > 0 and self._t.pop[self._masks[cell]] == best
        )

    # ------------------------------------------------------------------ hooks
    def _legal_actions(self) -> list[str]:
        # The live list (updated in place by each step); TextEnv copies it into info.
        return self._legal if self._status == _PLAYING else []

    def _parse(self, action: str) -> tuple[Any, str]:
        move = self._t.moves.get(action)
        if move is not None:
            cell, digit = move
            # The candidate mask is 0 for filled cells, so one bit test accepts the common case.
            if self._masks[cell] >> (digit - 1) & 1:
                return move, ""
            return self._check_move(cell // self.size + 1, cell % self.size + 1, digit)
        n = self.size
        example = self._t.example
        fmt = f'use "row column digit" with rows, columns and digits 1-{n}, e.g. "{example}"'
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
        # The candidate mask answers the common case; the slow unit scan only words the error.
        clash = [] if self._masks[cell] >> (d - 1) & 1 else conflicts(self._grid, n, cell, d)
        if clash:
            return None, (
                f"{d} already appears in the {' and '.join(clash)} of row {r}, column {c}"
            )
        return (cell, d), ""

    def _apply(self, move: tuple[int, int]) -> Outcome:
        cell, digit = move
        if digit != self._solution[cell]:
            self._status = _FAILED
            self._message = (
                f"{digit} at row {cell // self.size + 1}, column {cell % self.size + 1} is not "
                "the solution's digit; the episode is over."
            )
            return Outcome(
                process=REWARD_WRONG,
                terminated=True,
                info={"move_kind": "wrong", "empty_cells": self._empty},
            )
        if self.score_process:
            # Inline _judge: the digit is right, so only the oracle cells matter.
            hist = self._hist
            best = 1 if hist is not None and hist[1] else self._fewest()
            if best and self._t.pop[self._masks[cell]] == best:
                process, kind = (REWARD_FORCED, "forced") if best == 1 else (REWARD_MRV, "mrv")
            else:
                process, kind = REWARD_OTHER, "other"
        else:
            process, kind = 0.0, "correct"
            self._hist = None  # not maintained by unscored steps; rebuilt when consulted
        self._place(cell, digit)
        left = self._empty
        if left == 0:
            self._status = _SOLVED
            self._message = f"{self._t.placed[cell][digit]} The grid is solved!"
            return Outcome(
                process=process,
                outcome=1.0,
                terminated=True,
                success=True,
                info={"move_kind": kind, "empty_cells": 0},
            )
        if self._steps >= self.max_steps:
            self._status = _OUT_OF_STEPS
            self._message = f"{self._t.placed[cell][digit]} No steps left; the episode is over."
            return Outcome(
                process=process, terminated=True, info={"move_kind": kind, "empty_cells": left}
            )
        self._message = self._t.placed[cell][digit]
        # Positional fields (process, outcome, terminated, success, parts, info): keyword
        # arguments and the default factory cost a measurable share of a hot step.
        return Outcome(process, 0.0, False, False, {}, {"move_kind": kind, "empty_cells": left})

    def _reject(self, error: str) -> Outcome:
        self._status = _FAILED
        self._message = f"Invalid action: {error}. The episode is over."
        return Outcome(
            process=REWARD_WRONG,
            terminated=True,
            info={"move_kind": "invalid", "empty_cells": self._empty},
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
        best = self._fewest()
        if not best:
            return []
        t, solution = self._t, self._solution
        return [
            t.actions[cell][solution[cell]]
            for cell, m in enumerate(self._masks)
            if t.pop[m] == best
        ]

    # ------------------------------------------------------------------ text
    def _observe(self) -> str:
        steps_left = self.max_steps - self._steps
        if steps_left < 0:
            steps_left = 0
        status = self._status
        if status == _PLAYING:
            end = ""
        elif status == _SOLVED:
            end = "\nStatus: solved."
        else:
            end = "\nStatus: episode over (not solved)."
        # One f-string: the ~1.3 KB page is copied once after decoding, not once per part.
        if self._message:
            return (
                f"{self._page.decode()}Empty cells: {self._empty}. Steps left: {steps_left}."
                f"\nLast action: {self._message}{end}"
            )
        return f"{self._page.decode()}Empty cells: {self._empty}. Steps left: {steps_left}.{end}"

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
        self._rebuild()
