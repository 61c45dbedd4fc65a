"""The ``agentgym`` command: list envs, play, evaluate, serve, train, and the leaderboard.

    agentgym list
    agentgym tasks list
    agentgym tasks check environments/terminal/tasks/csv-column-sum
    agentgym docker build-base
    agentgym docker reap
    agentgym play agentgym/Sudoku-v0 --seed 3
    agentgym eval agentgym/Minesweeper-v0 --agent oracle --episodes 100 --seed 0 --out r.json
    agentgym eval agentgym/WebShop-v0 --agent llm -a model=smollm2 --limit 5 --out w.json
    agentgym leaderboard submit r.json w.json --out mine.tar.gz
    agentgym leaderboard validate mine.tar.gz
    agentgym leaderboard build mine.tar.gz --out site/
    agentgym serve agentgym/Sokoban-v0 agentgym/TicTacToe-v0 --port 8000
    agentgym audit agentgym/Negotiation-v0 --episodes 10 --budget 30 --json audit.json
    agentgym train --algo grpo --env agentgym/TicTacToe-v0 --model tiny-random --updates 2

Env kwargs are passed as ``-k name=value`` (values are read as JSON when they parse, else as
text; ``None``/``True``/``False`` are read as in Python): ``agentgym play agentgym/Sokoban-v0
-k size=8 -k boxes=2``.

No input makes the command print a traceback: a bad id, kwarg, seed, agent, path or a missing
optional dependency is one line on stderr and exit status 2. ``agentgym tasks check`` prints
one line per check and exits 1 when one failed (a missing file or a bad ``task.toml`` field is
such a line, naming the file and the field); ``agentgym leaderboard validate`` exits 1 with one
line naming what a replay contradicted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

import agentgym
from agentgym.agents import agent_names
from agentgym.audit.cli import add_audit_parser, cmd_audit
from agentgym.envinfo import (
    config_model,
    entry_for,
    env_kwargs,
    format_value,
    kwargs_markdown,
    make_text_env,
)
from agentgym.evaluation import EvalReport, evaluate

# leaderboard/, trainers/ and environments/ install as agentgym.* through pyproject's
# package-dir mapping, which pyright cannot follow: their imports here are ignored for it.
from agentgym.leaderboard.cli import (  # pyright: ignore[reportMissingImports]
    add_leaderboard_parser,
    cmd_leaderboard,
)
from agentgym.play import play
from agentgym.splits import TaskSplit
from agentgym.trainers.cli import (  # pyright: ignore[reportMissingImports]
    add_train_arguments,
    cmd_train,
)

__all__ = ["build_parser", "main", "one_line", "parse_kwargs"]

#: Bare words read as the Python constants they spell (JSON spells them null/true/false).
_PYTHON_WORDS = {"None": None, "True": True, "False": False}
#: Longest error line printed; the rest of a long message is cut.
_MAX_ERROR = 400


def parse_kwargs(pairs: Sequence[str], *env_ids: str) -> dict[str, Any]:
    """``["size=8", "oracle=solvable"]`` -> ``{"size": 8, "oracle": "solvable"}``.

    Values read as JSON, except for a kwarg that one of ``env_ids`` declares as text (its
    config model's :meth:`~agentgym.config.EnvConfig.takes_text`): that takes the text as
    typed, so ``-k task=001`` is the task ``"001"``, not the number 1.

    >>> parse_kwargs(["blanks=null", "preset=None", "agent_first=false", "split=train"])
    {'blanks': None, 'preset': None, 'agent_first': False, 'split': 'train'}
    >>> import agentgym
    >>> parse_kwargs(["task=001", "max_steps=5"], "agentgym/Terminal-v0")
    {'task': '001', 'max_steps': 5}
    """
    models = [m for m in map(_declared_config, env_ids) if m is not None]
    kwargs: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"env kwarg {pair!r} is not of the form name=value")
        if raw.strip() not in ("null", "None") and any(m.takes_text(name) for m in models):
            kwargs[name] = raw
            continue
        if raw.strip() in _PYTHON_WORDS:
            kwargs[name] = _PYTHON_WORDS[raw.strip()]
            continue
        try:
            kwargs[name] = json.loads(raw)
        except json.JSONDecodeError:
            kwargs[name] = raw
    return kwargs


def _declared_config(env_id: str) -> Any:
    """The id's config model, or None (an unknown id is reported later, by whoever makes it)."""
    try:
        return config_model(env_id)
    except ValueError:
        return None


def one_line(exc: BaseException) -> str:
    """An exception as one line: its first non-empty line, cut at a readable length.

    Messages from browsers and installers run to dozens of lines; the first says what failed.

    >>> one_line(RuntimeError("browser failed to start\\n  details\\n  more"))
    'browser failed to start'
    >>> one_line(KeyError("goal"))
    "KeyError: 'goal'"
    """
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[0] if lines else type(exc).__name__
    if isinstance(exc, (KeyError, AttributeError, LookupError)) or not lines:
        # These messages name only a key or an attribute; the type says what went wrong.
        text = f"{type(exc).__name__}: {text}" if lines else text
    if len(text) > _MAX_ERROR:
        text = text[: _MAX_ERROR - 3] + "..."
    return text


# ---------------------------------------------------------------------- list
def _kwargs_table(env_id: str) -> Table:
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("kwarg", no_wrap=True)
    table.add_column("default", no_wrap=True)
    # The description wraps first: a range cut mid-way ("both | process |") reads wrong.
    table.add_column("allowed", min_width=24, overflow="fold")
    table.add_column("who", no_wrap=True)
    table.add_column("what", ratio=1)
    # "who": besides the operator, who may set it (a remote client, a leaderboard bundle).
    who = {"public": "anyone", "client": "clients", "operator": "operator"}
    for kwarg in env_kwargs(env_id):
        table.add_row(Text(kwarg.name), Text(format_value(kwarg.default)), Text(kwarg.allowed),
                      Text(who.get(kwarg.scope, kwarg.scope)), Text(kwarg.description))
    return table


def _splits_table(splits: Sequence[TaskSplit]) -> Table:
    """The pinned evaluation splits: name, size, seeds, kwargs, what each is."""
    table = Table(box=None, pad_edge=False, header_style="dim", show_edge=False)
    table.add_column("eval split")
    table.add_column("tasks", justify="right")
    table.add_column("seeds")
    table.add_column("kwargs")
    table.add_column("what")
    for split in splits:
        kwargs = " ".join(f"{k}={format_value(v)}" for k, v in split.kwargs.items())
        table.add_row(Text(split.name), Text(str(split.count)),
                      Text(f"{split.start}..{split.start + split.count - 1}"), Text(kwargs),
                      Text(split.description))
    return table


def cmd_list(args: argparse.Namespace, console: Console) -> int:
    entries = list(agentgym.ENVIRONMENTS)
    if args.env_id is not None:
        entry = entry_for(args.env_id)
        if entry is None:
            known = ", ".join(agentgym.env_ids())
            raise ValueError(f"unknown env id {args.env_id!r}; agentgym ids: {known}")
        entries = [entry]
    if args.markdown:
        print(kwargs_markdown([e.id for e in entries]), end="")
        return 0
    # One block per env (id, what it is, then its kwargs) reads at any terminal width, where
    # one wide table would wrap ids and ranges mid-word.
    for entry in entries:
        console.print(Text(entry.id, style="bold") + Text(f"  ({entry.family})"), soft_wrap=True)
        console.print(Padding(Text(entry.summary), (0, 0, 0, 2)))
        try:
            kwargs: Any = _kwargs_table(entry.id)
        except Exception as exc:  # one broken family must not hide the others
            kwargs = Text(f"(cannot read its kwargs: {one_line(exc)})", style="red")
        console.print(Padding(kwargs, (0, 0, 0 if entry.splits else 1, 2)))
        if entry.splits:
            console.print(Padding(_splits_table(entry.splits), (0, 0, 1, 2)))
    console.print(Text("Pass kwargs as -k NAME=VALUE (JSON values); `agentgym eval ID --split "
                       "NAME` plays a split.", style="dim"), soft_wrap=True)
    return 0


# ---------------------------------------------------------------------- play
def cmd_play(args: argparse.Namespace, console: Console) -> int:
    env = make_text_env(args.env_id, parse_kwargs(args.kw, args.env_id))
    return play(env, seed=args.seed, console=console, read_line=sys.stdin.readline)


# ---------------------------------------------------------------------- eval
def run_title(report: EvalReport) -> str:
    """``oracle on agentgym/Sudoku-v0 (size=4), split test (5 tasks)``: what a table is of."""
    n = len(report.task_seeds)
    first = report.task_seeds[0]
    if report.split is None:
        tasks = f"seed {first}" if n == 1 else f"seeds {first}..{report.task_seeds[-1]}"
    else:
        tasks = f"split {report.split} ({n} task{'s' if n > 1 else ''})"
    if report.trials > 1:
        tasks += f" x {report.trials} trials"
    kwargs = ", ".join(f"{k}={format_value(v)}" for k, v in report.env_kwargs.items())
    return f"{report.agent['name']} on {report.env_id}{f' ({kwargs})' if kwargs else ''}, {tasks}"


def _summary_table(report: EvalReport) -> Table:
    s = report.summary
    table = Table()
    table.add_column("metric")
    table.add_column("value", justify="right")
    from agentgym.envinfo import family_of

    webshop = family_of(report.env_id) == "webshop"
    table.add_row("score (mean R x 100)" if webshop else "score (success % )", f"{s['score']:.1f}")
    table.add_row("episodes", f"{s['episodes']} ({s['tasks']} tasks x {s['trials']} trials)")
    table.add_row("success rate", f"{s['success_rate']:.1%} ± {s['success_rate_se']:.1%}")
    for k in range(2, report.trials + 1):
        table.add_row(f"pass^{k}", f"{s[f'pass^{k}']:.1%}")
    table.add_row("mean return", f"{s['mean_return']:.3f} ± {s['mean_return_se']:.3f}")
    table.add_row("mean process return", f"{s['mean_process_return']:.3f}")
    table.add_row("mean outcome return", f"{s['mean_outcome_return']:.3f}")
    table.add_row("mean steps", f"{s['mean_steps']:.2f}")
    table.add_row("invalid action rate", f"{s['invalid_action_rate']:.1%}")
    table.add_row("truncated", f"{s['truncated_rate']:.1%}")
    table.add_row("tokens / episode (prompt + completion)",
                  f"{s['mean_prompt_tokens']:.0f} + {s['mean_completion_tokens']:.0f}")
    table.add_row("failed episodes", str(s["failed_episodes"]))
    return table


def _check_out_path(out: str) -> Path:
    """Refuse an ``--out`` that cannot be written before a long run, not after it."""
    path = Path(out)
    if path.is_dir():
        raise ValueError(f"--out {out} is a directory; give a file path")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"--out {out}: cannot create its folder ({exc.strerror})") from exc
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ValueError(f"--out {out}: not writable")
    return path


def parse_agent_args(pairs: Sequence[str]) -> dict[str, Any]:
    """``-a model=PATH -a temperature=0.7`` -> agent options, read like ``-k``.

    >>> parse_agent_args(["model=tiny-random", "temperature=0.7"])
    {'model': 'tiny-random', 'temperature': 0.7}
    """
    for pair in pairs:
        name, sep, _ = pair.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"agent option {pair!r} is not of the form name=value")
    return parse_kwargs(pairs)


def cmd_eval(args: argparse.Namespace, console: Console) -> int:
    out = _check_out_path(args.out) if args.out else None
    report = evaluate(
        args.env_id,
        args.agent,
        split=args.split,
        limit=args.limit,
        seed=args.seed,
        episodes=args.episodes,
        trials=args.trials,
        env_kwargs=parse_kwargs(args.kw, args.env_id),
        agent_options=parse_agent_args(args.agent_arg),
        workers=args.workers,
        out=out,
        progress=not args.quiet,
    )
    console.print(Text(run_title(report), style="bold"), soft_wrap=True)
    console.print(_summary_table(report))
    if out is not None:
        console.print(Text(f"wrote {out} ({len(report.episodes)} episodes with step traces)"),
                      soft_wrap=True)
    return 0


# ---------------------------------------------------------------------- serve
def _check_bindable(host: str, port: int) -> None:
    """Refuse a host/port the server could not bind, as one line, before uvicorn tries."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise ValueError(f"--host {host}: {exc.strerror or exc}") from exc
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise ValueError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc


def cmd_serve(args: argparse.Namespace, console: Console) -> int:
    for env_id in args.env_ids:
        if entry_for(env_id) is None:
            known = ", ".join(agentgym.env_ids())
            raise ValueError(f"unknown env id {env_id!r}; agentgym ids: {known}")
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be in [0, 65535], got {args.port}")
    if args.max_sessions < 1:
        raise ValueError(f"--max-sessions must be >= 1, got {args.max_sessions}")
    if args.max_heavy_sessions < 0:
        raise ValueError(f"--max-heavy-sessions must be >= 0, got {args.max_heavy_sessions}")
    if not args.idle_timeout > 0:
        raise ValueError(f"--idle-timeout must be > 0 seconds, got {args.idle_timeout}")
    if args.max_body < 1024:
        raise ValueError(f"--max-body must be >= 1024 bytes, got {args.max_body}")
    if args.call_timeout is not None and not args.call_timeout > 0:
        raise ValueError(f"--call-timeout must be > 0 seconds, got {args.call_timeout}")
    operator_kwargs = _operator_kwargs(args.env_ids, parse_kwargs(args.kw, *args.env_ids))
    try:
        from agentgym.server.app import serve
    except ImportError as exc:
        hint = "install the server extra: pip install 'agentgym[server]'"
        raise ImportError(f"{exc}; {hint}") from exc
    _check_bindable(args.host, args.port)
    token = args.token if args.token is not None else os.environ.get("AGENTGYM_TOKEN") or None
    console.print(
        Text(f"agentgym serve: http://{args.host}:{args.port} hosting {', '.join(args.env_ids)}"
             f"{' (token required)' if token else ''}"),
        soft_wrap=True,
    )
    extra = {} if args.call_timeout is None else {"call_timeout": args.call_timeout}
    serve(args.env_ids, host=args.host, port=args.port, max_sessions=args.max_sessions,
          max_heavy_sessions=args.max_heavy_sessions, idle_timeout=args.idle_timeout,
          token=token, max_body=args.max_body,
          operator_kwargs=operator_kwargs, **extra)
    return 0


def _operator_kwargs(env_ids: Sequence[str], given: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``serve -k`` kwargs shared out to the hosted ids that take them, each checked by the
    id's model; a kwarg no hosted id takes is refused, naming them."""
    out: dict[str, dict[str, Any]] = {env_id: {} for env_id in env_ids}
    for name, value in given.items():
        takers = [env_id for env_id in env_ids
                  if name in {k.name for k in env_kwargs(env_id)}]
        if not takers:
            raise ValueError(f"-k {name}: no hosted env takes it ({', '.join(env_ids)})")
        for env_id in takers:
            out[env_id][name] = value
    for env_id, kwargs in out.items():
        model = config_model(env_id)
        if model is not None:
            model.parse(kwargs, owner=env_id)
    return out


# ---------------------------------------------------------------------- tasks, docker
def cmd_tasks(args: argparse.Namespace, console: Console) -> int:
    # pyright cannot follow the package-dir mapping of environments/ (see the imports above).
    from agentgym.environments.terminal.task import (  # pyright: ignore[reportMissingImports]
        bundled_tasks,
    )

    if args.tasks_command == "list":
        tasks = bundled_tasks()
        table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        for column in ("id", "difficulty", "category", "tags", "split"):
            table.add_column(column, no_wrap=column != "tags")
        for task in tasks:
            table.add_row(Text(task.id), Text(task.difficulty), Text(task.category),
                          Text(", ".join(task.tags)), Text(task.split))
        console.print(table)
        levels = ", ".join(
            f"{sum(t.difficulty == d for t in tasks)} {d}" for d in ("easy", "medium", "hard")
        )
        console.print(Text(f"{len(tasks)} tasks ({levels}); agentgym tasks check DIR checks one",
                           style="dim"))
        return 0
    from agentgym.environments.terminal.checks import (  # pyright: ignore[reportMissingImports]
        check_task,
    )

    report = check_task(args.directory, backend=args.backend)
    styles = {"ok": "green", "warn": "yellow", "fail": "bold red", "skip": "dim"}
    for check in report.checks:
        console.print(Text(check.line(), style=styles.get(check.status, "")), soft_wrap=True)
    failed = sum(c.status == "fail" for c in report.checks)
    verdict = "usable" if report.ok else f"{failed} check{'s' if failed > 1 else ''} failed"
    console.print(Text(f"{args.directory}: {verdict}", style="bold"), soft_wrap=True)
    return 0 if report.ok else 1


def cmd_docker(args: argparse.Namespace, console: Console) -> int:
    if args.docker_command == "reap":
        from agentgym.sandbox.docker_backend import reap_orphans

        removed = reap_orphans()
        console.print(Text(f"removed {removed} sandbox container(s) whose owning process on "
                           "this host is gone"), soft_wrap=True)
        return 0
    from agentgym.sandbox.base_image import BASE_IMAGE, build_base

    image_id = build_base(force=args.force,
                          log=lambda line: console.print(Text(line, style="dim"), soft_wrap=True))
    console.print(Text(f"base image ready: {BASE_IMAGE} ({image_id[:19]})"), soft_wrap=True)
    return 0


# ---------------------------------------------------------------------- parser
class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (the usage block stays behind ``--help``)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


KW_HELP = (
    "an env kwarg, repeatable: -k size=8 -k oracle=solvable (JSON values; other text is a "
    "string). `agentgym list` shows every env's kwargs, defaults and allowed values"
)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="agentgym", description="Text environments for LLM agents with verifiable rewards."
    )
    parser.add_argument("--version", action="version", version=agentgym.__version__)
    sub = parser.add_subparsers(dest="command", required=True,
                                metavar="{list,play,eval,serve,train,tasks,docker,leaderboard,audit}")

    ls = sub.add_parser(
        "list",
        help="list the registered environments with their kwargs",
        description="Every agentgym id, its family, what it is, and each kwarg with its "
        "default and allowed values.",
    )
    ls.add_argument("env_id", nargs="?", help="show only this id (default: all of them)")
    ls.add_argument("--markdown", action="store_true",
                    help="print the kwargs reference as Markdown (docs/envs.md is this output)")

    pl = sub.add_parser(
        "play",
        help="play an environment in the terminal",
        description="Play one env by typing actions; :hint, :actions, :reset, :rules, :quit.",
    )
    pl.add_argument("env_id", help="an agentgym id, e.g. agentgym/Sudoku-v0 (see `agentgym list`)")
    pl.add_argument("--seed", type=int, default=0, help="episode seed (default: 0)")
    pl.add_argument("-k", "--kw", action="append", default=[], metavar="NAME=VALUE", help=KW_HELP)

    ev = sub.add_parser(
        "eval",
        help="evaluate an agent on a pinned task split (or custom seeds)",
        description="Play the env's pinned test split (or --split NAME, its first --limit "
        "tasks; or custom seeds --seed S --episodes N), --trials times per task, print a "
        "summary and write results with step traces (--out; an interrupted run resumes).",
    )
    ev.add_argument("env_id", help="an agentgym id, e.g. agentgym/Sokoban-v0 (see `agentgym list`)")
    ev.add_argument(
        "--agent",
        default="random",
        choices=agent_names(),
        help="the agent to run (default: random); family agents play only their family",
    )
    ev.add_argument("-a", "--agent-arg", action="append", default=[], metavar="NAME=VALUE",
                    help="an agent option, repeatable: -a model=smollm2 -a temperature=0.7 "
                    "(JSON values, as -k)")
    ev.add_argument("--split", default=None,
                    help="pinned task split (default: the env's first, `agentgym list`)")
    ev.add_argument("--limit", type=int, default=None, metavar="N",
                    help="play only the split's first N tasks")
    ev.add_argument("--episodes", type=int, default=None,
                    help="custom seeds: play this many tasks (default 100 with --seed)")
    ev.add_argument("--seed", type=int, default=None,
                    help="custom seeds: the first task's seed (default 0 with --episodes)")
    ev.add_argument("--trials", type=int, default=1, metavar="N",
                    help="episodes per task, for pass^k (default: 1)")
    ev.add_argument("--workers", type=int, default=1, metavar="N",
                    help="play episodes in N processes (default: 1)")
    ev.add_argument(
        "--out", metavar="PATH",
        help="write results with per-episode traces to this JSON file (journalled to "
        "PATH.partial.jsonl as it runs: the same command again resumes)",
    )
    ev.add_argument("-k", "--kw", action="append", default=[], metavar="NAME=VALUE", help=KW_HELP)
    ev.add_argument("-q", "--quiet", action="store_true", help="no progress bar")

    sv = sub.add_parser(
        "serve",
        help="serve environments over HTTP and WebSocket",
        description="Run the env server: sessions of the given ids over HTTP and WebSocket "
        "(see agentgym.server.protocol). Clients: gym.make(ENV_ID, server_url=URL).",
    )
    sv.add_argument("env_ids", nargs="+", metavar="ENV_ID", help="agentgym ids to host")
    sv.add_argument("--host", default="127.0.0.1",
                    help="address to bind (default: 127.0.0.1, loopback only)")
    sv.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    sv.add_argument("--max-sessions", type=int, default=256,
                    help="live sessions allowed; beyond, creates get 503 (default: 256)")
    sv.add_argument("--max-heavy-sessions", type=int, default=8, metavar="N",
                    help="of those, sessions holding a browser or a container (WebShop "
                    "mode=browser, Terminal-v0; ~100 MB or more each); beyond, creates get "
                    "503 (default: 8)")
    sv.add_argument("--idle-timeout", type=float, default=600.0, metavar="S",
                    help="close a session after S seconds without a request (default: 600)")
    sv.add_argument("--token", default=None,
                    help="bearer token required on every request but /health "
                    "(default: $AGENTGYM_TOKEN; none when unset)")
    sv.add_argument("--max-body", type=int, default=4 * 1024 * 1024, metavar="BYTES",
                    help="largest request body or WebSocket message (default: 4 MiB)")
    sv.add_argument("--call-timeout", type=float, default=None, metavar="S",
                    help="seconds one env call (a world build, a step) may take before its "
                    "session gets a 504 and is closed (default: 300)")
    sv.add_argument("-k", "--kw", action="append", default=[], metavar="NAME=VALUE",
                    help="an env kwarg every session gets, for each hosted id that takes it; "
                    "clients may not change it. The only way to set operator-only kwargs "
                    "(paths, backends) (repeatable)")
    tr = sub.add_parser(
        "train",
        help="train a policy with GRPO / GiGPO, VPR or SFT",
        description="Train a model on an env. Every config key can follow as --KEY VALUE or "
        "--set KEY=VALUE (see agentgym.trainers.config and configs/).",
        allow_abbrev=False,  # an unknown --key is a config override, never a prefix match
    )
    add_train_arguments(tr)

    tk = sub.add_parser(
        "tasks",
        help="list or check terminal tasks (agentgym/Terminal-v0)",
        description="The bundled terminal tasks, and a checker for one task directory.",
    )
    tasks_sub = tk.add_subparsers(dest="tasks_command", required=True, metavar="{list,check}")
    tasks_sub.add_parser("list", help="the bundled tasks with difficulty, category, tags, split")
    ck = tasks_sub.add_parser(
        "check",
        help="validate one task directory",
        description="task.toml and files valid, the image builds offline, doing nothing "
        "scores 0, the reference solution scores 1.0 and makes every milestone hold. One "
        "line per check; exit status 1 when one fails.",
    )
    ck.add_argument("directory", metavar="DIR", help="a task directory (with task.toml)")
    ck.add_argument("--backend", default="auto", choices=("auto", "docker", "bwrap"),
                    help="sandbox backend (default: auto, Docker where a daemon answers)")

    dk = sub.add_parser("docker", help="build the sandbox images, remove leaked sandboxes",
                        description="Build the images the sandboxes run, offline; remove the "
                        "sandboxes of processes that died.")
    docker_sub = dk.add_subparsers(dest="docker_command", required=True,
                                   metavar="{build-base,reap}")
    docker_sub.add_parser(
        "reap",
        help="remove sandbox containers whose owning process on this host is gone",
        description="Remove the sandbox containers (label agentgym.sandbox) that a process on "
        "this host started and that outlived it (a kill -9). Every Docker backend does this "
        "when it starts; this does it by hand.",
    )
    bb = docker_sub.add_parser(
        "build-base",
        help="build agentgym/base:bookworm (debootstrap + docker import)",
        description="Build the base image offline: a minimal Debian with python3, pytest, git, "
        "sqlite3 and coreutils. Reused when it exists, unless --force.",
    )
    bb.add_argument("--force", action="store_true", help="rebuild even if the image exists")
    add_leaderboard_parser(sub)
    add_audit_parser(sub, KW_HELP)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``agentgym`` command; returns the exit status.

    0 on success, 2 for any error (printed as one line on stderr), 130 on Ctrl-C.
    """
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and args.command != "train":  # only `train` takes free --KEY VALUE overrides
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.overrides = extra
    console = Console(highlight=False)
    commands = {"list": cmd_list, "play": cmd_play, "eval": cmd_eval, "serve": cmd_serve,
                "train": cmd_train, "tasks": cmd_tasks, "docker": cmd_docker,
                "leaderboard": cmd_leaderboard, "audit": cmd_audit}
    try:
        return commands[args.command](args, console)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        # Bad ids, kwargs, seeds, agents and paths are ValueError/TypeError/OSError; a missing
        # optional dependency is ImportError or gym's DependencyNotInstalled. Any of them, and
        # anything else an env raises, is one clear line: never a traceback.
        error = Text(f"agentgym {args.command}: error: {one_line(exc)}", style="bold red")
        Console(stderr=True, highlight=False).print(error, soft_wrap=True)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
