"""Sudoku: the pure maths against hand-computed grids, then the env contract and rewards."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import agentgym  # noqa: F401  (registers the ids)
from agentgym.core import TEXT_CHARSET, TextEnv
from agentgym.environments.games.sudoku import logic as L
from agentgym.environments.games.sudoku.env import VPR_PRESET, SudokuEnv

# Wikipedia's example puzzle and its (well-known) unique solution.
WIKI = (
    "53..7...." "6..195..." ".98....6." "8...6...3" "4..8.3..1"
    "7...2...6" ".6....28." "...419..5" "....8..79"
)  # fmt: skip
WIKI_SOLUTION = (
    "534678912" "672195348" "198342567" "859761423" "426853791"
    "713924856" "961537284" "287419635" "345286179"
)  # fmt: skip

# A full 4x4 grid used by the hand-made cases below:
#   1 2 | 3 4
#   3 4 | 1 2
#   ----+----
#   2 1 | 4 3
#   4 3 | 2 1
S4 = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]

# A unique 9x9 puzzle with no naked single (no cell has one candidate) but hidden singles:
#
#     1 2 3   4 5 6   7 8 9
#   +-------+-------+-------+
# 1 | . 6 . | 7 4 . | 5 2 . |
# 2 | 5 2 . | . . . | . . 4 |
# 3 | 9 . . | 5 1 . | . . . |
#   +-------+-------+-------+
# 4 | . . 7 | . . . | . . 5 |
# 5 | . . 9 | 1 7 5 | 4 . 6 |
# 6 | . 4 . | 6 . 3 | . . . |
#   +-------+-------+-------+
# 7 | . 5 2 | . . . | . . 8 |
# 8 | 3 . . | . . . | 7 . 9 |
# 9 | . . 6 | . 5 . | 1 . . |
#   +-------+-------+-------+
#
# Checked by hand:
# * r1c1 sees row {6,7,4,5,2}, column {5,9,3}, box {6,5,2,9}: candidates {1, 8} (the solution
#   has 8 there), and no cell has fewer than two, so r1c1 is a fewest-candidates (MRV) cell.
# * Hidden single r6c3 = 5: column 3's empty cells are r1c3, r2c3, r3c3, r6c3 and r8c3; rows
#   1, 2 and 3 already hold a 5 (r1c7, r2c1, r3c4) and r8c3's box holds one (r7c2), so 5 can
#   only go in r6c3, whose candidates are {1, 5, 8}: three, not a naked single.
NO_NAKED_9 = ".6.74.52.52......49..51......7.....5..91754.6.4.6.3....52.....83.....7.9..6.5.1.."
HIDDEN = "6 3 5"  # the hidden single above
TWO_CANDIDATES = "1 1 8"  # the correct digit of the two-candidate (MRV) cell r1c1

# Arto Inkala's puzzle: unique, and no naked or hidden single anywhere at the start, so even
# the singles oracle falls back to MRV. r8c7 sees row 8 {8,5,1}, column 7 {2,7,4} and box 9
# {6,8,1,4}: candidates {3, 9}; every other empty cell has at least three (checked below by
# brute force), so r8c7 is the only MRV cell and its digit is 9.
NO_SINGLES_9 = (
    "8........" "..36....." ".7..9.2.." ".5...7..." "....457.."
    "...1...3." "..1....68" "..85...1." ".9....4.."
)  # fmt: skip


def digits(text: str) -> list[int]:
    return [int(ch) for ch in text]


def grid_str(grid: list[int]) -> str:
    return "".join(str(v) if v else "." for v in grid)


def fresh(puzzle: str, size: int = 9, **kwargs) -> SudokuEnv:
    env = SudokuEnv(size=size, **kwargs)
    env.reset(seed=0, options={"puzzle": puzzle})
    return env


def naive_candidates(grid: list[int], size: int) -> dict[int, set[int]]:
    """Candidates of every empty cell by brute force over rows, columns and boxes."""
    b = int(size**0.5)
    out = {}
    for r in range(size):
        for c in range(size):
            if grid[r * size + c]:
                continue
            seen = {grid[r * size + k] for k in range(size)}
            seen |= {grid[k * size + c] for k in range(size)}
            r0, c0 = r // b * b, c // b * b
            seen |= {grid[(r0 + i) * size + c0 + j] for i in range(b) for j in range(b)}
            out[r * size + c] = set(range(1, size + 1)) - seen
    return out


def naive_hidden(grid: list[int], size: int) -> dict[int, int]:
    """Hidden singles by brute force: a digit with exactly one candidate cell in a unit."""
    b = int(size**0.5)
    cand = naive_candidates(grid, size)
    units = [[r * size + c for c in range(size)] for r in range(size)]
    units += [[r * size + c for r in range(size)] for c in range(size)]
    units += [
        [(r0 + i) * size + c0 + j for i in range(b) for j in range(b)]
        for r0 in range(0, size, b)
        for c0 in range(0, size, b)
    ]
    found = {}
    for unit in units:
        for d in range(1, size + 1):
            cells = [i for i in unit if d in cand.get(i, ())]
            if len(cells) == 1:
                found[cells[0]] = d
    return found


# ============================================================================ logic
def test_geometry_and_ranges():
    assert L.box_size(4) == 2 and L.box_size(9) == 3
    assert L.blank_range(9) == (1, 56) and L.blank_range(4) == (1, 12)
    assert L.peers(4)[5] == (0, 1, 4, 6, 7, 9, 13)  # r2c2: its row, column and top-left box
    assert all(len(p) == 20 for p in L.peers(9))
    units = L.unit_cells(4)
    assert len(units) == 12 and units[1] == (4, 5, 6, 7) and units[5] == (1, 5, 9, 13)
    assert units[11] == (10, 11, 14, 15)  # the bottom-right box
    with pytest.raises(ValueError, match="size must be one of"):
        L.box_size(6)


def test_mask_digits():
    assert L.mask_digits(0) == []
    assert L.mask_digits(0b1) == [1]
    assert L.mask_digits(0b100000001) == [1, 9]
    assert L.mask_table(9)[0b110] == (2, 3)


def test_candidates_hand_made_4x4():
    # Row 1 is "1 2 . .": cells 2 and 3 lose 1 and 2 (row); cells 4 and 5 lose 1 and 2 (box);
    # cell 8 only loses 1 (column); cell 6 loses nothing.
    grid = [1, 2, 0, 0] + [0] * 12
    masks = L.candidate_masks(grid, 4)
    cand = [L.mask_digits(m) for m in masks]
    assert cand[0] == [] and cand[1] == []
    assert cand[2] == [3, 4] and cand[3] == [3, 4]
    assert cand[4] == [3, 4] and cand[5] == [3, 4]
    assert cand[6] == [1, 2, 3, 4]
    assert cand[8] == [2, 3, 4] and cand[9] == [1, 3, 4]
    # Every digit still has two or more places in every unit: no hidden single either.
    assert L.naked_singles(grid, 4) == [] and L.hidden_singles(grid, 4) == {}
    assert L.forced_cells(grid, 4) == []
    assert L.mrv_cells(grid, 4) == [2, 3, 4, 5]
    assert L.oracle_cells(grid, 4) == ("mrv", [2, 3, 4, 5])


def test_forced_cells_hand_made_4x4():
    # Three blanks in S4, each the last empty cell of its row -> all three forced to 4.
    grid = list(S4)
    for cell in (3, 5, 12):
        grid[cell] = 0
    assert L.naked_singles(grid, 4) == [3, 5, 12]
    assert L.oracle_cells(grid, 4) == ("forced", [3, 5, 12])
    assert L.oracle_cells(grid, 4, oracle="naked") == ("forced", [3, 5, 12])
    assert [L.candidate_masks(grid, 4)[c] for c in (3, 5, 12)] == [0b1000] * 3
    # "1 2 3 ." over an empty board: only cell 3 is forced (to 4).
    assert L.oracle_cells([1, 2, 3, 0] + [0] * 12, 4) == ("forced", [3])


def test_hidden_singles_hand_made_4x4():
    # Two 1s, at r2c3 and r3c1. The top-left box's 1 cannot go in column 1 (r3c1) or row 2
    # (r2c3), so only r1c2 is left; row 4's 1 cannot go in column 1, column 3 or the
    # bottom-left box, so only r4c4. No cell has fewer than three candidates.
    grid = [0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0]
    assert L.hidden_singles(grid, 4) == {1: 1, 15: 1}
    assert L.naked_singles(grid, 4) == []
    assert min(len(c) for c in naive_candidates(grid, 4).values()) == 3
    assert L.oracle_cells(grid, 4) == ("forced", [1, 15])
    kind, cells = L.oracle_cells(grid, 4, oracle="naked")  # VPR's rule sees nothing forced
    assert kind == "mrv" and 1 not in cells and len(cells) == 12
    with pytest.raises(ValueError, match="oracle must be one of"):
        L.oracle_cells(grid, 4, oracle="hidden")


def test_candidates_hand_made_9x9():
    grid = L.parse_grid(WIKI, 9)
    masks = L.candidate_masks(grid, 9)
    # r5c5: row {4,8,3,1}, column {7,9,6,2,1,8}, box {6,8,3,2} -> only 5 is left.
    assert L.mask_digits(masks[4 * 9 + 4]) == [5]
    # r1c3: row {5,3,7}, column {8}, box {5,3,6,9,8} -> {1,2,4}.
    assert L.mask_digits(masks[2]) == [1, 2, 4]
    # r3c5: row {9,8,6}, column {7,9,6,2,1,8}, box {7,1,9,5} -> {3,4}.
    assert L.mask_digits(masks[2 * 9 + 4]) == [3, 4]
    kind, cells = L.oracle_cells(grid, 9)
    assert kind == "forced" and 4 * 9 + 4 in cells and 2 not in cells
    assert L.candidate_masks(grid, 9)[0] == 0  # given cell


def test_hidden_singles_hand_made_9x9():
    grid = L.parse_grid(NO_NAKED_9, 9)
    assert L.mask_digits(L.candidate_masks(grid, 9)[0]) == [1, 8]
    assert L.mask_digits(L.candidate_masks(grid, 9)[5 * 9 + 2]) == [1, 5, 8]
    assert L.naked_singles(grid, 9) == []
    hidden = L.hidden_singles(grid, 9)
    assert hidden[5 * 9 + 2] == 5 and hidden == naive_hidden(grid, 9)
    assert L.forced_cells(grid, 9) == sorted(hidden)
    assert L.oracle_cells(grid, 9, oracle="naked") == ("mrv", L.mrv_cells(grid, 9))
    assert 0 in L.mrv_cells(grid, 9) and 5 * 9 + 2 not in L.mrv_cells(grid, 9)
    none = L.parse_grid(NO_SINGLES_9, 9)
    cand = naive_candidates(none, 9)
    assert cand[7 * 9 + 6] == {3, 9} and naive_hidden(none, 9) == {}
    assert sorted(len(c) for c in cand.values())[:2] == [2, 3]  # r8c7 alone has two
    assert L.oracle_cells(none, 9) == ("mrv", [7 * 9 + 6])


def test_conflicts():
    grid = [1, 2, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0]
    assert L.conflicts(grid, 4, 2, 1) == ["row"]
    assert L.conflicts(grid, 4, 4, 3) == ["column"]
    assert L.conflicts(grid, 4, 5, 1) == ["box"]
    assert L.conflicts(grid, 4, 4, 1) == ["column", "box"]
    assert L.conflicts(grid, 4, 6, 4) == []


def test_count_solutions_and_solve():
    assert L.count_solutions([0] * 16, 4) == 2  # stops at the limit
    assert L.count_solutions([0] * 16, 4, limit=5) == 5
    assert L.count_solutions(S4, 4) == 1
    # Swap-able rectangle: r1c1/r1c2/r3c1/r3c2 blank can be 1 2 / 2 1 or 2 1 / 1 2.
    two = list(S4)
    for cell in (0, 1, 8, 9):
        two[cell] = 0
    assert L.count_solutions(two, 4) == 2
    bad = list(S4)
    bad[0] = 2  # row 1 now repeats 2
    assert L.count_solutions(bad, 4) == 0
    assert L.solve(bad, 4) is None
    wiki = L.parse_grid(WIKI, 9)
    assert L.count_solutions(wiki, 9) == 1
    assert L.solve(wiki, 9) == digits(WIKI_SOLUTION)


def test_score_move_every_branch():
    sol = S4
    # A forced cell exists (cell 3): correct there +2, correct elsewhere +0.5, wrong -1.
    grid = [1, 2, 3, 0] + [0] * 12
    assert L.score_move(grid, sol, 4, 3, 4) == (2.0, "forced")
    assert L.score_move(grid, sol, 4, 4, 3) == (0.5, "other")  # 2 candidates, not forced
    assert L.score_move(grid, sol, 4, 3, 1) == (-1.0, "wrong")
    # No forced cell (naked or hidden): MRV cells are 2, 3, 4, 5 (two candidates each).
    grid = [1, 2, 0, 0] + [0] * 12
    assert L.score_move(grid, sol, 4, 2, 3) == (1.0, "mrv")
    assert L.score_move(grid, sol, 4, 5, 4) == (1.0, "mrv")
    assert L.score_move(grid, sol, 4, 6, 1) == (0.5, "other")  # 4 candidates
    assert L.score_move(grid, sol, 4, 2, 4) == (-1.0, "wrong")  # allowed, but not the solution
    # The reward table is a parameter.
    table = L.Rewards(forced=5.0, mrv=3.0, other=1.0, wrong=-4.0)
    assert L.score_move(grid, sol, 4, 2, 3, rewards=table) == (3.0, "mrv")
    assert L.score_move(grid, sol, 4, 2, 4, rewards=table) == (-4.0, "wrong")


def test_score_move_hidden_single_beats_a_guess():
    # The defect of the naked-only rule (issue 6 item 1), on the hand-checked state above.
    grid = L.parse_grid(NO_NAKED_9, 9)
    sol = L.solve(grid, 9)
    assert sol[5 * 9 + 2] == 5 and sol[0] == 8
    assert L.score_move(grid, sol, 9, 5 * 9 + 2, 5) == (2.0, "forced")  # the deduction
    assert L.score_move(grid, sol, 9, 0, 8) == (0.5, "other")  # a 1-in-2 guess
    # VPR's rule pays the guess over the deduction.
    assert L.score_move(grid, sol, 9, 5 * 9 + 2, 5, oracle="naked") == (0.5, "other")
    assert L.score_move(grid, sol, 9, 0, 8, oracle="naked") == (1.0, "mrv")


def test_parse_and_format_grid():
    assert L.parse_grid("12.. 3400 .... ...1", 4) == [1, 2, 0, 0, 3, 4, 0, 0] + [0] * 7 + [1]
    with pytest.raises(ValueError, match="needs 16 cells"):
        L.parse_grid("123", 4)
    with pytest.raises(ValueError, match="integers in"):
        L.parse_grid("5" * 16, 4)
    text = L.format_grid(L.parse_grid(WIKI, 9), 9)
    lines = text.splitlines()
    assert lines[0] == "    1 2 3   4 5 6   7 8 9"
    assert lines[1] == "  +-------+-------+-------+"
    assert lines[2] == "1 | 5 3 . | . 7 . | . . . |"
    assert lines[-2] == "9 | . . . | . 8 . | . 7 9 |"
    assert len(lines) == 2 + 9 + 3
    assert [L.row_line(9, r) for r in range(9)] == [2, 3, 4, 6, 7, 8, 10, 11, 12]
    assert L.format_row(L.parse_grid(WIKI, 9), 9, 8) == lines[-2]


def test_cell_offsets_point_at_each_cell_of_format_grid():
    for size in L.SIZES:
        offsets = L.cell_offsets(size)
        assert len(offsets) == size * size and list(offsets) == sorted(set(offsets))
        grid = L.random_full_grid(size, np.random.default_rng(size))
        text = L.format_grid(grid, size)
        assert [int(text[o]) for o in offsets] == grid
    # Hand-checked: "    1 2   3 4\n" is 14 characters, "  +-----+-----+\n" 16, "1 | " 4.
    assert L.cell_offsets(4)[:2] == (34, 36)


def test_random_full_grid_is_valid_and_seeded():
    for size in L.SIZES:
        for seed in range(10):
            grid = L.random_full_grid(size, np.random.default_rng(seed))
            assert 0 not in grid and L.count_solutions(grid, size) == 1
            assert grid == L.random_full_grid(size, np.random.default_rng(seed))
    grids = {tuple(L.random_full_grid(9, np.random.default_rng(s))) for s in range(20)}
    assert len(grids) == 20


class _RawWordsOnly:
    """A stand-in generator with nothing but the bit generator: any draw through
    ``Generator.permutation / permuted / choice / integers / shuffle / random`` fails."""

    def __init__(self, seed: int) -> None:
        self.bit_generator = np.random.default_rng(seed).bit_generator


def test_generation_draws_only_raw_words():
    # Issue 6 item 9: NumPy keeps raw words stable for a seed, not its sampling methods.
    for size, blanks in ((4, 8), (9, 40)):
        puzzle, solution = L.make_puzzle(size, blanks, _RawWordsOnly(5))  # type: ignore[arg-type]
        assert (puzzle, solution) == L.make_puzzle(size, blanks, np.random.default_rng(5))
        assert L.count_solutions(puzzle, size) == 1


def test_seeded_puzzles_are_stable():
    # Stored outputs: a change to the generator or to NumPy's raw stream fails here.
    puzzle, solution = L.make_puzzle(4, 8, np.random.default_rng(0))
    assert (grid_str(puzzle), grid_str(solution)) == (".32...34.4..2.43", "4321123434122143")
    puzzle, solution = L.make_puzzle(9, 40, np.random.default_rng(0))
    assert grid_str(puzzle) == (
        "49.1.5.67" "3.7.6..85" ".85273.9." "1.86....4" "234.5.6.9"
        "..97..812" "8...27..." "9...4.7.6" "......92."
    )  # fmt: skip
    assert grid_str(solution) == (
        "492185367" "317469285" "685273491" "178692534" "234851679"
        "569734812" "856927143" "921348756" "743516928"
    )  # fmt: skip


@pytest.mark.parametrize(
    ("size", "blanks", "seeds"),
    [(9, 40, range(100)), (9, 56, range(20)), (4, 8, range(100)), (4, 12, range(100))],
)
def test_generated_puzzles_are_unique(size, blanks, seeds):
    for seed in seeds:
        puzzle, solution = L.make_puzzle(size, blanks, np.random.default_rng(seed))
        assert puzzle.count(0) == blanks
        assert L.count_solutions(puzzle, size, limit=2) == 1
        assert L.solve(puzzle, size) == solution
        assert all(p in (0, s) for p, s in zip(puzzle, solution, strict=True))


def test_blank_positions_vary_with_the_seed():
    # Removal follows a seeded permutation, so over a few seeds every cell gets blanked.
    blanked = set()
    for seed in range(30):
        puzzle, _ = L.make_puzzle(9, 40, np.random.default_rng(seed))
        blanked |= {i for i, v in enumerate(puzzle) if v == 0}
    assert blanked == set(range(81))


def test_make_puzzle_fallback_is_deterministic():
    # One attempt at 12 blanks on 4x4 often stops at a minimal puzzle with 11; the documented
    # fallback keeps the best attempt, which must still be unique and seed-determined.
    counts = set()
    for seed in range(40):
        p1, s1 = L.make_puzzle(4, 12, np.random.default_rng(seed), attempts=1)
        p2, s2 = L.make_puzzle(4, 12, np.random.default_rng(seed), attempts=1)
        assert (p1, s1) == (p2, s2)
        assert L.count_solutions(p1, 4) == 1
        counts.add(p1.count(0))
    assert counts == {11, 12}
    with pytest.raises(ValueError):
        L.make_puzzle(4, 16, np.random.default_rng(0))


# ============================================================================ env: kwargs
@pytest.mark.parametrize(
    "kwargs",
    [
        {"size": 5},
        {"size": 16},
        {"size": 9.0},
        {"size": True},
        {"size": "9"},
        {"blanks": 0},
        {"blanks": 57},
        {"size": 4, "blanks": 13},
        {"blanks": 4.5},
        {"max_steps": 0},
        {"max_steps": 1001},
        {"reward_mode": "sparse"},
        {"render_mode": "human"},
        {"oracle": "hidden"},
        {"preset": "paper"},
        {"invalid_penalty": 1.0},
        {"max_invalid": 0},
        {"wrong_digit_ends": 1},
        {"repeats_are_wrong": "yes"},
        {"reward_forced": float("nan")},
        {"reward_mrv": "1"},
        {"reward_other": 3.0},  # above reward_forced: the oracle would not be the best move
        {"reward_wrong": 0.5},  # a wrong digit may not score like a right one
    ],
)
@pytest.mark.filterwarnings("ignore:.*render_mode")  # gymnasium warns before we raise
def test_bad_kwargs_raise(kwargs):
    with pytest.raises(ValueError):
        gym.make("agentgym/Sudoku-v0", **kwargs)


def test_defaults_and_allowed_values_named():
    env = gym.make("agentgym/Sudoku-v0").unwrapped
    assert (env.size, env.blanks, env.max_steps) == (9, 40, 100)
    assert (env.invalid_penalty, env.max_invalid, env.oracle) == (-1.0, 3, "singles")
    assert env.wrong_digit_ends is True and env.repeats_are_wrong is False
    assert env.rewards == L.Rewards(forced=2.0, mrv=1.0, other=0.5, wrong=-1.0)
    small = SudokuEnv(size=4)
    assert (small.size, small.blanks, small.max_steps) == (4, 8, 100)
    with pytest.raises(ValueError, match=r"\(4, 9\)"):
        SudokuEnv(size=6)
    with pytest.raises(ValueError, match=r"\[1, 56\]"):
        SudokuEnv(blanks=70)
    # A preset fills the kwargs left at their defaults; others override it.
    assert SudokuEnv(preset="vpr", max_invalid=5).max_invalid == 5


def test_config_names_every_episode_shaping_kwarg():
    env = SudokuEnv(size=4, blanks=6, oracle="naked", reward_other=0.25)
    assert env.config() == {
        "size": 4, "blanks": 6, "oracle": "naked", "wrong_digit_ends": True, "max_wrong": 3,
        "repeats_are_wrong": False, "reward_forced": 2.0, "reward_mrv": 1.0,
        "reward_other": 0.25, "reward_wrong": -1.0, "preset": None,
        "max_steps": 100, "invalid_penalty": -1.0, "max_invalid": 3,
    }  # fmt: skip
    json.dumps(env.config())


# ============================================================================ env: text
def test_observation_shows_the_state_not_the_rules():
    env = SudokuEnv()
    obs, info = env.reset(seed=0)
    lines = obs.splitlines()
    assert lines[0] == "    1 2 3   4 5 6   7 8 9" and lines[2].startswith("1 | ")
    assert lines[-1] == "'.' = empty cell. Empty cells: 40. Steps left: 100."
    assert obs.count(".") >= 40
    # Issue 7 item 8: the rules and the action format live in the system prompt only.
    assert "<action>" not in obs and "exactly once" not in obs and "format" not in obs.lower()
    assert "candidate" not in obs.lower()  # no oracle leak
    assert set(obs) <= set(TEXT_CHARSET) and len(obs) <= env.max_observation_length
    assert env.observation_space.contains(obs)
    assert info["valid_action"] and info["verifier"]["name"] == "sudoku-forced-mrv"
    assert info["empty_cells"] == 40


@pytest.mark.parametrize("size", [4, 9])
def test_rules_fit_the_size_and_their_example_earns_nothing(size):
    env = SudokuEnv(size=size)
    obs, _ = env.reset(seed=0)
    prompt = env.system_prompt()
    assert env.rules in prompt and f"{size}x{size} grid" in env.rules
    assert f"numbers from 1 to {size}" in env.rules and "3 5 7" not in prompt
    examples = re.findall(r"<action>(.*?)</action>", prompt)
    assert "ROW COLUMN DIGIT" in examples
    snapshot = env.get_state()
    for example in examples:
        # Copied verbatim, an example is not a move: it is refused and scores the penalty.
        assert env.score_actions([f"<action>{example}</action>"]) == [env.invalid_penalty]
        env.set_state(snapshot)
        *_, info = env.step(f"<action>{example}</action>")
        assert info["valid_action"] is False and info["reward_components"]["process"] < 0
        env.set_state(snapshot)
    *_, info = env.step("ROW COLUMN DIGIT")
    assert "no numbers in 'ROW COLUMN DIGIT'" in info["action_error"]
    assert f"numbers from 1 to {size}" in info["action_error"]


def test_rules_follow_the_settings():
    assert "ends the game" in SudokuEnv().rules and "after 3 invalid actions" in SudokuEnv().rules
    assert "only cell left for a digit" in SudokuEnv().rules
    vpr = SudokuEnv(preset="vpr").rules
    assert "is not written and costs reward; play goes on" in vpr
    assert "counts as such a digit" in vpr and "invalid and ends the game" in vpr
    assert "only cell left" not in vpr  # naked singles only


def test_full_observation_text():
    # The whole observation, written out by hand once: the incremental board must render
    # exactly what format_grid renders, and nothing around it may drift.
    env = fresh("12.4 3412 2143 43..", size=4, blanks=4)
    obs, *_ = env.step("4 3 2")
    assert obs == (
        "    1 2   3 4\n"
        "  +-----+-----+\n"
        "1 | 1 2 | . 4 |\n"
        "2 | 3 4 | 1 2 |\n"
        "  +-----+-----+\n"
        "3 | 2 1 | 4 3 |\n"
        "4 | 4 3 | 2 . |\n"
        "  +-----+-----+\n"
        "'.' = empty cell. Empty cells: 2. Steps left: 99.\n"
        "Last action: You wrote 2 at row 4, column 3."
    )
    obs, *_ = env.step("4 4 4")
    assert obs.endswith(
        "Steps left: 98.\nLast action: Invalid action: 4 already appears in the row, column "
        "and box of row 4, column 4."
    )


# ============================================================================ env: episodes
def test_available_actions_hand_made():
    env = fresh("1234 3412 2143 43..", size=4)
    *_, info = env.step("4 3 2")
    assert info["available_actions"] == ["4 4 1"]
    env = fresh("1234 3412 2143 43..", size=4)
    assert env._legal_actions() == ["4 3 2", "4 4 1"]
    assert env.oracle_actions() == ["4 3 2", "4 4 1"]
    env = fresh(WIKI)
    legal = env._legal_actions()
    assert "1 3 1" in legal and "1 3 2" in legal and "1 3 4" in legal and "1 3 3" not in legal
    assert "5 5 5" in legal and "5 5 4" not in legal and "1 1 5" not in legal
    keys = [tuple(map(int, a.split())) for a in legal]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)


def naive_legal(grid: list[int], size: int) -> list[str]:
    """Legal actions by brute force over rows, columns and boxes (independent of logic.py)."""
    cand = naive_candidates(grid, size)
    return [
        f"{cell // size + 1} {cell % size + 1} {d}"
        for cell in sorted(cand)
        for d in sorted(cand[cell])
    ]


@pytest.mark.parametrize("size", [4, 9])
def test_available_actions_match_brute_force(size):
    env = SudokuEnv(size=size)
    for seed in range(5):
        _, info = env.reset(seed=seed)
        while True:
            assert info["available_actions"] == naive_legal(env._grid, size)
            _, _, terminated, _, info = env.step(env.oracle_actions()[-1])
            if terminated:
                assert info["available_actions"] == []
                break


def test_canonical_action_strings_sort_like_their_numbers():
    # The env keeps the legal list sorted with bisect on the strings; that is only right if
    # string order is (row, column, digit) order.
    for size in L.SIZES:
        keys = [(r, c, d) for r in range(1, size + 1) for c in range(1, size + 1)
                for d in range(1, size + 1)]  # fmt: skip
        strings = [f"{r} {c} {d}" for r, c, d in keys]
        assert sorted(strings) == strings


def cell_digit(action: str, size: int) -> tuple[int, int]:
    """``"r c d"`` as ``(cell, digit)``."""
    r, c, d = map(int, action.split())
    return (r - 1) * size + c - 1, d


def scratch(env: SudokuEnv) -> dict:
    """Everything the env keeps incrementally, recomputed from its grid alone."""
    size, grid = env.size, env._grid
    masks = L.candidate_masks(grid, size)
    cand = [0] * (size + 1)
    hist = [0] * (size + 1)
    for cell, m in enumerate(masks):
        for d in L.mask_digits(m):
            cand[d] |= 1 << cell
        if not grid[cell]:
            hist[len(L.mask_digits(m))] += 1
    kind, cells = L.oracle_cells(grid, size, env.oracle)
    legal = naive_legal(grid, size)
    return {
        "masks": masks,
        "cand": cand[1:],
        "legal": legal,
        "board": L.format_grid(grid, size),
        "empty": grid.count(0),
        "hist": hist[1:],
        "oracle": [f"{c // size + 1} {c % size + 1} {env._solution[c]}" for c in cells],
        "scores": [
            L.score_move(grid, env._solution, size, *cell_digit(a, size), env.oracle, env.rewards)[
                0
            ]
            for a in legal
        ],
    }


def incremental(env: SudokuEnv, obs: str) -> dict:
    """The same, as the env holds it (the oracle from its own bookkeeping)."""
    # Scored steps keep the histogram up to date; unscored ones drop it and oracle_actions()
    # rebuilds it from the masks.
    assert (env._hist is not None) == env.score_process
    oracle = env.oracle_actions()
    return {
        "masks": env._masks,
        "cand": env._cand[1:],
        "legal": env._legal_actions(),
        "board": obs.split("\n'.'")[0],
        "empty": env._empty,
        "oracle": oracle,
        "hist": env._naked_count()[1:],  # rebuilt from the masks if unscored steps dropped it
        "scores": env.score_actions(env._legal_actions()),
    }


@pytest.mark.parametrize(("size", "blanks"), [(4, 12), (9, 40), (9, 56)])
@pytest.mark.parametrize("score_process", [True, False])
@pytest.mark.parametrize("oracle", ["singles", "naked"])
def test_incremental_state_matches_a_recomputation_over_random_play(
    size, blanks, score_process, oracle
):
    # Correct digits in random empty cells or oracle cells (so forced and MRV states both
    # occur), with snapshot reloads into fresh envs and occasional wrong digits.
    rng = np.random.default_rng(size * 100 + blanks)
    kinds, states = set(), set()
    make = {"size": size, "blanks": blanks, "score_process": score_process, "oracle": oracle}
    for seed in range(6 if size == 9 else 30):
        env = SudokuEnv(**make)
        obs, _ = env.reset(seed=seed)
        while True:
            assert incremental(env, obs) == scratch(env)
            states.add(L.oracle_cells(env._grid, size, oracle)[0])
            if rng.uniform() < 0.3:
                cell = L.oracle_cells(env._grid, size, oracle)[1][-1]
            else:
                empty = [c for c, v in enumerate(env._grid) if not v]
                cell = empty[int(rng.integers(len(empty)))]
            digit = env._solution[cell]
            if rng.uniform() < 0.03:
                digit = next(iter(set(L.mask_digits(env._masks[cell])) - {digit}), digit)
            obs, _, terminated, _, info = env.step(f"{cell // size + 1} {cell % size + 1} {digit}")
            kinds.add(info["move_kind"])
            if terminated:
                assert info["available_actions"] == [] and env.oracle_actions() == []
                break
            if rng.uniform() < 0.1:
                other = SudokuEnv(**make)
                other.set_state(env.get_state())
                assert other._observe() == obs
                env = other
    assert "forced" in states
    if blanks == 56 and oracle == "naked":  # 56 blanks on 9x9 often leave no naked single
        assert "mrv" in states and (not score_process or "mrv" in kinds)
    if score_process:
        assert {"forced", "other", "wrong"} <= kinds <= {"forced", "mrv", "other", "wrong"}
    else:
        assert kinds == {"correct", "wrong"}


def test_score_process_false_changes_only_the_process_reward():
    for seed in range(4):
        scored, fast = SudokuEnv(blanks=45), SudokuEnv(blanks=45, score_process=False)
        obs_a, info_a = scored.reset(seed=seed)
        obs_b, info_b = fast.reset(seed=seed)
        assert obs_a == obs_b and info_a["available_actions"] == info_b["available_actions"]
        assert fast._hist is None  # nothing oracle-side is built for an unscored episode
        for k in range(45):
            # Alternate oracle moves with plain correct ones (first empty cell).
            cell = scored._grid.index(0)
            plain = f"{cell // 9 + 1} {cell % 9 + 1} {scored._solution[cell]}"
            action = plain if k % 3 == 2 else scored.oracle_actions()[0]
            assert fast.score_actions([action, "1 1 1"]) == scored.score_actions([action, "1 1 1"])
            assert fast.oracle_actions() == scored.oracle_actions()
            obs_a, r_a, term_a, _, info_a = scored.step(action)
            obs_b, r_b, term_b, _, info_b = fast.step(action)
            assert (obs_a, term_a, info_a["success"]) == (obs_b, term_b, info_b["success"])
            assert info_a["available_actions"] == info_b["available_actions"]
            assert info_a["reward_components"]["outcome"] == info_b["reward_components"]["outcome"]
            assert info_b["reward_components"]["process"] == 0.0 and r_b == (1.0 if term_b else 0.0)
            assert info_b["move_kind"] == "correct" and info_a["move_kind"] != "correct"
            assert fast._hist is None  # dropped by the unscored step, rebuilt on request
            if term_a:
                break
        assert info_a["success"] and info_b["success"]


def test_reward_forced_other_wrong():
    env = fresh(WIKI)
    assert "5 5 5" in env.oracle_actions()
    _, r, term, _, info = env.step("5 5 5")  # naked single (hand-checked above)
    assert (r, term, info["move_kind"], info["valid_action"]) == (2.0, False, "forced", True)
    assert info["reward_components"] == {"process": 2.0, "outcome": 0.0}
    # r1c3 has candidates {1,2,4}, the solution is 4, and no unit leaves 4 only one place
    # there; forced cells exist elsewhere -> +0.5.
    assert "1 3 4" not in env.oracle_actions()
    _, r, term, _, info = env.step("1 3 4")
    assert (r, term, info["move_kind"]) == (0.5, False, "other")
    # r3c5 allows 3 and 4; the solution is 4, so 3 is a wrong digit: a legal move that scores
    # -1 and ends the episode, terminated (a loss, not a truncation).
    obs, r, term, trunc, info = env.step("r3c5=3")
    assert (r, term, trunc, info["success"], info["move_kind"]) == (-1.0, True, False, False,
                                                                    "wrong")  # fmt: skip
    assert info["valid_action"] and info["available_actions"] == [] and info["invalid_actions"] == 0
    assert "not the solution's digit" in obs and "Game over: a wrong digit." in obs
    assert env.oracle_actions() == [] and env.score_actions(["1 1 1"]) == [0.0]


def test_hidden_single_scores_as_forced():
    # Issue 6 item 1, on the hand-checked NO_NAKED_9 state: no naked single anywhere.
    env = fresh(NO_NAKED_9)
    assert env.score_actions([HIDDEN, TWO_CANDIDATES]) == [2.0, 0.5]
    assert HIDDEN in env.oracle_actions() and TWO_CANDIDATES not in env.oracle_actions()
    assert env.oracle_actions() == [
        f"{c // 9 + 1} {c % 9 + 1} {d}" for c, d in sorted(naive_hidden(env._grid, 9).items())
    ]
    snapshot = env.get_state()
    _, r, _, _, info = env.step(HIDDEN)
    assert (r, info["move_kind"]) == (2.0, "forced")
    env.set_state(snapshot)
    _, r, _, _, info = env.step(TWO_CANDIDATES)
    assert (r, info["move_kind"]) == (0.5, "other")
    # The paper's rule, kept as oracle="naked": the guess outscores the deduction.
    naked = fresh(NO_NAKED_9, oracle="naked")
    assert naked.score_actions([HIDDEN, TWO_CANDIDATES]) == [0.5, 1.0]
    assert TWO_CANDIDATES in naked.oracle_actions() and HIDDEN not in naked.oracle_actions()


def test_reward_mrv_when_nothing_forced():
    # NO_SINGLES_9 has neither naked nor hidden singles: r8c7 (candidates {3, 9}) is the
    # only fewest-candidates cell, under both rules.
    for oracle in ("singles", "naked"):
        env = fresh(NO_SINGLES_9, oracle=oracle)
        assert env.oracle_actions() == ["8 7 9"]
        assert env.score_actions(["8 7 9", "8 7 3"]) == [1.0, -1.0]
        _, r, term, _, info = env.step("8 7 9")
        assert (r, term, info["move_kind"]) == (1.0, False, "mrv")
    env = fresh(NO_NAKED_9, oracle="naked")
    best = env.oracle_actions()
    cells = L.oracle_cells(L.parse_grid(NO_NAKED_9, 9), 9, oracle="naked")[1]
    assert len(best) == len(cells) and env.score_actions(best) == [1.0] * len(best)


def test_reward_constants_are_kwargs():
    table = {"reward_forced": 3.0, "reward_mrv": 1.5, "reward_other": 0.25, "reward_wrong": -2.0}
    env = fresh(NO_NAKED_9, **table)
    assert env.score_actions([HIDDEN, TWO_CANDIDATES, "1 1 1"]) == [3.0, 0.25, -2.0]
    env = fresh(NO_SINGLES_9, **table)
    assert env.score_actions(["8 7 9"]) == [1.5]


def test_wrong_digit_can_leave_the_game_going():
    env = fresh(WIKI, wrong_digit_ends=False)
    legal = env._legal_actions()[:]
    # r3c5 allows 3 and 4 (hand-checked above); the solution is 4.
    obs, r, term, trunc, info = env.step("3 5 3")
    assert (r, term, trunc, info["valid_action"], info["move_kind"]) == (
        -1.0, False, False, True, "wrong"
    )  # fmt: skip
    assert env._grid[2 * 9 + 4] == 0 and info["available_actions"] == legal  # nothing written
    assert "it was not written" in obs and "Game over" not in obs and info["invalid_actions"] == 0
    _, r, *_ = env.step("3 5 4")
    assert r in (0.5, 2.0)
    # And the game can still be won after a wrong digit.
    env = SudokuEnv(size=4, wrong_digit_ends=False)
    _, info = env.reset(seed=0)
    wrong = next(a for a in info["available_actions"] if a not in env.oracle_actions()
                 and env.score_actions([a]) == [-1.0])  # fmt: skip
    env.step(wrong)
    terminated = False
    while not terminated:
        _, r, terminated, _, info = env.step(env.oracle_actions()[0])
    assert info["success"] and env.steps == 1 + 8


def test_vpr_preset_rewards_equal_the_paper_config():
    # thu-nics/VPR verl/trainer/config/vpr_sudoku.yaml: forced 2.0, mrv 1.0, legal_non_oracle
    # 0.5, wrong_digit -1.0 with terminate_on_wrong_digit false, invalid_penalty -2.0 with
    # terminate_on_invalid_parse, and the naked-singles oracle.
    assert VPR_PRESET["oracle"] == "naked" and VPR_PRESET["invalid_penalty"] == -2.0
    env = fresh(WIKI, preset="vpr")
    assert (env.oracle, env.invalid_penalty, env.max_invalid, env.wrong_digit_ends) == (
        "naked", -2.0, 1, False
    )  # fmt: skip
    assert (env.size, env.blanks, env.max_steps) == (9, 40, 100)
    assert env.score_actions(["5 5 5", "1 3 4"]) == [2.0, 0.5]  # naked single; another cell
    env = fresh(NO_NAKED_9, preset="vpr")
    # The hidden single is "another cell" under the paper's rule; the 1-in-2 cell is MRV.
    assert env.score_actions([HIDDEN, TWO_CANDIDATES]) == [0.5, 1.0]
    # A wrong digit scores -1 and play goes on, the cell left empty; a digit its row already
    # holds (6 is in row 1) is one too, as VPR compares digits with the solution only.
    for wrong in ("1 1 1", "1 1 6"):
        _, r, term, trunc, info = env.step(wrong)
        assert (r, term, trunc, info["move_kind"], info["valid_action"]) == (
            -1.0, False, False, "wrong", True
        )  # fmt: skip
        assert env._grid[0] == 0
    # An invalid action (a filled cell) scores -2 and ends the episode.
    _, r, term, trunc, info = env.step("1 2 3")
    assert (r, term, trunc, info["truncated_by"]) == (-2.0, False, True, "max_invalid")
    assert env.config()["preset"] == "vpr"
    # Kwargs the preset sets may be repeated with its values (or overridden, see above).
    assert SudokuEnv(preset="vpr", oracle="naked", max_invalid=1).config() == env.config()


def test_completion_outcome_and_reward_modes():
    for mode, expected in (("both", 3.0), ("process", 2.0), ("outcome", 1.0)):
        env = fresh("1234 3412 2143 432.", size=4, reward_mode=mode)
        obs, r, term, trunc, info = env.step("<action>4 4 1</action>")
        assert (r, term, trunc, info["success"]) == (expected, True, False, True)
        assert info["reward_components"] == {"process": 2.0, "outcome": 1.0}
        assert "Game over: solved." in obs


def test_step_budget_truncates_with_outcome_zero():
    env = SudokuEnv(size=4, blanks=8, max_steps=3)
    obs, _ = env.reset(seed=1)
    assert "Steps left: 3." in obs
    for k in range(3):
        obs, r, term, trunc, info = env.step(env.oracle_actions()[0])
        assert r in (1.0, 2.0) and not term
        assert trunc == (k == 2)  # issue 6 item 5: a timeout is a truncation, not an ending
    assert info["truncated_by"] == "max_steps" and info["steps_left"] == 0
    assert info["success"] is False and info["reward_components"]["outcome"] == 0.0
    assert "Game over: out of steps." in obs and "Steps left: 0." in obs
    assert info["available_actions"] == [] and env.oracle_actions() == []


@pytest.mark.parametrize(
    ("action", "fragment"),
    [
        ("1 1 5", "given clue"),
        ("5 5 4", "already appears in the row"),  # 4 is in row 5
        ("1 3 5", "already appears in the row and box"),
        ("10 10 10", "row 10 is out of range; it must be 1-9"),
        ("0 3 1", "out of range"),
        ("1 3 0", "digit 0 is out of range"),
        ("1 3", "missing digit"),
        ("1 3 4 4", "too many numbers"),
        ("upp", "no numbers in 'upp'"),
        ("reveal 0 0", "unexpected 'reveal'"),
        ("-1 3 4", "unexpected '-'"),
        ("r1 r3 4", "given twice"),
        ("r c 4", "follows a label with no number"),
        ("1 3 4 c", "label has no number"),
        ("", "empty"),
        ("<action></action>", "empty"),
        ("<action>1 3 4", "without a closing"),
        ("\u0661 3 4", "unexpected '\\u0661'"),  # Arabic-Indic digit one
        ("1" * 5000, "limit"),
        ("9" * 900 + " 1 1", "too long for a move"),
    ],
)
def test_invalid_actions_are_penalised_and_counted(action, fragment):
    env = fresh(WIKI)
    before = env._grid[:]
    obs, r, term, trunc, info = env.step(action)
    assert info["valid_action"] is False and fragment in info["action_error"], info["action_error"]
    assert (r, term, trunc, info["success"]) == (-1.0, False, False, False)
    assert info["move_kind"] == "invalid" and info["invalid_actions"] == 1
    assert env._grid == before and "Invalid action" in obs and "Game over" not in obs
    assert set(obs) <= set(TEXT_CHARSET)


def test_third_invalid_action_truncates():
    env = fresh(WIKI)
    env.step("5 5 5")
    for k in range(3):
        obs, r, term, trunc, info = env.step("5 5 5")  # now filled
        assert "already filled" in info["action_error"] and r == -1.0 and not term
        assert trunc == (k == 2) and info["invalid_actions"] == k + 1
    assert info["truncated_by"] == "max_invalid" and "too many invalid actions" in obs


def test_repeated_digit_is_invalid_by_default_and_wrong_if_asked():
    _, r, term, _, info = fresh(WIKI).step("5 5 4")  # 4 is already in row 5
    assert (r, term, info["valid_action"]) == (-1.0, False, False)
    env = fresh(WIKI, repeats_are_wrong=True)
    _, r, term, _, info = env.step("5 5 4")
    assert (r, term, info["valid_action"], info["move_kind"]) == (-1.0, True, True, "wrong")


def test_garbage_never_raises():
    junk = [
        "", " ", "\n\t", "x" * 100_000, "\x00\x01", "\u00e9\u4e2d\U0001f600", "1 2 3" * 300,
        "<action>", "</action>", "<action><action>1 3 4</action>", "None", "3;5;7;",
        "r3c5=", "=7", "(((", "1e3 2 3", "0x1 2 3", "nan nan nan", "-0 -0 -0",
    ]  # fmt: skip
    env = SudokuEnv()
    for text in junk:
        env.reset(seed=2)
        obs, r, term, _, info = env.step(text)
        assert isinstance(obs, str) and obs and set(obs) <= set(TEXT_CHARSET)
        assert isinstance(info["action_error"], str)
        assert env.score_actions([text]) in ([0.0], [-1.0], [0.5], [1.0], [2.0])  # 0: it ended
    for bad in (None, 7, b"1 3 4", ["1", "3", "4"]):
        env.reset(seed=2)
        _, r, term, _, info = env.step(bad)  # type: ignore[arg-type]
        assert info["valid_action"] is False and (r, term) == (-1.0, False)


@pytest.mark.parametrize(
    "text",
    [
        "1 3 4", "r1c3=4", "R1C3 = 4", "(1,3) 4", "1,3,4", "134", "[1, 3]: 4", "c3 r1 4",
        "row 1 column 3 digit 4", "put 4 at r1c3", "write 4 in row 1, col 3", "1 3 4.",
        "I think <action>r1c3 4</action>", "<ACTION> 1 3 4 </ACTION>", " 1   3\t4 ",
    ],
)  # fmt: skip
def test_lenient_formats_mean_the_same_move(text):
    env = fresh(WIKI)
    move, error = env._interpret(text)
    assert (move, error) == ((2, 4), "")
    _, r, _, _, info = env.step(text)
    assert r == 0.5 and info["valid_action"]


def test_score_actions_matches_step_and_keeps_state():
    for seed in (0, 1, 2):
        env = SudokuEnv()
        env.reset(seed=seed)
        for _ in range(seed * 7):  # look at states deeper into the episode too
            env.step(env.oracle_actions()[0])
        snap = env.get_state()
        legal = env._legal_actions()
        probes = [*legal, "1 1 1", "garbage", "9 9 9"]
        scores = env.score_actions(probes)
        assert env.get_state() == snap
        stepped = []
        for action in probes:
            env.set_state(snap)
            stepped.append(env.step(action)[1])
        env.set_state(snap)
        assert scores == stepped
        best = max(scores)
        expected = [a for a, s in zip(probes, scores, strict=True) if s == best]
        assert env.oracle_actions() == expected
        assert TextEnv.oracle_actions(env) == expected  # base path: scores every legal action
        assert best in (1.0, 2.0)


def test_oracle_solves_200_levels():
    env = gym.make("agentgym/Sudoku-v0")
    solved = 0
    for seed in range(200):
        _, info = env.reset(seed=seed)
        terminated, total, steps = False, 0.0, 0
        while not terminated:
            _, r, terminated, truncated, info = env.step(env.unwrapped.oracle_actions()[0])
            total += r
            steps += 1
            assert r in (1.0, 2.0, 3.0) and not truncated
        solved += info["success"]
        assert steps == 40 and total >= 41.0
    assert solved == 200


@pytest.mark.parametrize("blanks", [8, 12])
def test_oracle_solves_4x4_levels(blanks):
    env = gym.make("agentgym/Sudoku-v0", size=4, blanks=blanks)
    for seed in range(100):
        env.reset(seed=seed)
        terminated, steps = False, 0
        while not terminated:
            _, _, terminated, _, info = env.step(env.unwrapped.oracle_actions()[0])
            steps += 1
        assert info["success"] and steps == blanks


def test_reset_is_seeded_and_reproducible():
    a, b = SudokuEnv(), SudokuEnv()
    assert a.reset(seed=7)[0] == b.reset(seed=7)[0]
    assert a.reset(seed=7)[0] != a.reset(seed=8)[0]
    obs = [a.reset(seed=s)[0] for s in range(20)]
    assert len(set(obs)) == 20


def test_same_seed_same_observation_in_another_process():
    code = (
        "import hashlib, gymnasium as gym, agentgym\n"
        "env = gym.make('agentgym/Sudoku-v0')\n"
        "obs, _ = env.reset(seed=123)\n"
        "a = env.unwrapped.oracle_actions()[0]\n"
        "print(hashlib.sha256((obs + a).encode()).hexdigest())\n"
    )
    env = gym.make("agentgym/Sudoku-v0")
    obs, _ = env.reset(seed=123)
    here = hashlib.sha256((obs + env.unwrapped.oracle_actions()[0]).encode()).hexdigest()
    for hash_seed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
        )
        assert out.stdout.strip() == here


def test_snapshot_roundtrip_replays_identically():
    env = SudokuEnv(size=9, blanks=45)
    env.reset(seed=11)
    for _ in range(5):
        env.step(env.oracle_actions()[-1])
    snap = env.get_state()
    payload = json.loads(snap)
    assert payload["config"]["size"] == 9 and isinstance(payload["state"]["grid"][0], int)
    actions = [*env.oracle_actions()[:3], "1 1 1"]

    def play(e: SudokuEnv) -> list:
        return [e.step(a)[:4] for a in actions]

    first = play(env)
    other = SudokuEnv(size=9, blanks=45)
    other.set_state(snap)
    assert other.get_state() == snap and other.episode_seed == 11
    assert play(other) == first
    for differing, key in (
        ({"size": 4}, "size"),
        ({"blanks": 45, "oracle": "naked"}, "oracle"),
        ({"blanks": 45, "wrong_digit_ends": False}, "wrong_digit_ends"),
    ):
        with pytest.raises(ValueError, match=key):
            SudokuEnv(**differing).set_state(snap)
    with pytest.raises(ValueError):
        other.set_state(b"not json")


def test_puzzle_option_validation():
    env = SudokuEnv(size=4)
    with pytest.raises(ValueError, match="exactly one solution"):
        env.reset(options={"puzzle": "................"})
    with pytest.raises(ValueError, match="16 cells"):
        env.reset(options={"puzzle": WIKI})
    with pytest.raises(ValueError, match="no empty cell"):
        env.reset(options={"puzzle": "1234341221434321"})
    with pytest.raises(ValueError, match="string"):
        env.reset(options={"puzzle": 5})


def test_render_ansi():
    env = gym.make("agentgym/Sudoku-v0", size=4, render_mode="ansi")
    obs, _ = env.reset(seed=3)
    assert env.render() == obs
    env.close()
    env.close()
