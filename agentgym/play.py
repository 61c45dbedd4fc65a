"""``agentgym play``: one env in the terminal, driven line by line.

A line that starts with ``:`` is a command and never reaches the env (a mistyped ``:hnit``
is answered, not played); any other line is an action, bare or inside
``<action>...</action>``. Everything the env or the player wrote (observations, actions,
hints, errors) is printed as plain text, never as Rich markup, so ``[/x]`` or WebShop's
``click[Buy Now]`` shows as typed. The rules are printed once, when the session starts; each
step then shows the reward breakdown and the new observation. After the episode ends no
action is sent: the session says to type ``:reset``.

>>> import io
>>> import gymnasium as gym
>>> import agentgym
>>> from rich.console import Console
>>> console = Console(file=io.StringIO(), width=100)
>>> lines = iter([":hnit\\n", ":quit\\n"])
>>> play(gym.make("agentgym/TicTacToe-v0"), seed=0, console=console,
...      read_line=lambda: next(lines))
0
>>> "unknown command ':hnit', try :hint :actions :reset :quit" in console.file.getvalue()
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
from rich.console import Console
from rich.table import Table
from rich.text import Text

__all__ = ["OVER", "PLAY_HELP", "UNKNOWN_COMMAND", "play", "translate_error"]

PLAY_HELP = (
    "Type an action (bare, or inside <action>...</action>). Commands: :actions lists the "
    "legal actions, :hint shows the oracle's best, :reset [SEED] starts over (same seed "
    "unless given), :rules shows the rules again, :quit leaves."
)
#: The answer to a line that starts with ":" but is no command.
UNKNOWN_COMMAND = "unknown command {command!r}, try :hint :actions :reset :quit"
#: The answer to an action typed after the episode ended (it is not sent to the env).
OVER = "the episode is over; type :reset to play again or :quit"
_QUIT = (":quit", ":q", ":exit")
#: Past this many legal actions, ``:actions`` prints them on one wrapped line.
_ONE_PER_LINE = 30


def translate_error(error: str) -> str:
    """An env's action error in the words of this session (``reset()`` is ``:reset`` here).

    >>> translate_error("the episode is over; call reset()")
    'the episode is over; type :reset'
    """
    return error.replace("call reset()", "type :reset")


def _plain(console: Console, text: Any, style: str = "") -> None:
    # Text objects are never parsed as markup: an action like "[/x]" cannot crash the print.
    console.print(Text(str(text), style=style), highlight=False)


def _components_table(info: dict[str, Any], reward: float) -> Table:
    table = Table(show_header=True, header_style="bold")
    table.add_column("reward part")
    table.add_column("value", justify="right")
    for name, value in info["reward_components"].items():
        table.add_row(Text(str(name)), Text(f"{value:+.3g}"))
    table.add_row(Text("reward", style="bold"), Text(f"{reward:+.3g}", style="bold"))
    return table


def _show_actions(console: Console, actions: list[str], label: str) -> None:
    if not actions:
        _plain(console, f"{label}: (none listed)")
    elif len(actions) > _ONE_PER_LINE:
        _plain(console, f"{label} ({len(actions)}): " + ", ".join(actions))
    else:
        _plain(console, f"{label}:")
        for action in actions:
            _plain(console, f"  {action}")


class _Session:
    """One terminal session: the env, the current seed and episode, and what was shown."""

    def __init__(self, env: gym.Env, seed: int | None, console: Console) -> None:
        self.env, self.seed, self.console = env, seed, console
        self.rules = str(getattr(env.unwrapped, "rules", "") or "").strip()
        self.info: dict[str, Any] = {}
        self.total, self.over = 0.0, False

    def start(self) -> None:
        if self.rules:
            _plain(self.console, self.rules)
        _plain(self.console, PLAY_HELP, style="dim")
        self.reset()

    def reset(self) -> None:
        obs, self.info = self.env.reset(seed=self.seed)
        self.total, self.over = 0.0, False
        _plain(self.console, obs)

    def command(self, text: str) -> bool:
        """Run a ``:command``; False when the session should end."""
        command, _, arg = text.partition(" ")
        arg = arg.strip()
        if command in _QUIT:
            return False
        if command == ":help":
            _plain(self.console, PLAY_HELP, style="dim")
        elif command == ":rules":
            _plain(self.console, self.rules or "(this env states no rules)")
        elif command == ":actions":
            legal = [] if self.over else self.info["available_actions"]
            _show_actions(self.console, legal, "legal")
        elif command == ":hint":
            # Every agentgym env has oracle_actions (gym.Env does not declare it).
            oracle = self.env.unwrapped.oracle_actions  # pyright: ignore[reportAttributeAccessIssue]
            best = [] if self.over else list(oracle())
            _show_actions(self.console, best, "oracle's best")
        elif command == ":reset":
            if arg and not arg.isdigit():
                _plain(self.console, ":reset takes a seed >= 0, e.g. :reset 4", "bold red")
                return True
            if arg:
                self.seed = int(arg)
            self.reset()
        else:
            _plain(self.console, UNKNOWN_COMMAND.format(command=command), "bold red")
        return True

    def act(self, action: str) -> None:
        if self.over:
            _plain(self.console, OVER, "yellow")
            return
        obs, reward, terminated, truncated, self.info = self.env.step(action)
        reward = float(reward)
        self.total += reward
        if not self.info["valid_action"]:
            error = translate_error(self.info["action_error"])
            _plain(self.console, f"invalid action: {error}", "bold red")
        self.console.print(_components_table(self.info, reward))
        _plain(self.console, obs)
        if terminated or truncated:
            self.over = True
            solved = bool(self.info["success"])
            why = f" ({self.info['truncated_by']})" if self.info.get("truncated_by") else ""
            _plain(
                self.console,
                f"episode {'solved' if solved else 'over'}{why}; return {self.total:+.3g}",
                "bold green" if solved else "bold yellow",
            )
            _plain(self.console, "Type :reset to play the same seed again or :quit.", "dim")


def play(
    env: gym.Env,
    *,
    seed: int | None,
    console: Console,
    read_line: Callable[[], str],
) -> int:
    """Run a terminal session on ``env`` until ``:quit`` or end of input; returns 0.

    ``read_line`` returns the next line typed (``""`` at end of input), like
    ``sys.stdin.readline``. The env is closed at the end.
    """
    session = _Session(env, seed, console)
    try:
        session.start()
        while True:
            console.print("action> ", end="", markup=False, highlight=False)
            line = read_line()
            if not line:  # end of input
                console.print()
                return 0
            text = line.strip()
            if text.startswith(":"):
                if not session.command(text):
                    return 0
            elif text:
                session.act(text)
    finally:
        env.close()
