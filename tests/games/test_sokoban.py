"""Sokoban: level maths, the shortest-path oracle, generation and the env's reward table."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import subprocess
import sys
import types

import gymnasium as gym
import numpy as np
import pytest

import agentgym  # noqa: F401  (registers the ids)
from agentgym.core import TEXT_CHARSET
from agentgym.environments.games.sokoban import generator
from agentgym.environments.games.sokoban import oracle as oracle_mod
from agentgym.environments.games.sokoban.env import PRESETS
from agentgym.environments.games.sokoban.env import SokobanEnv as _SokobanEnv
from agentgym.environments.games.sokoban.generator import generate_level, target_range
from agentgym.environments.games.sokoban.logic import (
    DIRECTIONS,
    INF,
    is_solved,
    move,
    parse_level,
    render,
)
from agentgym.environments.games.sokoban.oracle import (
    UNKNOWN,
    Oracle,
    Rewards,
    move_limits,
)
from agentgym.environments.games.sokoban.search import (
    SearchBudgetExceeded,
    astar,
    reverse_table,
    shortest_distance,
    solve,
)


def SokobanEnv(**kwargs) -> _SokobanEnv:
    """The env scored with VPR's per-action verdicts, which most tests here check; the
    default progress reward has its own tests (``tests/games/test_exploits.py``)."""
    kwargs.setdefault("process_reward", "verdict")
    return _SokobanEnv(**kwargs)

# Box at row 3 col 3, goal at row 4 col 4 (1-based). Shortest solution: 5 moves, and both
# "down, right, up, right, down" and "right, down, left, down, right" are shortest.
OPEN = ["#####", "#P__#", "#_X_#", "#__O#", "#####"]
# Two boxes: pushing the top box first takes 8 moves, the bottom box first 9.
TWO = ["#######", "#P_X_O#", "#__X_O#", "#######"]
# One push from solved, with one spare cell to the left.
LINE = ["######", "#_PXO#", "######"]
# A winding corridor: 17 moves, beyond a 15-step budget but within VPR's depth of 25.
SNAKE = ["########", "#P_____#", "######_#", "#______#", "#_######", "#__X_O_#", "########"]
# A 10x10 open room with three boxes far from their goals: the hardest level allowed.
HARD = [
    "##########",
    "#P_______#",
    "#_X______#",
    "#________#",
    "#____X___#",
    "#________#",
    "#________#",
    "#______X_#",
    "#O_____OO#",
    "##########",
]

# The box at row 3, column 4 sits in a dead-end pocket the player can never get behind: no
# cheap test sees it, only a full search (about 74,000 states) proves the level dead.
STUCK = [
    "##########",
    "#_#_#____#",
    "#_#X#____#",
    "#P_______#",
    "#___X____#",
    "#________#",
    "#_____X__#",
    "#________#",
    "#O____O_O#",
    "##########",
]


def _reference_distance(level, player, boxes, limit):
    """Plain breadth-first search with no pruning: the ground truth for the A* solver."""
    boxes = tuple(sorted(boxes))
    if is_solved(level, boxes):
        return 0
    seen = {(player, boxes)}
    frontier = [(player, boxes)]
    for depth in range(1, limit + 1):
        nxt = []
        for p, b in frontier:
            for i in range(4):
                s = move(level, p, b, i)
                if s is None or s in seen:
                    continue
                if is_solved(level, s[1]):
                    return depth
                seen.add(s)
                nxt.append(s)
        frontier = nxt
    return None


def _env(rows=OPEN, **kwargs) -> SokobanEnv:
    env = SokobanEnv(**kwargs)
    env.reset(seed=0, options={"level": rows})
    return env


def _run_python(code: str, timeout: float) -> str:
    """Run ``code`` in a fresh interpreter and return its stdout; a stall check raises
    ``subprocess.TimeoutExpired`` (and kills the child) instead of hanging the suite."""
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=timeout
    )
    return res.stdout


# ---------------------------------------------------------------------------- logic
def test_parse_render_round_trip_and_cells():
    level, player, boxes = parse_level(OPEN)
    assert (level.height, level.width) == (5, 5)
    assert player == 6 and boxes == (12,) and level.goals == (18,)
    assert render(level, player, boxes) == OPEN
    assert level.rc(18) == (3, 3)
    # Spaces are floor; goals under the player or a box are kept.
    lv, p, b = parse_level(["######", "#SXV #", "######"])
    assert render(lv, p, b) == ["######", "#SXV_#", "######"]
    assert lv.goals == (7, 9) and b == (8, 9)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (["#####", "#_XO#", "#####"], "exactly one player"),
        (["#####", "#PPXO", "#####"], "border"),
        (["#####", "#PX_#", "#####"], "as many boxes as goals"),
        (["#####", "#P_O#", "#####"], "as many boxes as goals"),
        (["#####", "#PXO#", "####"], "rectangle"),
        (["#####", "#P$O#", "#####"], "unknown symbol"),
        (["##", "##"], "rectangle"),
    ],
)
def test_parse_level_rejects_bad_levels(rows, message):
    with pytest.raises(ValueError, match=message):
        parse_level(rows)


def test_move_walks_pushes_and_blocks():
    level, player, boxes = parse_level(["######", "#P_XX#", "#__OO#", "######"])
    assert move(level, player, boxes, 3) == (8, (9, 10))  # walk right
    assert move(level, 8, boxes, 3) is None  # push into the second box
    assert move(level, player, boxes, 0) is None  # wall above
    assert move(level, player, boxes, 1) == (13, (9, 10))  # walk down


def test_push_up_into_wall_is_blocked():
    level, _, boxes = parse_level(["######", "#P_XX#", "#__OO#", "######"])
    # Player below the box at row 2, column 4 (cell 9) pushing up into the border wall.
    assert move(level, 15, boxes, 0) is None
    # Pushing it down is fine: the box lands on row 3, column 4.
    level2, _, boxes2 = parse_level(["######", "#P_X_#", "#___O#", "#____#", "######"])
    assert move(level2, 3, boxes2, 1) == (9, (15,))


def test_push_distances_mark_dead_cells():
    level, _, _ = parse_level(OPEN)
    pd = level.push_distances
    assert pd[18] == 0  # the goal
    assert pd[12] == 2  # centre: right then down (or down then right)
    assert pd[6] == INF  # top-left corner: a box there can never move
    assert pd[8] == INF  # top-right corner
    assert pd[7] == INF  # top wall line without a goal on it
    assert pd[17] == 1  # bottom row, left of the goal: one push right


def test_shortest_distance_and_solution_on_hand_levels():
    level, player, boxes = parse_level(OPEN)
    assert shortest_distance(level, player, boxes, 15) == 5
    assert shortest_distance(level, player, boxes, 5) == 5
    assert shortest_distance(level, player, boxes, 4) is None
    path = solve(level, player, boxes, 15)
    assert path is not None and len(path) == 5
    state = (player, boxes)
    for d in path:
        state = move(level, *state, d)
        assert state is not None
    assert is_solved(level, state[1])

    level2, p2, b2 = parse_level(TWO)
    assert shortest_distance(level2, p2, b2, 30) == 8
    assert shortest_distance(level2, *move(level2, p2, b2, 1), 30) == 8  # down first: 1 + 8
    assert shortest_distance(level2, *move(level2, p2, b2, 3), 30) == 7

    # Already solved: distance 0 and an empty solution.
    level3, p3, b3 = parse_level(["#####", "#PV_#", "#####"])
    assert shortest_distance(level3, p3, b3, 0) == 0 and solve(level3, p3, b3, 3) == []
    # Unsolvable (the box sits in a corner).
    level4, p4, b4 = parse_level(["#####", "#X__#", "#_PO#", "#####"])
    assert shortest_distance(level4, p4, b4, 50) is None


def test_oracle_moves_and_scores():
    level, player, boxes = parse_level(OPEN)
    oracle = Oracle(level)
    assert [DIRECTIONS[i] for i in oracle.best_moves(player, boxes, 15)] == ["down", "right"]
    # up/left are walls (-2); down/right are both shortest (+2).
    assert oracle.scores(player, boxes, 15, "shortest") == [-2.0, 2.0, -2.0, 2.0]
    # With only 4 steps left nothing fits: every move is -2.
    assert oracle.scores(player, boxes, 4, "shortest") == [-2.0] * 4
    # After "down" (row 3, col 2): up returns to a 5-move state (0), right pushes (+2),
    # down leaves 5 moves (0).
    assert oracle.scores(11, boxes, 14, "shortest") == [0.0, 0.0, -2.0, 2.0]
    assert oracle.scores(11, boxes, 14, "solvable") == [2.0, 2.0, -2.0, 2.0]
    # With 5 steps left after "down" only the push still fits.
    assert oracle.scores(11, boxes, 5, "shortest") == [-2.0, -2.0, -2.0, 2.0]

    level2, p2, b2 = parse_level(TWO)
    assert Oracle(level2).scores(p2, b2, 15, "shortest") == [-2.0, 0.0, -2.0, 2.0]
    assert Oracle(level2).best_moves(p2, b2, 15, "solvable") == [1, 3]
    with pytest.raises(ValueError, match="oracle mode"):
        Oracle(level2).scores(p2, b2, 15, "fastest")
    # Other constants, and VPR's fixed horizon: 17 moves is out of a 15-step budget's reach
    # but within a depth of 25.
    rewards = Rewards(optimal=1.0, legal=0.5, unsolvable=-3.0, blocked=-4.0)
    assert oracle.scores(11, boxes, 14, "shortest", rewards=rewards) == [0.5, 0.5, -4.0, 1.0]
    snake, ps, bs = parse_level(SNAKE)
    assert Oracle(snake).scores(ps, bs, 15, "shortest") == [-2.0, -2.0, -2.0, -2.0]
    assert Oracle(snake).scores(ps, bs, 15, "shortest", search_depth=25) == [-2.0, -2.0, -2.0, 2.0]


@pytest.mark.parametrize("table_states", [oracle_mod.ORACLE_TABLE_STATES, 0])
def test_oracle_cache_gives_same_answers_as_fresh_searches(monkeypatch, table_states):
    # 0: the level counts as large, so the answers come from memoised A* searches.
    monkeypatch.setattr(oracle_mod, "ORACLE_TABLE_STATES", table_states)
    level, player, boxes = parse_level(TWO)
    warm = Oracle(level)
    warm.distance(player, boxes, 30)
    for limit in (3, 7, 8, 20):
        assert warm.distance(player, boxes, limit) == Oracle(level).distance(player, boxes, limit)
    # A "none within 7" entry must not hide the answer for a larger limit.
    cold = Oracle(level)
    assert cold.distance(player, boxes, 7) is None
    assert cold.distance(player, boxes, 8) == 8


def test_solver_matches_plain_bfs_on_generated_levels():
    rng = np.random.default_rng(2024)
    checked = 0
    for trial in range(40):
        size, boxes = [(5, 1), (6, 1), (6, 2), (7, 2), (6, 3)][trial % 5]
        level, player, bx, _ = generate_level(rng, size, boxes, 15)
        state = (player, bx)
        for _ in range(6):
            for limit in (2, 6, 12):
                want = _reference_distance(level, *state, limit)
                assert shortest_distance(level, *state, limit) == want, (trial, state, limit)
                checked += 1
            nxt = move(level, *state, int(rng.integers(4)))
            if nxt is not None and not is_solved(level, nxt[1]):
                state = nxt
    assert checked == 40 * 6 * 3


def test_level_keys_round_trip_and_equality_ignores_derived_data():
    level, player, boxes = parse_level(TWO)
    key = level.key(player, boxes)
    assert level.unkey(key) == (player, boxes)
    assert key & ((1 << level.shift) - 1) == player
    assert level.key(player, level.goals) - player == level.goal_key
    # Two boxes are two distinct bits; moving one changes the key.
    assert bin(key >> level.shift).count("1") == 2
    assert level.key(*move(level, player, boxes, 3)) != key
    reverse_table(level).grow(5, 1000)
    level.bound_memo[0] = (0, ())
    twin = parse_level(TWO)[0]
    assert twin == level and hash(twin) == hash(level) and reverse_table(twin).depth == 0


def _all_states(level, boxes):
    floor = [c for c, wall in enumerate(level.walls) if not wall]
    for placed in itertools.combinations(floor, boxes):
        for player in floor:
            if player not in placed:
                yield player, placed


@pytest.mark.parametrize(
    "rows", [OPEN, TWO, LINE, ["######", "#P_X_#", "#_#__#", "#_O__#", "######"]]
)
def test_reverse_table_holds_exact_distances_of_every_solvable_state(rows):
    level, _, start_boxes = parse_level(rows)
    table = reverse_table(level)
    assert table.depth == 0 and not table.exhausted
    assert all(is_solved(level, level.unkey(k)[1]) for k in table.layers[0])
    table.grow(depth=200, max_states=10**6)
    assert table.exhausted
    for k, layer in enumerate(table.layers):
        assert layer and all(table.dist[key] == k for key in layer)
        assert k == 0 or not any(is_solved(level, level.unkey(key)[1]) for key in layer)
    # Every state of the level: in the table at its BFS distance, or never solvable.
    for player, boxes in _all_states(level, len(start_boxes)):
        want = _reference_distance(level, player, boxes, 40)
        assert table.dist.get(level.key(player, boxes)) == want, (player, boxes)


def test_reverse_table_grows_in_layers_and_stops_at_its_budget():
    level, player, boxes = parse_level(OPEN)
    table = reverse_table(level)
    table.grow(depth=3, max_states=10**6)
    assert table.depth == 3 and not table.exhausted
    assert level.key(player, boxes) not in table.dist  # 5 moves from solved
    assert all(d <= 3 for d in table.dist.values())
    table.grow(depth=5, max_states=10**6)
    assert table.depth == 5 and table.dist[level.key(player, boxes)] == 5
    # The budget is checked before each layer: a full table does not grow.
    small = reverse_table(parse_level(OPEN)[0])
    small.grow(depth=10, max_states=1)
    assert small.depth == 0


@pytest.mark.parametrize("table_states", [oracle_mod.ORACLE_TABLE_STATES, 0])
def test_oracle_matches_plain_bfs_with_and_without_the_generators_table(monkeypatch, table_states):
    # With the default every level here is small (the table answers everything); with 0 the
    # oracle answers beyond the generator's table with A* searches that stop at its edge.
    monkeypatch.setattr(oracle_mod, "ORACLE_TABLE_STATES", table_states)
    rng = np.random.default_rng(11)
    for trial in range(12):
        size, boxes = [(6, 1), (6, 2), (7, 1)][trial % 3]
        level, player, bx, optimal = generate_level(rng, size, boxes, 15)
        warm = Oracle(level)  # starts from the generator's table
        assert reverse_table(level).dist[level.key(player, bx)] == optimal
        cold = Oracle(parse_level(render(level, player, bx))[0])  # starts from nothing
        state = (player, bx)
        for _ in range(8):
            for limit in (optimal - 2, optimal, 12):
                want = _reference_distance(level, *state, limit)
                assert warm.distance(*state, limit) == want, (trial, state, limit)
                assert cold.distance(*state, limit) == want, (trial, state, limit)
            nxt = move(level, *state, int(rng.integers(4)))
            if nxt is not None and not is_solved(level, nxt[1]):
                state = nxt


def test_oracle_on_a_large_hand_drawn_level():
    # 12x12 is beyond the generator's sizes: keys are wide and the search is A*.
    rows = ["#" * 12] + ["#" + "_" * 10 + "#" for _ in range(10)] + ["#" * 12]
    rows[2] = "#_P________#"
    rows[5] = "#____X_____#"
    rows[9] = "#________O_#"
    level, player, boxes = parse_level(rows)
    oracle = Oracle(level)
    # 5 moves to stand above the box, 4 pushes down, 2 moves round to its left, 4 pushes right.
    assert oracle.distance(player, boxes, 20) == _reference_distance(level, player, boxes, 20)
    assert oracle.distance(player, boxes, 20) == 15
    assert oracle.distance(player, boxes, 14) is None


# ---------------------------------------------------------------------------- generation
def test_target_range():
    assert target_range(15) == (5, 10)
    assert target_range(1) == (1, 1)
    assert target_range(3) == (1, 2)
    assert target_range(60) == (20, 40)


@pytest.mark.parametrize(("size", "boxes", "max_steps"), [(6, 1, 15), (8, 2, 15), (10, 3, 30)])
def test_generated_levels_are_solvable_within_budget(size, boxes, max_steps):
    rng = np.random.default_rng(7)
    for _ in range(10):
        level, player, bx, optimal = generate_level(rng, size, boxes, max_steps)
        assert (level.height, level.width) == (size, size)
        assert len(bx) == boxes == len(level.goals)
        assert not is_solved(level, bx)
        assert 1 <= optimal <= target_range(max_steps)[1]
        assert shortest_distance(level, player, bx, max_steps) == optimal
        rows = render(level, player, bx)
        assert rows[0] == rows[-1] == "#" * size
        assert all(r[0] == r[-1] == "#" for r in rows)


def test_generation_is_reproducible_and_varied():
    first = [generate_level(np.random.default_rng(s), 6, 1, 15) for s in range(20)]
    again = [generate_level(np.random.default_rng(s), 6, 1, 15) for s in range(20)]
    assert first == again
    layouts = {tuple(render(lv, p, b)) for lv, p, b, _ in first}
    assert len(layouts) == 20
    assert min(k for *_, k in first) >= 5  # lower end of target_range(15) on 6x6 rooms


def test_generation_fallback_is_an_open_room(monkeypatch):
    monkeypatch.setattr(generator, "MAX_LAYOUT_TRIES", 0)
    level, player, boxes, optimal = generate_level(np.random.default_rng(3), 5, 2, 15)
    assert sum(not w for w in level.walls) == 9  # the whole 3x3 interior is floor
    assert all(g % 5 == 3 for g in level.goals)  # goals on the right-hand interior column
    assert shortest_distance(level, player, boxes, 15) == optimal >= 1


def test_generation_draws_every_distance_of_the_target_range():
    # The reverse search stops at the drawn distance; the draw must still cover the range.
    ks = [generate_level(np.random.default_rng(s), 6, 1, 15)[3] for s in range(150)]
    assert set(ks) == set(range(5, 11))
    assert ks.count(5) > ks.count(10)  # short optimal paths are the commoner ones


def test_generated_level_keeps_its_table_for_the_oracle(monkeypatch):
    level, player, boxes, optimal = generate_level(np.random.default_rng(4), 6, 1, 15)
    table = reverse_table(level)
    assert table.depth >= optimal and table.dist[level.key(player, boxes)] == optimal
    # No search is needed to answer from the start state.
    monkeypatch.setattr(oracle_mod, "astar", None)
    assert Oracle(level).distance(player, boxes, 15) == optimal


def test_levels_are_the_same_as_before_the_draws_moved_to_agentgym_draws():
    # Golden hash of generated levels (rows and optimal distance), computed with the private
    # _Draws class this module used before agentgym.draws: a seed keeps its level.
    levels = []
    for size, boxes, max_steps, seeds in [(6, 1, 15, 50), (8, 2, 15, 20), (10, 3, 30, 10)]:
        for seed in range(seeds):
            level, player, bx, k = generate_level(
                np.random.default_rng(seed), size, boxes, max_steps
            )
            levels.append(["".join(render(level, player, bx)), k])
    digest = hashlib.sha256(json.dumps(levels).encode()).hexdigest()[:16]
    assert digest == "9864beca43d12102"


def test_generation_reads_only_the_bit_generators_raw_words():
    # Generator.integers / choice / permutation streams may change across NumPy versions;
    # an object that offers nothing but the bit generator proves none of them is used.
    rng = np.random.default_rng(9)
    bare = types.SimpleNamespace(bit_generator=np.random.default_rng(9).bit_generator)
    assert generate_level(bare, 8, 2, 15)[1:] == generate_level(rng, 8, 2, 15)[1:]
    assert not hasattr(generator, "_Draws") and not hasattr(generator, "_sample")


# ---------------------------------------------------------------------------- oracle budget
def test_move_limits_follow_the_budget_or_the_fixed_depth():
    assert move_limits(15) == (15, 14) and move_limits(1) == (1, 0)
    assert move_limits(15, 25) == (25, 25)
    assert move_limits(2, 25) == (25, 25) and move_limits(1, 25) == (25, 0)


def test_astar_node_budget_raises_and_the_oracle_answers_unknown():
    level, player, boxes = parse_level(HARD)
    key = level.key(player, boxes)
    with pytest.raises(SearchBudgetExceeded):
        astar(level, key, 100, max_nodes=50)
    tiny = Oracle(level, max_nodes=50)
    assert tiny.distance(player, boxes, 100) is UNKNOWN
    assert tiny.distance(player, boxes, 100) is UNKNOWN  # memoised, same answer
    # A small limit prunes enough to be answered within the same budget.
    assert tiny.distance(player, boxes, 3) is None
    # The verdict is "unknown", and the unknown verdict gets the neutral reward.
    judged = tiny.judge(player, boxes, 3, 100)
    assert judged.unknown and Rewards().score(judged, "shortest") == 0.0
    # A level that is provably dead is recognised without any search.
    dead, pd, bd = parse_level(["#####", "#X__#", "#_PO#", "#####"])
    assert Oracle(dead, max_nodes=0).is_dead(pd, bd) is True


def test_is_dead_is_proven_or_unknown_never_guessed():
    level, player, boxes = parse_level(OPEN)
    oracle = Oracle(level)
    assert oracle.is_dead(player, boxes) is False
    assert oracle.is_dead(*move(level, *move(level, 11, boxes, 3), 0)) is False  # pushed up
    corner = (6, (7,))  # the box against the top wall: no goal there
    assert oracle.is_dead(*corner) is True
    # Far beyond a small budget, yet solvable: never "dead", at worst unknown.
    hard, ph, bh = parse_level(HARD)
    assert Oracle(hard, max_nodes=50).is_dead(ph, bh) is UNKNOWN
    # The long corridor is solvable (17 moves) however small the budget asked.
    snake, ps, bs = parse_level(SNAKE)
    assert Oracle(snake).distance(ps, bs, 15) is None and Oracle(snake).is_dead(ps, bs) is False


# ---------------------------------------------------------------------------- env: rewards
def test_reward_optimal_suboptimal_and_solve():
    env = _env()
    assert env.optimal_moves_left() == 5
    _, r, term, trunc, info = env.step("down")
    assert (r, term, trunc) == (2.0, False, False)
    assert info["verdict"] == "optimal" and info["optimal_moves_left"] == 4
    assert info["reward_components"] == {"process": 2.0, "outcome": 0.0}
    assert info["oracle_degraded"] is False
    _, r, term, _, info = env.step("up")  # back to the start: still solvable, not shortest
    assert (r, term, info["verdict"], info["optimal_moves_left"]) == (0.0, False, "suboptimal", 5)
    rewards = [env.step(a)[1] for a in ["right", "down", "left", "down"]]
    assert rewards == [2.0, 2.0, 2.0, 2.0]
    _, r, term, trunc, info = env.step("right")
    assert (r, term, trunc, info["success"]) == (3.0, True, False, True)
    assert info["reward_components"] == {"process": 2.0, "outcome": 1.0}
    assert info["verdict"] == "solved" and info["boxes_on_goals"] == 1
    assert info["steps_left"] == 15 - 7 and info["optimal_moves_left"] == 0
    assert "truncated_by" not in info
    assert info["available_actions"] == [] and env.oracle_actions() == []
    assert "Game over: solved." in env._observe()


def test_blocked_move_costs_the_invalid_penalty_and_truncates():
    env = _env(max_invalid=1)  # VPR's policy (preset="vpr"): the first invalid action ends it
    _, r, term, trunc, info = env.step("up")  # a wall
    assert (r, term, trunc, info["valid_action"], info["success"]) == (
        -2.0,
        False,
        True,
        False,
        False,
    )
    assert info["truncated_by"] == "max_invalid"
    assert "blocked" in info["action_error"] and "wall" in info["action_error"]
    assert info["verdict"] == "blocked" and env.invalid_actions == 1
    assert info["reward_components"] == {"process": -2.0, "outcome": 0.0}
    assert "Game over: blocked move." in env._observe()


def test_reward_box_into_box_is_blocked():
    env = _env(["######", "#PXX_#", "#___O#", "#___O#", "######"], max_invalid=1)
    _, r, term, trunc, info = env.step("right")
    assert (r, term, trunc) == (-2.0, False, True)
    assert "another box" in info["action_error"]


def test_invalid_policy_kwargs_let_play_go_on():
    env = _env(invalid_penalty=-0.5, max_invalid=3)
    for expected_end in (False, False, True):
        _, r, term, trunc, info = env.step("jump")
        assert (r, term, trunc, info["valid_action"]) == (-0.5, False, expected_end, False)
        assert info["verdict"] == "invalid"
    assert info["truncated_by"] == "max_invalid" and env.steps_left == 12
    assert "Game over: unreadable action." in env._observe()
    # Play goes on after a blocked move too, and the wasted step is counted.
    env = _env(max_invalid=2)
    assert env.step("up")[1:4] == (-2.0, False, False)
    _, r, _, _, info = env.step("down")
    assert (r, info["verdict"], info["steps_left"]) == (2.0, "optimal", 13)


def test_a_wasted_step_that_puts_the_solution_out_of_reach_truncates():
    # 5 moves from solved with 6 steps: one invalid step leaves 5 (fine), a second leaves 4.
    env = _env(max_steps=6, max_invalid=5)
    assert env.step("jump")[2:4] == (False, False)
    _, r, term, trunc, info = env.step("jump")
    assert (r, term, trunc, info["truncated_by"]) == (-2.0, False, True, "no_solution_in_reach")
    assert info["optimal_moves_left"] == -1
    assert "no solution fits in the steps left" in env._observe()


def test_deadlock_terminates():
    env = _env()
    steps = [env.step(a)[1] for a in ["down", "down", "right"]]
    assert steps == [2.0, 0.0, 0.0]
    _, r, term, trunc, info = env.step("up")  # pushes the box against the top wall: dead
    assert (r, term, trunc, info["success"], info["verdict"]) == (
        -2.0,
        True,
        False,
        False,
        "deadlock",
    )
    assert info["valid_action"] and info["optimal_moves_left"] == -1
    assert "truncated_by" not in info
    assert "can no longer be solved" in env._observe()


def test_a_solvable_level_out_of_reach_is_truncated_not_terminated():
    # The tight budget makes the detour fatal, but the level itself is still solvable.
    env = _env(OPEN, max_steps=5)
    assert env.step("down")[1] == 2.0
    _, r, term, trunc, info = env.step("up")
    assert (r, term, trunc) == (-2.0, False, True)
    assert info["truncated_by"] == "no_solution_in_reach"
    assert info["verdict"] == "no_solution_in_reach" and info["optimal_moves_left"] == -1
    # A level too long for the budget from the start: every move is -2 and truncates.
    env = _env(SNAKE)
    assert env.optimal_moves_left() == -1
    assert env.step("right")[1:4] == (-2.0, False, True)


def test_reward_budget_runs_out():
    env = _env(LINE, max_steps=1)
    _, r, term, trunc, info = env.step("left")
    assert (r, term, trunc) == (-2.0, False, True)
    assert (info["truncated_by"], info["verdict"], info["steps_left"]) == (
        "max_steps",
        "no_solution_in_reach",
        0,
    )
    assert "Game over: out of steps." in env._observe()
    # With a 3-step budget the same detour is fine (0), then +2, then solved (+2 + 1).
    env = _env(LINE, max_steps=3)
    assert [env.step(a)[1] for a in ["left", "right", "right"]] == [0.0, 2.0, 3.0]
    # Pushing into the corner on the last step is a deadlock: terminated, not truncated.
    env = _env(["######", "#_XPO#", "#____#", "######"], max_steps=1)
    assert env.optimal_moves_left() == -1
    assert env._require_oracle().is_dead(env.player, env.boxes) is False
    _, r, term, trunc, info = env.step("left")
    assert (r, term, trunc, info["verdict"]) == (-2.0, True, False, "deadlock")


def test_solvable_mode_rewards_any_move_that_keeps_a_solution():
    env = _env(oracle="solvable")
    assert env.score_actions(["up", "down", "left", "right"]) == [-2.0, 2.0, -2.0, 2.0]
    assert [env.step(a)[1] for a in ["down", "up", "down"]] == [2.0, 2.0, 2.0]
    assert env.step("down")[1] == 2.0  # row 4, col 2: still 5 moves from solved, 11 left
    _, r, term, _, _ = env.step("right")  # bottom row, left of the goal: fine
    assert (r, term) == (2.0, False)


def test_reward_modes():
    env = _env(LINE, reward_mode="process")
    _, r, _, _, info = env.step("right")
    assert r == 2.0 and info["reward_components"]["outcome"] == 1.0
    env = _env(LINE, reward_mode="outcome")
    assert env.step("right")[1] == 1.0
    env = _env(LINE, reward_mode="outcome")
    assert env.step("left")[1] == 0.0


def test_two_box_level_rewards():
    env = _env(TWO)
    assert env.oracle_actions() == ["right"]
    assert env.score_actions(["right", "down", "left", "up"]) == [2.0, 0.0, -2.0, -2.0]
    total = 0.0
    for _ in range(8):
        _, r, term, _, info = env.step(env.oracle_actions()[0])
        total += r
    assert term and info["success"] and total == 8 * 2.0 + 1.0


def test_reward_constants_are_kwargs():
    env = _env(optimal_reward=1.0, legal_reward=0.25, deadlock_penalty=-5.0, success_reward=3.0)
    assert env.score_actions(["down", "right", "jump"]) == [1.0, 1.0, -2.0]
    assert env.step("down")[1] == 1.0 and env.step("up")[1] == 0.25
    env = _env(LINE, success_reward=3.0, optimal_reward=0.5)
    assert env.step("right")[1] == 3.5
    env = _env(deadlock_penalty=-5.0)
    for a in ["down", "down", "right"]:
        env.step(a)
    assert env.step("up")[1:3] == (-5.0, True)
    with pytest.raises(ValueError, match="deadlock_penalty <= legal_reward <= optimal_reward"):
        SokobanEnv(optimal_reward=0.0, legal_reward=1.0)
    with pytest.raises(ValueError, match="deadlock_penalty"):
        SokobanEnv(deadlock_penalty=1.0)
    with pytest.raises(ValueError, match="optimal_reward"):
        SokobanEnv(optimal_reward=float("nan"))


# ---------------------------------------------------------------------------- VPR preset
def test_vpr_preset_is_the_papers_configuration():
    env = SokobanEnv(preset="vpr")
    config = env.config()
    assert config == {
        "size": 6,
        "boxes": 1,
        "process_reward": "verdict",
        "oracle": "shortest",
        "search_depth": 25,
        "optimal_reward": 2.0,
        "legal_reward": 0.0,
        "deadlock_penalty": -2.0,
        "success_reward": 1.0,
        "preset": "vpr",
        "max_steps": 15,
        "invalid_penalty": -2.0,
        "max_invalid": 1,
    }
    assert PRESETS["vpr"]["search_depth"] == 25
    # A kwarg set to something else overrides the preset (agentgym.presets), and the config
    # records what is in force, so a snapshot or a result says exactly what ran.
    longer = SokobanEnv(preset="vpr", max_steps=30, search_depth=40, max_invalid=2)
    assert (longer.max_steps, longer.search_depth, longer.max_invalid) == (30, 40, 2)
    assert longer.config()["invalid_penalty"] == -2.0 and longer.config()["preset"] == "vpr"
    with pytest.raises(ValueError, match="preset"):
        SokobanEnv(preset="paper")


def test_vpr_preset_rewards_equal_the_papers_constants_on_hand_built_states():
    # VPR: +2 for a first move of a shortest solution found within depth 25, 0 for another
    # legal move, -2 for a move after which no solution is within depth 25 (and the episode
    # ends), -2 for a timeout, -2 for an invalid action (and the episode ends).
    optimal, legal, deadlock, invalid = 2.0, 0.0, -2.0, -2.0
    env = _env(preset="vpr")
    assert env.score_actions(["down", "right", "up", "jump"]) == [
        optimal,
        optimal,
        invalid,
        invalid,
    ]
    assert env.step("down")[1] == optimal
    assert env.step("up")[1] == legal
    env = _env(preset="vpr")
    for a in ["down", "down", "right"]:
        env.step(a)
    assert env.step("up")[1:3] == (deadlock, True)  # box pushed into the top wall
    env = _env(preset="vpr")
    _, r, term, trunc, _ = env.step("left")  # a wall: invalid, and the episode ends
    assert (r, term or trunc) == (invalid, True)
    # The horizon is the fixed depth, not the steps left: 17 moves is out of a 15-step
    # budget's reach (-2 by default) but a shortest solution within 25 (+2 for VPR).
    assert _env(SNAKE).score_actions(["right"]) == [deadlock]
    env = _env(SNAKE, preset="vpr")
    assert env.step("right")[1:4] == (optimal, False, False)
    assert env.step("left")[1:4] == (legal, False, False)
    # A move that spends the last step without solving is a timeout: -2 (VPR), truncated.
    env = _env(preset="vpr")
    rewards = [env.step(a)[1] for a in ["down", "up"] * 7]
    assert rewards == [optimal, legal] * 7
    assert env.score_actions(["down"]) == [deadlock]
    _, r, term, trunc, info = env.step("down")
    assert (r, term, trunc, info["truncated_by"]) == (deadlock, False, True, "max_steps")


# ---------------------------------------------------------------------------- hand-drawn levels
def test_a_level_that_starts_solved_is_refused():
    env = SokobanEnv()
    with pytest.raises(ValueError, match="starts solved"):
        env.reset(seed=0, options={"level": ["#####", "#PV_#", "#####"]})
    with pytest.raises(ValueError, match="starts solved"):
        env.reset(seed=0, options={"level": ["######", "#PVV_#", "######"]})
    # A level with one box left to push is fine (and a solved state still loads as a
    # snapshot: the refusal is about starting an episode, not about parsing).
    env.reset(seed=0, options={"level": LINE})
    env.step("right")
    assert env.is_over and render(env.level, env.player, env.boxes) == [
        "######",
        "#__PV#",
        "######",
    ]
    restored = SokobanEnv()
    restored.set_state(env.get_state())
    assert restored.is_over and restored.status == "solved"


def test_hand_drawn_levels_are_bounded():
    env = SokobanEnv()
    wide = ["#" * 11, "#P" + "_" * 6 + "XO#", "#" * 11]
    with pytest.raises(ValueError, match="at most 10 x 10"):
        env.reset(seed=0, options={"level": wide})
    four = ["#########", "#PXXXX__#", "#_OOOO__#", "#########"]
    with pytest.raises(ValueError, match="at most 3 boxes"):
        env.reset(seed=0, options={"level": four})
    # The level from the issue (14x14, 6 boxes) is refused at once instead of searched.
    big = ["#" * 14] + ["#" + "_" * 12 + "#" for _ in range(12)] + ["#" * 14]
    big[1] = "#P" + "_" * 11 + "#"
    big[3] = "#_X_X_X_X_X_X#"
    big[12] = "#O_O_O_O_O_O_#"
    with pytest.raises(ValueError, match="at most 10 x 10"):
        env.reset(seed=0, options={"level": big})


def test_the_hardest_allowed_levels_reset_and_step_in_bounded_time():
    # A stall check, not a speed test: each question about these 10x10, 3-box levels with a
    # 100-step budget is bounded by the oracle's node budget, so reset and steps return.
    code = f"""
import json
from agentgym.environments.games.sokoban.env import SokobanEnv
env, out = SokobanEnv(max_steps=100), []
for rows in {[HARD, STUCK]!r}:
    _, info = env.reset(seed=0, options={{"level": rows}})
    out.append(info["optimal_moves_left"])
    for action in ("right", "down", "down"):
        if not env.is_over:
            out.append(env.step(action)[4]["verdict"])
print(json.dumps(out))
"""
    out = json.loads(_run_python(code, timeout=300))
    assert out == [28, "optimal", "optimal", "optimal", -1, "deadlock"]


def test_a_deadlock_only_a_full_search_finds_ends_the_episode_as_terminated():
    level, player, boxes = parse_level(STUCK)
    assert Oracle(level, max_nodes=0).is_dead(player, boxes) is UNKNOWN  # no cheap proof
    assert Oracle(level).is_dead(player, boxes) is True  # the bounded search finds it
    env = _env(STUCK, max_steps=100)
    _, r, term, trunc, info = env.step("right")
    assert (r, term, trunc, info["verdict"]) == (-2.0, True, False, "deadlock")


def test_a_degraded_verdict_is_flagged_and_never_ends_the_episode(monkeypatch):
    # A node budget too small for anything but trivial questions: every verdict about the
    # open 10x10 room is unknown, scored as a legal move, and play goes on.
    monkeypatch.setattr(oracle_mod, "ORACLE_MAX_NODES", 20)
    env = _env(HARD, max_steps=100)
    assert env.optimal_moves_left() is None
    for action in ["right", "left", "down", "right"]:
        scores = env.score_actions([action])
        _, r, term, trunc, info = env.step(action)
        assert (r, term, trunc) == (0.0, False, False), action
        assert info["oracle_degraded"] is True and info["verdict"] == "unknown"
        assert info["optimal_moves_left"] is None and scores == [r]
    # A level whose deadlock needs the full search: out of budget it is not called dead, so
    # the episode goes on (a wrong ending would be worse than an unscored move).
    env = _env(STUCK, max_steps=100)
    _, r, term, trunc, info = env.step("right")
    assert (r, term, trunc, info["oracle_degraded"]) == (0.0, False, False, True)
    # With the default budget neither level is degraded.
    monkeypatch.undo()
    for rows in (HARD, STUCK):
        _, info = SokobanEnv(max_steps=100).reset(seed=0, options={"level": rows})
        assert info["oracle_degraded"] is False


# ---------------------------------------------------------------------------- env: contract
def test_score_actions_matches_step_and_leaves_state_alone():
    for kwargs in ({}, {"search_depth": 25}, {"max_invalid": 3, "invalid_penalty": -0.5}):
        env = SokobanEnv(**kwargs)
        env.reset(seed=11)
        candidates = ["up", "down", "left", "right", "UP", "jump", "", "r", "<action>left</action>"]
        for _ in range(4):
            before = env.get_state()
            scores = env.score_actions(candidates)
            assert env.get_state() == before
            for action, score in zip(candidates, scores, strict=True):
                env.set_state(before)
                _, reward, *_ = env.step(action)
                assert reward == score, (kwargs, action)
            env.set_state(before)
            if not env.oracle_actions():
                break
            env.step(env.oracle_actions()[0])


def test_oracle_agent_solves_200_seeded_levels():
    env = gym.make("agentgym/Sokoban-v0", process_reward="verdict")
    for seed in range(200):
        env.reset(seed=seed)
        inner = env.unwrapped
        terminated, info = False, {}
        while not terminated:
            action = inner.oracle_actions()[0]
            _, reward, terminated, truncated, info = env.step(f"<action>{action}</action>")
            assert reward >= 2.0 and not truncated
        assert info["success"], seed
        assert inner.steps <= 15


def test_score_process_off_zeroes_process_and_keeps_the_game():
    actions = ["right", "down", "jump", "right", "up", "left", "down", "down", "right"]
    for rows in (TWO, OPEN):
        scored = _env(rows, max_invalid=2)
        fast = _env(rows, max_invalid=2, score_process=False)
        for action in actions:
            a, b = scored.step(action), fast.step(action)
            assert a[0] == b[0] and a[2:4] == b[2:4]  # observation, terminated, truncated
            info_a, info_b = a[4], b[4]
            assert info_b["reward_components"] == {
                "process": 0.0,
                "outcome": info_a["reward_components"]["outcome"],
            }
            assert info_b["verifier"]["process_scored"] is False
            for k in ("verdict", "optimal_moves_left", "valid_action", "success", "steps_left"):
                assert info_a[k] == info_b[k], k
            if a[2] or a[3]:
                break
    # An explicit request for scores still asks the oracle.
    fast = _env(score_process=False)
    assert fast.score_actions(["up", "down", "right"]) == [-2.0, 2.0, 2.0]
    assert gym.make("agentgym/Sokoban-v0", score_process=False).unwrapped.score_process is False
    with pytest.raises(ValueError, match="score_process"):
        SokobanEnv(score_process=1)


def test_observation_text_is_exact():
    env = _env(["#####", "#PXO#", "#####"])
    assert env._observe().splitlines() == [
        "Legend: # wall, _ floor, O goal, X box, V box on a goal, P player, S player on a goal.",
        "",
        "      1  2  3  4  5   (columns)",
        "   1  #  #  #  #  #",
        "   2  #  P  X  O  #",
        "   3  #  #  #  #  #",
        "(rows)",
        "",
        "You are at row 2, column 2.",
        "Boxes: (row 2, column 3).",
        "Goals: (row 2, column 4).",
        "Boxes on goals: 0 of 1. Steps left: 15.",
        "Moves that are not blocked now: right.",
    ]
    obs, *_ = env.step("right")
    assert "   2  #  _  P  V  #" in obs.splitlines()
    assert "Boxes on goals: 1 of 1. Steps left: 14." in obs and "Game over: solved." in obs
    # Two-digit rows keep the columns aligned.
    tall = ["####"] + ["#__#"] * 6 + ["#PX#", "#_O#", "####"]
    lines = _env(tall)._observe().splitlines()
    assert lines[2] == "      1  2  3  4   (columns)"
    assert lines[10:14] == [
        "   8  #  P  X  #",
        "   9  #  _  O  #",
        "  10  #  #  #  #",
        "(rows)",
    ]


def test_the_observation_shows_the_state_not_the_rules():
    env = SokobanEnv()
    obs, _ = env.reset(seed=3)
    for rule_text in ("Push every box", "You cannot pull", "<action>", "row - 1", "Answer with"):
        assert rule_text not in obs
        assert rule_text in env.system_prompt()
    for state_text in (
        "Legend:",
        "(columns)",
        "You are at",
        "Boxes:",
        "Goals:",
        "Steps left: 15",
        "Moves that are not blocked now:",
    ):
        assert state_text in obs


def test_copying_the_rules_example_is_not_rewarded():
    # The prompt's examples are placeholders: stepping any of them verbatim is invalid.
    prompt = SokobanEnv().system_prompt()
    examples = re.findall(r"<action>.*?</action>", prompt)
    assert "<action>DIRECTION</action>" in examples
    assert not {"<action>up</action>", "<action>down</action>"} & set(examples)
    for seed in range(10):
        for example in examples:
            env = SokobanEnv()
            env.reset(seed=seed)
            assert env.score_actions([example]) == [-2.0]
            _, reward, _, _, info = env.step(example)
            assert reward == -2.0 and not info["valid_action"], (seed, example)


def test_rules_state_this_envs_limits():
    assert "after a blocked or unreadable move" in SokobanEnv(max_invalid=1).rules
    assert "after a blocked or unreadable move" in SokobanEnv(preset="vpr").rules
    assert "after 3 blocked or unreadable moves" in SokobanEnv().rules
    assert "within the steps left" in SokobanEnv().rules
    assert "within 25 moves" in SokobanEnv(preset="vpr").rules
    assert "the 20 steps run out" in SokobanEnv(max_steps=20).rules


def test_small_episodes_never_need_a_search(monkeypatch):
    # On 6x6 one-box levels every oracle answer comes from the distance table (the
    # generator's, grown on demand), never from an A* search, deadlock proofs included.
    monkeypatch.setattr(oracle_mod, "astar", None)
    env = SokobanEnv()
    endings = set()
    for seed in range(30):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            legal = env._legal_actions()
            env.score_actions([*legal, "nonsense"])
            best = env.oracle_actions()
            action = best[0] if rng.random() < 0.6 else legal[int(rng.integers(len(legal)))]
            *_, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                endings.add(info["verdict"])
                break
    assert "solved" in endings and endings - {"solved"}


def test_available_actions_are_the_unblocked_moves():
    env = SokobanEnv()
    _, info = env.reset(seed=0, options={"level": OPEN})
    assert info["available_actions"] == ["down", "right"]
    _, info = env.reset(
        seed=0, options={"level": ["######", "#PXX_#", "#___O#", "#___O#", "######"]}
    )
    assert info["available_actions"] == ["down"]


def test_same_seed_same_level_and_different_seeds_differ():
    env = SokobanEnv()
    a, _ = env.reset(seed=5)
    b, _ = env.reset(seed=5)
    c, _ = env.reset(seed=6)
    assert a == b and a != c
    env8 = gym.make("agentgym/Sokoban-v0", size=8, boxes=2)
    first, _ = env8.reset(seed=3)
    assert first == env8.reset(seed=3)[0]
    assert len(env8.unwrapped.boxes) == 2


def test_same_seed_same_observation_in_another_process():
    code = (
        "import gymnasium as gym, agentgym, json;"
        "env = gym.make('agentgym/Sokoban-v0', size=7, boxes=2, max_steps=20);"
        "print(json.dumps([env.reset(seed=s)[0] for s in range(5)]))"
    )
    outs = []
    for hashseed in ("1", "2"):
        res = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": hashseed},
        )
        outs.append(json.loads(res.stdout))
    env = SokobanEnv(size=7, boxes=2, max_steps=20)
    assert outs[0] == outs[1] == [env.reset(seed=s)[0] for s in range(5)]


def test_observation_is_clear_ascii():
    env = SokobanEnv(size=10, boxes=3, max_steps=30)
    obs, _ = env.reset(seed=1)
    assert set(obs) <= set(TEXT_CHARSET) and 0 < len(obs) <= env.max_observation_length
    assert obs.isascii()
    for needle in ("Legend:", "# wall", "V box on a goal", "Steps left: 30"):
        assert needle in obs
    assert obs.splitlines()[2].split()[-2] == "10"  # the column header reaches column 10
    # Pure function of the state.
    state = env.get_state()
    assert env._observe() == obs
    env.set_state(state)
    assert env._observe() == obs

    env = _env()
    obs = env._observe()
    assert "You are at row 2, column 2." in obs
    assert "Boxes: (row 3, column 3)." in obs and "Goals: (row 4, column 4)." in obs
    assert "Moves that are not blocked now: down, right." in obs


def test_state_round_trip_replays_identically():
    env = SokobanEnv(size=8, boxes=2)
    env.reset(seed=21)
    snap = env.get_state()
    json.loads(snap)  # plain JSON
    actions = ["up", "left", "down", "right", "right", "up"]

    def run(e):
        out = []
        for a in actions:
            obs, r, term, trunc, info = e.step(a)
            out.append((obs, r, term, trunc, info["verdict"]))
            if term or trunc:
                break
        return out

    first = run(env)
    env.set_state(snap)
    assert run(env) == first
    fresh = SokobanEnv(size=8, boxes=2)
    fresh.set_state(snap)
    assert run(fresh) == first


def test_snapshots_refuse_an_env_with_other_kwargs():
    env = SokobanEnv()
    env.reset(seed=7)
    snap = env.get_state()
    assert "steps_left" not in json.loads(snap)["state"]  # the base owns the budget
    for other, key in [
        ({"search_depth": 25}, "search_depth"),
        ({"max_steps": 20}, "max_steps"),
        ({"optimal_reward": 1.0}, "optimal_reward"),
        ({"oracle": "solvable"}, "oracle"),
        ({"preset": "vpr"}, "preset"),
    ]:
        with pytest.raises(ValueError, match=key):
            SokobanEnv(**other).set_state(snap)
    fresh = SokobanEnv()
    fresh.set_state(snap)
    assert fresh.episode_seed == 7 and fresh._observe() == env._observe()


def test_info_extras_hold_no_contract_keys():
    env = _env()
    _, info = env.reset(seed=0, options={"level": OPEN})
    extras = env._reset_info()
    assert set(extras) == {
        "verdict", "optimal_moves_left", "boxes_on_goals", "oracle_degraded", "process_reward"
    }
    assert info["steps_left"] == 15
    assert env.step("down")[4]["steps_left"] == 14


@pytest.mark.parametrize(
    "kwargs",
    [
        {"size": 4},
        {"size": 11},
        {"size": "6"},
        {"size": 6.0},
        {"boxes": 0},
        {"boxes": 4},
        {"size": 5, "boxes": 3},
        {"max_steps": 0},
        {"max_steps": 101},
        {"max_steps": True},
        {"oracle": "fastest"},
        {"reward_mode": "sum"},
        {"render_mode": "human"},
        {"search_depth": 0},
        {"search_depth": 101},
        {"search_depth": 2.5},
        {"invalid_penalty": 1.0},
        {"max_invalid": 0},
        {"success_reward": "1"},
        {"preset": "vpr", "search_depth": 0},
    ],
)
def test_bad_kwargs_raise(kwargs):
    with pytest.raises(ValueError):
        SokobanEnv(**kwargs)


def test_bad_kwargs_raise_through_gym_make():
    with pytest.raises(ValueError, match="size"):
        gym.make("agentgym/Sokoban-v0", size=99)
    with pytest.raises(ValueError, match="boxes"):
        gym.make("agentgym/Sokoban-v0", boxes=9)


def test_bad_kwargs_name_the_range():
    with pytest.raises(ValueError, match=r"\[5, 10\]"):
        SokobanEnv(size=3)
    with pytest.raises(ValueError, match=r"\[1, 2\] for size 5"):
        SokobanEnv(size=5, boxes=3)
    with pytest.raises(ValueError, match=r"search_depth must be in \[1, 100\]"):
        SokobanEnv(search_depth=500)


@pytest.mark.parametrize(
    "action",
    [
        "",
        "   ",
        "upp",
        "10 10 10",
        "reveal 0 0",
        "up down",
        "north",
        "ü↑ left?",
        "<action></action>",
        "<action>up",
        "x" * 100_000,
        "\x00\x01",
        "move",
    ],
)
def test_garbage_actions_do_not_raise(action):
    env = _env(max_invalid=1)  # the episode ends on it, so the finished-episode path is hit
    obs, r, term, trunc, info = env.step(action)
    assert (r, term, trunc, info["valid_action"]) == (-2.0, False, True, False)
    assert info["action_error"] and info["verdict"] == "invalid"
    assert isinstance(obs, str) and obs.isascii()
    # Stepping a finished episode answers without raising.
    assert env.step("down")[3] is True


def test_non_string_action_does_not_raise():
    env = _env(max_invalid=1)
    _, r, term, trunc, info = env.step(None)  # type: ignore[arg-type]
    assert (r, term, trunc, info["valid_action"]) == (-2.0, False, True, False)


@pytest.mark.parametrize(
    "action",
    ["down", "DOWN", " Down ", "(down)", "'down',", "d", "D", "move down", "push down", "down."],
)
def test_lenient_spellings(action):
    env = _env()
    _, r, _, _, info = env.step(action)
    assert info["valid_action"] and r == 2.0


def test_action_tag_after_thinking():
    env = _env()
    _, r, _, _, info = env.step("The box is below-right. <action>right</action>")
    assert info["valid_action"] and r == 2.0


def test_custom_level_overrides_size_and_is_scored_when_unsolvable():
    env = SokobanEnv(size=10, boxes=3)
    env.reset(seed=0, options={"level": ["#####", "#X__#", "#_PO#", "#####"]})
    assert env.optimal_moves_left() == -1
    assert env.oracle_actions() == ["up", "left", "right"]  # all -2: nothing fits
    assert env.score_actions(["up", "left", "right"]) == [-2.0, -2.0, -2.0]
    # The level is dead from the start, so any move ends it as a deadlock.
    assert env.step("left")[1:4] == (-2.0, True, False)
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"level": ["#####", "#P__#", "#####"]})


def test_step_before_reset_and_oracle_before_reset():
    env = SokobanEnv()
    with pytest.raises(gym.error.ResetNeeded):
        env.step("up")
    with pytest.raises(gym.error.ResetNeeded):
        env.oracle_actions()
