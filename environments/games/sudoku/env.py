"""Sudoku as a text env with a forced-cell / fewest-candidates process verifier (after VPR).

Each episode is a seeded puzzle with exactly one solution. The agent writes one digit per
step as ``"row column digit"`` (1-based). Every placement is scored in the state before it
(the reward constants are kwargs; these are the defaults, which are VPR's):

* ``reward_forced`` (+2.0): the correct digit in a *forced* cell;
* ``reward_mrv`` (+1.0): the correct digit in a fewest-candidates (MRV) cell, when no cell is
  forced;
* ``reward_other`` (+0.5): the correct digit in any other cell;
* ``reward_wrong`` (-1.0): a digit that differs from the unique solution. It is a legal move
  (the board cannot show it is wrong), not an invalid action. With ``wrong_digit_ends=True``
  (default) it ends the episode, terminated and lost; with False the digit is not written
  and play goes on, so the board always agrees with the solution, until the ``max_wrong``-th
  (default 3) wrong digit, which loses the game: without a bound, trying each candidate
  digit in turn until the env accepts one would solve every grid.

``oracle`` says which cells are forced: ``"singles"`` (default) counts naked singles (one
candidate) and hidden singles (a digit with one possible cell in a row, column or box);
``"naked"`` counts naked singles only, the VPR paper's rule, under which a hidden-single
deduction scores +0.5 while a lucky guess in a two-candidate cell scores +1.

Invalid actions (unreadable text, a number out of range, a filled cell, a digit that its row,
column or box already holds) follow the one policy of :class:`~agentgym.core.TextEnv`:
``invalid_penalty`` (default -1.0) each, and the episode ends, truncated, at ``max_invalid``
(default 3). The outcome reward is 1.0 on the step that completes the grid and 0.0 otherwise.
``max_steps`` (default 100) ends the episode truncated; with the defaults every step fills a
cell, ends the game or is one of the few invalid actions, so it never binds on 9x9.

``preset="vpr"`` is the configuration of VPR's ``vpr_sudoku.yaml`` (thu-nics/VPR): naked
singles only, +2 / +1 / +0.5, a wrong digit -1 and play goes on (not written, as in VPR, whose
game never writes a digit that differs from the solution), a digit its row, column or box
already holds is a wrong digit too (VPR compares digits with the solution only), an invalid
action -2 and the end (``invalid_penalty=-2.0, max_invalid=1``), 100 steps, 9x9 with 40
blanks. Three differences remain: VPR reads only the strict ``"r c d"`` form; it scores the
step that spends the budget -2 whatever that step was, where here that step keeps its own
score; and here the 3rd wrong digit (``max_wrong``) loses the game, so that success means
skill (VPR plays on, and trying digits until one is accepted solves every grid).

A step touches only the placed cell and its peers: candidate masks, per-digit candidate
bitboards, the sorted legal-action list and (when scoring) a histogram of candidate counts are
updated in place, so a scored step costs a few microseconds. Hidden singles are looked up in
the per-digit bitboards (three ANDs for the played cell; a scan of every unit only when no
naked single exists, cached until the next placement).

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

from bisect import bisect_left
from functools import cache
from typing import Any, ClassVar

import numpy as np

from agentgym.core import Outcome, TextEnv
from agentgym.environments.games.sudoku.logic import (
    Rewards,
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
    solve,
    unit_cells,
)
from agentgym.grammar import Slot, read_numbers
from agentgym.presets import apply_preset

from .config import SudokuConfig

__all__ = ["DEFAULT_BLANKS", "PRESETS", "VPR_PRESET", "SudokuEnv"]

DEFAULT_BLANKS: dict[int, int] = {4: 8, 9: 40}
PRESETS: tuple[str | None, ...] = (None, "vpr")

#: The kwargs a preset sets, with their defaults when no preset is given.
_DEFAULTS: dict[str, Any] = {
    "oracle": "singles",
    "invalid_penalty": -1.0,
    "max_invalid": 3,
    "wrong_digit_ends": True,
    "repeats_are_wrong": False,
    "reward_forced": 2.0,
    "reward_mrv": 1.0,
    "reward_other": 0.5,
    "reward_wrong": -1.0,
}
#: ``preset="vpr"``: thu-nics/VPR ``verl/trainer/config/vpr_sudoku.yaml`` (invalid_penalty
#: -2.0 with terminate_on_invalid_parse, terminate_on_wrong_digit false, forced 2.0, mrv 1.0,
#: legal_non_oracle 0.5, wrong_digit -1.0) and its naked-singles oracle. Its max_steps (100)
#: and board (9x9, 40 blanks) are this env's defaults and stay free, like any horizon.
VPR_PRESET: dict[str, Any] = {
    **_DEFAULTS,
    "oracle": "naked",
    "invalid_penalty": -2.0,
    "max_invalid": 1,
    "wrong_digit_ends": False,
    "repeats_are_wrong": True,
}

_PLAYING, _SOLVED, _WRONG, _OUT_OF_STEPS, _TOO_MANY_INVALID, _TOO_MANY_WRONG = (
    "playing", "solved", "wrong", "out_of_steps", "too_many_invalid", "too_many_wrong"
)  # fmt: skip
_END_LINES: dict[str, str] = {
    _PLAYING: "",
    _SOLVED: "\nGame over: solved.",
    _WRONG: "\nGame over: a wrong digit.",
    _OUT_OF_STEPS: "\nGame over: out of steps.",
    _TOO_MANY_INVALID: "\nGame over: too many invalid actions.",
    _TOO_MANY_WRONG: "\nGame over: too many wrong digits.",
}




def _ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ... ``11th``, ``21st``.

    >>> [_ordinal(k) for k in (1, 2, 3, 4, 11, 12, 21)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '21st']
    """
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class _Tables:
    """Per-size constants shared by every env of that size."""

    def __init__(self, size: int) -> None:
        n = size * size
        # actions[cell][digit] is the canonical action string. With one-character rows,
        # columns and digits, string order is (row, column, digit) order, so the legal list
        # stays sorted under bisect.
        self.actions = tuple(
            tuple(f"{c // size + 1} {c % size + 1} {d}" if d else "" for d in range(size + 1))
            for c in range(n)
        )
        self.moves = {self.actions[c][d]: (c, d) for c in range(n) for d in range(1, size + 1)}
        self.where = tuple(f"row {c // size + 1}, column {c % size + 1}" for c in range(n))
        #: placed[cell][digit]: the observation's report of a placement, built once.
        self.placed = tuple(
            tuple(f"You wrote {d} at {self.where[c]}." for d in range(size + 1)) for c in range(n)
        )
        self.digits = mask_table(size)
        self.pop = tuple(m.bit_count() for m in range(1 << size))
        self.cell_bits = tuple(1 << c for c in range(n))
        self.peer_bits = tuple(sum(1 << j for j in peers(size)[c]) for c in range(n))
        units = unit_cells(size)
        #: Every row, column and box as a bitboard of its cells.
        self.unit_bits = tuple(sum(1 << c for c in unit) for unit in units)
        #: The three unit bitboards of each cell.
        self.cell_units = tuple(
            tuple(bits for bits, unit in zip(self.unit_bits, units, strict=True) if c in unit)
            for c in range(n)
        )
        digit_labels = ("d", "digit", "v", "val", "value", "n", "num", "number")
        self.slots = (
            Slot("row", size, ("r", "row")),
            Slot("column", size, ("c", "col", "column")),
            Slot("digit", size, digit_labels),
        )
        self.legend = "'.' = empty cell."
        self.offsets = cell_offsets(size)


@cache
def _tables(size: int) -> _Tables:
    return _Tables(size)


class SudokuEnv(TextEnv):
    """Fill a unique-solution Sudoku one digit at a time; forced-cell / MRV oracle.

    Keyword arguments:

    * ``size``: 4 or 9 (default 9); boxes are 2x2 or 3x3.
    * ``blanks``: empty cells in the puzzle, default 40 (9x9) or 8 (4x4); allowed 1-56 on 9x9
      and 1-12 on 4x4 (:func:`logic.blank_range`). The generator blanks cells greedily while the
      solution stays unique, trying up to 20 seeded grids; if none reaches ``blanks`` (rare,
      only near the cap) the episode uses the one with the most blanks, still deterministic in
      the seed. ``info["empty_cells"]`` and the observation give the actual count.
    * ``max_steps``: step budget, default 100, allowed 1-1000; spending it truncates.
    * ``oracle``: ``"singles"`` (default: naked and hidden singles are forced) or ``"naked"``
      (naked singles only, as VPR).
    * ``reward_mode``, ``render_mode``: as for every :class:`~agentgym.core.TextEnv`.
    * ``score_process`` (default True): False skips the forced / MRV classification on each
      step (the process reward is then 0.0 and ``info["move_kind"]`` is ``"correct"`` for a
      right digit); the game itself is unchanged, and :meth:`score_actions` /
      :meth:`oracle_actions` still consult the oracle.
    * ``invalid_penalty`` (default -1.0) and ``max_invalid`` (default 3): the invalid-action
      policy of :class:`~agentgym.core.TextEnv`.
    * ``wrong_digit_ends`` (default True): a wrong digit ends the episode (terminated, lost);
      False leaves the cell empty and play goes on, until the ``max_wrong``-th (1..1000,
      default 3) wrong digit of the episode, which ends it (terminated, lost).
    * ``repeats_are_wrong`` (default False): a digit that its row, column or box already holds
      is an invalid action; True scores it as a wrong digit instead, as VPR does.
    * ``reward_forced``, ``reward_mrv``, ``reward_other``, ``reward_wrong`` (2.0, 1.0, 0.5,
      -1.0): the process rewards above; they must satisfy
      ``forced >= mrv > other > wrong`` so that the oracle's moves are the top-scored ones.
    * ``preset``: None, or ``"vpr"`` for VPR's configuration (see the module docstring and
      :data:`VPR_PRESET`). A kwarg left at its default takes the preset's value; one set to
      another value overrides it (see :func:`agentgym.presets.apply_preset`). ``size``, ``blanks``
      and ``max_steps`` stay free (VPR's 9, 40 and 100 are the defaults).

    ``reset(options={"puzzle": "53..7...."})`` plays a given puzzle instead (digits, ``.`` or
    ``0`` for blanks; it must have exactly one solution).

    Actions: ``"row column digit"``, e.g. ``"3 5 7"``; also ``"r3c5=7"``, ``"(3,5) 7"``,
    ``"3,5,7"`` or ``"357"`` (:mod:`agentgym.grammar`). ``info["available_actions"]`` lists
    ``"r c d"`` for every empty cell and every digit not already in its row, column or box.

    >>> env = SudokuEnv(size=9, blanks=40)
    >>> obs, info = env.reset(seed=3)
    >>> obs.count(".") >= 40, len(env.oracle_actions()) > 0
    (True, True)
    """

    verifier_name: ClassVar[str] = "sudoku-forced-mrv"
    config_model = SudokuConfig
    verifier_version: ClassVar[str] = "2"
    max_observation_length: ClassVar[int] = 4096
    max_action_length: ClassVar[int] = 1024

    def __init__(
        self,
        size: int = 9,
        blanks: int | None = None,
        max_steps: int = 100,
        oracle: str = "singles",
        *,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
        invalid_penalty: float = -1.0,
        max_invalid: int = 3,
        wrong_digit_ends: bool = True,
        max_wrong: int = 3,
        repeats_are_wrong: bool = False,
        reward_forced: float = 2.0,
        reward_mrv: float = 1.0,
        reward_other: float = 0.5,
        reward_wrong: float = -1.0,
        preset: str | None = None,
    ) -> None:
        kw = apply_preset(SudokuEnv, preset, {"vpr": VPR_PRESET}, SudokuConfig.pick(locals()))
        cfg = SudokuConfig.parse(kw, owner="SudokuEnv")
        super().__init__(**cfg.contract())
        self.preset = cfg.preset
        self.size = cfg.size
        self.box = box_size(self.size)
        self.blanks = DEFAULT_BLANKS[self.size] if cfg.blanks is None else cfg.blanks
        self.oracle = cfg.oracle
        self.wrong_digit_ends = cfg.wrong_digit_ends
        self.repeats_are_wrong = cfg.repeats_are_wrong
        #: With ``wrong_digit_ends=False``, the wrong digit that reaches this count loses the
        #: game: without a bound, trying each listed digit in turn solves every grid.
        self.max_wrong = cfg.max_wrong
        self._wrong = 0
        self.rewards = Rewards(
            forced=cfg.reward_forced,
            mrv=cfg.reward_mrv,
            other=cfg.reward_other,
            wrong=cfg.reward_wrong,
        )
        self._t = _tables(self.size)
        self._rules = self._write_rules()

        n = self.size * self.size
        self._grid: list[int] = [0] * n
        self._given: list[bool] = [False] * n
        self._solution: list[int] = [0] * n
        self._status = _PLAYING
        self._message = ""
        # Derived from the grid by _rebuild and then kept in step with it by _place:
        # candidate mask per cell (0 when filled), per-digit bitboards of the empty cells
        # that still allow the digit, the sorted canonical legal actions, the number of
        # empty cells and the drawn board as ASCII bytes, where a placement rewrites one byte
        # (benchmarks/test_bench_sudoku.py: drawing the 9x9 board costs 2-3 whole steps, and
        # redrawing the placed row alone 1.2 us of a 5 us step).
        self._masks: list[int] = [0] * n
        self._cand: list[int] = [0] * (self.size + 1)
        self._legal: list[str] = []
        self._empty = 0
        self._board = bytearray()
        # _hist[k] for k >= 1: empty cells with exactly k candidates (_hist[0] means nothing).
        # The oracle reads naked singles and the MRV count from it; None until the oracle is
        # consulted, and dropped by unscored steps, which do not maintain it.
        self._hist: list[int] | None = None
        # Whether some unit has a hidden single; None until asked since the last placement.
        self._hidden: bool | None = None

    # ------------------------------------------------------------------ text for the LLM
    @property
    def rules(self) -> str:  # type: ignore[override]
        """The rules and the action format for this episode's size and settings."""
        return self._rules

    def _write_rules(self) -> str:
        n, b = self.size, self.box
        if self.wrong_digit_ends:
            wrong = "A digit that differs from the solution ends the game."
        else:
            wrong = (
                "A digit that differs from the solution is not written and costs reward; "
                f"play goes on, but the {_ordinal(self.max_wrong)} such digit ends the game, "
                "lost."
            )
        if self.repeats_are_wrong:
            invalid = (
                "A digit that its row, column or box already holds counts as such a digit. "
                "Writing into a filled cell or an unreadable action is invalid"
            )
        else:
            invalid = (
                "Writing into a filled cell, a digit that its row, column or box already "
                "holds, or an unreadable action is invalid"
            )
        if self.max_invalid == 1:
            invalid += " and ends the game."
        else:
            invalid += f"; after {self.max_invalid} invalid actions the game ends."
        if self.oracle == "singles":
            forced = (
                "the only digit that cell can take, or the only cell left for a digit in its "
                "row, column or box"
            )
        else:
            forced = "the only digit that cell can take"
        return (
            f"You play Sudoku on a {n}x{n} grid of {b}x{b} boxes. Fill every empty '.' cell so "
            f"that each row, each column and each box holds the digits 1-{n} exactly once; the "
            f"puzzle has exactly one solution. Rows are numbered 1-{n} from the top, columns "
            f"1-{n} from the left. Each turn, write one digit into one empty cell as "
            "<action>ROW COLUMN DIGIT</action>, with ROW, COLUMN and DIGIT replaced by numbers "
            f"from 1 to {n}. {wrong} {invalid} The most reward goes to filling a cell whose "
            f"digit is forced ({forced}); when no cell is forced, fill a cell with the fewest "
            "possible digits."
        )

    # ------------------------------------------------------------------ episode
    def _config(self) -> dict[str, Any]:
        r = self.rewards
        return {
            "size": self.size,
            "blanks": self.blanks,
            "oracle": self.oracle,
            "wrong_digit_ends": self.wrong_digit_ends,
            "max_wrong": self.max_wrong,
            "repeats_are_wrong": self.repeats_are_wrong,
            "reward_forced": r.forced,
            "reward_mrv": r.mrv,
            "reward_other": r.other,
            "reward_wrong": r.wrong,
            "preset": self.preset,
        }

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
        self._wrong = 0
        self._rebuild()

    def _reset_info(self) -> dict[str, Any]:
        return {"empty_cells": self._empty}

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
        masks = candidate_masks(self._grid, self.size)
        cand = [0] * (self.size + 1)
        for cell, m in enumerate(masks):
            for d in t.digits[m]:
                cand[d] |= t.cell_bits[cell]
        self._masks = masks
        self._cand = cand
        self._legal = [t.actions[c][d] for c, m in enumerate(masks) for d in t.digits[m]]
        self._empty = self._grid.count(0)
        self._board = bytearray(format_grid(self._grid, self.size).encode("ascii"))
        self._hist = self._count_hist() if self.score_process else None
        self._hidden = None

    def _count_hist(self) -> list[int]:
        hist = [0] * (self.size + 1)
        for k in map(self._t.pop.__getitem__, self._masks):
            hist[k] += 1
        return hist

    def _place(self, cell: int, digit: int) -> None:
        """Write a candidate ``digit`` into empty ``cell`` and update what derives from it.

        Only the peers of ``cell`` that still allowed ``digit`` change; the per-digit bitboards
        find them without scanning all 20 peers.
        """
        t = self._t
        masks, cand, legal, hist = self._masks, self._cand, self._legal, self._hist
        self._grid[cell] = digit
        self._empty -= 1
        self._hidden = None
        self._board[t.offsets[cell]] = 48 + digit  # the ASCII digit
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
        if hist is not None:
            hist[k] -= 1
        while hit:
            low = hit & -hit
            hit ^= low
            j = low.bit_length() - 1
            m = masks[j]
            masks[j] = m ^ bit
            if hist is not None:
                k = t.pop[m]
                hist[k] -= 1
                hist[k - 1] += 1
            del legal[bisect_left(legal, t.actions[j][digit])]

    # ------------------------------------------------------------------ the oracle
    def _naked_count(self) -> list[int]:
        if self._hist is None:
            self._hist = self._count_hist()
        return self._hist

    def _fewest(self) -> int:
        """Fewest candidates of an empty cell (1: naked singles exist); 0 if none has any."""
        hist = self._naked_count()
        return next((k for k in range(1, self.size + 1) if hist[k]), 0)

    def _hidden_at(self, cell: int, digit: int) -> bool:
        """True if ``digit`` has no other possible cell in one of ``cell``'s units."""
        here, allowed = self._t.cell_bits[cell], self._cand[digit]
        return any(allowed & unit == here for unit in self._t.cell_units[cell])

    def _hidden_singles(self) -> dict[int, int]:
        """``{cell: digit}`` of every hidden single, from the per-digit bitboards."""
        found: dict[int, int] = {}
        for d in range(1, self.size + 1):
            allowed = self._cand[d]
            for unit in self._t.unit_bits:
                x = allowed & unit
                if x and not x & (x - 1):
                    found[x.bit_length() - 1] = d
        return found

    def _any_forced(self) -> bool:
        if self._naked_count()[1]:
            return True
        if self.oracle == "naked":
            return False
        if self._hidden is None:
            self._hidden = bool(self._hidden_singles())
        return self._hidden

    def _judge(self, cell: int, digit: int) -> tuple[float, str]:
        """Process reward and kind of writing ``digit`` into empty ``cell``, before the move."""
        r = self.rewards
        if digit != self._solution[cell]:
            return r.wrong, "wrong"
        k = self._t.pop[self._masks[cell]]
        if k == 1 or (self.oracle == "singles" and self._hidden_at(cell, digit)):
            return r.forced, "forced"
        if not self._any_forced() and k == self._fewest():
            return r.mrv, "mrv"
        return r.other, "other"

    def _oracle_cells(self) -> list[int]:
        """Forced cells, or the fewest-candidates cells when none is forced (ascending)."""
        pop, masks = self._t.pop, self._masks
        cells = {c for c, m in enumerate(masks) if pop[m] == 1}
        if self.oracle == "singles":
            cells.update(self._hidden_singles())
        if not cells:
            best = self._fewest()
            cells = {c for c, m in enumerate(masks) if m and pop[m] == best}
        return sorted(cells)

    def oracle_actions(self) -> list[str]:
        """Correct digits for the forced cells, or for the MRV cells when none is forced.

        >>> env = SudokuEnv(size=4, blanks=4)
        >>> _ = env.reset(options={"puzzle": "1234 3412 2143 43.."})
        >>> env.oracle_actions()
        ['4 3 2', '4 4 1']
        """
        self._require_started()
        if self.is_over:
            return []
        actions, solution = self._t.actions, self._solution
        return [actions[c][solution[c]] for c in self._oracle_cells()]

    def _score(self, move: tuple[int, int], snapshot: bytes) -> float:
        return self._judge(*move)[0]

    # ------------------------------------------------------------------ hooks
    def _legal_actions(self) -> list[str]:
        # The live list (updated in place by each step); TextEnv copies it into info.
        return self._legal

    def _parse(self, action: str) -> tuple[Any, str]:
        # Fast path for the canonical "r c d" strings a policy or agent mostly sends: one dict
        # lookup instead of the grammar (the step benchmark's moves are all canonical).
        move = self._t.moves.get(action)
        if move is not None:
            cell, digit = move
            # The candidate mask is 0 for filled cells, so one bit test accepts the common case.
            if self._masks[cell] >> (digit - 1) & 1:
                return move, ""
            return self._check_move(cell, digit)
        values, error = read_numbers(action, self._t.slots, example="ROW COLUMN DIGIT")
        if values is None:
            if not any("0" <= ch <= "9" for ch in action):
                # Copied placeholders or prose: say what the grammar's token error would not.
                return None, (
                    f"no numbers in {action.strip()[:40]!a}; write the row, column and digit "
                    f"as numbers from 1 to {self.size}, like <action>ROW COLUMN DIGIT</action>"
                )
            return None, error
        r, c, d = values
        return self._check_move((r - 1) * self.size + (c - 1), d)

    def _check_move(self, cell: int, d: int) -> tuple[Any, str]:
        """The move for an in-range ``(cell, d)``, or why the cell or digit is not allowed."""
        where = self._t.where[cell]
        if self._grid[cell]:
            what = "a given clue" if self._given[cell] else "already filled"
            return None, f"{where} is {what} ({self._grid[cell]}); write only into empty cells"
        if self._masks[cell] >> (d - 1) & 1 or self.repeats_are_wrong:
            return (cell, d), ""
        # The slow unit scan only words the error.
        units = conflicts(self._grid, self.size, cell, d)
        clash = " and ".join([", ".join(units[:-1]), units[-1]] if len(units) > 2 else units)
        return None, f"{d} already appears in the {clash} of {where}"

    def _apply(self, move: tuple[int, int]) -> Outcome:
        cell, digit = move
        if digit != self._solution[cell]:
            self._wrong += 1
            too_many = not self.wrong_digit_ends and self._wrong >= self.max_wrong
            ends = self.wrong_digit_ends or too_many
            self._message = f"{digit} at {self._t.where[cell]} is not the solution's digit" + (
                "." if ends else "; it was not written."
            )
            if ends:
                self._status = _TOO_MANY_WRONG if too_many else _WRONG
            return Outcome(
                process=self.rewards.wrong,
                terminated=ends,
                info={"move_kind": "wrong", "empty_cells": self._empty},
            )
        if self.score_process:
            process, kind = self._judge(cell, digit)
        else:
            process, kind = 0.0, "correct"
            self._hist = None  # not maintained by unscored steps; rebuilt when consulted
        self._place(cell, digit)
        self._message = self._t.placed[cell][digit]
        info = {"move_kind": kind, "empty_cells": self._empty}
        if self._empty == 0:
            self._status = _SOLVED
            return Outcome(process=process, outcome=1.0, terminated=True, success=True, info=info)
        return Outcome(process=process, info=info)

    def _reject(self, error: str) -> Outcome:
        self._message = f"Invalid action: {error}."
        return Outcome(info={"move_kind": "invalid", "empty_cells": self._empty})

    def _on_end(self, out: Outcome) -> None:
        if out.truncated:
            too_many = out.truncated_by == "max_invalid"  # why, as the base says it
            self._status = _TOO_MANY_INVALID if too_many else _OUT_OF_STEPS

    # ------------------------------------------------------------------ text
    def _observe(self) -> str:
        board = self._board.decode()
        last = f"\nLast action: {self._message}" if self._message else ""
        return (
            f"{board}\n{self._t.legend} Empty cells: "
            f"{self._empty}. Steps left: {self.steps_left}.{last}{_END_LINES[self._status]}"
        )

    # ------------------------------------------------------------------ snapshots
    def _state_dict(self) -> dict[str, Any]:
        return {
            "grid": list(self._grid),
            "given": list(self._given),
            "solution": list(self._solution),
            "status": self._status,
            "message": self._message,
            "wrong": self._wrong,
        }

    def _load_state_dict(self, d: dict[str, Any]) -> None:
        n = self.size * self.size
        grid = [int(v) for v in d["grid"]]
        solution = [int(v) for v in d["solution"]]
        given = [bool(v) for v in d["given"]]
        if not len(grid) == len(solution) == len(given) == n:
            raise ValueError(f"snapshot grids must have {n} cells")
        if d["status"] not in _END_LINES:
            raise ValueError(f"unknown status {d['status']!r} in snapshot")
        self._grid, self._solution, self._given = grid, solution, given
        self._status = str(d["status"])
        self._message = str(d["message"])
        self._wrong = int(d.get("wrong", 0))
        self._rebuild()
