"""A bundle's ``manifest.json``: what was run, by which code, and each file's sha256.

Schema ``agentgym.bundle/1``::

    {"schema": "agentgym.bundle/1", "agentgym_version": "0.1.0",
     "git": {"commit": "40 hex" | null, "dirty": false, "source": "checkout" | "installed"},
     "agent": {"name": "oracle", "description": "free text", "prompt": "standard"},
     "files": [{"path": "results/000-tictactoe-v0.json", "sha256": "64 hex", "bytes": 123,
                "env_id": "...", "env_kwargs": {...}, "split": "test" | null,
                "task_set_hash": "16 hex", "task_seeds": [...], "trials": 1,
                "verifier": {"name": "...", "version": "..."}, "agent": "oracle",
                "prompt": "standard" | "custom"}]}

The git commit is read with ``git`` from the checkout agentgym is imported from (the folder
above the ``agentgym`` package must be the top of a git work tree). A tree with modified or
untracked files (``git status --porcelain``, ignored files excepted) is *dirty*: ``submit``
refuses it unless told ``allow_dirty``, which records ``dirty: true`` -- and the validator
rejects such a bundle, because nobody can rebuild the code that produced it. agentgym
installed from a wheel has no checkout: ``commit`` is null, ``source`` is ``"installed"``, and
the release version alone names the code (the validator accepts that).

>>> runs = [({"env_id": "agentgym/TicTacToe-v0", "agent": {"name": "oracle", "prompt": "standard"},
...           "env_kwargs": {}, "split": "test", "task_set_hash": "0" * 16, "task_seeds": [1],
...           "trials": 1, "verifier": {"name": "v", "version": "1"},
...           "versions": {"agentgym": "0.1.0"}}, b"{}")]
>>> m = build_manifest(runs, agent_description="minimax", git=GitState(None, False, "installed"))
>>> m["files"][0]["path"], m["git"]["commit"]
('results/000-tictactoe-v0.json', None)
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .bundle import is_results_name
from .errors import Rejected
from .schema import prompt_kind, type_name

__all__ = [
    "BUNDLE_SCHEMA",
    "GitState",
    "build_manifest",
    "check_consistent",
    "check_manifest",
    "git_state",
    "listed_files",
]

BUNDLE_SCHEMA = "agentgym.bundle/1"


@dataclass(frozen=True)
class GitState:
    """The code a bundle was made with: a commit (None without a checkout), dirty or not."""

    commit: str | None
    dirty: bool
    source: str  # "checkout" | "installed"

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, "dirty": self.dirty, "source": self.source}


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def git_state(root: str | Path | None = None) -> GitState:
    """The git state of the agentgym checkout (``root``: the folder above the package).

    ``root`` must itself be the top of a work tree: a venv's site-packages inside some other
    repository is not a checkout of agentgym.
    """
    if root is None:
        import agentgym

        root = Path(agentgym.__file__).resolve().parent.parent
    root = Path(root).resolve()
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None or Path(top.strip()).resolve() != root:
        return GitState(None, False, "installed")
    commit = (_git(root, "rev-parse", "HEAD") or "").strip() or None
    status = _git(root, "status", "--porcelain")
    dirty = status is None or bool(status.strip())
    return GitState(commit, dirty, "checkout")


def _slug(env_id: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", env_id.split("/")[-1].lower()).strip("-") or "env"


def build_manifest(runs: Sequence[tuple[dict[str, Any], bytes]], *, agent_description: str,
                   git: GitState) -> dict[str, Any]:
    """The manifest of ``runs`` (each: the parsed results file and its bytes, in bundle order).

    The member names are ``results/NNN-<env>.json`` in the order given.
    """
    if not runs:
        raise ValueError("no results files to bundle")
    first = runs[0][0]
    files = []
    for i, (data, raw) in enumerate(runs):
        files.append({
            "path": f"results/{i:03d}-{_slug(data['env_id'])}.json",
            "sha256": hashlib.sha256(raw).hexdigest(),
            "bytes": len(raw),
            "env_id": data["env_id"],
            "env_kwargs": data["env_kwargs"],
            "split": data["split"],
            "task_set_hash": data["task_set_hash"],
            "task_seeds": data["task_seeds"],
            "trials": data["trials"],
            "verifier": data["verifier"],
            "agent": data["agent"]["name"],
            "prompt": prompt_kind(data["agent"]),
        })
    return {
        "schema": BUNDLE_SCHEMA,
        "agentgym_version": first["versions"]["agentgym"],
        "git": git.to_json(),
        "agent": {"name": first["agent"]["name"], "description": agent_description,
                  "prompt": "custom" if any(prompt_kind(d["agent"]) == "custom" for d, _ in runs)
                  else "standard"},
        "files": files,
    }


def check_consistent(runs: Sequence[tuple[str, dict[str, Any]]]) -> None:
    """Refuse results files that contradict each other (``runs``: (file name, parsed file)).

    One bundle is one agent under one agentgym version: every file must describe the same agent
    (every field of ``agent.describe()``: name, model, sampling, prompt) and agentgym version,
    and no (env, kwargs, split) -- for custom seeds (env, kwargs, task set) -- may appear twice:
    two different numbers for the same run leave no way to tell which one counts.
    """
    seen: dict[tuple[str, str, str], str] = {}
    first_name, first = runs[0]
    for name, data in runs:
        if data["versions"]["agentgym"] != first["versions"]["agentgym"]:
            raise Rejected(f"{name}: versions.agentgym: {data['versions']['agentgym']!r}, but "
                           f"{first_name} has {first['versions']['agentgym']!r}; one bundle is "
                           "one agentgym version")
        mine, theirs = data["agent"], first["agent"]
        for key in [*theirs, *(k for k in mine if k not in theirs)]:
            if mine.get(key) != theirs.get(key):
                raise Rejected(f"{name}: agent.{key}: {type_name(mine.get(key))}, but "
                               f"{first_name} has {type_name(theirs.get(key))}; one bundle is "
                               "one agent")
        # A pinned split is one leaderboard row however many of its tasks were run; custom
        # seeds are told apart by their task set.
        tasks = (f"split {data['split']!r}" if data["split"] is not None
                 else f"task set {data['task_set_hash']}")
        key = (data["env_id"], json.dumps(data["env_kwargs"], sort_keys=True), tasks)
        if key in seen:
            raise Rejected(f"{name}: {data['env_id']} {tasks} appears twice (also in "
                           f"{seen[key]}); one bundle has one run of each")
        seen[key] = name


_HEX64 = re.compile(r"[0-9a-f]{64}")
_FILE_FIELDS: dict[str, type | tuple[type, ...]] = {
    "path": str, "sha256": str, "bytes": int, "env_id": str, "env_kwargs": dict,
    "split": (str, type(None)), "task_set_hash": str, "task_seeds": list, "trials": int,
    "verifier": dict, "agent": str, "prompt": str,
}


def _typed(value: Any, kind: type | tuple[type, ...]) -> bool:
    if isinstance(value, bool) and kind is int:
        return False
    return isinstance(value, kind)


def check_manifest(manifest: dict[str, Any], where: str = "manifest.json") -> None:
    """Raise :class:`Rejected` unless the manifest has every field, typed, from a clean tree."""
    fields: dict[str, type | tuple[type, ...]] = {
        "schema": str, "agentgym_version": str, "git": dict, "agent": dict, "files": list}
    for name, kind in fields.items():
        if name not in manifest:
            raise Rejected(f"{where}: {name}: missing")
        if not _typed(manifest[name], kind):
            raise Rejected(f"{where}: {name}: wrong type, got {type_name(manifest[name])}")
    if manifest["schema"] != BUNDLE_SCHEMA:
        raise Rejected(f"{where}: schema: expected {BUNDLE_SCHEMA!r}, got {manifest['schema']!r}")
    git = manifest["git"]
    if not isinstance(git.get("dirty"), bool):
        raise Rejected(f"{where}: git.dirty: expected true or false, got "
                       f"{type_name(git.get('dirty'))}")
    commit = git.get("commit")
    if commit is not None and not (isinstance(commit, str) and re.fullmatch(r"[0-9a-f]{40,64}",
                                                                             commit)):
        raise Rejected(f"{where}: git.commit: expected a commit hash or null, got "
                       f"{type_name(commit)}")
    if git["dirty"]:
        raise Rejected(f"{where}: git.dirty: built from a modified tree (commit {commit}); "
                       "resubmit from a clean checkout")
    agent = manifest["agent"]
    for name in ("name", "description", "prompt"):
        if not isinstance(agent.get(name), str):
            raise Rejected(f"{where}: agent.{name}: expected a string, got "
                           f"{type_name(agent.get(name))}")
    if not manifest["files"]:
        raise Rejected(f"{where}: files: empty; a bundle needs at least one results file")
    for i, entry in enumerate(manifest["files"]):
        if not isinstance(entry, dict):
            raise Rejected(f"{where}: files[{i}]: expected an object, got {type_name(entry)}")
        for name, kind in _FILE_FIELDS.items():
            if name not in entry:
                raise Rejected(f"{where}: files[{i}].{name}: missing")
            if not _typed(entry[name], kind):
                raise Rejected(f"{where}: files[{i}].{name}: wrong type, got "
                               f"{type_name(entry[name])}")
        if not is_results_name(entry["path"]):
            raise Rejected(f"{where}: files[{i}].path: {entry['path']!r} is not results/NAME.json")
        if any(other.get("path") == entry["path"] for other in manifest["files"][:i]
               if isinstance(other, dict)):
            raise Rejected(f"{where}: files[{i}].path: {entry['path']!r} listed twice")
        if not _HEX64.fullmatch(entry["sha256"]):
            raise Rejected(f"{where}: files[{i}].sha256: expected 64 hex digits, got "
                           f"{type_name(entry['sha256'])}")


def listed_files(manifest: dict[str, Any]) -> list[str]:
    """The results-file member names a manifest lists (checking the manifest first)."""
    check_manifest(manifest)
    return [entry["path"] for entry in manifest["files"]]
