"""``agentgym play`` and ``agentgym list`` as a user drives them, and the parser's help.

Toy envs (registered under ``agentgym-test/``) keep these tests independent of the game
families; ``test_cli_eval.py`` imports :func:`register_toys` from here.
"""

from __future__ import annotations

import argparse
import inspect
import io
import os
import re
import subprocess
import sys
from typing import Any

import gymnasium as gym
import pytest
from rich.console import Console
from toy_env import RULES, CounterEnv

import agentgym
from agentgym import cli
from agentgym.config import TextEnvConfig
from agentgym.core import Outcome
from agentgym.envinfo import REQUIRED, config_model, env_kwargs, format_value
from agentgym.play import OVER, UNKNOWN_COMMAND, play, translate_error

CONTRACT_ALLOWED = {row.name: row.allowed for row in TextEnvConfig.table()}

COUNTER = "agentgym-test/Counter-v0"
SHOP = "agentgym-test/Shop-v0"
NEEDS_BROWSER = "agentgym-test/NeedsBrowser-v0"
CRASHES = "agentgym-test/Crashes-v0"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class ShopEnv(CounterEnv):
    """Actions and observations full of square brackets, as WebShop's are."""

    rules = "Buy the [bold]thing[/bold]. Actions: search[<query>] or click[<label>]."

    def _observe(self) -> str:
        return f"WebShop [SEP] [/x] [red]{self.value}[/red] [SEP] Buy Now"

    def _legal_actions(self) -> list[str]:
        return ["click[Buy Now]", "search[red mug]"]

    def _parse(self, action: str) -> tuple[Any, str]:
        if action in self._legal_actions():
            return action, ""
        return None, f"{action[:20]!r} is not one of click[Buy Now], search[red mug]"

    def _apply(self, move: str) -> Outcome:
        if move == "click[Buy Now]":
            return Outcome(process=1.0, outcome=1.0, terminated=True, success=True)
        self.value += 1
        return Outcome(process=0.5)


class CrashingEnv(CounterEnv):
    """A family bug: every move raises (the CLI must still print one line)."""

    def _apply(self, move: str) -> Outcome:
        raise RuntimeError("the solver lost its table\n  File 'x.py', line 3\n  more detail")


def needs_browser(**kwargs: Any) -> gym.Env:
    """A factory that fails the way a browser env does without Playwright."""
    raise gym.error.DependencyNotInstalled(
        "mode='browser' needs Playwright: pip install 'agentgym[browser]'\n"
        "Traceback-like detail line 1\nline 2\nline 3"
    )


def register_toys() -> None:
    for env_id, entry_point in (
        (COUNTER, CounterEnv),
        (SHOP, ShopEnv),
        (NEEDS_BROWSER, needs_browser),
        (CRASHES, CrashingEnv),
    ):
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=entry_point)


register_toys()


def run_play(env_id: str, lines: list[str], seed: int = 0) -> tuple[str, gym.Env]:
    """Play ``lines`` on a fake console; returns what was printed and the (closed) env."""
    console = Console(file=io.StringIO(), width=200, color_system=None)
    env = gym.make(env_id)
    feed = iter(lines)
    assert play(env, seed=seed, console=console, read_line=lambda: next(feed, "")) == 0
    return console.file.getvalue(), env


# ---------------------------------------------------------------------- play
def test_mistyped_command_is_answered_and_never_reaches_the_env():
    printed, env = run_play(COUNTER, [":hnit\n", ":acitons\n", ":quit\n"])
    assert UNKNOWN_COMMAND.format(command=":hnit") in printed
    assert "unknown command ':hnit', try :hint :actions :reset :quit" in printed
    assert "unknown command ':acitons'" in printed
    assert env.unwrapped.steps == 0 and env.unwrapped.invalid_actions == 0


def test_markup_in_actions_observations_hints_and_errors_is_printed_verbatim():
    printed, env = run_play(
        SHOP, ["[/x]\n", "[bold]oops\n", ":actions\n", ":hint\n", "search[red mug]\n", ":rules\n"]
    )
    assert "'[/x]' is not one of click[Buy Now], search[red mug]" in printed
    assert "'[bold]oops' is not one of" in printed
    assert "  click[Buy Now]\n  search[red mug]\n" in printed  # :actions, one per line
    assert "oracle's best:\n  click[Buy Now]\n" in printed
    start = gym.make(SHOP, render_mode="ansi").unwrapped
    start.reset(seed=0)
    start.step("search[red mug]")
    assert start.render() in printed  # the observation, brackets and all
    assert "[/x] [red]" in start.render()
    assert "Buy the [bold]thing[/bold]." in printed
    assert env.unwrapped.invalid_actions == 2


def test_after_the_end_the_session_says_reset_and_sends_nothing():
    printed, env = run_play(COUNTER, ["inc\n", "inc\n", "inc\n", "inc\n", ":hint\n", ":quit\n"])
    assert "episode solved" in printed
    assert OVER in printed and ":reset" in OVER
    assert "call reset()" not in printed
    assert env.unwrapped.steps == 3  # the 4th "inc" was not sent
    assert "oracle's best: (none listed)" in printed


def test_env_errors_speak_of_reset_as_the_session_command():
    assert translate_error("the episode is over; call reset()") == (
        "the episode is over; type :reset"
    )
    assert translate_error("no tag found") == "no tag found"


def test_rules_are_printed_once_not_on_every_step():
    printed, _ = run_play(COUNTER, ["inc\n", "dec\n", "nonsense\n", ":reset\n", "inc\n"])
    assert printed.count(RULES) == 1
    assert printed.index(RULES) < printed.index("Counter:")
    printed, _ = run_play(COUNTER, ["inc\n", ":rules\n"])
    assert printed.count(RULES) == 2  # only when asked for


def test_reset_replays_the_seed_or_takes_a_new_one():
    printed, _ = run_play(COUNTER, ["inc\n", ":reset\n", ":reset 5\n", ":reset x\n"], seed=1)
    starts = [line for line in printed.splitlines() if "Steps taken: 0." in line]
    env = gym.make(COUNTER)
    expected = [env.reset(seed=s)[0] for s in (1, 1, 5)]
    assert [line.removeprefix("action> ") for line in starts] == expected
    assert ":reset takes a seed >= 0" in printed


def test_end_of_input_ends_the_session_cleanly():
    printed, env = run_play(COUNTER, [])
    assert "Counter:" in printed and env.unwrapped.steps == 0


def test_play_from_a_real_terminal_stdin_never_shows_a_traceback():
    keys = ":hnit\n[/x]\n:actions\n:hint\ninc\ninc\ninc\ninc\n:quit\n"
    script = (
        "import sys\n"
        "sys.path.insert(0, 'tests')\n"
        "from test_cli import COUNTER\n"
        "from agentgym.cli import main\n"
        "sys.exit(main(['play', COUNTER, '--seed', '2']))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], input=keys, capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "unknown command ':hnit', try :hint :actions :reset :quit" in proc.stdout
    assert "unknown action '[/x]'" in proc.stdout
    assert "episode solved" in proc.stdout and OVER in proc.stdout


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "CartPole-v1"], "not an agentgym text env"),
        (["play", COUNTER, "-k", "gaol=2"], "valid kwargs: goal, "),
        (["play", COUNTER, "--seed", "-1"], "non-negative"),
        (["play", NEEDS_BROWSER], "pip install 'agentgym[browser]'"),
    ],
)
def test_play_bad_input_is_one_line_exit_2(argv, message, capsys):
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert message in err and "Traceback" not in out + err
    assert len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------------- list
def test_list_shows_every_id_with_each_kwarg_default_and_range(capsys):
    assert cli.main(["list"]) == 0
    printed = capsys.readouterr().out
    for env_id in agentgym.env_ids():
        assert env_id in printed
    for name, allowed in CONTRACT_ALLOWED.items():
        if name != "render_mode":  # each env lists its own render modes
            assert name in printed and allowed in printed
    assert "shortest | solvable" in printed and "null | vpr" in printed


def test_list_shows_each_envs_pinned_evaluation_splits(capsys):
    assert cli.main(["list", "agentgym/WebShop-v0"]) == 0
    printed = capsys.readouterr().out
    row = next(line for line in printed.splitlines() if line.strip().startswith("test "))
    assert row.split()[:4] == ["test", "500", "0..499", "split=test"], row


def signature_defaults(cls: type) -> dict[str, Any]:
    """Keyword defaults of ``cls.__init__`` and of the bases it forwards ``**kwargs`` to."""
    out: dict[str, Any] = {}
    for klass in cls.__mro__:
        if "__init__" not in vars(klass) or klass is object:
            continue
        params = inspect.signature(klass.__init__).parameters.values()
        for p in params:
            if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                out.setdefault(p.name, p.default)
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            break
    return out


def test_list_defaults_are_the_signature_defaults():
    kwargs = {k.name: k for k in env_kwargs(COUNTER)}
    assert list(kwargs) == list(signature_defaults(CounterEnv))
    assert kwargs["goal"].default == 3 and kwargs["goal"].allowed == ""
    assert kwargs["reward_mode"].default == "both"
    assert kwargs["score_process"].allowed == "true | false"
    assert kwargs["render_mode"].allowed == "null | ansi"
    assert format_value(kwargs["render_mode"].default) == "null"


@pytest.mark.parametrize("entry", agentgym.ENVIRONMENTS, ids=lambda e: e.id)
def test_every_registered_kwarg_is_in_the_signature_with_a_documented_range(entry):
    creator = gym.envs.registration.load_env_creator(entry.entry_point)
    kwargs = {k.name: k for k in env_kwargs(entry.id)}
    # Every env takes the whole contract, with its family's explicit defaults.
    assert set(CONTRACT_ALLOWED) <= set(kwargs), sorted(set(CONTRACT_ALLOWED) - set(kwargs))
    assert config_model(entry.id) is not None, f"{entry.id} declares no config model"
    for name, info in kwargs.items():
        assert info.allowed, f"{entry.id}: kwarg {name!r} has no allowed values"
        assert info.description, f"{entry.id}: kwarg {name!r} has no description"
        assert info.default is not REQUIRED
    if isinstance(creator, type):
        assert {k: v.default for k, v in kwargs.items()} == signature_defaults(creator)


def test_list_of_one_id_and_of_an_unknown_one(capsys):
    assert cli.main(["list", "agentgym/Sudoku-v0"]) == 0
    printed = capsys.readouterr().out
    assert "agentgym/Sudoku-v0" in printed and "agentgym/Sokoban-v0" not in printed
    assert cli.main(["list", "agentgym/Nope-v0"]) == 2
    err = capsys.readouterr().err
    assert "unknown env id" in err and len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------------- parser
def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_option_of_every_subcommand_has_help():
    parser = cli.build_parser()
    commands = subparsers(parser)
    assert set(commands) == {"list", "play", "eval", "serve", "train", "tasks", "docker",
                             "leaderboard", "audit"}
    for name, sub in {"agentgym": parser, **commands}.items():
        for action in sub._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            assert action.help and action.help != argparse.SUPPRESS, (name, action.dest)


def test_usage_errors_are_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["eval", COUNTER, "--episodes", "many"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "invalid int value: 'many'" in err and "--help" in err


@pytest.mark.parametrize("entry", agentgym.ENVIRONMENTS, ids=lambda e: e.id)
def test_documented_ranges_are_the_ones_the_env_enforces(entry):
    """Each plain "LOW-HIGH" range a model declares: both ends build, one past them is refused."""
    ranges = {
        row.name: tuple(map(int, row.allowed.split("-")))
        for row in config_model(entry.id).table()
        if re.fullmatch(r"\d+-\d+", row.allowed)
    }
    assert ranges or entry.family != "games", "a game documents some numeric range"
    for name, (low, high) in ranges.items():
        for bad in (low - 1, high + 1):
            with pytest.raises(ValueError, match=name):
                gym.make(entry.id, **{name: bad})
        if entry.family != "webshop":  # its ends would build a 1.2M-product catalog
            for good in (low, high):
                gym.make(entry.id, **{name: good}).close()
