"""The games' declared configs (Sudoku, Minesweeper, TicTacToe): what the models check, what
strangers (remote clients, leaderboard bundles) may set, and that the envs read the models."""

from __future__ import annotations

import inspect
from typing import get_args

import pytest

from agentgym.config import ScopeError
from agentgym.environments.games.minesweeper.config import MAX_SIDE, MinesweeperConfig
from agentgym.environments.games.minesweeper.env import MinesweeperEnv
from agentgym.environments.games.minesweeper.solver import DEFAULT_POSTERIOR_BUDGET
from agentgym.environments.games.shaping import DESCRIPTIONS, ProcessReward
from agentgym.environments.games.sudoku.config import SudokuConfig
from agentgym.environments.games.sudoku.env import SudokuEnv
from agentgym.environments.games.tictactoe.config import TicTacToeConfig
from agentgym.environments.games.tictactoe.env import TicTacToeEnv
from agentgym.environments.games.tictactoe.logic import OPPONENTS

STRANGERS = ("client", "bundle")
GAMES = [(SudokuEnv, SudokuConfig), (MinesweeperEnv, MinesweeperConfig),
         (TicTacToeEnv, TicTacToeConfig)]


@pytest.mark.parametrize(("env_cls", "model"), GAMES, ids=lambda x: x.__name__)
def test_the_env_reads_its_model_and_the_signature_keeps_the_defaults(env_cls, model):
    assert env_cls.config_model is model
    params = inspect.signature(env_cls.__init__).parameters
    assert set(params) - {"self"} == set(model.model_fields)
    for name, field in model.model_fields.items():
        assert params[name].default == field.default, name
    model.parse({})


def test_the_literals_match_the_games_tables():
    assert set(get_args(ProcessReward)) == set(DESCRIPTIONS)
    assert get_args(TicTacToeConfig.model_fields["opponent"].annotation) == tuple(OPPONENTS)


# ---------------------------------------------------------------------- Sudoku
@pytest.mark.parametrize(("kwargs", "message"), [
    # A bare Literal[4, 9] would take 9.0 and True (equal values); the model wants an int.
    ({"size": 9.0}, "size must be one of (4, 9), got 9.0"),
    ({"size": True}, "size must be one of (4, 9), got True"),
    ({"size": 6}, "size must be one of (4, 9), got 6"),
    ({"size": 4, "blanks": 13}, "blanks must be in [1, 12], got 13"),
    ({"blanks": 57}, "blanks must be in [1, 56], got 57"),
    ({"max_steps": 1001}, "max_steps must be in [1, 1000], got 1001"),
    ({"max_wrong": 0}, "max_wrong must be in [1, 1000], got 0"),
    ({"wrong_digit_ends": 1}, "wrong_digit_ends must be True or False, got 1"),
    ({"oracle": "hidden"}, "oracle must be one of ('singles', 'naked'), got 'hidden'"),
    ({"reward_other": 3.0}, "rewards must satisfy reward_forced >= reward_mrv > reward_other "
                            "> reward_wrong, got 2.0, 1.0, 3.0, -1.0"),
])
def test_sudoku_refuses_bad_kwargs_in_one_line(kwargs, message):
    with pytest.raises(ValueError) as exc:
        SudokuEnv(**kwargs)
    assert str(exc.value) == message


@pytest.mark.parametrize("who", STRANGERS)
def test_sudoku_strangers_may_set_every_kwarg_up_to_the_operator_maximum(who):
    # Every size is cheap: a 9x9 puzzle with the most blanks is made in milliseconds.
    top = {"size": 9, "blanks": 56, "max_steps": 1000, "max_wrong": 1000,
           "max_invalid": 100_000, "preset": "vpr", "wrong_digit_ends": False}
    assert set(SudokuConfig.may_set(who)) == set(SudokuConfig.model_fields)
    SudokuConfig.refuse_strangers(top, who)
    env = SudokuEnv(**top)
    _, info = env.reset(seed=1)
    assert env.blanks == 56 and info["empty_cells"] >= 50


def test_sudoku_preset_fills_the_model():
    env = SudokuEnv(preset="vpr", size=4)
    assert (env.oracle, env.max_invalid, env.repeats_are_wrong, env.size) == ("naked", 1, True, 4)
    assert SudokuEnv(size=4).blanks == 8  # null: the size's default


# ---------------------------------------------------------------------- TicTacToe
@pytest.mark.parametrize("bad", [1, 0, 1.0, None, "yes"])
def test_tictactoe_agent_first_is_a_bool_or_random_exactly(bad):
    # A bare Literal[True, False, "random"] would take 1 and 0 (equal to True and False).
    with pytest.raises(ValueError) as exc:
        TicTacToeEnv(agent_first=bad)
    assert str(exc.value) == f"agent_first must be one of (True, False, 'random'), got {bad!r}"


def test_tictactoe_reward_order_is_checked_after_the_preset():
    message = ("optimal_reward (-0.5) must be larger than legal_reward (0.0), or the oracle "
               "would not be the best move")
    with pytest.raises(ValueError) as exc:
        TicTacToeEnv(preset="vpr", optimal_reward=-0.5)
    assert str(exc.value) == message
    env = TicTacToeEnv(preset="vpr")
    assert (env.opponent, env.agent_first, env.optimal_reward) == ("optimal", "random", 1.0)


@pytest.mark.parametrize("who", STRANGERS)
def test_tictactoe_strangers_may_set_every_kwarg(who):
    top = {"opponent": "optimal", "agent_first": "random", "max_steps": 100_000,
           "max_invalid": 100_000}
    assert set(TicTacToeConfig.may_set(who)) == set(TicTacToeConfig.model_fields)
    TicTacToeConfig.refuse_strangers(top, who)
    env = TicTacToeEnv(**top)
    env.reset(seed=0)
    assert env.max_steps == 100_000


# ---------------------------------------------------------------------- Minesweeper
PUBLIC_SIDE = MinesweeperConfig.model_fields["rows"].json_schema_extra["public_max"]


def test_minesweeper_ceilings_are_below_the_operator_maximum():
    fields = MinesweeperConfig.model_fields
    assert fields["posterior_budget"].json_schema_extra["public_max"] == DEFAULT_POSTERIOR_BUDGET
    assert fields["cols"].json_schema_extra["public_max"] == PUBLIC_SIDE < MAX_SIDE


@pytest.mark.parametrize("who", STRANGERS)
@pytest.mark.parametrize(("name", "values", "rule"), [
    ("posterior_budget", [DEFAULT_POSTERIOR_BUDGET + 1, 10**9],
     f"posterior_budget must be in [1, {DEFAULT_POSTERIOR_BUDGET}] when "),
    ("rows", [PUBLIC_SIDE + 1, MAX_SIDE], f"rows must be in [3, {PUBLIC_SIDE}] when "),
    ("cols", [PUBLIC_SIDE + 1, MAX_SIDE], f"cols must be in [3, {PUBLIC_SIDE}] when "),
])
def test_minesweeper_strangers_are_refused_costly_sizes_in_one_text(who, name, values, rule):
    messages = set()
    for value in values:
        with pytest.raises(ScopeError) as exc:
            MinesweeperConfig.refuse_strangers({name: value}, who)
        messages.add(str(exc.value))
    assert len(messages) == 1
    message = messages.pop()
    assert message.startswith(rule) and "the operator may set up to" in message


@pytest.mark.parametrize("who", STRANGERS)
def test_minesweeper_strangers_may_play_the_largest_public_board(who):
    top = {"rows": PUBLIC_SIDE, "cols": PUBLIC_SIDE, "mines": PUBLIC_SIDE**2 - 9,
           "posterior_budget": DEFAULT_POSTERIOR_BUDGET, "max_steps": 100_000}
    MinesweeperConfig.refuse_strangers(top, who)
    MinesweeperEnv(**top).reset(seed=0)


def test_minesweeper_operator_builds_at_the_full_maximum():
    env = MinesweeperEnv(rows=MAX_SIDE, cols=MAX_SIDE, mines=MAX_SIDE**2 - 9,
                         posterior_budget=10**9, max_steps=100_000, process_reward="verdict")
    env.reset(seed=0)
    _, _, terminated, _, info = env.step("reveal 8 8")
    # The first reveal keeps its 3x3 clear: those are the 9 safe cells, so it wins.
    assert info["reward_components"]["process"] == 2.0 and terminated and info["success"]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"mines": 17}, "mines must be in [1, 16], got 17"),
    ({"rows": 3, "cols": 3, "mines": 2}, "mines must be in [1, 1], got 2"),
    ({"rows": 17}, "rows must be in [3, 16], got 17"),
    ({"posterior_budget": 0}, "posterior_budget must be in [1, 1000000000], got 0"),
    ({"max_steps": 0}, "max_steps must be in [1, 100000], got 0"),
    ({"process_reward": "shaped"},
     "process_reward must be one of ('progress', 'verdict'), got 'shaped'"),
    ({"guess_reward": float("inf")}, "guess_reward must be a finite number, got inf"),
])
def test_minesweeper_refuses_bad_kwargs_in_one_line(kwargs, message):
    with pytest.raises(ValueError) as exc:
        MinesweeperEnv(**kwargs)
    assert str(exc.value) == message


def test_minesweeper_step_budget_defaults_to_twice_the_cells():
    assert MinesweeperConfig.parse({"rows": 4, "cols": 6}).contract()["max_steps"] == 48
    assert MinesweeperEnv(rows=4, cols=6).max_steps == 48
    assert MinesweeperEnv(rows=4, cols=6, max_steps=7).max_steps == 7
    assert MinesweeperEnv(preset="vpr").max_steps == 25
