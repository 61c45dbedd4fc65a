"""``agentgym leaderboard submit | validate | build``: the command-line side of the leaderboard.

    agentgym leaderboard submit r1.json r2.json --out bundle.tar.gz --agent-description "..."
    agentgym leaderboard validate bundle.tar.gz [more.tar.gz ...]
    agentgym leaderboard build a.tar.gz b.tar.gz --out site/

``validate`` replays every trace and records each accepted bundle's numbers on this machine;
``build`` reuses such a record for the same bundle and the same code instead of replaying it
again (:mod:`.verdicts`; ``--replay`` replays anyway).

Exit status: 0 done (validate, build: every bundle accepted); 1 validate rejected a
bundle, or build left at least one bundle out (the reason is printed, one line per bundle);
2 a usage error -- a bad option, a path that cannot be read or written, a dirty tree at submit
-- printed as one line by :func:`agentgym.cli.main`.

>>> import argparse
>>> sub = argparse.ArgumentParser(prog="agentgym").add_subparsers(dest="command")
>>> _ = add_leaderboard_parser(sub)
>>> sorted(sub.choices["leaderboard"]._subparsers._group_actions[0].choices)
['build', 'submit', 'validate']
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from .bundle import Limits
from .errors import Rejected

__all__ = ["add_leaderboard_parser", "cmd_leaderboard"]


def _limits(args: argparse.Namespace) -> Limits:
    if args.max_bytes < 1:
        raise ValueError(f"--max-bytes must be >= 1, got {args.max_bytes}")
    default = Limits()
    # The unpacked cap scales with the archive cap (results JSON compresses about 10:1).
    ratio = default.max_unpacked_bytes // default.max_bundle_bytes
    return Limits(max_bundle_bytes=args.max_bytes, max_unpacked_bytes=args.max_bytes * ratio)


def add_leaderboard_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``leaderboard`` (with ``submit``, ``validate``, ``build``) to ``agentgym``'s parser."""
    lb = subparsers.add_parser(
        "leaderboard",
        help="bundle results for submission, validate bundles by replay, build the site",
        description="Submission bundles: make one from results files, validate one by "
        "replaying every trace, build the static leaderboard site from accepted ones.",
    )
    sub = lb.add_subparsers(dest="leaderboard_command", required=True,
                            metavar="{submit,validate,build}")
    sm = sub.add_parser(
        "submit", help="bundle results files (with their traces) into a .tar.gz",
        description="Check results files (schema agentgym.eval/2) and bundle them with a "
        "manifest: versions, the git commit of the agentgym checkout, task sets, hashes.")
    sm.add_argument("results", nargs="+", metavar="RESULTS", help="results files of one agent")
    sm.add_argument("--out", required=True, metavar="BUNDLE", help="the bundle to write")
    sm.add_argument("--agent-description", default="", metavar="TEXT",
                    help="what the agent is (model, prompt, scaffolding), shown on the site")
    sm.add_argument("--allow-dirty", action="store_true",
                    help="bundle from a checkout with uncommitted changes (marked dirty; the "
                    "validator rejects such bundles)")
    limit_help = f"refuse bundles over this many bytes (default: {Limits().max_bundle_bytes})"
    jobs_help = ("validate N bundles at a time, in N processes (default 1; replays that wait "
                 "on Docker overlap)")
    va = sub.add_parser(
        "validate", help="check bundles and replay every trace against the envs",
        description="Refuse unsafe or oversized archives, check every field, replay every "
        "episode and recompute the summaries. Exit status 0 every bundle accepted, 1 one or "
        "more rejected (one line each).")
    va.add_argument("bundles", nargs="+", metavar="BUNDLE",
                    help="bundles (.tar.gz made by `leaderboard submit`), each judged on its own")
    va.add_argument("--max-bytes", type=int, default=Limits().max_bundle_bytes, help=limit_help)
    va.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    va.add_argument("--jobs", type=int, default=1, metavar="N", help=jobs_help)
    bd = sub.add_parser(
        "build", help="validate bundles and write the static leaderboard site",
        description="Validate each bundle; write DIR/index.html (tables, charts), the trace "
        "viewer and the accepted runs' traces. Rejected bundles are reported and left out "
        "(exit status 1). A bundle this machine already accepted by replay with the same code "
        "(`leaderboard validate`, an earlier build) is checked again but not replayed again.")
    bd.add_argument("bundles", nargs="+", metavar="BUNDLE", help="bundles to include")
    bd.add_argument("--out", required=True, metavar="DIR", help="folder to write the site to")
    bd.add_argument("--max-bytes", type=int, default=Limits().max_bundle_bytes, help=limit_help)
    bd.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    bd.add_argument("--jobs", type=int, default=1, metavar="N", help=jobs_help)
    bd.add_argument("--replay", action="store_true",
                    help="replay every bundle, even one this machine has a verdict for")
    return lb


def _rejected(console: Console, command: str, reason: str) -> None:
    line = Text(f"agentgym leaderboard {command}: rejected: {reason}", style="bold red")
    Console(stderr=True, highlight=False).print(line, soft_wrap=True)


def _validate_one(bundle: str, limits: Limits, reuse: bool) -> Any:
    """One bundle's verdict in a worker process: the report, or the :class:`Rejected`."""
    from .validate import validate_bundle
    from .verdicts import VerdictCache

    try:
        return validate_bundle(bundle, limits=limits, verdicts=VerdictCache(), reuse=reuse)
    except Rejected as exc:
        return exc


def _verdicts(args: argparse.Namespace, console: Console, limits: Limits,
              reuse: bool) -> Iterator[tuple[str, Any]]:
    """``(bundle, report or Rejected)`` for each bundle, in the order given.

    With ``--jobs N`` (N > 1) the bundles are validated in N worker processes (each imports
    agentgym once; replays that wait on Docker overlap), the largest first; one at a time
    otherwise, with a progress bar.
    """
    from .validate import validate_bundle
    from .verdicts import VerdictCache

    bundles = list(args.bundles)
    jobs = min(args.jobs, len(bundles))
    if jobs <= 1:
        for bundle in bundles:
            try:
                yield bundle, validate_bundle(bundle, limits=limits, progress=not args.quiet,
                                              console=console, verdicts=VerdictCache(),
                                              reuse=reuse)
            except Rejected as exc:
                yield bundle, exc
        return
    for bundle in bundles:
        if not Path(bundle).is_file():  # a usage error, before any worker starts
            raise FileNotFoundError(f"{bundle}: no such bundle file")
    # Spawned, not forked: the envs may have started threads (a forked copy can hang).
    with ProcessPoolExecutor(jobs, mp_context=get_context("spawn")) as pool:
        by_size = sorted(bundles, key=lambda b: -Path(b).stat().st_size)
        futures = {b: pool.submit(_validate_one, b, limits, reuse) for b in by_size}
        for bundle in bundles:
            yield bundle, futures[bundle].result()


def cmd_leaderboard(args: argparse.Namespace, console: Console) -> int:
    """Run ``agentgym leaderboard ...``; see the module docstring for the exit status."""
    if args.leaderboard_command == "submit":
        from .submit import submit

        manifest = submit(args.results, args.out, agent_description=args.agent_description,
                          allow_dirty=args.allow_dirty)
        git = manifest["git"]
        commit = git["commit"][:12] if git["commit"] else "no checkout"
        console.print(Text(f"wrote {args.out}: {len(manifest['files'])} results file"
                           f"{'s' * (len(manifest['files']) != 1)} of {manifest['agent']['name']}"
                           f", agentgym {manifest['agentgym_version']} ({commit}"
                           f"{', DIRTY' if git['dirty'] else ''})"), soft_wrap=True)
        return 0
    if args.jobs < 1:
        raise ValueError(f"--jobs must be >= 1, got {args.jobs}")
    limits = _limits(args)
    if args.leaderboard_command == "validate":
        status = 0
        for bundle, report in _verdicts(args, console, limits, reuse=False):
            if isinstance(report, Rejected):
                where = f"{bundle}: " if len(args.bundles) > 1 else ""
                _rejected(console, "validate", f"{where}{report}")
                status = 1
                continue
            console.print(Text(f"{bundle}: {report.line()}", style="bold green"),
                          soft_wrap=True)
            for run in report.runs:
                s = run.summary
                console.print(Text(f"  {run.name}: {run.agent['name']} on {run.env_id} "
                                   f"({run.split or 'custom seeds'}): {s['episodes']} episodes, "
                                   f"success {s['success_rate']:.1%}, score {s['score']:.1f}"),
                              soft_wrap=True)
        return status
    from .site import build_site

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file; give a folder for the site")
    reports, rejected = [], []
    for bundle, report in _verdicts(args, console, limits, reuse=not args.replay):
        if isinstance(report, Rejected):
            _rejected(console, "build", f"{bundle}: {report}")
            rejected.append((Path(bundle).name, str(report)))
            continue
        console.print(Text(f"{bundle}: {report.line()}"), soft_wrap=True)
        reports.append(report)
    index = build_site(reports, out, rejected=rejected)
    console.print(Text(f"wrote {index} ({len(reports)} accepted, {len(rejected)} rejected)"),
                  soft_wrap=True)
    return 1 if rejected else 0
