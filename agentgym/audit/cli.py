"""``agentgym audit``: the command line of :mod:`agentgym.audit`.

    agentgym audit agentgym/Sokoban-v0
    agentgym audit agentgym/Negotiation-v0 -k opponent=tit-for-tat --episodes 20 --budget 60
    agentgym audit --all --budget 2 --json audit.json --exclude agentgym/Terminal-v0
    agentgym audit my/Env-v0 --import my_package.envs

Exit status: 0 when every audited id passes (an id that cannot run here, such as Terminal-v0
without Docker, is reported as skipped), 1 when a check fails, 2 for bad input.
"""

from __future__ import annotations

import argparse
import importlib
import math
from typing import Any

from rich.console import Console
from rich.text import Text

from agentgym.audit.report import AuditReport, write_reports
from agentgym.audit.runner import run_audit
from agentgym.audit.spec import registered_specs

__all__ = ["add_audit_parser", "cmd_audit"]


def add_audit_parser(sub: Any, kw_help: str) -> None:
    """Add ``audit`` to the ``agentgym`` subcommands."""
    au = sub.add_parser(
        "audit",
        help="attack an env's rewards: exploit policies, a search adversary, checks",
        description="Play the honest references, generic and family exploit policies and a "
        "seeded search adversary on the same seeds, then check that no exploit is paid like "
        "the reference without doing the task, that declared shaping is a potential, that "
        "success means outcome, that info hides nothing, and that replays repeat. Prints a "
        "table per id; exit status 1 when a check fails.",
    )
    au.add_argument("env_id", nargs="?", help="the id to audit (or --all)")
    au.add_argument("--all", action="store_true",
                    help="audit every registered agentgym id (and the ids --import registers)")
    au.add_argument("--exclude", action="append", default=[], metavar="ID",
                    help="with --all, leave this id out (repeatable)")
    au.add_argument("-k", "--kw", action="append", default=[], metavar="NAME=VALUE",
                    help=kw_help)
    au.add_argument("--episodes", type=int, default=5, metavar="N",
                    help="seeds each policy plays (default: 5)")
    au.add_argument("--budget", type=float, default=10.0, metavar="SECONDS",
                    help="seconds the search adversary may spend per id (default: 10)")
    au.add_argument("--seed", type=int, default=0,
                    help="the first seed; the search is seeded with it too (default: 0)")
    au.add_argument("--json", metavar="FILE", help="write the report(s) to this JSON file")
    au.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                    help="import this module first (it registers its own ids and audit "
                    "specs), repeatable")
    au.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def cmd_audit(args: argparse.Namespace, console: Console) -> int:
    from agentgym.cli import _check_out_path, parse_kwargs
    from agentgym.registry import env_ids

    for module in args.imports:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise ValueError(f"--import {module}: {exc}") from exc
    if args.all == bool(args.env_id):
        raise ValueError("give one env id or --all")
    if args.episodes < 1:
        raise ValueError(f"--episodes must be at least 1, got {args.episodes}")
    if not math.isfinite(args.budget) or args.budget < 0:
        raise ValueError(f"--budget must be a number of seconds >= 0, got {args.budget}")
    out = _check_out_path(args.json) if args.json else None
    if args.all:
        import gymnasium as gym

        # A spec whose id is no longer registered with Gymnasium (a module that registered
        # both and then unregistered its env) is not an env to audit.
        ids = env_ids() + [i for i in registered_specs()
                           if i not in env_ids() and i in gym.registry]
        _check_ids(args.exclude)
        ids = [i for i in ids if i not in args.exclude]
    else:
        ids = [args.env_id]
    _check_ids(ids)
    kwargs = parse_kwargs(args.kw, *ids)
    reports: list[AuditReport] = []
    for env_id in ids:
        report = run_audit(env_id, kwargs, episodes=args.episodes, budget_s=args.budget,
                           seed=args.seed, progress=not args.quiet)
        reports.append(report)
        console.print(report.table())
        console.print(Text(_verdict_line(report), style="bold" if report.passed else "bold red"),
                      soft_wrap=True)
        if out is not None:  # written after every id: an interrupted --all keeps what ran
            write_reports(reports, out)
    if len(reports) > 1:
        console.print(Text("audit summary: " + ", ".join(
            f"{r.env_id.split('/')[-1]} {r.status}" for r in reports), style="bold"),
            soft_wrap=True)
    if out is not None:
        console.print(Text(f"wrote {out}"), soft_wrap=True)
    return 0 if all(r.passed for r in reports) else 1


def _check_ids(ids: list[str]) -> None:
    import gymnasium as gym

    unknown = [i for i in ids if i not in gym.registry]
    if unknown:
        raise ValueError(f"unknown env id {unknown[0]!r}; `agentgym list` shows the ids "
                         "(use --import MODULE for your own)")


def _verdict_line(report: AuditReport) -> str:
    if report.skipped:
        return f"{report.env_id}: skipped ({report.skipped})"
    failed = report.failures()
    if not failed:
        return f"{report.env_id}: pass ({report.wall_s:.1f} s)"
    return (f"{report.env_id}: FAIL: {', '.join(r.name for r in failed)} "
            f"({report.wall_s:.1f} s)")
