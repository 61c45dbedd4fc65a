"""The ``agentgym`` command: list envs, play one in the terminal, evaluate an agent.

    agentgym list
    agentgym play agentgym/Sudoku-v0 --seed 3
    agentgym eval agentgym/Minesweeper-v0 --agent oracle --episodes 100 --seed 0 --out r.json

Env kwargs are passed as ``-k name=value`` (values are read as JSON when they parse, else as
text): ``agentgym play agentgym/Sokoban-v0 -k size=8 -k boxes=2``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
from rich.console import Console
from rich.table import Table

import agentgym
from agentgym.agents import agent_names
from agentgym.evaluation import EvalReport, evaluate

__all__ = ["main"]

PLAY_HELP = (
    "Type an action (bare, or inside <action>...</action>). Commands: "
    ":actions lists legal actions, :hint shows the oracle's best actions, "
    ":reset starts over, :quit leaves."
)


def parse_kwargs(pairs: Sequence[str]) -> dict[str, Any]:
    """``["size=8", "oracle=solvable"]`` -> ``{"size": 8, "oracle": "solvable"}``."""
    kwargs: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"env kwarg {pair!r} is not of the form name=value")
        try:
            kwargs[name.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            kwargs[name.strip()] = raw
    return kwargs


def _check_env_id(env_id: str) -> None:
    if env_id not in gym.registry:
        known = ", ".join(agentgym.env_ids())
        raise ValueError(f"unknown env id {env_id!r}; agentgym ids: {known}")


def _make_env(env_id: str, kwargs: dict[str, Any]) -> gym.Env:
    _check_env_id(env_id)
    return gym.make(env_id, **kwargs)


def cmd_list(args: argparse.Namespace, console: Console) -> int:
    table = Table(title="agentgym environments")
    table.add_column("id", style="bold")
    table.add_column("family")
    table.add_column("what it is")
    for entry in agentgym.ENVIRONMENTS:
        table.add_row(entry.id, entry.family, entry.summary)
    console.print(table)
    return 0


def _components_table(info: dict[str, Any], reward: float) -> Table:
    table = Table(show_header=True, header_style="bold")
    table.add_column("reward part")
    table.add_column("value", justify="right")
    for name, value in info["reward_components"].items():
        table.add_row(name, f"{value:+.3g}")
    table.add_row("[bold]reward[/bold]", f"[bold]{reward:+.3g}[/bold]")
    return table


def cmd_play(args: argparse.Namespace, console: Console) -> int:
    env = _make_env(args.env_id, parse_kwargs(args.kw))
    try:
        obs, info = env.reset(seed=args.seed)
        total = 0.0
        console.print(PLAY_HELP, style="dim")
        console.print(obs, markup=False, highlight=False)
        while True:
            console.print("action> ", end="")
            line = sys.stdin.readline()
            if not line:  # end of input
                console.print()
                return 0
            text = line.strip()
            if text in (":quit", ":q", ":exit"):
                return 0
            if text == ":help":
                console.print(PLAY_HELP, style="dim")
                continue
            if text == ":actions":
                console.print(", ".join(info["available_actions"]) or "(none listed)")
                continue
            if text == ":hint":
                console.print("oracle's best: " + ", ".join(env.unwrapped.oracle_actions()))
                continue
            if text == ":reset":
                obs, info = env.reset(seed=args.seed)
                total = 0.0
                console.print(obs, markup=False, highlight=False)
                continue
            obs, reward, terminated, truncated, info = env.step(text)
            total += reward
            if not info["valid_action"]:
                console.print(f"invalid action: {info['action_error']}", style="bold red")
            console.print(_components_table(info, reward))
            console.print(obs, markup=False, highlight=False)
            if terminated or truncated:
                verdict = "solved" if info["success"] else "over"
                style = "bold green" if info["success"] else "bold yellow"
                console.print(f"episode {verdict}; return {total:+.3g}", style=style)
                console.print("Type :reset to play the same seed again or :quit.", style="dim")
    finally:
        env.close()


def _summary_table(report: EvalReport) -> Table:
    s = report.summary
    table = Table(title=f"{report.agent['name']} on {report.env_id} (seeds {report.seed}..)")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_row("episodes", str(s["episodes"]))
    table.add_row("success rate", f"{s['success_rate']:.1%} ± {s['success_rate_se']:.1%}")
    table.add_row("mean return", f"{s['mean_return']:.3f} ± {s['mean_return_se']:.3f}")
    table.add_row("mean process return", f"{s['mean_process_return']:.3f}")
    table.add_row("mean outcome return", f"{s['mean_outcome_return']:.3f}")
    table.add_row("mean steps", f"{s['mean_steps']:.2f}")
    table.add_row("invalid action rate", f"{s['invalid_action_rate']:.1%}")
    table.add_row("truncated", f"{s['truncated_rate']:.1%}")
    return table


def cmd_eval(args: argparse.Namespace, console: Console) -> int:
    _check_env_id(args.env_id)
    report = evaluate(
        args.env_id,
        args.agent,
        episodes=args.episodes,
        seed=args.seed,
        env_kwargs=parse_kwargs(args.kw),
        progress=not args.quiet,
    )
    console.print(_summary_table(report))
    if args.out:
        path = report.write(args.out)
        console.print(f"wrote {path} ({len(report.episodes)} episodes with step traces)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentgym", description="Text environments for LLM agents with verifiable rewards."
    )
    parser.add_argument("--version", action="version", version=agentgym.__version__)
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("list", help="list registered environments")

    play = sub.add_parser("play", help="play an environment in the terminal")
    play.add_argument("env_id")
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("-k", "--kw", action="append", default=[], metavar="NAME=VALUE")

    ev = sub.add_parser("eval", help="evaluate an agent over seeded episodes")
    ev.add_argument("env_id")
    ev.add_argument("--agent", default="random", choices=agent_names())
    ev.add_argument("--episodes", type=int, default=100)
    ev.add_argument("--seed", type=int, default=0)
    ev.add_argument("--out", help="write results with per-episode traces to this JSON file")
    ev.add_argument("-k", "--kw", action="append", default=[], metavar="NAME=VALUE")
    ev.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``agentgym`` command; returns the exit status."""
    args = build_parser().parse_args(argv)
    console = Console(highlight=False)
    commands = {"list": cmd_list, "play": cmd_play, "eval": cmd_eval}
    try:
        return commands[args.command](args, console)
    except (ValueError, TypeError) as exc:
        # Bad kwargs, ids or seeds are user errors: one clear line, no traceback.
        Console(stderr=True).print(f"agentgym {args.command}: error: {exc}", style="bold red")
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
