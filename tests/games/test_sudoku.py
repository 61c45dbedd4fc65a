"""Sudoku: the pure maths against hand-computed grids, then the env contract and rewards."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import agentgym  # noqa: F401  (registers the ids)
from agentgym.core import TEXT_CHARSET, TextEnv
from agentgym.environments.games.sudoku import logic as L
from agentgym.environments.games.sudoku.env import SudokuEnv

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

# Generated 9x9 puzzle (seed 16, 50 blanks) with no forced cell at the start. Checked by hand:
# r1c1 sees row {6,7,4,5,2}, column {5,9,3}, box {6,5,2,9}, so its candidates are {1, 8}.
NO_FORCED_9 = ".6.74.52.52......49..51......7.....5..91754.6.4.6.3....52.....83.....7.9..6.5.1.."


def digits(text: str) -> list[int]:
    return [int(ch) for ch in text]


def grid_str(grid: list[int]) -> str:
    return "".join(str(v) if v else "." for v in grid)


def fresh(puzzle: str, size: int = 9, **kwargs) -> SudokuEnv:
    env = SudokuEnv(size=size, **kwargs)
    env.reset(seed=0, options={"puzzle": puzzle})
    return env


# ============================================================================ logic
def test_geometry_and_ranges():
    assert L.box_size(4) == 2 and L.box_size(9) == 3
    assert L.blank_range(9) == (1, 56) and L.blank_range(4) == (1, 12)
    assert L.peers(4)[5] == (0, 1, 4, 6, 7, 9, 13)  # r2c2: its row, column and top-left box
    assert all(len(p) == 20 for p in L.peers(9))
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
    assert L.forced_cells(grid, 4) == []
    assert L.mrv_cells(grid, 4) == [2, 3, 4, 5]
    assert L.oracle_cells(grid, 4) == ("mrv", [2, 3, 4, 5])


def test_forced_cells_hand_made_4x4():
    # Three blanks in S4, each the last empty cell of its row -> all three forced to 4.
    grid = list(S4)
    for cell in (3, 5, 12):
        grid[cell] = 0
    assert L.forced_cells(grid, 4) == [3, 5, 12]
    assert L.oracle_cells(grid, 4) == ("forced", [3, 5, 12])
    assert [L.candidate_masks(grid, 4)[c] for c in (3, 5, 12)] == [0b1000] * 3
    # "1 2 3 ." over an empty board: only cell 3 is forced (to 4).
    assert L.oracle_cells([1, 2, 3, 0] + [0] * 12, 4) == ("forced", [3])


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
    no_forced = L.parse_grid(NO_FORCED_9, 9)
    kind, cells = L.oracle_cells(no_forced, 9)
    assert kind == "mrv" and 0 in cells
    assert L.mask_digits(L.candidate_masks(no_forced, 9)[0]) == [1, 8]


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
    # No forced cell: MRV cells are 2, 3, 4, 5 (two candidates each).
    grid = [1, 2, 0, 0] + [0] * 12
    assert L.score_move(grid, sol, 4, 2, 3) == (1.0, "mrv")
    assert L.score_move(grid, sol, 4, 5, 4) == (1.0, "mrv")
    assert L.score_move(grid, sol, 4, 6, 1) == (0.5, "other")  # 4 candidates
    assert L.score_move(grid, sol, 4, 2, 4) == (-1.0, "wrong")  # allowed, but not the solution


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
    a = L.random_full_grid(9, np.random.default_rng(0))
    b = L.random_full_grid(9, np.random.default_rng(1))
    assert a != b


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
    ],
)
@pytest.mark.filterwarnings("ignore:.*render_mode")  # gymnasium warns before we raise
def test_bad_kwargs_raise(kwargs):
    with pytest.raises(ValueError):
        gym.make("agentgym/Sudoku-v0", **kwargs)


def test_defaults_and_allowed_values_named():
    env = gym.make("agentgym/Sudoku-v0").unwrapped
    assert (env.size, env.blanks, env.max_steps) == (9, 40, 80)
    small = SudokuEnv(size=4)
    assert (small.size, small.blanks, small.max_steps) == (4, 8, 16)
    with pytest.raises(ValueError, match=r"\(4, 9\)"):
        SudokuEnv(size=6)
    with pytest.raises(ValueError, match=r"\[1, 56\]"):
        SudokuEnv(blanks=70)


# ============================================================================ env: episodes
def test_observation_content():
    env = SudokuEnv()
    obs, info = env.reset(seed=0)
    assert obs.startswith("Sudoku 9x9")
    assert "    1 2 3   4 5 6   7 8 9" in obs and "\n9 | " in obs
    assert "'.' = empty cell" in obs and "<action>3 5 7</action>" in obs
    assert "Empty cells: 40. Steps left: 80." in obs
    assert obs.count(".") >= 40
    assert "candidate" not in obs.lower()  # no oracle leak
    assert set(obs) <= set(TEXT_CHARSET) and len(obs) <= env.max_observation_length
    assert env.observation_space.contains(obs)
    assert info["valid_action"] and info["verifier"]["name"] == "sudoku-forced-mrv"
    small = SudokuEnv(size=4)
    obs, _ = small.reset(seed=0)
    assert "<action>3 4 4</action>" in obs and "2x2 box" in obs


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
    b = int(size**0.5)
    out = []
    for r in range(size):
        for c in range(size):
            if grid[r * size + c]:
                continue
            seen = {grid[r * size + k] for k in range(size)}
            seen |= {grid[k * size + c] for k in range(size)}
            r0, c0 = r // b * b, c // b * b
            seen |= {grid[(r0 + i) * size + c0 + j] for i in range(b) for j in range(b)}
            out += [f"{r + 1} {c + 1} {d}" for d in range(1, size + 1) if d not in seen]
    return out


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


def test_full_observation_text():
    # The whole observation, written out by hand once: the incremental board must render
    # exactly what format_grid renders, and nothing around it may drift.
    env = fresh("12.4 3412 2143 43..", size=4, blanks=4)
    obs, *_ = env.step("4 3 2")
    assert obs == (
        "Sudoku 4x4. Fill every '.' so that each row, each column and each 2x2 box contains "
        "the digits 1-4 exactly once. The puzzle has exactly one solution.\n"
        "\n"
        "    1 2   3 4\n"
        "  +-----+-----+\n"
        "1 | 1 2 | . 4 |\n"
        "2 | 3 4 | 1 2 |\n"
        "  +-----+-----+\n"
        "3 | 2 1 | 4 3 |\n"
        "4 | 4 3 | 2 . |\n"
        "  +-----+-----+\n"
        "\n"
        "Legend: '.' = empty cell; a digit = a given clue or a digit you placed. Rows are "
        "numbered 1-4 from top to bottom, columns 1-4 from left to right.\n"
        'Action format: "row column digit", e.g. <action>3 4 4</action> writes 4 in row 3, '
        "column 4.\n"
        "Write only into empty cells. A digit that differs from the solution, or an invalid "
        "action, ends the episode.\n"
        "Empty cells: 2. Steps left: 7.\n"
        "Last action: You wrote 2 at row 4, column 3."
    )


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
    kind, cells = L.oracle_cells(grid, size)
    return {
        "masks": masks,
        "cand": cand[1:],
        "legal": naive_legal(grid, size),
        "board": L.format_grid(grid, size),
        "empty": grid.count(0),
        "hist": hist[1:],
        "oracle": [f"{c // size + 1} {c % size + 1} {env._solution[c]}" for c in cells],
    }


def incremental(env: SudokuEnv, obs: str) -> dict:
    """The same, as the env holds it (the oracle from its own bookkeeping)."""
    # Scored steps keep the histogram up to date; unscored ones drop it and oracle_actions()
    # rebuilds it from the masks.
    assert (env._hist is not None) == env.score_process
    return {
        "masks": env._masks,
        "cand": env._cand[1:],
        "legal": env._legal_actions(),
        "board": obs.split("\n\n")[1],
        "empty": env._empty,
        "oracle": env.oracle_actions(),
        "hist": env._hist[1:],
    }


@pytest.mark.parametrize(("size", "blanks"), [(4, 12), (9, 40), (9, 56)])
@pytest.mark.parametrize("score_process", [True, False])
def test_incremental_state_matches_a_recomputation_over_random_play(size, blanks, score_process):
    # Correct digits in random empty cells or oracle cells (so forced and MRV states both
    # occur), with snapshot reloads into fresh envs and occasional wrong digits.
    rng = np.random.default_rng(size * 100 + blanks)
    kinds, states = set(), set()
    for seed in range(8 if size == 9 else 30):
        env = SudokuEnv(size=size, blanks=blanks, score_process=score_process)
        obs, _ = env.reset(seed=seed)
        while True:
            assert incremental(env, obs) == scratch(env)
            states.add(L.oracle_cells(env._grid, size)[0])
            if rng.uniform() < 0.3:
                cell = L.oracle_cells(env._grid, size)[1][-1]
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
                other = SudokuEnv(size=size, blanks=blanks, score_process=score_process)
                other.set_state(env.get_state())
                assert other._observe() == obs
                env = other
    assert "forced" in states
    if blanks == 56:  # 40 blanks nearly always leave a naked single; 56 on 9x9 often do not
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
    _, r, term, _, info = env.step("5 5 5")  # forced (hand-checked above)
    assert (r, term, info["move_kind"], info["valid_action"]) == (2.0, False, "forced", True)
    assert info["reward_components"] == {"process": 2.0, "outcome": 0.0}
    # r1c3 has candidates {1,2,4}, the solution is 4; forced cells still exist -> +0.5.
    assert "1 3 4" not in env.oracle_actions()
    _, r, term, _, info = env.step("1 3 4")
    assert (r, term, info["move_kind"]) == (0.5, False, "other")
    # r3c5 allows 3 and 4; the solution is 4, so 3 is a wrong digit: -1 and the end.
    obs, r, term, _, info = env.step("r3c5=3")
    assert (r, term, info["success"], info["move_kind"]) == (-1.0, True, False, "wrong")
    assert info["valid_action"] and info["available_actions"] == []
    assert "not the solution's digit" in obs and "episode over" in obs
    assert env.oracle_actions() == [] and env.score_actions(["1 1 1"]) == [0.0]


def test_reward_mrv_when_nothing_forced():
    env = fresh(NO_FORCED_9)
    best = env.oracle_actions()
    assert best and best[0] == "1 1 " + str(L.solve(L.parse_grid(NO_FORCED_9, 9), 9)[0])
    cells = L.oracle_cells(L.parse_grid(NO_FORCED_9, 9), 9)[1]
    assert len(best) == len(cells)
    assert env.score_actions(best) == [1.0] * len(best)
    _, r, term, _, info = env.step(best[0])
    assert (r, term, info["move_kind"]) == (1.0, False, "mrv")


def test_completion_outcome_and_reward_modes():
    for mode, expected in (("both", 3.0), ("process", 2.0), ("outcome", 1.0)):
        env = fresh("1234 3412 2143 432.", size=4, reward_mode=mode)
        obs, r, term, trunc, info = env.step("<action>4 4 1</action>")
        assert (r, term, trunc, info["success"]) == (expected, True, False, True)
        assert info["reward_components"] == {"process": 2.0, "outcome": 1.0}
        assert "Status: solved." in obs


def test_step_budget_ends_with_outcome_zero():
    env = SudokuEnv(size=4, blanks=8, max_steps=3)
    obs, _ = env.reset(seed=1)
    assert "Steps left: 3." in obs
    for k in range(3):
        obs, r, term, _, info = env.step(env.oracle_actions()[0])
        assert r == 2.0 or r == 1.0
        assert term == (k == 2)
    assert info["success"] is False and info["reward_components"]["outcome"] == 0.0
    assert "No steps left" in obs and "Steps left: 0." in obs


@pytest.mark.parametrize(
    ("action", "fragment"),
    [
        ("1 1 5", "given clue"),
        ("5 5 4", "already appears in the row"),  # 4 is in row 5
        ("1 3 5", "already appears in the row and box"),
        ("10 10 10", "out of range"),
        ("0 3 1", "out of range"),
        ("1 3 0", "out of range"),
        ("1 3", "missing digit"),
        ("1 3 4 4", "too many numbers"),
        ("upp", "unexpected text"),
        ("reveal 0 0", "unexpected text"),
        ("-1 3 4", "unexpected text"),
        ("r1 r3 4", "given twice"),
        ("r c 4", "no number"),
        ("1 3 4 c", "label has no number"),
        ("", "empty"),
        ("<action></action>", "empty"),
        ("<action>1 3 4", "without a closing"),
        ("\u0661 3 4", "unexpected text"),  # Arabic-Indic digit one
        ("1" * 5000, "limit"),
        ("9" * 900 + " 1 1", "out of range"),
    ],
)
def test_invalid_actions_end_the_episode(action, fragment):
    env = fresh(WIKI)
    before = env._grid[:]
    obs, r, term, trunc, info = env.step(action)
    assert info["valid_action"] is False and fragment in info["action_error"]
    assert (r, term, trunc, info["success"]) == (-1.0, True, False, False)
    assert info["move_kind"] == "invalid" and info["invalid_actions"] == 1
    assert env._grid == before and "Invalid action" in obs
    assert set(obs) <= set(TEXT_CHARSET)


def test_filled_cell_is_invalid():
    env = fresh(WIKI)
    env.step("5 5 5")
    _, r, term, _, info = env.step("5 5 5")
    assert "already filled" in info["action_error"] and (r, term) == (-1.0, True)


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
        assert env.score_actions([text]) in ([0.0], [-1.0], [0.5], [1.0], [2.0])
    for bad in (None, 7, b"1 3 4", ["1", "3", "4"]):
        env.reset(seed=2)
        _, r, term, _, info = env.step(bad)  # type: ignore[arg-type]
        assert info["valid_action"] is False and (r, term) == (-1.0, True)


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
    obs = [a.reset(seed=s)[0] for s in range(5)]
    assert len(set(obs)) == 5


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
    assert payload["state"]["size"] == 9 and isinstance(payload["state"]["grid"][0], int)
    actions = [*env.oracle_actions()[:3], "1 1 1"]

    def play(e: SudokuEnv) -> list:
        return [e.step(a)[:4] for a in actions]

    first = play(env)
    other = SudokuEnv(size=9, blanks=45)
    other.set_state(snap)
    assert other.get_state() == snap
    assert play(other) == first
    with pytest.raises(ValueError, match="size"):
        SudokuEnv(size=4).set_state(snap)
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
