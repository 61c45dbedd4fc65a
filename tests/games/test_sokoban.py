"""Sokoban: level maths, the shortest-path oracle, generation and the env's reward table."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import agentgym  # noqa: F401  (registers the ids)
from agentgym.core import TEXT_CHARSET
from agentgym.environments.games.sokoban import logic
from agentgym.environments.games.sokoban.env import SokobanEnv
from agentgym.environments.games.sokoban.logic import (
    DIRECTIONS,
    INF,
    Oracle,
    generate_level,
    is_solved,
    move,
    parse_level,
    render,
    shortest_distance,
    solve,
    target_range,
)

# Box at row 3 col 3, goal at row 4 col 4 (1-based). Shortest solution: 5 moves, and both
# "down, right, up, right, down" and "right, down, left, down, right" are shortest.
OPEN = ["#####", "#P__#", "#_X_#", "#__O#", "#####"]
# Two boxes: pushing the top box first takes 8 moves, the bottom box first 9.
TWO = ["#######", "#P_X_O#", "#__X_O#", "#######"]
# One push from solved, with one spare cell to the left.
LINE = ["######", "#_PXO#", "######"]


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


@pytest.mark.parametrize("table_states", [logic.ORACLE_TABLE_STATES, 0])
def test_oracle_cache_gives_same_answers_as_fresh_searches(monkeypatch, table_states):
    # 0: the level counts as large, so the answers come from memoised A* searches.
    monkeypatch.setattr(logic, "ORACLE_TABLE_STATES", table_states)
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
    level.reverse.grow(5, 1000)
    level.bound_memo[0] = (0, ())
    twin = parse_level(TWO)[0]
    assert twin == level and hash(twin) == hash(level) and twin.reverse.depth == 0


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
    table = level.reverse
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
    table = level.reverse
    table.grow(depth=3, max_states=10**6)
    assert table.depth == 3 and not table.exhausted
    assert level.key(player, boxes) not in table.dist  # 5 moves from solved
    assert all(d <= 3 for d in table.dist.values())
    table.grow(depth=5, max_states=10**6)
    assert table.depth == 5 and table.dist[level.key(player, boxes)] == 5
    # The budget is checked before each layer: a full table does not grow.
    small = parse_level(OPEN)[0].reverse
    small.grow(depth=10, max_states=1)
    assert small.depth == 0


@pytest.mark.parametrize("table_states", [logic.ORACLE_TABLE_STATES, 0])
def test_oracle_matches_plain_bfs_with_and_without_the_generators_table(monkeypatch, table_states):
    # With the default every level here is small (the table answers everything); with 0 the
    # oracle answers beyond the generator's table with A* searches that stop at its edge.
    monkeypatch.setattr(logic, "ORACLE_TABLE_STATES", table_states)
    rng = np.random.default_rng(11)
    for trial in range(12):
        size, boxes = [(6, 1), (6, 2), (7, 1)][trial % 3]
        level, player, bx, optimal = generate_level(rng, size, boxes, 15)
        warm = Oracle(level)  # starts from the generator's table
        assert level.reverse.dist[level.key(player, bx)] == optimal
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
    monkeypatch.setattr(logic, "MAX_LAYOUT_TRIES", 0)
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
    table = level.reverse
    assert table.depth >= optimal and table.dist[level.key(player, boxes)] == optimal
    # No search is needed to answer from the start state.
    monkeypatch.setattr(logic, "_search", None)
    assert Oracle(level).distance(player, boxes, 15) == optimal


# ---------------------------------------------------------------------------- env: rewards
def test_reward_optimal_suboptimal_and_solve():
    env = _env()
    assert env.optimal_moves_left() == 5
    _, r, term, trunc, info = env.step("down")
    assert (r, term, trunc) == (2.0, False, False)
    assert info["verdict"] == "optimal" and info["optimal_moves_left"] == 4
    assert info["reward_components"] == {"process": 2.0, "outcome": 0.0}
    _, r, term, _, info = env.step("up")  # back to the start: still solvable, not shortest
    assert (r, term, info["verdict"], info["optimal_moves_left"]) == (0.0, False, "suboptimal", 5)
    rewards = [env.step(a)[1] for a in ["right", "down", "left", "down"]]
    assert rewards == [2.0, 2.0, 2.0, 2.0]
    _, r, term, _, info = env.step("right")
    assert (r, term, info["success"]) == (3.0, True, True)
    assert info["reward_components"] == {"process": 2.0, "outcome": 1.0}
    assert info["verdict"] == "solved" and info["boxes_on_goals"] == 1
    assert info["steps_left"] == 15 - 7 and info["optimal_moves_left"] == 0
    assert info["available_actions"] == [] and env.oracle_actions() == []
    assert "Game over: solved." in env._observe()


def test_reward_blocked_move_ends_episode():
    env = _env()
    _, r, term, _, info = env.step("up")  # a wall
    assert (r, term, info["valid_action"], info["success"]) == (-2.0, True, False, False)
    assert "blocked" in info["action_error"] and "wall" in info["action_error"]
    assert info["verdict"] == "blocked" and env.invalid_actions == 1
    assert info["reward_components"] == {"process": -2.0, "outcome": 0.0}


def test_reward_box_into_box_is_blocked():
    env = _env(["######", "#PXX_#", "#___O#", "#___O#", "######"])
    _, r, term, _, info = env.step("right")
    assert (r, term) == (-2.0, True)
    assert "another box" in info["action_error"]


def test_reward_deadlock_ends_episode():
    env = _env()
    steps = [env.step(a)[1] for a in ["down", "down", "right"]]
    assert steps == [2.0, 0.0, 0.0]
    _, r, term, _, info = env.step("up")  # pushes the box against the top wall: dead
    assert (r, term, info["success"], info["verdict"]) == (-2.0, True, False, "deadlock")
    assert info["valid_action"] and info["optimal_moves_left"] == -1
    assert "cannot be solved" in env._observe()


def test_reward_budget_runs_out():
    env = _env(LINE, max_steps=1)
    _, r, term, _, info = env.step("left")
    assert (r, term, info["verdict"], info["steps_left"]) == (-2.0, True, "deadlock", 0)
    assert "out of steps" in env._observe()
    # With a 3-step budget the same detour is fine (0), then +2, then solved (+2 + 1).
    env = _env(LINE, max_steps=3)
    assert [env.step(a)[1] for a in ["left", "right", "right"]] == [0.0, 2.0, 3.0]
    # A tight budget makes every non-shortest move fatal.
    env = _env(OPEN, max_steps=5)
    assert env.step("down")[1] == 2.0
    _, r, term, _, _ = env.step("up")
    assert (r, term) == (-2.0, True)


def test_solvable_mode_rewards_any_move_that_keeps_a_solution():
    env = _env(oracle="solvable")
    assert env.score_actions(["up", "down", "left", "right"]) == [-2.0, 2.0, -2.0, 2.0]
    assert [env.step(a)[1] for a in ["down", "up", "down"]] == [2.0, 2.0, 2.0]
    assert env.step("down")[1] == 2.0  # row 4, col 2: still 5 moves from solved, 12 left
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


# ---------------------------------------------------------------------------- env: contract
def test_score_actions_matches_step_and_leaves_state_alone():
    env = SokobanEnv()
    env.reset(seed=11)
    candidates = ["up", "down", "left", "right", "UP", "jump", "", "r", "<action>left</action>"]
    for _ in range(4):
        before = env.get_state()
        scores = env.score_actions(candidates)
        assert env.get_state() == before
        for action, score in zip(candidates, scores, strict=True):
            env.set_state(before)
            _, reward, *_ = env.step(action)
            assert reward == score, action
        env.set_state(before)
        if not env.oracle_actions():
            break
        env.step(env.oracle_actions()[0])


def test_oracle_agent_solves_200_seeded_levels():
    env = gym.make("agentgym/Sokoban-v0")
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
        scored = _env(rows)
        fast = _env(rows, score_process=False)
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
            if a[2]:
                break
    # An explicit request for scores still asks the oracle.
    fast = _env(score_process=False)
    assert fast.score_actions(["up", "down", "right"]) == [-2.0, 2.0, 2.0]
    assert gym.make("agentgym/Sokoban-v0", score_process=False).unwrapped.score_process is False
    with pytest.raises(ValueError, match="score_process"):
        SokobanEnv(score_process=1)


def test_observation_text_is_exact():
    env = _env(["#####", "#PXO#", "#####"])
    lines = env._observe().splitlines()
    assert lines[0].startswith("Sokoban. Push every box onto a goal.")
    assert lines[3:] == [
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
        "up = row - 1, down = row + 1, left = column - 1, right = column + 1.",
        "Moves that are not blocked now: right.",
        "Answer with one move, e.g. <action>up</action>.",
    ]
    obs, *_ = env.step("right")
    assert "   2  #  _  P  V  #" in obs.splitlines()
    assert "Boxes on goals: 1 of 1. Steps left: 14." in obs and "Game over: solved." in obs
    # Two-digit rows keep the columns aligned.
    tall = ["####"] + ["#__#"] * 9 + ["#PX#", "#_O#", "####"]
    lines = _env(tall)._observe().splitlines()
    assert lines[3] == "      1  2  3  4   (columns)"
    assert lines[13:18] == [
        "  10  #  _  _  #",
        "  11  #  P  X  #",
        "  12  #  _  O  #",
        "  13  #  #  #  #",
        "(rows)",
    ]


def test_small_episodes_never_need_a_search(monkeypatch):
    # On 6x6 one-box levels every oracle answer comes from the distance table (the
    # generator's, grown on demand), never from an A* search.
    monkeypatch.setattr(logic, "_search", None)
    env = SokobanEnv()
    for seed in range(30):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            legal = env._legal_actions()
            env.score_actions([*legal, "nonsense"])
            best = env.oracle_actions()
            action = best[0] if rng.random() < 0.6 else legal[int(rng.integers(len(legal)))]
            *_, terminated, _, _ = env.step(action)
            if terminated:
                break


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
    for needle in ("Legend:", "# wall", "V box on a goal", "Steps left: 30", "<action>up</action>"):
        assert needle in obs
    assert obs.splitlines()[3].split()[-2] == "10"  # the column header reaches column 10
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
            obs, r, term, _, info = e.step(a)
            out.append((obs, r, term, info["verdict"]))
            if term:
                break
        return out

    first = run(env)
    env.set_state(snap)
    assert run(env) == first
    fresh = SokobanEnv(size=8, boxes=2)
    fresh.set_state(snap)
    assert run(fresh) == first


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
    env = _env()
    obs, r, term, trunc, info = env.step(action)
    assert (r, term, trunc, info["valid_action"]) == (-2.0, True, False, False)
    assert info["action_error"] and info["verdict"] == "invalid"
    assert isinstance(obs, str) and obs.isascii()
    # Stepping a finished episode answers without raising.
    assert env.step("down")[2] is True


def test_non_string_action_does_not_raise():
    env = _env()
    _, r, term, _, info = env.step(None)  # type: ignore[arg-type]
    assert (r, term, info["valid_action"]) == (-2.0, True, False)


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
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"level": ["#####", "#P__#", "#####"]})


def test_step_before_reset_and_oracle_before_reset():
    env = SokobanEnv()
    with pytest.raises(gym.error.ResetNeeded):
        env.step("up")
    with pytest.raises(gym.error.ResetNeeded):
        env.oracle_actions()


def test_system_prompt_has_rules_and_format():
    prompt = SokobanEnv().system_prompt()
    assert "Push every box onto a goal" in prompt and "<action>up</action>" in prompt
