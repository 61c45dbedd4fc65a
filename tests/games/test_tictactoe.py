"""Tests for agentgym/TicTacToe-v0: the minimax maths, the oracle and the env contract."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import agentgym  # noqa: F401 - registers the ids
from agentgym.core import TEXT_CHARSET
from agentgym.environments.games.tictactoe import logic
from agentgym.environments.games.tictactoe.env import PRESETS
from agentgym.environments.games.tictactoe.env import TicTacToeEnv as _TicTacToeEnv
from agentgym.environments.games.tictactoe.logic import (
    EMPTY,
    LINES,
    O,
    X,
    board_from_moves,
    board_from_string,
    cell_name,
    check_board,
    empty_board,
    final_score,
    is_terminal,
    legal_moves,
    negamax,
    optimal_moves,
    play,
    result,
    to_move,
    value,
    winner,
)

B = board_from_string

#: VPR's +1 / 0 verdicts, which most tests here check; the default (0 / -1) has its own tests.
VERDICTS = {"optimal_reward": 1.0, "legal_reward": 0.0}


def TicTacToeEnv(**kwargs) -> _TicTacToeEnv:
    """The env with VPR's +1 / 0 verdicts unless a test sets its own."""
    return _TicTacToeEnv(**{**VERDICTS, **kwargs})


def cells(*names: str) -> list[int]:
    """Cell indices for canonical "r c" names, for readable expectations."""
    return [3 * (int(n[0]) - 1) + int(n[2]) - 1 for n in names]


# ---------------------------------------------------------------------- board maths
@pytest.mark.parametrize(
    ("board", "expected"),
    [
        ("XXX OO. ...", X),  # top row
        ("OO. XXX ...", X),  # middle row
        ("OO. ... XXX", X),  # bottom row
        ("OX. OX. O..", O),  # left column
        ("XO. XO. .O.", O),  # middle column
        ("..O X.O X.O", O),  # right column
        ("XO. OX. ..X", X),  # main diagonal
        ("X.O XO. O..", O),  # anti-diagonal
        ("XOX XOO OXX", EMPTY),  # full board, nobody won
        ("XX. OO. ...", EMPTY),  # two in a row is not a win
        ("... ... ...", EMPTY),
    ],
)
def test_winner_hand_cases(board: str, expected: int) -> None:
    assert winner(B(board)) == expected


def test_board_helpers() -> None:
    assert empty_board() == (0,) * 9
    assert to_move(empty_board()) == X
    assert to_move(B("X.. ... ...")) == O
    assert to_move(B("XO. ... ...")) == X
    assert legal_moves(B("XOX OX. ...")) == [5, 6, 7, 8]
    assert legal_moves(B("XXX OO. ...")) == []  # won: no more moves
    assert legal_moves(B("XOX XOO OXX")) == []
    assert is_terminal(B("XOX XOO OXX"))
    assert is_terminal(B("XXX OO. ..."))
    assert not is_terminal(B("XX. OO. ..."))
    assert play(B("X.. ... ..."), 4) == B("X.. .O. ...")
    assert board_from_moves([4, 0, 8]) == B("O.. .X. ..X")
    assert [cell_name(c) for c in (0, 2, 4, 6, 8)] == ["1 1", "1 3", "2 2", "3 1", "3 3"]
    assert result(B("XXX OO. ..."), X) == 1
    assert result(B("XXX OO. ..."), O) == -1
    assert result(B("XOX XOO OXX"), O) == 0


def test_board_errors() -> None:
    with pytest.raises(ValueError, match="already taken"):
        play(B("X.. ... ..."), 0)
    with pytest.raises(ValueError, match="already won"):
        play(B("XXX OO. ..."), 8)
    with pytest.raises(ValueError, match=r"\[0, 8\]"):
        play(empty_board(), 9)
    with pytest.raises(ValueError, match="X moves first"):
        check_board(B("OO. ... ..."))
    with pytest.raises(ValueError, match="went on"):
        check_board(B("XXX OO. O.."))  # O moved after X had already won
    with pytest.raises(ValueError, match="9 symbols"):
        B("XX")
    assert check_board(B("XX. OO. ...")) == B("XX. OO. ...")


# ---------------------------------------------------------------------- minimax
def test_minimax_known_values() -> None:
    assert negamax(empty_board()) == 0  # perfect play draws
    # Every opening move still draws, so every X move from the start is optimal.
    assert optimal_moves(empty_board()) == list(range(9))
    # A finished game scores 10 minus the marks on the board for the winner.
    assert final_score(B("XXX OO. ..."), X) == 5 and final_score(B("XXX OO. ..."), O) == -5
    assert final_score(B("XOX XOO OXX"), X) == 0
    # X to move with two in a row: the immediate win (5 marks) is the only optimal move.
    assert value(B("XX. OO. ..."), X) == 5
    assert value(B("XX. OO. ..."), O) == -5
    assert optimal_moves(B("XX. OO. ...")) == cells("1 3")
    # X also wins on move 7 after 2 2 (three threats), but the quicker win is the optimal one.
    assert value(play(B("XOO X.. ..."), 4), X) == 3
    assert optimal_moves(B("XOO X.. ...")) == cells("3 1")
    # O is lost after X's corner, O's edge, X's centre: X forks after the block and wins on
    # move 7 (score -3); not blocking loses on move 5 (-5), so the block is the only optimal.
    assert value(B("XO. .X. ..."), O) == -3
    assert optimal_moves(B("XO. .X. ...")) == cells("3 3")
    # X holds two threats (1 2 and 2 3) with O to move: every O move loses on move 7.
    assert value(B("X.X .O. O.X"), O) == -3
    assert optimal_moves(B("X.X .O. O.X")) == cells("1 2", "2 1", "2 3", "3 2")
    # Textbook replies: corner opening -> only the centre draws; centre opening -> a corner.
    assert optimal_moves(B("X.. ... ...")) == cells("2 2")
    assert optimal_moves(B("... .X. ...")) == cells("1 1", "1 3", "3 1", "3 3")
    # Edge opening: the centre, the two adjacent corners or the opposite edge draw.
    assert optimal_moves(B(".X. ... ...")) == cells("1 1", "1 3", "2 2", "3 2")
    # Opposite corners against the centre: O must take an edge; a corner loses to a fork.
    assert optimal_moves(B("X.. .O. ..X")) == cells("1 2", "2 1", "2 3", "3 2")
    assert value(play(B("X.. .O. ..X"), 2), O) < 0
    # Finished games score the result for whoever is asked.
    assert value(B("XXX OO. ..."), X) == 5
    assert value(B("XOX XOO OXX"), O) == 0


def _reachable() -> list[tuple[int, ...]]:
    seen: set[tuple[int, ...]] = set()
    stack = [empty_board()]
    while stack:
        board = stack.pop()
        if board not in seen:
            seen.add(board)
            stack.extend(play(board, c) for c in legal_moves(board))
    return sorted(seen)


def test_minimax_table_covers_every_reachable_position() -> None:
    boards = _reachable()
    # The well-known count of legal tic-tac-toe positions.
    assert len(boards) == 5478
    for board in boards:
        check_board(board)
        children = [play(board, c) for c in legal_moves(board)]
        if children:
            # The minimax recurrence holds at every node.
            assert negamax(board) == max(-negamax(ch) for ch in children)
            best = [
                c
                for c, ch in zip(legal_moves(board), children, strict=True)
                if -negamax(ch) == negamax(board)
            ]
            assert optimal_moves(board) == best
        else:
            assert negamax(board) == final_score(board, to_move(board))
        # The sign is the game-theoretic result; the size only orders wins and losses.
        assert abs(negamax(board)) <= 5


def _threats(board: tuple[int, ...], player: int) -> set[int]:
    """Empty cells that would complete a line of ``player``'s."""
    return {
        cell
        for line in LINES
        for cell in line
        if board[cell] == EMPTY and sum(board[c] == player for c in line) == 2
    }


def test_only_blocking_moves_are_optimal_when_the_opponent_threatens_to_win() -> None:
    # Every reachable position where the opponent could win on its next move and the agent
    # cannot win at once, checked through the env's own scoring of every legal move.
    checked = lost = double = 0
    for board in _reachable():
        if is_terminal(board):
            continue
        me = to_move(board)
        threats = _threats(board, 3 - me)
        if not threats or _threats(board, me):
            continue
        moves = [m for m in range(len(board)) if board[m] == EMPTY]
        env = _env_at(list(_moves_to(board)), agent="X" if me == X else "O")
        scores = dict(zip(moves, env.score_actions([cell_name(m) for m in moves]), strict=True))
        if len(threats) == 1:
            # One block is possible: it is the only move that earns the optimal reward, in
            # drawn and lost positions alike (without depth, a lost position paid +1 for all).
            assert [m for m in moves if scores[m] == 1.0] == sorted(threats), board
            assert all(scores[m] == 0.0 for m in moves if m not in threats)
            checked += 1
            lost += value(board, me) < 0
        else:
            # Two threats cannot both be blocked: every move loses next turn, all equally.
            assert set(scores.values()) == {1.0}, board
            double += 1
    # 116 of them are lost positions, where depth-less scores paid +1 for not blocking.
    assert (checked, lost, double) == (976, 116, 508)


def _moves_to(board: tuple[int, ...]) -> list[int]:
    """A move order (X first, alternating) that reaches ``board``."""
    xs = [c for c in range(9) if board[c] == X]
    os = [c for c in range(9) if board[c] == O]
    order = [c for pair in zip(xs, os, strict=False) for c in pair] + xs[len(os) :]
    assert board_from_moves(order) == board
    return order


def test_opponents_use_only_the_given_generator() -> None:
    board = B("X.. ... ...")
    a = [logic.random_opponent(board, np.random.default_rng(7)) for _ in range(3)]
    b = [logic.random_opponent(board, np.random.default_rng(7)) for _ in range(3)]
    assert a == b
    picks = {logic.random_opponent(board, np.random.default_rng(s)) for s in range(40)}
    assert picks == set(legal_moves(board))
    # The optimal opponent only ever picks score-keeping moves, and breaks ties with the rng.
    edge = B(".X. ... ...")
    picks = {logic.optimal_opponent(edge, np.random.default_rng(s)) for s in range(40)}
    assert picks == set(optimal_moves(edge))
    with pytest.raises(ValueError, match="game is over"):
        logic.optimal_opponent(B("XXX OO. ..."), np.random.default_rng(0))


@pytest.mark.parametrize("opponent", [logic.random_opponent, logic.optimal_opponent])
def test_each_opponent_move_reads_one_raw_word(opponent) -> None:
    # One raw 64-bit word per move (agentgym.draws), so the generator state in a snapshot is
    # all there is, and no NumPy stream whose algorithm may change is involved.
    board = B(".X. ... ...")
    rng, ref = np.random.default_rng(3), np.random.default_rng(3)
    move = opponent(board, rng)
    word = int(ref.bit_generator.random_raw())
    assert rng.bit_generator.state == ref.bit_generator.state
    choices = legal_moves(board) if opponent is logic.random_opponent else optimal_moves(board)
    assert move == choices[word % len(choices)]


# ---------------------------------------------------------------------- exhaustive oracle play
def _explore(agent_first: bool, policy: str) -> dict[str, int]:
    """Play the oracle agent against every opponent reply sequence, through env.step.

    The opponent is forced move by move by replacing the env's reply hook, so every branch of
    the game tree below the agent's choices is visited. Returns the count of each result.
    """
    env = TicTacToeEnv(opponent="random", agent_first=agent_first)
    counts = {"win": 0, "draw": 0, "loss": 0}
    roots = []
    openings = [None] if agent_first else list(range(9))
    for opening in openings:
        if opening is not None:
            env._opponent_reply = lambda board, o=opening: o  # type: ignore[method-assign]
        env.reset(seed=0)
        assert env.board.count(EMPTY) == (9 if agent_first else 8)
        roots.append(env.get_state())
    stack = roots
    # Transpositions reach the same position along different move orders; the future of an
    # episode depends only on the board and the score the agent secured, so visit each once.
    seen: set[tuple[tuple[int, ...], int]] = set()
    while stack:
        state = stack.pop()
        env.set_state(state)
        key = (env.board, json.loads(state)["state"]["secured"])
        if key in seen:
            continue
        seen.add(key)
        actions = env.oracle_actions()
        assert actions, "the oracle must always offer a move while the game is on"
        assert actions == sorted(actions)
        for action in actions[:1] if policy == "first" else actions:
            env.set_state(state)
            after = play(env.board, cells(action)[0])
            for reply in legal_moves(after) or [None]:
                env.set_state(state)
                env._opponent_reply = lambda board, r=reply: r  # type: ignore[method-assign]
                _, reward, terminated, truncated, info = env.step(action)
                assert info["valid_action"] and not truncated
                assert info["reward_components"]["process"] == 1.0
                if terminated:
                    assert info["result"] in ("win", "draw"), (action, env.board)
                    assert info["success"] is True
                    assert reward == 2.0  # +1 optimal move, +1 outcome
                    counts[info["result"]] += 1
                else:
                    assert reward == 1.0
                    stack.append(env.get_state())
    return counts


@pytest.mark.parametrize("agent_first", [True, False])
@pytest.mark.parametrize("policy", ["first", "all"])
def test_oracle_agent_never_loses_against_any_opponent_line(agent_first: bool, policy: str) -> None:
    counts = _explore(agent_first, policy)
    assert counts["loss"] == 0
    # The enumeration really covered lines the opponent throws away as well as perfect ones.
    assert counts["win"] > 10
    assert counts["draw"] > 0


@pytest.mark.parametrize("agent_first", [True, False])
def test_oracle_agent_draws_against_optimal_opponent(agent_first: bool) -> None:
    env = gym.make(
        "agentgym/TicTacToe-v0", opponent="optimal", agent_first=agent_first, **VERDICTS
    )
    openings = set()
    for seed in range(25):
        _, info = env.reset(seed=seed)
        openings.add(env.unwrapped.board)
        terminated = False
        while not terminated:
            action = env.unwrapped.oracle_actions()[0]
            _, reward, terminated, _, info = env.step(action)
        assert info["result"] == "draw"
        assert info["success"] is True
        assert info["reward_components"]["outcome"] == 1.0
    if not agent_first:
        assert len(openings) > 1  # ties among optimal openings are broken by the seed


def test_naive_agent_loses_to_optimal_opponent() -> None:
    env = TicTacToeEnv(opponent="optimal")
    losses = 0
    for seed in range(10):
        env.reset(seed=seed)
        terminated = False
        while not terminated:
            _, reward, terminated, _, info = env.step(env._legal_actions()[0])
        if info["result"] == "loss":
            losses += 1
            assert info["success"] is False
            assert info["reward_components"]["outcome"] == 0.0
        assert info["result"] != "win"
    assert losses > 0


# ---------------------------------------------------------------------- rewards
def _env_at(moves: list[int], agent: str = "X", **kwargs) -> TicTacToeEnv:
    """An env placed at the position reached by ``moves``, with the agent to move."""
    if "preset" not in kwargs:  # the vpr preset draws the side, so either is allowed
        kwargs.setdefault("agent_first", agent == "X")
    env = TicTacToeEnv(**kwargs)
    env.reset(seed=0)
    payload = json.loads(env.get_state())
    board = board_from_moves(moves)
    payload["state"].update(
        moves=moves, agent=agent, secured=value(board, X if agent == "X" else O)
    )
    env.set_state(json.dumps(payload).encode())
    return env


def test_reward_branches() -> None:
    # X to move with a win on 1 3; 2 3 blocks O but throws the win away; 3 3 loses the game.
    env = _env_at([0, 3, 1, 4])
    assert env.oracle_actions() == ["1 3"]
    assert env.score_actions(["1 3", "2 3", "3 3", "1 1", "4 4", "garbage"]) == [
        1.0,
        0.0,
        0.0,
        -1.0,
        -1.0,
        -1.0,
    ]
    snapshot = env.get_state()
    # Optimal and winning: +1 process, +1 outcome.
    _, reward, terminated, _, info = env.step("1 3")
    assert (reward, terminated, info["result"], info["success"]) == (2.0, True, "win", True)
    assert info["reward_components"] == {"process": 1.0, "outcome": 1.0}
    assert info["available_actions"] == [] and env.oracle_actions() == []
    # Legal but not optimal: 0, and the opponent (forced to 2 3's winning reply) wins.
    env.set_state(snapshot)
    env._opponent_reply = lambda board: 5  # type: ignore[method-assign]
    _, reward, terminated, _, info = env.step("3 3")
    assert (reward, terminated, info["result"], info["success"]) == (0.0, True, "loss", False)
    assert info["opponent_move"] == "2 3"
    # Invalid: the base penalty (-1), state unchanged, counted, not terminal.
    env.set_state(snapshot)
    board = env.board
    _, reward, terminated, truncated, info = env.step("1 1")
    assert (reward, terminated, truncated, info["valid_action"]) == (-1.0, False, False, False)
    assert "already taken by X" in info["action_error"]
    assert env.board == board and info["invalid_actions"] == 1


def test_reward_constants_are_kwargs() -> None:
    env = _env_at(
        [0, 3, 1, 4],
        optimal_reward=2.5,
        legal_reward=-0.5,
        success_reward=4.0,
        invalid_penalty=-3.0,
    )
    assert env.score_actions(["1 3", "3 3", "1 1"]) == [2.5, -0.5, -3.0]
    _, reward, terminated, _, info = env.step("1 3")
    assert terminated and info["reward_components"] == {"process": 2.5, "outcome": 4.0}
    assert reward == 6.5


def test_vpr_preset_rewards_equal_the_paper_constants() -> None:
    # The paper's search example: 1 for a move in the optimal move set, 0 for another legal
    # move, 1 for a successful episode, against a never-losing opponent, either side.
    assert PRESETS["vpr"] == {
        "opponent": "optimal",
        "agent_first": "random",
        "optimal_reward": 1.0,
        "legal_reward": 0.0,
        "success_reward": 1.0,
    }
    env = TicTacToeEnv(preset="vpr")
    assert (env.opponent, env.agent_first) == ("optimal", "random")
    assert env.config()["preset"] == "vpr"
    for moves, agent, best, other_move in (
        ([0, 3, 1, 4], "X", "1 3", "3 3"),  # X wins now on 1 3
        ([0, 1, 4], "O", "3 3", "2 1"),  # O is lost; blocking 3 3 is the only optimal move
    ):
        env = _env_at(moves, agent=agent, preset="vpr")
        assert env.oracle_actions() == [best]
        assert env.score_actions([best, other_move, "zz"]) == [1.0, 0.0, -1.0]
    env = _env_at([0, 3, 1, 4], preset="vpr")
    _, reward, terminated, _, info = env.step("1 3")
    assert terminated and info["reward_components"] == {"process": 1.0, "outcome": 1.0}
    # The opponent of the preset is the optimal one: it blocks a one-move win.
    env = _env_at([0, 4], preset="vpr")
    env.step("1 2")
    assert env.board[2] == O  # blocked 1 3
    # Kwargs left at their defaults take the preset's; others override it (and say so).
    assert TicTacToeEnv(preset="vpr", agent_first=False).config()["agent_first"] is False
    assert TicTacToeEnv(preset="vpr", optimal_reward=2.0).config()["optimal_reward"] == 2.0
    with pytest.raises(ValueError, match="preset must be None or one of"):
        TicTacToeEnv(preset="paper")
    assert TicTacToeEnv(preset="vpr", opponent="optimal").opponent == "optimal"


def test_success_requires_converting_a_forced_win() -> None:
    # O blundered into "XX. OO. ..." (X to move has a forced win), so secured = 5.
    env = _env_at([0, 3, 1, 4])
    replies = iter([2, 7])
    env._opponent_reply = lambda board: next(replies)  # type: ignore[method-assign]
    rewards = []
    for action in ["2 3", "3 1", "3 3"]:  # blocks instead of winning, then plays it out
        _, reward, terminated, _, info = env.step(action)
        rewards.append(reward)
    assert terminated and env.board == B("XXO OOX XOX")
    assert info["result"] == "draw"
    assert info["success"] is False  # a draw after holding a forced win is not a success
    assert info["reward_components"]["outcome"] == 0.0
    assert rewards[0] == 0.0  # the move that threw the win away


def test_success_requires_the_quickest_win_held() -> None:
    # X can win now on 3 1 (score 5); 2 2 also wins, but two moves later (score 3).
    env = _env_at([0, 1, 3, 2])
    env._opponent_reply = lambda board: 6  # type: ignore[method-assign]
    _, reward, terminated, _, info = env.step("2 2")
    assert (reward, terminated) == (0.0, False)  # a slower win is not the optimal move
    _, reward, terminated, _, info = env.step("2 3")
    assert terminated and info["result"] == "win"
    assert info["success"] is False and info["reward_components"]["outcome"] == 0.0
    # The quickest win is a success.
    env = _env_at([0, 1, 3, 2])
    _, reward, terminated, _, info = env.step("3 1")
    assert terminated and info["success"] is True and reward == 2.0


def test_score_actions_matches_step_everywhere_on_random_games() -> None:
    env = TicTacToeEnv(opponent="random", reward_mode="process")
    probes = ["1 1", "2 2", "3 3", "1 3", "3 1", "2 1", "1 2", "2 3", "3 2", "0 0", "xx"]
    for seed in range(12):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        terminated = False
        while not terminated:
            before = env.get_state()
            scores = env.score_actions(probes)
            assert env.get_state() == before  # scoring never changes the state
            for action, score in zip(probes, scores, strict=True):
                env.set_state(before)
                _, reward, _, _, _ = env.step(action)
                assert reward == score, (action, env.board)
            env.set_state(before)
            best = env.oracle_actions()
            legal = env._legal_actions()
            assert set(best) <= set(legal)
            assert max(env.score_actions(legal)) == 1.0
            assert [
                a for a, s in zip(legal, env.score_actions(legal), strict=True) if s == 1.0
            ] == best
            _, _, terminated, _, _ = env.step(legal[int(rng.integers(len(legal)))])


def test_reward_modes() -> None:
    results = {}
    for mode in ("both", "process", "outcome"):
        env = _env_at([0, 3, 1, 4], reward_mode=mode)
        _, reward, terminated, _, _ = env.step("1 3")
        assert terminated
        results[mode] = reward
    assert results == {"both": 2.0, "process": 1.0, "outcome": 1.0}


def test_invalid_actions_truncate_after_max_invalid() -> None:
    env = TicTacToeEnv(max_invalid=2, invalid_penalty=-0.5)
    obs, _ = env.reset(seed=3)
    assert "Invalid actions left before the game stops: 2." in obs
    obs, reward, terminated, truncated, info = env.step("nonsense")
    assert (reward, terminated, truncated, info["result"]) == (-0.5, False, False, "ongoing")
    assert "Invalid actions left before the game stops: 1." in obs
    obs, reward, terminated, truncated, info = env.step("5 5")
    assert (reward, terminated, truncated) == (-0.5, False, True)
    assert (info["truncated_by"], info["result"], info["success"]) == (
        "max_invalid",
        "unfinished",
        False,
    )
    assert info["reward_components"] == {"process": -0.5, "outcome": 0.0}
    assert "Game over: stopped after 2 invalid actions." in obs and "Your move" not in obs
    assert info["available_actions"] == [] and env.oracle_actions() == []
    assert env.board == empty_board()
    # Stepping after the end is answered, not raised.
    _, reward, terminated, truncated, info = env.step("2 2")
    assert (reward, terminated, truncated, info["valid_action"]) == (0.0, False, True, False)
    assert env.score_actions(["2 2"]) == [0.0]
    # The snapshot of a stopped game restores its status line.
    again = TicTacToeEnv(max_invalid=2, invalid_penalty=-0.5)
    again.set_state(env.get_state())
    assert again._observe() == env._observe()


def test_step_budget_truncates_unless_the_game_ends_on_that_step() -> None:
    env = TicTacToeEnv(max_steps=2)
    obs, _ = env.reset(seed=0)
    assert "Steps left: 2." in obs
    obs, _, terminated, truncated, info = env.step(env._legal_actions()[0])
    assert (terminated, truncated, info["steps_left"]) == (False, False, 1)
    assert "Steps left: 1." in obs
    obs, _, terminated, truncated, info = env.step(env._legal_actions()[0])
    assert (terminated, truncated, info["truncated_by"]) == (False, True, "max_steps")
    assert info["result"] == "unfinished" and info["success"] is False
    assert "Game over: out of steps." in obs
    # A win on the budget's last step is a real ending.
    env = _env_at([0, 3, 1, 4], max_steps=1)
    _, reward, terminated, truncated, info = env.step("1 3")
    assert (terminated, truncated, info["success"], reward) == (True, False, True, 2.0)
    assert "truncated_by" not in info


# ---------------------------------------------------------------------- parsing
@pytest.mark.parametrize(
    "action",
    [
        "2 3",
        "2,3",
        "2, 3",
        " 2  3 ",
        "(2,3)",
        "(2, 3)",
        "[2 3]",
        "23",
        "r2c3",
        "R2C3",
        "r2 c3",
        "r2,c3",
        "c3 r2",
        "row 2 col 3",
        "Row 2, Column 3",
        "6",
        "cell 6",
        "Cell 6.",
        "(6)",
        "[cell 6]",
        "2 3.",
        "<action>2 3</action>",
        "I take the middle right. <action> (2, 3) </action>",
    ],
)
def test_lenient_formats_all_mean_row_2_col_3(action: str) -> None:
    env = TicTacToeEnv(opponent="optimal")
    env.reset(seed=0)
    env._opponent_reply = lambda board: 0  # type: ignore[method-assign]
    _, reward, _, _, info = env.step(action)
    assert info["valid_action"], info["action_error"]
    assert env.board == B("O.. ..X ...")
    assert reward == 1.0


@pytest.mark.parametrize(
    ("action", "fragment"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("x" * 100_000, "limit"),
        ("2" * 500, "too long"),
        ("upp", "unexpected 'upp'"),
        ("10 10 10", "too many numbers"),
        ("reveal 0 0", "unexpected 'reveal'"),
        ("2 3 4", "too many numbers"),
        ("0 0", "row 0 is out of range"),
        ("4 1", "row 4 is out of range"),
        ("1 4", "column 4 is out of range"),
        ("-1 2", "unexpected '-'"),
        ("0", "cell number 0 is out of range"),
        ("cell 10", "cell number 10 is out of range"),
        ("10", "column 0 is out of range"),
        ("99999999999999999999", "missing column"),
        ("1 99999999999999999999", "out of range"),
        ("2.5 1", "too many numbers"),
        ("r2", "column"),
        ("r2 r3", "given twice"),
        ("ROW COL", "follows a label with no number"),
        ("² ³", "unexpected"),  # superscripts are no digits: an error, not a crash
        ("\x00", "unexpected"),
        ("<action></action>", "empty"),
        ("<action>2 3", "closing"),
        ("2 2", "already taken by X"),
    ],
)
def test_garbage_actions_are_counted_and_change_nothing(action: str, fragment: str) -> None:
    env = TicTacToeEnv(agent_first=False, opponent="optimal")
    env._opponent_reply = lambda board: 4  # type: ignore[method-assign]
    obs, _ = env.reset(seed=0)
    before = env.get_state()
    new_obs, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated, info["valid_action"]) == (-1.0, False, False, False)
    assert fragment in info["action_error"], info["action_error"]
    assert info["invalid_actions"] == 1
    assert json.loads(env.get_state())["state"] == json.loads(before)["state"]
    assert new_obs == obs.replace("Steps left: 9.", "Steps left: 8.").replace(
        "game stops: 3.", "game stops: 2."
    )
    if fragment in ("unexpected", "too many numbers", "given twice", "missing column"):
        assert 'answer like "ROW COL"' in info["action_error"]  # the error teaches the format


def test_non_string_action_is_invalid() -> None:
    env = TicTacToeEnv()
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(None)  # type: ignore[arg-type]
    assert (reward, terminated, info["valid_action"]) == (-1.0, False, False)


# ---------------------------------------------------------------------- observation and rules
def test_observation_content() -> None:
    env = TicTacToeEnv(agent_first=False, opponent="optimal")
    env._opponent_reply = lambda board: 4  # type: ignore[method-assign]
    obs, info = env.reset(seed=0)
    assert env.agent_mark == "O"
    for text in (
        "You are O (you move second); the opponent is X.",
        "Legend: O = your mark, X = the opponent's mark, . = empty cell.",
        "col 1  col 2  col 3",
        "row 2    .      X      .",
        "Opponent's last move: 2 2.",
        "Empty cells: 1 1, 1 2, 1 3, 2 1, 2 3, 3 1, 3 2, 3 3",
        "Steps left: 9. Invalid actions left before the game stops: 3.",
        "Your move.",
    ):
        assert text in obs, text
    assert set(obs) <= set(TEXT_CHARSET)
    assert 0 < len(obs) <= env.max_observation_length
    assert info["available_actions"] == ["1 1", "1 2", "1 3", "2 1", "2 3", "3 1", "3 2", "3 3"]
    assert env.render() is None
    env2 = TicTacToeEnv(render_mode="ansi")
    obs2, _ = env2.reset(seed=0)
    assert "You are X (you move first)" in obs2 and "none yet" in obs2
    assert env2.render() == obs2


def test_rules_stand_in_the_system_prompt_only() -> None:
    env = TicTacToeEnv(opponent="optimal")
    obs, _ = env.reset(seed=0)
    prompt = env.system_prompt()
    for text in (
        "three of your marks in a row",
        "<action>ROW COL</action>",
        "cell number",
        "plays perfectly",
    ):
        assert text in prompt, text
        assert text not in obs, text
    assert "<action>" not in obs
    assert "uniformly random" in TicTacToeEnv(opponent="random").system_prompt()


@pytest.mark.parametrize("kwargs", [{}, {"agent_first": False}, {"preset": "vpr"}])
def test_copying_the_rules_example_is_never_rewarded(kwargs: dict) -> None:
    env = TicTacToeEnv(**kwargs)
    examples = re.findall(r"<action>.*?</action>", env.system_prompt())
    assert "<action>ROW COL</action>" in examples
    for example in examples:
        for copied in (example, example[len("<action>") : -len("</action>")]):
            for seed in range(20):
                env.reset(seed=seed)
                _, reward, _, _, info = env.step(copied)
                assert not info["valid_action"] and reward < 0, (copied, seed)


def test_observation_at_game_end() -> None:
    env = _env_at([0, 3, 1, 4])
    obs, *_ = env.step("1 3")
    assert "Game over: you won" in obs
    assert "Your move" not in obs and "Steps left" not in obs
    assert "row 1    X      X      X" in obs


# ---------------------------------------------------------------------- determinism and state
def _rollout(env: gym.Env, seed: int) -> list[str]:
    obs, _ = env.reset(seed=seed)
    trace = [obs]
    terminated = False
    while not terminated:
        # The first empty cell: a fixed policy, so any difference comes from the opponent.
        obs, reward, terminated, _, _ = env.step(env.unwrapped._legal_actions()[0])
        trace += [obs, repr(reward)]
    return trace


def test_same_seed_same_episode() -> None:
    for kwargs in ({"opponent": "random"}, {"opponent": "optimal", "agent_first": "random"}):
        a = gym.make("agentgym/TicTacToe-v0", **kwargs)
        b = gym.make("agentgym/TicTacToe-v0", **kwargs)
        for seed in (0, 1, 2, 12345):
            assert _rollout(a, seed) == _rollout(b, seed)
    env = gym.make("agentgym/TicTacToe-v0")
    assert len({tuple(_rollout(env, seed)) for seed in range(20)}) >= 15


def test_agent_first_random_uses_the_seed() -> None:
    env = TicTacToeEnv(agent_first="random")
    marks = []
    for seed in range(20):
        env.reset(seed=seed)
        marks.append(env.agent_mark)
        assert env.board.count(EMPTY) == (9 if env.agent_mark == "X" else 8)
    assert set(marks) == {"X", "O"}
    assert marks == [(env.reset(seed=s), env.agent_mark)[1] for s in range(20)]


def test_first_observation_is_identical_in_another_process() -> None:
    code = (
        "import gymnasium as gym, agentgym;"
        "env = gym.make('agentgym/TicTacToe-v0', agent_first='random');"
        "print(repr([env.reset(seed=s)[0] for s in range(6)]))"
    )
    here = TicTacToeEnv(agent_first="random")
    expected = repr([here.reset(seed=s)[0] for s in range(6)])
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123"},
    )
    assert out.stdout.strip() == expected


def test_snapshot_replays_identically() -> None:
    env = TicTacToeEnv(opponent="optimal", agent_first="random")
    env.reset(seed=5)
    env.step("garbage")
    snapshot = env.get_state()
    json.loads(snapshot)  # plain JSON
    first = [env.step(a)[:3] for a in env.oracle_actions()[:1]]
    replay = TicTacToeEnv(opponent="optimal", agent_first="random")
    replay.set_state(snapshot)
    assert replay.episode_seed == 5 and replay.invalid_actions == 1
    assert [replay.step(a)[:3] for a in replay.oracle_actions()[:1]] == first
    # Another opponent is another config: refused, naming the key.
    with pytest.raises(ValueError, match="opponent"):
        TicTacToeEnv(opponent="random", agent_first="random").set_state(snapshot)
    for key, bad in (("moves", [0, 0]), ("agent", "Z"), ("secured", 99), ("stopped", "x")):
        payload = json.loads(snapshot)
        payload["state"][key] = bad
        with pytest.raises(ValueError):
            env.set_state(json.dumps(payload).encode())
    # The agent must be the side to move, and the side agent_first fixes.
    payload = json.loads(snapshot)
    payload["state"].update(moves=[4], agent="X")
    with pytest.raises(ValueError, match="to move"):
        env.set_state(json.dumps(payload).encode())
    with pytest.raises(ValueError, match="agent_first"):
        _env_at([4], agent="O", agent_first=True)


def test_oracle_requires_reset() -> None:
    env = TicTacToeEnv()
    with pytest.raises(gym.error.ResetNeeded):
        env.oracle_actions()


# ---------------------------------------------------------------------- kwargs
@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"opponent": "perfect"}, "('random', 'optimal')"),
        ({"opponent": None}, "('random', 'optimal')"),
        ({"agent_first": "yes"}, "'random'"),
        ({"agent_first": 1}, "'random'"),
        ({"agent_first": None}, "'random'"),
        ({"max_invalid": 0}, "max_invalid"),
        ({"max_invalid": 2.5}, "max_invalid"),
        ({"max_invalid": True}, "max_invalid"),
        ({"max_steps": 0}, "max_steps"),
        ({"invalid_penalty": 0.5}, "<= 0"),
        ({"optimal_reward": float("nan")}, "finite"),
        ({"legal_reward": "0"}, "finite number"),
        ({"optimal_reward": -1.0}, "larger than legal_reward"),
        ({"preset": "paper"}, "preset must be None or one of"),
        ({"preset": "vpr", "optimal_reward": -0.5}, "must be larger than legal_reward"),
        ({"reward_mode": "sparse"}, "reward_mode"),
        ({"render_mode": "human"}, "render_mode"),
    ],
)
@pytest.mark.filterwarnings("ignore:.*render_mode")
def test_bad_kwargs_raise(kwargs: dict, fragment: str) -> None:
    with pytest.raises(ValueError) as exc:
        gym.make("agentgym/TicTacToe-v0", **kwargs)
    assert fragment in str(exc.value)


def test_default_kwargs() -> None:
    env = gym.make("agentgym/TicTacToe-v0")
    raw = env.unwrapped
    assert raw.config() == {
        "opponent": "random",
        "agent_first": True,
        "optimal_reward": 0.0,
        "legal_reward": -1.0,
        "success_reward": 1.0,
        "preset": None,
        "max_steps": 9,
        "invalid_penalty": -1.0,
        "max_invalid": 3,
    }
    assert raw.reward_mode == "both"
    env.reset(seed=0)
    assert raw.agent_mark == "X" and raw.board == empty_board()


def test_episode_length_is_bounded() -> None:
    env = TicTacToeEnv(max_invalid=2)
    longest = 0
    for seed in range(30):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        over, steps = False, 0
        while not over:
            legal = env._legal_actions()
            # Mostly legal moves with some garbage mixed in.
            action = "bad" if rng.random() < 0.3 else legal[int(rng.integers(len(legal)))]
            *_, terminated, truncated, _ = env.step(action)
            over = terminated or truncated
            steps += 1
            assert steps <= 4 + 2
        longest = max(longest, steps)
    assert longest >= 5
