"""Validate a submission bundle: unpack it safely, check every claim, replay every trace.

:func:`validate_bundle` accepts a bundle (returns a :class:`ValidationReport`) or raises
:class:`~.errors.Rejected` with one line naming the file, the field and, for a replay, the
episode and step, with the recomputed and the claimed value. In order:

1. :mod:`.bundle`: size limit, safe member names and types, exactly the files the manifest
   lists (the manifest must be typed, from a clean tree, :mod:`.manifest`);
2. each file's sha256 and size against the manifest, valid JSON, the schema's types
   (:mod:`.schema`), its ``env_kwargs`` as a stranger's (:func:`check_env_kwargs`: only what
   the env's declared config lets a bundle set, within the bundle ceilings, no paths or
   sandbox backends), and the manifest's description of it (env, kwargs, split, task set, ...);
3. the files against each other (:func:`~.manifest.check_consistent`);
4. per file (:func:`validate_results`): a registered env id; an agentgym version of the same
   major.minor release as the installed one (envs change only with a verifier version bump,
   which is checked exactly, so a patch release does not void submissions); the task set --
   its hash recomputed, and where a ``split`` is named the split's kwargs in ``env_kwargs`` and
   the seeds a prefix of the split's (a changed seed is refused); every task seed x trial
   present, in order; then each episode replayed (:mod:`.replay`), its totals and tokens
   recomputed, and the summary recomputed with :func:`agentgym.metrics.summarise`.

>>> import tempfile, pathlib
>>> from agentgym.evaluation import evaluate
>>> from agentgym.leaderboard.manifest import GitState
>>> from agentgym.leaderboard.submit import submit
>>> tmp = pathlib.Path(tempfile.mkdtemp())
>>> run = evaluate("agentgym/TicTacToe-v0", "oracle", split="test", limit=2, progress=False)
>>> _ = submit([run.write(tmp / "r.json")], tmp / "b.tar.gz", git=GitState("0" * 40, False, "x"))
>>> report = validate_bundle(tmp / "b.tar.gz")
>>> report.episodes, report.runs[0].summary == run.summary
(2, True)
>>> compatible_version("0.1.3", "0.1.0"), compatible_version("0.2.0", "0.1.0")
(True, False)
"""

from __future__ import annotations

import json
import math
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

import agentgym
from agentgym.envinfo import (
    check_kwargs,
    entry_for,
    make_text_env,
    refuse_strangers,
    stranger_model,
)
from agentgym.metrics import summarise
from agentgym.progress import progress_bar
from agentgym.splits import task_set_hash

from .bundle import MANIFEST, Limits, unpack_bundle
from .errors import Rejected
from .manifest import check_consistent, listed_files
from .replay import TOTAL_TOLERANCE, policy_for, replay_episode
from .schema import check_results, prompt_kind, type_name
from .verdicts import VerdictCache

__all__ = [
    "AGENT_SEED_STRIDE",
    "RunReport",
    "ValidationReport",
    "check_env_kwargs",
    "compatible_version",
    "validate_bundle",
    "validate_results",
]

#: Trial ``t`` of a task with seed ``s`` runs the agent with seed ``s + AGENT_SEED_STRIDE * t``.
AGENT_SEED_STRIDE = 1_000_003


@dataclass
class RunReport:
    """One accepted results file: what was run and the validator's own recomputed numbers."""

    name: str
    env_id: str
    family: str
    env_kwargs: dict[str, Any]
    split: str | None
    trials: int
    agent: dict[str, Any]
    summary: dict[str, Any]
    episodes: list[dict[str, Any]]
    results: dict[str, Any]
    steps: int


@dataclass
class ValidationReport:
    """An accepted bundle: its manifest, its runs, and how much was replayed in how long."""

    bundle: Path
    manifest: dict[str, Any]
    runs: list[RunReport] = field(default_factory=list)
    seconds: float = 0.0
    #: Set where the replay was skipped for a verdict this machine reached before
    #: (:mod:`.verdicts`): when that replay ran (ISO time) and how long it took.
    reused_from: str | None = None
    replay_seconds: float = 0.0

    @property
    def episodes(self) -> int:
        return sum(len(run.episodes) for run in self.runs)

    @property
    def steps(self) -> int:
        return sum(run.steps for run in self.runs)

    def line(self) -> str:
        """``accepted: 2 files, 20 episodes, 143 steps replayed in 0.4 s (357 steps/s)``."""
        files = f"accepted: {len(self.runs)} file{'s' * (len(self.runs) != 1)}"
        if self.reused_from is not None:
            return (f"{files}, {self.episodes} episodes, {self.steps} steps: checked in "
                    f"{self.seconds:.2f} s; the replay verdict of "
                    f"{self.reused_from[:16].replace('T', ' ')} UTC "
                    f"({self.replay_seconds:.2f} s) reused (same bundle, same code)")
        rate = self.steps / self.seconds if self.seconds > 0 else float("inf")
        return (f"{files}, {self.episodes} episodes, {self.steps} steps replayed in "
                f"{self.seconds:.2f} s ({rate:,.0f} steps/s)")


def compatible_version(claimed: str, installed: str) -> bool:
    """Same major.minor release (see the module docstring for why not an exact match)."""
    a, b = re.match(r"(\d+)\.(\d+)", claimed), re.match(r"(\d+)\.(\d+)", installed)
    return a is not None and b is not None and a.groups() == b.groups()


def _check_task_set(data: dict[str, Any], where: str) -> None:
    env_id, kwargs, seeds = data["env_id"], data["env_kwargs"], data["task_seeds"]
    if not seeds:
        raise Rejected(f"{where}: task_seeds: empty")
    if data["trials"] < 1:
        raise Rejected(f"{where}: trials: expected >= 1, got {data['trials']}")
    digest = task_set_hash(env_id, kwargs, seeds)
    if data["task_set_hash"] != digest:
        raise Rejected(f"{where}: task_set_hash: recomputed {digest!r}, results claim "
                       f"{data['task_set_hash']!r}")
    if data["split"] is None:
        return
    entry = entry_for(env_id)
    assert entry is not None  # checked by the caller
    try:
        split = entry.split(data["split"])
    except ValueError as exc:
        raise Rejected(f"{where}: split: {exc}") from exc
    for name, value in split.kwargs.items():
        if name not in kwargs or kwargs[name] != value:
            raise Rejected(f"{where}: env_kwargs.{name}: split {split.name!r} pins "
                           f"{type_name(value)}, results have {type_name(kwargs.get(name))}")
    pinned = split.seeds
    if len(seeds) > len(pinned):
        raise Rejected(f"{where}: task_seeds: {len(seeds)} seeds, split {split.name!r} has "
                       f"{len(pinned)}")
    for i, (seed, want) in enumerate(zip(seeds, pinned, strict=False)):
        if seed != want:
            raise Rejected(f"{where}: task_seeds[{i}]: {seed} is not split {split.name!r}'s "
                           f"seed {want} (a changed seed)")


def _check_episode_set(data: dict[str, Any], where: str) -> None:
    seeds, trials, episodes = data["task_seeds"], data["trials"], data["episodes"]
    want = len(seeds) * trials
    if len(episodes) != want:
        present = {(ep["task"], ep["trial"]) for ep in episodes}
        gap = next((f"; missing task {t} trial {r}" for t in range(len(seeds))
                    for r in range(trials) if (t, r) not in present), "")
        raise Rejected(f"{where}: episodes: {len(episodes)} episodes, expected {want} "
                       f"({len(seeds)} tasks x {trials} trials){gap}")
    for i, ep in enumerate(episodes):
        task, trial = divmod(i, trials)
        expected = {"episode": i, "task": task, "trial": trial, "seed": seeds[task],
                    "agent_seed": seeds[task] + AGENT_SEED_STRIDE * trial}
        for name, value in expected.items():
            if ep[name] != value:
                raise Rejected(f"{where}: episodes[{i}].{name}: expected {value} (task {task} "
                               f"trial {trial}), results have {ep[name]}; an episode is "
                               "missing or out of order")


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=TOTAL_TOLERANCE, abs_tol=TOTAL_TOLERANCE)
    return bool(a == b)


def _check_summary(mine: dict[str, Any], theirs: dict[str, Any], where: str) -> None:
    for name in sorted(mine.keys() | theirs.keys()):
        if name not in theirs:
            raise Rejected(f"{where}: summary.{name}: missing (recomputed "
                           f"{type_name(mine[name])})")
        if name not in mine:
            raise Rejected(f"{where}: summary.{name}: not a metric agentgym.metrics computes")
        if not _close(mine[name], theirs[name]):
            raise Rejected(f"{where}: summary.{name}: recomputed {type_name(mine[name])}, "
                           f"results claim {type_name(theirs[name])}")


def _check_verifier(env: Any, claimed: dict[str, Any], where: str) -> None:
    # The env's verifier as every step's info["verifier"] names it, read without a reset.
    base = env.unwrapped
    mine = {"name": getattr(base, "verifier_name", None),
            "version": getattr(base, "verifier_version", None)}
    for name, value in mine.items():
        if str(value) != claimed.get(name):
            raise Rejected(f"{where}: verifier.{name}: the installed env has {type_name(value)}, "
                           f"results claim {type_name(claimed.get(name))}")


def check_env_kwargs(data: dict[str, Any], where: str) -> dict[str, Any]:
    """The kwargs to replay ``data``'s env with, or :class:`Rejected` naming file, key, rule.

    A bundle is a stranger's input: it may set only the kwargs the env's declared config
    gives bundle scope (never a path or a sandbox backend), within the bundle ceilings, and
    the replay runs with the config's ``replay_overrides`` (Terminal-v0's hardened Docker
    backend) whatever the bundle says. Judged from the kwargs alone, before any replay.
    """
    env_id, kwargs = data["env_id"], data["env_kwargs"]
    if entry_for(env_id) is None:
        known = ", ".join(agentgym.env_ids())
        raise Rejected(f"{where}: env_id: unknown env id {env_id!r}; agentgym ids: {known}")
    try:
        check_kwargs(env_id, kwargs)
        refuse_strangers(env_id, kwargs, "bundle")
        model = stranger_model(env_id)
        model.parse(kwargs, owner=env_id)
    except ValueError as exc:
        raise Rejected(f"{where}: env_kwargs: {exc}") from None
    return {**kwargs, **model.replay_overrides}


def validate_results(data: dict[str, Any], where: str, *,
                     advance: Callable[[int], None] | None = None) -> RunReport:
    """Check and replay one parsed results file (``where`` names it in messages)."""
    check_results(data, where)
    env_id = data["env_id"]
    replay_kwargs = check_env_kwargs(data, where)
    entry = entry_for(env_id)
    assert entry is not None  # check_env_kwargs refuses unknown ids
    claimed_version = data["versions"]["agentgym"]
    if not compatible_version(claimed_version, agentgym.__version__):
        raise Rejected(f"{where}: versions.agentgym: {claimed_version!r} is not the installed "
                       f"release {agentgym.__version__!r} (same major.minor needed)")
    _check_task_set(data, where)
    _check_episode_set(data, where)
    policy = policy_for(entry.family)
    try:
        env = make_text_env(env_id, replay_kwargs)
    except (ValueError, TypeError) as exc:
        raise Rejected(f"{where}: env_kwargs: {exc}") from exc
    records, steps = [], 0
    try:
        _check_verifier(env, data["verifier"], where)
        for i, episode in enumerate(data["episodes"]):
            if policy.fresh_env_per_episode and i > 0:
                env.close()
                env = make_text_env(env_id, replay_kwargs)
            replayed = replay_episode(env, episode, policy, f"{where}: episodes[{i}]")
            records.append(replayed.record)
            steps += replayed.steps
            if advance is not None:
                advance(replayed.steps)
    finally:
        env.close()
    summary = summarise(records, trials=data["trials"], family=entry.family)
    _check_summary(summary, data["summary"], where)
    return RunReport(name=where, env_id=env_id, family=entry.family,
                     env_kwargs=data["env_kwargs"], split=data["split"], trials=data["trials"],
                     agent=data["agent"], summary=summary, episodes=records, results=data,
                     steps=steps)


_AGREES = ("env_id", "env_kwargs", "split", "task_set_hash", "task_seeds", "trials", "verifier")


def _check_against_manifest(manifest: dict[str, Any], i: int, data: dict[str, Any],
                            name: str) -> None:
    entry = manifest["files"][i]
    claims = {key: data[key] for key in _AGREES}
    claims["agent"], claims["prompt"] = data["agent"]["name"], prompt_kind(data["agent"])
    for key, value in claims.items():
        if entry[key] != value:
            raise Rejected(f"{MANIFEST}: files[{i}].{key}: says {type_name(entry[key])}, "
                           f"{name} has {type_name(value)}")
    if manifest["agentgym_version"] != data["versions"]["agentgym"]:
        raise Rejected(f"{MANIFEST}: agentgym_version: says {manifest['agentgym_version']!r}, "
                       f"{name} has {data['versions']['agentgym']!r}")
    if manifest["agent"]["name"] != data["agent"]["name"]:
        raise Rejected(f"{MANIFEST}: agent.name: says {manifest['agent']['name']!r}, {name} "
                       f"has {data['agent']['name']!r}")


def _load(path: Path, name: str) -> Any:
    try:
        return json.loads(path.read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise Rejected(f"{name}: not valid JSON ({exc})") from exc


def _from_verdict(data: dict[str, Any], name: str, run: dict[str, Any]) -> RunReport:
    entry = entry_for(data["env_id"])
    assert entry is not None  # check_env_kwargs refused unknown ids
    return RunReport(name=name, env_id=data["env_id"], family=entry.family,
                     env_kwargs=data["env_kwargs"], split=data["split"], trials=data["trials"],
                     agent=data["agent"], summary=run["summary"], episodes=run["episodes"],
                     results=data, steps=run["steps"])


def validate_bundle(path: str | Path, *, limits: Limits | None = None, progress: bool = False,
                    console: Console | None = None, verdicts: VerdictCache | None = None,
                    reuse: bool = False) -> ValidationReport:
    """Accept ``path`` (a :class:`ValidationReport`) or raise :class:`Rejected`.

    ``verdicts``: where an accepted bundle's recomputed numbers are recorded; with ``reuse``,
    a verdict recorded there for the same bundle and the same code (:mod:`.verdicts`) stands
    in for the replay -- every other check still runs.

    Raises:
        Rejected: anything wrong with the bundle, as one line.
        OSError: ``path`` cannot be read (not a verdict on the bundle).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such bundle file")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="agentgym-bundle-") as tmp:
        digests = unpack_bundle(path, tmp, expected=listed_files, limits=limits)
        manifest_bytes = (Path(tmp) / MANIFEST).read_bytes()
        manifest = json.loads(manifest_bytes)
        loaded: list[tuple[str, dict[str, Any]]] = []
        for i, entry in enumerate(manifest["files"]):
            name = entry["path"]
            if digests[name] != entry["sha256"]:
                raise Rejected(f"{name}: sha256 is {digests[name][:16]}..., {MANIFEST} "
                               f"files[{i}].sha256 says {entry['sha256'][:16]}...")
            size = (Path(tmp) / name).stat().st_size
            if size != entry["bytes"]:
                raise Rejected(f"{name}: {size} bytes, {MANIFEST} files[{i}].bytes says "
                               f"{entry['bytes']}")
            data = _load(Path(tmp) / name, name)
            check_results(data, name)
            check_env_kwargs(data, name)
            _check_against_manifest(manifest, i, data, name)
            loaded.append((name, data))
    check_consistent(loaded)
    report = ValidationReport(bundle=path, manifest=manifest)
    key = verdicts.key(manifest_bytes) if verdicts is not None else ""
    verdict = (verdicts.get(key, [name for name, _ in loaded])
               if verdicts is not None and reuse else None)
    if verdict is not None:
        report.runs = [_from_verdict(data, name, run)
                       for (name, data), run in zip(loaded, verdict["runs"], strict=True)]
        report.reused_from, report.replay_seconds = verdict["validated_at"], verdict["seconds"]
        report.seconds = time.perf_counter() - start
        return report
    total = sum(len(ep["trace"]) for _, data in loaded for ep in data["episodes"])
    with progress_bar(progress, console) as bar:
        task = bar.add_task(f"replaying {path.name}", total=total)
        for name, data in loaded:
            report.runs.append(validate_results(
                data, name, advance=lambda n: bar.advance(task, n)))
    report.seconds = time.perf_counter() - start
    if verdicts is not None:
        verdicts.put(key, [{"name": run.name, "summary": run.summary, "episodes": run.episodes,
                            "steps": run.steps} for run in report.runs], report.seconds)
    return report

