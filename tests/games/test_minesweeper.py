"""Minesweeper: board maths, the exact posterior (checked by brute force), the env's rewards."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from functools import reduce
from itertools import combinations
from operator import or_

import gymnasium as gym
import numpy as np
import pytest

import agentgym  # noqa: F401  (registers the ids)
from agentgym.actions import extract_action
from agentgym.core import TEXT_CHARSET
from agentgym.draws import Draws
from agentgym.environments.games.minesweeper.board import (
    cells_of,
    flood_mask,
    flood_reveal,
    neighbour_counts,
    neighbours,
    place_mines,
)
from agentgym.environments.games.minesweeper.counting import (
    POSTERIOR_METHODS,
    count_component,
)
from agentgym.environments.games.minesweeper.deduction import local_deduction
from agentgym.environments.games.minesweeper.env import PRESETS
from agentgym.environments.games.minesweeper.env import MinesweeperEnv as _MinesweeperEnv
from agentgym.environments.games.minesweeper.solver import PosteriorSolver, mine_posterior


def MinesweeperEnv(**kwargs) -> _MinesweeperEnv:
    """The env scored with VPR's per-action verdicts, which most tests here check; the
    default progress reward has its own tests (``test_progress_*`` here and
    ``tests/games/test_exploits.py``)."""
    kwargs.setdefault("process_reward", "verdict")
    return _MinesweeperEnv(**kwargs)

F = Fraction


def brute_force_posterior(rows, cols, mines, revealed, counts):
    """Reference P(mine) by trying every placement of ``mines`` among the hidden cells
    (exponential: tiny boards only)."""
    n = rows * cols
    hidden = [i for i in range(n) if not revealed[i]]
    table = neighbours(rows, cols)
    checks = [(set(table[i]), counts[i]) for i in range(n) if revealed[i]]
    hits = dict.fromkeys(hidden, 0)
    total = 0
    for layout in combinations(hidden, mines):
        chosen = set(layout)
        if all(len(around & chosen) == k for around, k in checks):
            total += 1
            for c in layout:
                hits[c] += 1
    if total == 0:
        raise ValueError("no mine layout is consistent with the revealed numbers")
    return [Fraction(hits[i], total) if i in hits else None for i in range(n)]


def cell(env: MinesweeperEnv, r: int, c: int) -> int:
    """Flat index of the 1-based (r, c)."""
    return (r - 1) * env.cols + (c - 1)


def load_board(
    env: MinesweeperEnv,
    mines: list[tuple[int, int]],
    revealed: list[tuple[int, int]],
    flags: tuple[tuple[int, int], ...] = (),
) -> None:
    """Put ``env`` mid-game on a hand-made board (1-based coordinates)."""
    env.reset(seed=0)
    payload = json.loads(env.get_state())
    payload["state"].update(
        placed=True,
        mines=sorted(cell(env, r, c) for r, c in mines),
        revealed=sorted(cell(env, r, c) for r, c in revealed),
        flags=sorted(cell(env, r, c) for r, c in flags),
    )
    env.set_state(json.dumps(payload).encode())


def all_but(env: MinesweeperEnv, hidden: set[tuple[int, int]]) -> list[tuple[int, int]]:
    return [
        (r, c)
        for r in range(1, env.rows + 1)
        for c in range(1, env.cols + 1)
        if (r, c) not in hidden
    ]


class RawOnly:
    """A generator stand-in with nothing but ``bit_generator``: drawing through any
    ``Generator`` method (whose streams NumPy does not promise to keep) raises."""

    def __init__(self, seed: int) -> None:
        self.bit_generator = np.random.PCG64(seed)


# ---------------------------------------------------------------------------------- board
def test_neighbours_of_corner_edge_and_centre():
    table = neighbours(3, 4)
    assert table[0] == (1, 4, 5)
    assert table[1] == (0, 2, 4, 5, 6)
    assert table[5] == (0, 1, 2, 4, 6, 8, 9, 10)
    assert all(len(t) in (3, 5, 8) for t in table)


def test_neighbour_counts_and_flood_reveal_by_hand():
    # 3x3 with one mine in the top-right corner (a mine's own count ignores itself).
    counts = neighbour_counts(3, 3, [2])
    assert counts == [0, 1, 0, 0, 1, 1, 0, 0, 0]
    hidden = [False] * 9
    # Opening the bottom-left zero floods every zero and their numbered rim, not the mine.
    assert flood_reveal(3, 3, counts, hidden, hidden, 6) == [0, 1, 3, 4, 5, 6, 7, 8]
    # A number opens only itself; a flagged or revealed start opens nothing.
    assert flood_reveal(3, 3, counts, hidden, hidden, 1) == [1]
    flags = [False] * 9
    flags[6] = True
    assert flood_reveal(3, 3, counts, hidden, flags, 6) == []
    # The flood goes around flagged cells instead of opening them.
    flags = [False] * 9
    flags[7] = True
    assert 7 not in flood_reveal(3, 3, counts, hidden, flags, 6)


def test_place_mines_avoids_the_first_cell_and_its_neighbours():
    for seed in range(50):
        rng = np.random.default_rng(seed)
        cells = place_mines(5, 5, 16, 0, rng)
        assert len(cells) == 16 == len(set(cells))
        assert not {0, 1, 5, 6} & set(cells)
    # Same generator state, same mines: placement is a pure function of the rng.
    a = place_mines(9, 9, 10, 40, np.random.default_rng(7))
    b = place_mines(9, 9, 10, 40, np.random.default_rng(7))
    assert a == b and 40 not in a
    # A 3x3 board has no room outside a centre click's neighbourhood: only the cell is kept.
    for seed in range(20):
        cells = place_mines(3, 3, 1, 4, np.random.default_rng(seed))
        assert cells != [4]
    with pytest.raises(ValueError, match="mines"):
        place_mines(3, 3, 9, 4, np.random.default_rng(0))


def test_mines_are_drawn_from_the_raw_bit_stream_only():
    # Generator.choice / integers / permutation streams may change between NumPy releases;
    # the raw words of the bit generator may not. A stand-in with only the bit generator
    # must give the very same board as the real generator.
    for seed in range(10):
        assert place_mines(9, 9, 10, 40, RawOnly(seed)) == place_mines(  # type: ignore[arg-type]
            9, 9, 10, 40, np.random.default_rng(seed)
        )
    # And so must a whole episode: the env draws through agentgym.draws only.
    env, raw = MinesweeperEnv(rows=9, cols=9, mines=10), MinesweeperEnv(rows=9, cols=9, mines=10)
    env.reset(seed=3)
    raw.reset(seed=3)
    raw._np_random = RawOnly(3)  # type: ignore[assignment]  # what reset(seed=3) seeded
    assert env.step("reveal 5 5")[0] == raw.step("reveal 5 5")[0]
    assert env._mine_cells == raw._mine_cells


def _reference_flood(rows, cols, counts, revealed, flags, start):
    """Breadth-first flood, one cell at a time: what flood_reveal must agree with."""
    if revealed[start] or flags[start]:
        return []
    table = neighbours(rows, cols)
    opened, queue = {start}, [start]
    while queue:
        c = queue.pop()
        if counts[c] == 0:
            for j in table[c]:
                if j not in opened and not revealed[j] and not flags[j]:
                    opened.add(j)
                    queue.append(j)
    return sorted(opened)


def test_flood_on_bitmasks_matches_a_cell_by_cell_flood():
    draws = Draws(np.random.default_rng(5))
    for _ in range(400):
        rows, cols = 1 + draws.below(16), 1 + draws.below(16)
        n = rows * cols
        mines = draws.sample(range(n), draws.below(n // 4 + 1))
        counts = neighbour_counts(rows, cols, mines)
        revealed = [draws.random() < 0.15 and i not in mines for i in range(n)]
        flags = [draws.random() < 0.1 and not revealed[i] for i in range(n)]
        safe = [i for i in range(n) if i not in mines]
        if not safe:
            continue
        start = draws.pick(safe)
        expected = _reference_flood(rows, cols, counts, revealed, flags, start)
        assert flood_reveal(rows, cols, counts, revealed, flags, start) == expected
        zeros = sum(1 << i for i in range(n) if counts[i] == 0)
        closed = sum(1 << i for i in range(n) if revealed[i] or flags[i])
        assert cells_of(flood_mask(rows, cols, zeros, closed, start)) == expected
    # By hand: 3x3 with a mine in the top-right corner (numbers 0 1 0 / 0 1 1 / 0 0 0). The 0s
    # flood everything else; the mine's own 0 is never reached, as no 0 touches it.
    assert flood_mask(3, 3, 0b111001101, 0, 6) == 0b111111011


def test_cells_of_sparse_and_dense_masks():
    assert cells_of(0) == []
    assert cells_of(0b1011) == [0, 1, 3]
    dense = (1 << 81) - 1 - (1 << 40)
    assert cells_of(dense) == [i for i in range(81) if i != 40]
    assert cells_of(1 << 255) == [255]


# ---------------------------------------------------------------------------------- posterior
def test_posterior_corner_one_weights_the_unconstrained_cells():
    # 3x3, 2 mines, only the top-left corner revealed showing 1: one mine among its three
    # hidden neighbours, the other among the 5 far cells. 3 * C(5, 1) = 15 layouts.
    revealed = [True] + [False] * 8
    counts = [1] + [0] * 8
    post = mine_posterior(3, 3, 2, revealed, counts)
    assert post.fraction(0) is None
    assert [post.fraction(i) for i in (1, 3, 4)] == [F(1, 3)] * 3
    assert [post.fraction(i) for i in (2, 5, 6, 7, 8)] == [F(1, 5)] * 5
    assert post.degraded is False


def test_posterior_global_mine_count_changes_local_odds():
    # 1x7 strip: # 1 # 1 # # #   with 2 mines. Locally the shared cell (col 3) looks 50/50,
    # but {col 3 + one of the 2 far cells} has 2 layouts and {cols 1 and 5} only 1.
    revealed = [False, True, False, True, False, False, False]
    counts = [0, 1, 0, 1, 0, 0, 0]
    post = mine_posterior(1, 7, 2, revealed, counts)
    expected = [F(1, 3), None, F(2, 3), None, F(1, 3), F(1, 3), F(1, 3)]
    assert [post.fraction(i) for i in range(7)] == expected
    assert brute_force_posterior(1, 7, 2, revealed, counts) == expected
    assert post.prob(2) == pytest.approx(2 / 3)
    # With 1 mine only the shared cell can hold it.
    post = mine_posterior(1, 7, 1, revealed, counts)
    assert [post.fraction(i) for i in (0, 2, 4, 5, 6)] == [0, 1, 0, 0, 0]


def test_posterior_one_two_one_pattern():
    # 3x3: top row hidden over "1 2 1" and a row of zeros: mines at both ends, middle safe.
    revealed = [False] * 3 + [True] * 6
    counts = [0, 0, 0, 1, 2, 1, 0, 0, 0]
    post = mine_posterior(3, 3, 2, revealed, counts)
    assert [post.fraction(i) for i in range(3)] == [1, 0, 1]
    assert local_deduction(3, 3, revealed, counts) == ([1], [0, 2])


def test_posterior_one_one_pattern_on_a_wall():
    # 3x4: top row hidden over "1 1 1 ." and a row of zeros. The wall "1 1" clears (1,3),
    # the "." clears (1,3) and (1,4), and the rest pins the mine on (1,2).
    rows, cols = 3, 4
    counts = neighbour_counts(rows, cols, [1])  # the mine on (1, 2)
    revealed = [False] * 4 + [True] * 8
    assert counts[4:8] == [1, 1, 1, 0]
    post = mine_posterior(rows, cols, 1, revealed, counts)
    assert [post.fraction(i) for i in range(4)] == [0, 1, 0, 0]
    # The bare 1-1 rule: 2x3 with "1 1 #" under the hidden top row. Both ones share the
    # mine, so the cells only the second one sees, (1,3) and (2,3), are safe; 50/50 on the rest.
    counts2 = neighbour_counts(2, 3, [0])
    post = mine_posterior(2, 3, 1, [False, False, False, True, True, False], counts2)
    assert counts2[3:5] == [1, 1]
    assert [post.fraction(i) for i in (0, 1, 2, 5)] == [F(1, 2), F(1, 2), 0, 0]


def _random_states(rows: int, cols: int, mines: int, seed: int, limit: int = 20_000):
    """Mid-game states reached by random safe reveals (and some correct flags) from a seed,
    each with the posterior the env's incremental solver gave for it.

    The reveals are not the oracle's: many are lucky guesses of cells with P(mine) > 0,
    which the solver must handle as well as certain-safe ones.
    """
    env = MinesweeperEnv(rows=rows, cols=cols, mines=mines)
    env.reset(seed=seed)
    draws = Draws(np.random.default_rng(seed + 1000))
    first = draws.below(rows * cols)
    env.step(f"reveal {first // cols + 1} {first % cols + 1}")
    states = []
    while env._status == "playing":
        hidden = env._n - sum(env._revealed)
        post = env.posterior()
        if math.comb(hidden, mines) <= limit:
            states.append((list(env._revealed), list(env._counts), post))
        if draws.random() < 0.2:
            sure = [i for i in range(env._n) if post.numerators[i] == post.denominator]
            sure = [i for i in sure if not env._flags[i]]
            if sure:
                i = draws.pick(sure)
                env.step(f"flag {i // cols + 1} {i % cols + 1}")
                continue
        safe = [i for i in range(env._n) if not env._revealed[i] and not env._is_mine[i]]
        i = draws.pick(safe)
        env.step(f"reveal {i // cols + 1} {i % cols + 1}")
    return states


BOARDS = [(4, 4, 3), (4, 4, 7), (4, 5, 4), (5, 5, 5), (5, 5, 10), (5, 6, 6), (3, 3, 1), (3, 5, 4)]


@pytest.mark.parametrize(("rows", "cols", "mines"), BOARDS)
def test_posterior_equals_brute_force_on_random_mid_game_states(rows, cols, mines):
    checked = 0
    for seed in range(12):
        for revealed, counts, incremental in _random_states(rows, cols, mines, seed):
            truth = brute_force_posterior(rows, cols, mines, revealed, counts)
            assert [incremental.fraction(i) for i in range(rows * cols)] == truth, seed
            for method in POSTERIOR_METHODS:
                post = mine_posterior(rows, cols, mines, revealed, counts, method=method)
                assert not post.degraded
                got = [post.fraction(i) for i in range(rows * cols)]
                assert got == truth, (seed, method)
                floats = post.probs()
                for p, t in zip(floats, truth, strict=True):
                    assert (p is None) == (t is None)
                    if t is not None:
                        assert abs(p - float(t)) < 1e-9
            # The probabilities of the hidden cells add up to the mine count.
            assert sum(t for t in truth if t is not None) == mines
            checked += 1
    assert checked >= 8


def test_local_deduction_is_sound_against_brute_force():
    found = 0
    for seed in range(15):
        for revealed, counts, _ in _random_states(5, 5, 6, seed):
            truth = brute_force_posterior(5, 5, 6, revealed, counts)
            safe, sure = local_deduction(5, 5, revealed, counts)
            assert all(truth[i] == 0 for i in safe)
            assert all(truth[i] == 1 for i in sure)
            found += len(safe) + len(sure)
    assert found > 0


def test_exact_methods_agree_on_a_long_frontier():
    # 9x9 states from oracle play: "auto" must switch to the counting DP on the big ones
    # and still give the same fractions as listing every layout.
    env = MinesweeperEnv(rows=9, cols=9, mines=10)
    compared = 0
    for seed in range(4):
        env.reset(seed=seed)
        while env._status == "playing":
            if env._placed:
                posts = [
                    mine_posterior(9, 9, 10, env._revealed, env._counts, method=m)
                    for m in POSTERIOR_METHODS
                ]
                assert all(post == posts[0] for post in posts)
                compared += 1
            env.step(env.oracle_actions()[0])
    assert compared > 20


def test_solver_follows_reveals_and_settles_certain_cells():
    # 1x5 strip with the mine on the last cell: numbers 0 0 0 1 0.
    solver = PosteriorSolver(1, 5, 1, neighbour_counts(1, 5, [4]))
    solver.reveal([3])
    # "1" over cells 2 and 4: one of them, 50/50; no mine is left for cells 0 and 1.
    post = solver.posterior()
    assert [post.fraction(i) for i in range(5)] == [0, 0, F(1, 2), None, F(1, 2)]
    assert solver.safe(0) and not solver.safe(2) and solver.lowest() == 0
    assert solver.cell(2) == (post.numerators[2], post.denominator, False)
    solver.reveal([2, 2, 3])  # repeats and already revealed cells are ignored
    # Cell 2 shows 0: cell 1 is safe, so the mine is on cell 4.
    post = solver.posterior()
    assert [post.fraction(i) for i in range(5)] == [0, 0, None, None, 1]
    num, den, degraded = solver.cell(4)
    assert num == den and not degraded and solver.lowest() == 0
    assert post == mine_posterior(1, 5, 1, [False, False, True, True, False], [0, 0, 0, 1, 0])


def test_solver_gives_the_same_numbers_however_the_cells_arrive():
    # Mid-game states of 6x6 / 7-mine games, fed to a solver in shuffled batches with a
    # question after each batch (so it works incrementally from every intermediate state).
    draws = Draws(np.random.default_rng(11))
    checked = 0
    for seed in range(6):
        for revealed, counts, incremental in _random_states(6, 6, 7, seed, limit=10**12):
            cells = [i for i in range(36) if revealed[i]]
            order = list(cells)
            draws.shuffle(order)
            solver = PosteriorSolver(6, 6, 7, counts)
            while order:
                size = 1 + draws.below(5)
                solver.reveal(order[:size])
                solver.posterior()
                order = order[size:]
            solver.reveal(cells)
            assert solver.posterior() == incremental == mine_posterior(6, 6, 7, revealed, counts)
            checked += 1
    assert checked > 30


def test_solver_refuses_numbers_no_layout_explains():
    solver = PosteriorSolver(1, 3, 1, [0, 2, 0])  # a 2 next to two cells, one mine in all
    solver.reveal([1])
    with pytest.raises(ValueError, match="consistent"):
        solver.posterior()
    solver = PosteriorSolver(1, 3, 1, [1, 0, 0])  # a 1 with no hidden neighbour
    solver.reveal([0, 1])
    with pytest.raises(ValueError, match="consistent"):
        solver.posterior()
    with pytest.raises(ValueError, match="method"):
        PosteriorSolver(1, 3, 1, [0, 1, 0], method="backtrack")  # a counter no longer kept


def test_budget_exhaustion_degrades_to_sound_local_deduction():
    revealed = [False] * 3 + [True] * 6
    counts = [0, 0, 0, 1, 2, 1, 0, 0, 0]
    post = mine_posterior(3, 3, 2, revealed, counts, budget=1)
    assert post.degraded
    assert [post.fraction(i) for i in range(3)] == [1, 0, 1]
    # Undecided cells get the leftover density: the 1x7 strip, where nothing is certain.
    revealed = [False, True, False, True, False, False, False]
    post = mine_posterior(1, 7, 2, revealed, [0, 1, 0, 1, 0, 0, 0], budget=1)
    assert post.degraded
    assert [post.fraction(i) for i in (0, 2, 4, 5, 6)] == [F(2, 5)] * 5


def test_listing_stops_at_its_leaf_cap_before_writing_the_layouts_out():
    # 13 numbers "1", each over 3 cells of its own and one cell all of them share: a mine
    # there is 1 layout; without it, each number's mine lies in its own 3 cells, 3**13 = 1.6M
    # layouts in one leaf. The listing stake must give up before writing them out (it once
    # held them all: 14 GB on a 16x16 board a loaded snapshot can make), and the DP counts.
    import tracemalloc

    hub = 1 << 39
    constraints = [(100 + k, 0b111 << (3 * k) | hub, 1) for k in range(13)]
    tracemalloc.start()
    comp = count_component(constraints, (1 << 40) - 1, 40, 200_000, "auto")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert comp.terms == [(1, 1), (13, 3**13)]
    assert peak < 20 * 2**20


def test_posterior_rejects_impossible_inputs():
    with pytest.raises(ValueError, match="consistent"):
        mine_posterior(1, 3, 1, [False, True, False], [0, 2, 0])
    with pytest.raises(ValueError):
        mine_posterior(1, 3, 3, [False, True, False], [0, 1, 0])
    with pytest.raises(ValueError, match="method"):
        mine_posterior(1, 3, 1, [False, True, False], [0, 1, 0], method="guess")


# ---------------------------------------------------------------------------------- env
def test_first_reveal_is_safe_scores_two_and_opens_an_area():
    env = MinesweeperEnv()
    for seed in range(200):
        env.reset(seed=seed)
        r, c = divmod(seed % 25, 5)
        _, _, terminated, _, info = env.step(f"reveal {r + 1} {c + 1}")
        assert info["reward_components"]["process"] == 2.0
        assert info["valid_action"] and info["p_mine"] == 0.0
        first = r * 5 + c
        assert not {first, *neighbours(5, 5)[first]} & set(env._mine_cells)
        assert sum(env._revealed) >= 4
        assert not terminated or info["success"]


def test_flags_are_legal_only_once_the_mines_exist():
    env = MinesweeperEnv()
    _, info = env.reset(seed=0)
    assert info["available_actions"] == [
        f"reveal {r} {c}" for r in range(1, 6) for c in range(1, 6)
    ]
    obs, reward, terminated, truncated, info = env.step("flag 2 2")
    assert (reward, terminated, truncated, info["valid_action"]) == (-1.0, False, False, False)
    assert "first reveal" in info["action_error"] and env._mine_cells == []
    assert env.score_actions(["flag 2 2"]) == [-1.0]
    _, _, _, _, info = env.step("reveal 3 3")
    assert any(a.startswith("flag") for a in info["available_actions"])


def test_reveal_of_a_certain_safe_cell_scores_two():
    env = MinesweeperEnv(rows=3, cols=3, mines=1)
    # "1 2 1"-style: mine at (1,1); the corner (3,3) region is open, (1,2),(1,3) are hidden.
    load_board(env, [(1, 1)], all_but(env, {(1, 1), (1, 2), (1, 3)}))
    post = env.posterior()
    assert [post.fraction(i) for i in range(3)] == [1, 0, 0]
    assert env.score_actions(["reveal 1 2", "reveal 1 3", "flag 1 1", "reveal 1 1"]) == [
        2.0,
        2.0,
        1.0,
        0.0,
    ]
    assert env.oracle_actions() == ["reveal 1 2", "reveal 1 3"]
    _, reward, terminated, _, info = env.step("reveal 1 2")
    assert (reward, terminated, info["p_mine"]) == (2.0, False, 0.0)


def test_correct_flag_scores_one_and_flags_are_then_off_limits():
    env = MinesweeperEnv(rows=3, cols=3, mines=1)
    load_board(env, [(1, 1)], all_but(env, {(1, 1), (1, 2), (1, 3)}))
    obs, reward, terminated, _, info = env.step("flag 1 1")
    assert (reward, terminated, info["valid_action"]) == (1.0, False, True)
    assert "Flags placed: 1." in obs and obs.splitlines()[3].split()[1] == "F"
    before = env.get_state()
    for action in ("flag 1 1", "reveal 1 1"):
        _, reward, terminated, _, info = env.step(action)
        assert (reward, terminated, info["valid_action"]) == (-1.0, False, False)
        assert "flagged" in info["action_error"]
    assert json.loads(env.get_state())["state"] == json.loads(before)["state"]
    # Flags are not knowledge: the posterior of the flagged cell is still computed, P = 1.
    assert env.posterior().fraction(0) == 1


# 3x4 with 2 mines and only the top-left corner revealed, showing 1: its three hidden
# neighbours have P = 1/3, the 8 far cells P = 1/8; nothing is certain.
CORNER = {"rows": 3, "cols": 4, "mines": 2}
CORNER_MINES = [(1, 2), (3, 4)]


def test_flag_on_a_safe_cell_scores_minus_one_and_ends_the_episode():
    env = MinesweeperEnv(**CORNER)
    load_board(env, CORNER_MINES, [(1, 1)])
    obs, reward, terminated, truncated, info = env.step("flag 2 2")  # not a mine
    assert (reward, terminated, truncated, info["success"]) == (-1.0, True, False, False)
    assert info["reward_components"] == {"process": -1.0, "outcome": 0.0}
    assert "which is not a mine" in obs


def test_flag_on_an_uncertain_mine_scores_minus_one_and_play_goes_on():
    # (1,2) is a mine, but the numbers give it P = 1/3: the flag is a lucky guess. It is
    # scored as one (-1) and stands, since the board, not the oracle, decides what happens.
    env = MinesweeperEnv(**CORNER)
    load_board(env, CORNER_MINES, [(1, 1)])
    obs, reward, terminated, truncated, info = env.step("flag 1 2")
    assert (reward, terminated, truncated) == (-1.0, False, False)
    assert info["p_mine"] == pytest.approx(1 / 3) and env._flags[cell(env, 1, 2)]
    assert "Flags placed: 1." in obs


def test_lowest_probability_reveal_scores_one_when_nothing_is_safe():
    env = MinesweeperEnv(**CORNER)
    load_board(env, CORNER_MINES, [(1, 1)])
    post = env.posterior()
    assert [post.fraction(i) for i in (1, 4, 5)] == [F(1, 3)] * 3
    assert [post.fraction(i) for i in (2, 3, 6, 7, 8, 9, 10, 11)] == [F(1, 8)] * 8
    scores = env.score_actions(["reveal 1 3", "reveal 3 1", "reveal 2 2", "reveal 1 2"])
    assert scores == [1.0, 1.0, 0.0, 0.0]
    far = ["1 3", "1 4", "2 3", "2 4", "3 1", "3 2", "3 3", "3 4"]
    assert env.oracle_actions() == [f"reveal {rc}" for rc in far]
    # The lowest-P reveal is still a gamble: here (3,4) is a mine.
    obs, reward, terminated, _, info = env.step("reveal 3 4")
    assert (reward, terminated, info["success"]) == (1.0, True, False)
    assert info["p_mine"] == 0.125
    assert "you revealed a mine at row 3, column 4" in obs
    assert obs.count("*") == 3  # both mines are shown once the game is over, plus the legend


def test_other_reveal_scores_zero_and_a_mine_ends_the_episode():
    env = MinesweeperEnv(**CORNER)
    load_board(env, CORNER_MINES, [(1, 1)])
    _, reward, terminated, _, info = env.step("reveal 2 2")
    assert (reward, terminated) == (0.0, False)
    load_board(env, CORNER_MINES, [(1, 1)])
    _, reward, terminated, _, info = env.step("reveal 1 2")
    assert (reward, terminated, info["success"]) == (0.0, True, False)
    assert info["reward_components"]["outcome"] == 0.0
    # A P > 0 reveal scores 0 when a certain-safe cell exists, even if it is lowest among risky.
    env = MinesweeperEnv(rows=3, cols=3, mines=1)
    load_board(env, [(1, 1)], all_but(env, {(1, 1), (1, 2), (1, 3)}))
    assert env.score_actions(["reveal 1 1"]) == [0.0]


def test_revealing_the_last_safe_cell_wins():
    env = MinesweeperEnv(rows=3, cols=3, mines=1)
    load_board(env, [(1, 1)], all_but(env, {(1, 1), (1, 2)}))
    obs, reward, terminated, _, info = env.step("reveal 1 2")
    assert (terminated, info["success"]) == (True, True)
    assert info["reward_components"] == {"process": 2.0, "outcome": 1.0}
    assert reward == 3.0 and info["safe_cells_left"] == 0
    assert "You win" in obs and info["available_actions"] == []


def test_step_budget_truncates_and_says_so():
    env = MinesweeperEnv(max_steps=3)
    env.reset(seed=0)
    env.step("reveal 1 1")
    _, reward, terminated, truncated, info = env.step("gibberish")
    assert (reward, terminated, truncated, info["valid_action"]) == (-1.0, False, False, False)
    obs, reward, terminated, truncated, info = env.step("reveal 1 1")  # revealed: invalid
    assert (terminated, truncated, info["truncated_by"]) == (False, True, "max_steps")
    assert not info["success"] and info["invalid_actions"] == 2
    assert info["reward_components"] == {"process": -1.0, "outcome": 0.0}
    assert "no steps left" in obs and "Steps left: 0." in obs and "*" in obs


def test_invalid_actions_cost_the_penalty_and_end_the_episode_at_the_limit():
    env = MinesweeperEnv()
    env.reset(seed=0)
    env.step("reveal 3 3")
    for k in (1, 2):
        _, reward, terminated, truncated, info = env.step("reveal 3 3")
        assert (reward, terminated, truncated, info["invalid_actions"]) == (-1.0, False, False, k)
    obs, reward, terminated, truncated, info = env.step("nonsense")
    assert (reward, terminated, truncated, info["truncated_by"]) == (
        -1.0,
        False,
        True,
        "max_invalid",
    )
    assert "too many invalid actions" in obs
    # Other settings are honoured, as for every family.
    env = MinesweeperEnv(invalid_penalty=0.0, max_invalid=1)
    env.reset(seed=0)
    _, reward, _, truncated, info = env.step("nonsense")
    assert (reward, truncated, info["truncated_by"]) == (0.0, True, "max_invalid")


@pytest.mark.parametrize(
    "action",
    [
        "reveal 2 3",
        "REVEAL 2 3",
        "r 2 3",
        "open 2,3",
        "reveal (2, 3)",
        "reveal row 2 col 3",
        "reveal r2 c3",
        "reveal 23",
        "<action>reveal 2 3</action>",
        "I think... <action> Reveal(2,3). </action>",
        "reveal 02 3",
    ],
)
def test_lenient_formats_parse(action):
    env = MinesweeperEnv()
    env.reset(seed=0)
    _, reward, _, _, info = env.step(action)
    assert info["valid_action"], info["action_error"]
    assert reward == 2.0 and env._revealed[cell(env, 2, 3)]


@pytest.mark.parametrize("action", ["f 2 3", "FLAG (2,3)", "mark 2, 3", "flag column 3 row 2"])
def test_flag_verbs_parse(action):
    env = MinesweeperEnv(rows=3, cols=3, mines=1)
    load_board(env, [(2, 3)], all_but(env, {(1, 2), (1, 3), (2, 3)}))
    assert env.score_actions([action]) == [1.0]


@pytest.mark.parametrize(
    ("action", "fragment"),
    [
        ("", "empty"),
        ("upp", "unknown command"),
        ("42", "starts with reveal or flag"),
        ("reveal", "missing row and column"),
        ("reveal 3", "missing column"),
        ("reveal 10 10 10", "too many numbers"),
        ("reveal 3.5 2", "too many numbers"),
        ("reveal a b", "unexpected"),
        ("reveal ３ ４", "unexpected"),
        ("reveal 0 0", "row 0 is out of range; it must be 1-5"),
        ("reveal 2 6", "column 6 is out of range"),
        ("flag " + "9" * 500 + " 1", "too long"),
        ("x" * 100_000, "limit"),
        ("unflag 1 1", "unknown command"),
        ("reveal\x00 1 1", "unexpected"),
        ("reveal ROW COL", "reveal ROW COL"),
    ],
)
def test_bad_actions_are_invalid_with_a_clear_error_and_change_nothing(action, fragment):
    env = MinesweeperEnv()
    env.reset(seed=0)
    env.step("reveal 3 3")
    before = env.get_state()
    obs, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated, info["valid_action"]) == (-1.0, False, False, False)
    assert fragment in info["action_error"]
    assert info["invalid_actions"] == 1 and info["p_mine"] is None
    after = json.loads(env.get_state())
    assert after["state"] == json.loads(before)["state"]
    assert env.score_actions([action]) == [-1.0]


def test_revealed_cell_is_invalid():
    env = MinesweeperEnv()
    env.reset(seed=0)
    env.step("reveal 3 3")
    _, reward, _, _, info = env.step("reveal 3 3")
    assert reward == -1.0 and "already revealed" in info["action_error"]
    _, _, _, _, info = env.step("flag 3 3")
    assert "already revealed" in info["action_error"]


def test_degraded_oracle_is_flagged_in_info_and_stays_sound():
    env = MinesweeperEnv(rows=9, cols=9, mines=10, posterior_budget=1)
    _, info = env.reset(seed=4)
    assert info["oracle_degraded"] is False
    _, _, _, _, info = env.step("reveal 5 5")
    assert info["oracle_degraded"] is False  # before the first reveal nothing is counted
    degraded = env.posterior()
    exact = mine_posterior(9, 9, 10, env._revealed, env._counts)
    assert degraded.degraded and not exact.degraded
    for i in range(81):
        if degraded.numerators[i] == 0:
            assert exact.numerators[i] == 0
        if degraded.numerators[i] == degraded.denominator:
            assert exact.numerators[i] == exact.denominator
    _, _, _, _, info = env.step(env.oracle_actions()[0])
    assert info["oracle_degraded"] is True


def test_a_provable_flag_stands_when_the_oracle_runs_out_of_budget():
    # The case: 6x6, 8 mines, posterior_budget=1, seed 0. After the first reveal
    # the numbers prove (3,6) is a mine ("1" at (1,5) puts one mine on (1,6)/(2,6), "1" at
    # (2,4) at most one on (3,4)/(3,5), so the "3" at (2,5) needs (3,6)); local deduction
    # does not see it. The flag used to score -1 and end the game as a wrong flag.
    exact = MinesweeperEnv(rows=6, cols=6, mines=8)
    tiny = MinesweeperEnv(rows=6, cols=6, mines=8, posterior_budget=1)
    for env in (exact, tiny):
        env.reset(seed=0)
        env.step("reveal 1 1")
    assert exact._is_mine[cell(exact, 3, 6)]
    assert exact.score_actions(["flag 3 6"]) == [1.0]
    obs_e, reward_e, term_e, trunc_e, info_e = exact.step("flag 3 6")
    obs_t, reward_t, term_t, trunc_t, info_t = tiny.step("flag 3 6")
    assert (term_t, trunc_t, obs_t) == (term_e, trunc_e, obs_e)
    assert not term_t and tiny._flags[cell(tiny, 3, 6)]
    # The reward is the degraded verdict (not provable by local deduction), marked as such.
    assert (reward_e, info_e["oracle_degraded"]) == (1.0, False)
    assert (reward_t, info_t["oracle_degraded"]) == (-1.0, True)


def test_termination_does_not_depend_on_the_posterior_budget():
    # Same boards, same actions, budget 1 vs the default: the episodes must end at the same
    # step in the same way with the same observations. The actions flag every mine the
    # exact posterior proves (first those local deduction misses), else follow the oracle.
    degraded_flags = 0
    for seed in range(8):
        exact = MinesweeperEnv(rows=6, cols=6, mines=8)
        tiny = MinesweeperEnv(rows=6, cols=6, mines=8, posterior_budget=1)
        obs_e, _ = exact.reset(seed=seed)
        obs_t, _ = tiny.reset(seed=seed)
        assert obs_e == obs_t
        done = False
        while not done:
            action = exact.oracle_actions()[0]
            if exact._placed:
                pe, pt = exact.posterior(), tiny.posterior()
                proved = [i for i in exact._open_flag if pe.numerators[i] == pe.denominator]
                unseen = [i for i in proved if pt.numerators[i] != pt.denominator]
                if proved:
                    i = (unseen or proved)[0]
                    action = f"flag {i // 6 + 1} {i % 6 + 1}"
                    degraded_flags += bool(unseen)
            obs_e, _, term_e, trunc_e, _ = exact.step(action)
            obs_t, _, term_t, trunc_t, _ = tiny.step(action)
            assert (obs_t, term_t, trunc_t) == (obs_e, term_e, trunc_e), (seed, action)
            done = term_e or trunc_e
    assert degraded_flags > 0  # the budget-1 oracle could not prove some of the flags


def test_oracle_actions_are_the_top_scored_legal_actions():
    env = MinesweeperEnv(rows=6, cols=6, mines=7)
    for seed in range(5):
        _, info = env.reset(seed=seed)
        assert env.oracle_actions() == info["available_actions"]  # every first reveal is safe
        done = False
        while not done:
            legal = info["available_actions"]
            scores = env.score_actions(legal)
            best = env.oracle_actions()
            top = max(scores)
            assert best == [a for a, s in zip(legal, scores, strict=True) if s == top]
            _, reward, done, truncated, info = env.step(best[0])
            assert reward - info["reward_components"]["outcome"] == top
            done = done or truncated


def test_oracle_actions_follow_the_reward_constants():
    # With a certain flag worth more than a safe reveal, the oracle flags first.
    env = MinesweeperEnv(rows=3, cols=3, mines=1, certain_flag_reward=5.0)
    load_board(env, [(1, 1)], all_but(env, {(1, 1), (1, 2), (1, 3)}))
    assert env.oracle_actions() == ["flag 1 1"]
    assert env.score_actions(["flag 1 1", "reveal 1 2"]) == [5.0, 2.0]
    # And the other constants are what the steps pay.
    env = MinesweeperEnv(
        **CORNER, guess_reward=0.5, other_reveal_reward=-0.25, uncertain_flag_reward=-3.0
    )
    load_board(env, CORNER_MINES, [(1, 1)])
    assert env.score_actions(["reveal 1 3", "reveal 2 2", "flag 2 2"]) == [0.5, -0.25, -3.0]
    env = MinesweeperEnv(rows=3, cols=3, mines=1, win_reward=10.0, safe_reveal_reward=0.5)
    load_board(env, [(1, 1)], all_but(env, {(1, 1), (1, 2)}))
    _, reward, terminated, _, info = env.step("reveal 1 2")
    assert terminated and info["reward_components"] == {"process": 0.5, "outcome": 10.0}


def test_oracle_agent_wins_most_default_games():
    env = gym.make("agentgym/Minesweeper-v0")
    wins = 0
    for seed in range(100):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            _, _, done, truncated, info = env.step(env.unwrapped.oracle_actions()[0])
            assert not truncated
        wins += info["success"]
    # Measured 69/100; the rest are forced guesses (no safe cell) that hit a mine.
    assert 55 <= wins <= 90


def consistent_layouts(env: _MinesweeperEnv, limit: int) -> list[list[int]]:
    """Up to ``limit`` mine layouts other than the real one that show the same board: the
    same revealed numbers, flags on mines (what the agent sees is identical)."""
    state = env._state_dict()
    revealed, flags = set(state["revealed"]), set(state["flags"])
    hidden = [i for i in range(env._n) if i not in revealed and i not in flags]
    counts = [env._counts[i] for i in sorted(revealed)]
    out = []
    for extra in combinations(hidden, env.mines - len(flags)):
        mines = sorted({*flags, *extra})
        if mines != state["mines"] and [
            neighbour_counts(env.rows, env.cols, mines)[i] for i in sorted(revealed)
        ] == counts:
            out.append(mines)
            if len(out) == limit:
                break
    return out


@pytest.mark.parametrize("process_reward", ["progress", "verdict"])
def test_oracle_never_reads_the_hidden_mines(process_reward):
    """The oracle is honest: every layout of mines that shows the same board gets the same
    oracle actions (and safe actions), including where nothing is safe and it must guess."""
    env = _MinesweeperEnv(process_reward=process_reward)
    guesses = 0
    for seed in range(12):
        env.reset(seed=seed)
        while not env.is_over:
            best, safe = env.oracle_actions(), env.safe_actions()
            guesses += not safe
            snapshot = env.get_state()
            for mines in consistent_layouts(env, 3):
                state = {**env._state_dict(), "mines": mines}
                env._load_state_dict(state)
                assert (env.oracle_actions(), env.safe_actions()) == (best, safe), seed
                env.set_state(snapshot)
            env.step(best[0])
    assert guesses >= 3  # the test reaches states where the oracle must guess


def test_progress_oracle_is_the_posterior_best_reveal_and_never_a_flag():
    env = _MinesweeperEnv()
    for seed in range(10):
        env.reset(seed=seed)
        while not env.is_over:
            post = env.posterior()
            best = env.oracle_actions()
            safe = env.safe_actions()
            low = min(post.numerators[i] for i in env._open_reveal)
            assert all(a.startswith("reveal") for a in best)
            assert best == (safe or [t for i, t in env._open_reveal.items()
                                     if post.numerators[i] == low])
            env.step(best[0])


def test_progress_rewards_sum_to_the_win_or_to_zero():
    """Paid per cell opened, not per action: the oracle's reveals with every certain mine
    flagged on the way sum to 1 - cost * steps when won, to 0 when lost."""
    env = gym.make("agentgym/Minesweeper-v0")
    raw = env.unwrapped
    cost = 1 / (2 * raw.max_steps)
    outcomes = set()
    for seed in range(12):
        env.reset(seed=seed)
        total, steps = 0.0, 0
        while True:
            action = raw.oracle_actions()[0]
            if raw._placed:
                post = raw.posterior()
                certain = [t for i, t in raw._open_flag.items()
                           if post.numerators[i] == post.denominator]
                action = (certain or [action])[0]
            _, _, terminated, truncated, info = env.step(action)
            total += info["reward_components"]["process"]
            steps += 1
            if terminated or truncated:
                break
        outcomes.add(info["success"])
        assert total == pytest.approx(1 - cost * steps if info["success"] else 0.0), seed
    assert outcomes == {True, False}


def test_same_seed_same_board_and_snapshots_capture_the_placement():
    a, b = MinesweeperEnv(), MinesweeperEnv()
    a.reset(seed=11)
    b.reset(seed=11)
    snapshot = a.get_state()  # before the mines exist: the rng state must be in it
    obs_a = a.step("reveal 2 2")[0]
    assert b.step("reveal 2 2")[0] == obs_a and a._mine_cells == b._mine_cells
    b.set_state(snapshot)
    assert b.step("reveal 2 2")[0] == obs_a and b._mine_cells == a._mine_cells
    # Different seeds, different boards (on 9x9 / 10, where two of 20 boards agree with
    # odds of about 1 in 10^9; on 5x5 / 5 seeds 2 and 9 happen to share one of 4,368).
    big = MinesweeperEnv(rows=9, cols=9, mines=10)
    layouts = set()
    for seed in range(20):
        big.reset(seed=seed)
        big.step("reveal 2 2")
        layouts.add(tuple(big._mine_cells))
    assert len(layouts) == 20


def test_snapshot_of_another_board_size_is_refused():
    # A 9x9 snapshot used to crash a 5x5 env with IndexError.
    big = MinesweeperEnv(rows=9, cols=9, mines=10)
    big.reset(seed=2)
    big.step("reveal 5 5")
    small = MinesweeperEnv()
    with pytest.raises(ValueError, match=r"cols.*mines.*rows"):
        small.set_state(big.get_state())
    other = MinesweeperEnv(rows=9, cols=9, mines=10, guess_reward=0.5)
    with pytest.raises(ValueError, match="guess_reward"):
        other.set_state(big.get_state())


def test_observation_is_labelled_ascii_and_fits():
    env = MinesweeperEnv(rows=16, cols=16, mines=40)
    obs, info = env.reset(seed=0)
    assert set(obs) <= set(TEXT_CHARSET) and len(obs) <= env.max_observation_length
    lines = obs.splitlines()
    assert lines[0].startswith("Minesweeper 16x16 with 40 mines. Flags placed: 0.")
    assert "Steps left: 512." in lines[0]
    assert lines[2].split() == [str(c) for c in range(1, 17)]
    assert lines[3].split() == ["1", *["#"] * 16] and lines[18].split()[0] == "16"
    assert "Legend: # hidden, F flagged" in obs
    assert (
        lines[-1]
        == "Legal now: reveal any cell (rows 1-16, columns 1-16); flags after the first reveal."
    )
    obs, *_ = env.step("reveal 8 8")
    assert obs.splitlines()[-1] == "Legal now: reveal or flag any # cell (rows 1-16, columns 1-16)."
    assert "Steps left: 511." in obs and "." in "".join(obs.splitlines()[3:19])
    assert info["safe_cells_left"] == 216 and info["oracle_degraded"] is False


def test_rules_stand_in_the_system_prompt_only_and_fit_the_board():
    env = MinesweeperEnv(rows=7, cols=12, mines=9)
    obs, _ = env.reset(seed=0)
    prompt = env.system_prompt()
    assert "7x12 grid" in env.rules and "ROW 1-7 and COL 1-12" in env.rules
    assert env.rules in prompt and "<action>" in prompt
    # The observation shows the state, not the rules paragraph again.
    for sentence in ("The first reveal is always safe", "<action>", "Reveal every cell"):
        assert sentence not in obs
    # The rules follow the invalid-action policy the env was built with.
    assert "costs -2" in MinesweeperEnv(preset="vpr").rules


def test_copying_the_example_move_is_not_rewarded():
    for kwargs in ({}, {"rows": 9, "cols": 9, "mines": 10}, {"preset": "vpr"}):
        env = MinesweeperEnv(**kwargs)
        env.reset(seed=0)
        env.step("reveal 3 3")
        start = env.rules.index("<action>")
        example = env.rules[start : env.rules.index("</action>", start) + len("</action>")]
        assert extract_action(example)[0] == "reveal ROW COL"
        assert env.score_actions([example]) == [env.invalid_penalty]
        _, reward, _, _, info = env.step(example)
        assert not info["valid_action"] and reward == env.invalid_penalty < 0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rows": 2},
        {"rows": 17},
        {"cols": 0},
        {"rows": "5"},
        {"mines": 0},
        {"mines": 17},
        {"rows": 3, "cols": 3, "mines": 2},
        {"max_steps": 0},
        {"posterior_budget": 0},
        {"mines": 2.5},
        {"score_process": "yes"},
        {"invalid_penalty": 1.0},
        {"max_invalid": 0},
        {"guess_reward": float("nan")},
        {"win_reward": "1"},
        {"preset": "paper"},
    ],
)
def test_bad_kwargs_are_refused(kwargs):
    with pytest.raises(ValueError):
        gym.make("agentgym/Minesweeper-v0", **kwargs)


def test_edge_kwargs_are_accepted():
    for kwargs in ({"rows": 3, "cols": 3, "mines": 1}, {"mines": 16}, {"rows": 16, "cols": 3}):
        env = gym.make("agentgym/Minesweeper-v0", process_reward="verdict", **kwargs)
        env.reset(seed=0)
        *_, info = env.step("reveal 2 2")
        assert info["reward_components"]["process"] == 2.0


def test_vpr_preset_is_the_papers_configuration():
    env = MinesweeperEnv(preset="vpr")
    config = env.config()
    assert {k: config[k] for k in PRESETS["vpr"]} == PRESETS["vpr"]
    assert (env.rows, env.cols, env.mines, env.max_steps) == (5, 5, 5, 25)
    assert (env.invalid_penalty, env.max_invalid) == (-2.0, 1)
    # A kwarg that agrees with the preset is fine; one set to another value overrides it.
    assert MinesweeperEnv(preset="vpr", rows=5, invalid_penalty=-2.0).config() == config
    longer = MinesweeperEnv(preset="vpr", max_steps=50, certain_flag_reward=2.0).config()
    assert longer == {**config, "max_steps": 50, "certain_flag_reward": 2.0}
    # The default env differs only in the invalid-action policy and the step budget.
    default = MinesweeperEnv().config()
    assert sorted(k for k in PRESETS["vpr"] if default[k] != config[k]) == [
        "invalid_penalty",
        "max_invalid",
        "max_steps",
    ]


def test_vpr_preset_rewards_equal_the_papers_constants():
    # The paper: +2 safe reveal, +1 certain flag, +1 lowest-P reveal when nothing is safe,
    # 0 any other reveal, -1 a flag that is not certain (ending the game on a safe cell),
    # -2 an invalid action, which ends the episode. Two hand-built 5x5 / 5-mine boards.
    env = MinesweeperEnv(preset="vpr")
    # Board 1: everything revealed but the 5 mines and (1,3), (2,5), (4,5), all provably safe.
    mines = [(1, 1), (1, 2), (5, 1), (5, 5), (3, 5)]
    hidden = {*mines, (1, 3), (2, 5), (4, 5)}
    load_board(env, mines, all_but(env, hidden))
    truth = brute_force_posterior(5, 5, 5, env._revealed, env._counts)
    assert [truth[cell(env, *rc)] for rc in [(1, 3), (2, 5), (4, 5)]] == [0, 0, 0]
    assert all(truth[cell(env, *rc)] == 1 for rc in mines)
    assert env.score_actions(["reveal 1 3", "flag 1 1", "reveal 1 1", "flag 1 3"]) == [
        2.0,
        1.0,
        0.0,
        -1.0,
    ]
    _, reward, terminated, _, _ = env.step("flag 1 3")  # a safe cell: the game ends
    assert (reward, terminated) == (-1.0, True)
    # Board 2: only the top-left corner revealed, showing 1. Its neighbours have P = 1/3,
    # the 21 far cells 4/21: nothing is safe, so the far cells are the best guesses.
    mines = [(1, 2), (4, 4), (4, 5), (5, 4), (5, 5)]
    load_board(env, mines, [(1, 1)])
    truth = brute_force_posterior(5, 5, 5, env._revealed, env._counts)
    assert truth[cell(env, 2, 2)] == F(1, 3) and truth[cell(env, 3, 3)] == F(4, 21)
    assert env.score_actions(["reveal 3 3", "reveal 2 2", "flag 1 2", "nonsense"]) == [
        1.0,
        0.0,
        -1.0,
        -2.0,
    ]
    _, reward, terminated, truncated, info = env.step("nonsense")
    assert (reward, terminated, truncated, info["truncated_by"]) == (
        -2.0,
        False,
        True,
        "max_invalid",
    )


def test_skipping_process_scoring_keeps_the_game_and_asks_no_oracle():
    env = MinesweeperEnv(**CORNER, score_process=False)
    load_board(env, CORNER_MINES, [(1, 1)])
    _, reward, terminated, _, info = env.step("flag 2 2")  # a safe cell
    assert (reward, terminated, info["p_mine"]) == (0.0, True, None)  # same ending, no reward
    assert env.score_actions(["reveal 1 3"]) == [0.0]  # the episode is over
    load_board(env, CORNER_MINES, [(1, 1)])
    _, reward, terminated, _, info = env.step("flag 1 2")  # a mine: the flag stands
    assert (reward, terminated, info["p_mine"]) == (0.0, False, None)
    _, reward, terminated, _, info = env.step("reveal 1 3")
    assert (reward, terminated, info["p_mine"]) == (0.0, False, None)
    # Explicit requests still score. With (1,3) = 1 revealed too, by hand: (1,4), (2,3) and
    # (2,4) have P = 1/11 (the lowest), the bottom row 2/11, (2,2) 4/11, (2,1) 3/11.
    post = env.posterior()
    assert [post.fraction(i) for i in (3, 4, 5, 6, 7, 8)] == [
        F(1, 11),
        F(3, 11),
        F(4, 11),
        F(1, 11),
        F(1, 11),
        F(2, 11),
    ]
    assert env.score_actions(["reveal 1 4", "reveal 3 1"]) == [1.0, 0.0]


def test_incremental_posterior_equals_scratch_counts_along_9x9_games():
    # The env's solver keeps components, memo and settled cells between steps; the counting
    # DP from scratch shares none of that. Same exact numbers at every state, and the 9x9
    # posterior never degrades.
    env = MinesweeperEnv(rows=9, cols=9, mines=10)
    compared = 0
    for seed in range(6):
        env.reset(seed=seed)
        while env._status == "playing":
            if env._placed:
                post = env.posterior()
                scratch = mine_posterior(9, 9, 10, env._revealed, env._counts, method="transfer")
                assert post == scratch and not post.degraded
                compared += 1
            env.step(env.oracle_actions()[0])
    assert compared > 40


def _mixed_play(env: MinesweeperEnv, draws: Draws) -> str:
    """An action a sloppy agent might take: mostly oracle moves, some random legal ones
    (guesses, wrong flags), some certain flags, some invalid text."""
    legal = env._legal_actions() or []
    u = draws.random()
    if u < 0.7:
        return draws.pick(env.oracle_actions())
    if u < 0.8:
        post = env.posterior()
        sure = [
            f"flag {i // env.cols + 1} {i % env.cols + 1}"
            for i in range(env._n)
            if post.numerators[i] == post.denominator and not env._flags[i]
        ]
        if sure:
            return draws.pick(sure)
    if u < 0.9 and legal:
        return draws.pick(legal)
    return draws.pick(["REVEAL 1 1", "reveal 0 0", "flag", "r (2, 2)"])


@pytest.mark.parametrize(("rows", "cols", "mines"), [(6, 6, 7), (9, 9, 10)])
def test_incremental_state_matches_a_fresh_load_after_every_step(rows, cols, mines):
    # The env keeps the observation, the action list and the posterior up to date step by
    # step; a fresh env loading the same snapshot builds them from nothing. They must agree.
    env = MinesweeperEnv(rows=rows, cols=cols, mines=mines, max_invalid=1000)
    fresh = MinesweeperEnv(rows=rows, cols=cols, mines=mines, max_invalid=1000)
    draws = Draws(np.random.default_rng(rows))
    steps = 0
    for seed in range(8):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            fresh.set_state(env.get_state())
            assert fresh._observe() == obs
            assert fresh._legal_actions() == info["available_actions"]
            legal = info["available_actions"]
            assert fresh.score_actions(legal) == env.score_actions(legal)
            assert fresh.oracle_actions() == env.oracle_actions()
            assert fresh.posterior() == env.posterior()
            obs, _, terminated, truncated, info = env.step(_mixed_play(env, draws))
            done = terminated or truncated
            steps += 1
    assert steps > 40


def test_skipping_process_scoring_changes_nothing_but_the_rewards():
    scored = MinesweeperEnv(rows=9, cols=9, mines=10, max_invalid=1000)
    fast = MinesweeperEnv(rows=9, cols=9, mines=10, max_invalid=1000, score_process=False)
    draws = Draws(np.random.default_rng(3))
    flags = 0
    for seed in range(6):
        scored.reset(seed=seed)
        fast.reset(seed=seed)
        done = False
        while not done:
            action = _mixed_play(scored, draws)
            obs_a, _, term_a, trunc_a, info_a = scored.step(action)
            obs_b, reward_b, term_b, trunc_b, info_b = fast.step(action)
            assert (obs_a, term_a, trunc_a) == (obs_b, term_b, trunc_b)
            assert info_b["reward_components"]["process"] == 0.0
            assert reward_b == info_a["reward_components"]["outcome"]
            assert info_b["p_mine"] is None
            flags += action.startswith("flag") and info_a["valid_action"]
            for key in ("available_actions", "safe_cells_left", "success", "valid_action"):
                assert info_a[key] == info_b[key]
            done = term_a or trunc_a
    assert flags > 3
    assert fast._solver is None or fast._unsynced  # the oracle was never asked


def test_solver_components_stay_true_to_their_constraints():
    # White-box: the solver extends and cuts components instead of recounting them, but each
    # one's constraints (the settled mines taken off) must still yield exactly its layouts,
    # as a recount from scratch does when extending is not possible. Settled cells must be
    # right about the actual mines.
    draws = Draws(np.random.default_rng(8))
    checked = 0
    for rows, cols, mines in [(6, 6, 7), (9, 9, 10)]:
        env = MinesweeperEnv(rows=rows, cols=cols, mines=mines, max_invalid=1000)
        for seed in range(4):
            env.reset(seed=seed)
            done = False
            while not done:
                env.posterior()  # brings the solver up to date
                solver = env._solver
                if solver is not None:
                    truth = sum(1 << i for i in env._mine_cells)
                    revealed = sum(1 << i for i in range(env._n) if env._revealed[i])
                    assert solver._sure_mines & ~truth == 0
                    assert solver._safe_cells & truth == 0
                    settled = solver._sure_mines | solver._safe_cells
                    # Layouts with more mines than are left off the settled ones weigh
                    # nothing; which of those a component keeps depends on when it was cut.
                    left = mines - solver._sure_mines.bit_count()

                    def possible(pairs, left=left):
                        return [(k, x) for k, x in pairs if k <= left]

                    for cover, sources, cons, comp in solver._groups:
                        assert cover & (settled | revealed) == 0
                        assert cover == reduce(or_, (m for _, m, _ in cons))
                        assert sources == sum(1 << src for src, _, _ in cons)
                        recount = count_component(cons, cover, mines, 10**9, "transfer")
                        assert possible(recount.terms) == possible(comp.terms)
                        risky = {c: possible(p) for c, p in comp.risky().items()}
                        expected = {c: possible(p) for c, p in recount.risky().items()}
                        assert {c: p for c, p in risky.items() if p} == {
                            c: p for c, p in expected.items() if p
                        }
                        checked += 1
                _, _, terminated, truncated, _ = env.step(_mixed_play(env, draws))
                done = terminated or truncated
    assert checked > 30
