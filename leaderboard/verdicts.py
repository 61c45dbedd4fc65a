"""Verdicts this machine reached by replay, kept so that a site build need not replay again.

Replaying is the expensive part of validation (Terminal-v0 runs every command again in a fresh
Docker sandbox: a minute for its ten test tasks), and ``leaderboard build`` validates every
bundle it is given, typically right after ``leaderboard validate`` accepted the same bundles,
and again each time one more bundle arrives. So ``validate`` (and ``build``) record each
accepted bundle's recomputed numbers here, and ``build`` reuses such a verdict where both of
these are unchanged:

* the bundle: keyed by the sha256 of its ``manifest.json``, which pins every results file's
  sha256 (the unpacking checks each file against it), so equal keys mean equal bytes;
* the code that judged it: :func:`code_fingerprint`, a sha256 over every file of the
  ``agentgym``, ``agentgym.leaderboard`` and ``agentgym.environments`` packages as installed
  (a changed env, verifier or check gives another fingerprint), the Python version and the
  gymnasium and numpy versions.

Everything else is checked again on reuse (the safe unpack, hashes, schema, kwargs, manifest,
consistency); only the replay is skipped. Only this machine writes the verdicts, under
:func:`agentgym.cache.cache_dir` (``leaderboard/verdicts``): whoever could forge one could as
well edit the validator. ``leaderboard build --replay`` ignores them.

>>> import tempfile
>>> cache = VerdictCache(tempfile.mkdtemp())
>>> key = cache.key(b'{"files": []}')
>>> cache.put(key, [{"name": "a.json", "summary": {}, "episodes": [], "steps": 0}], 1.5)
>>> cache.get(key, ["a.json"])["seconds"], cache.get(key, ["b.json"])
(1.5, None)
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from agentgym.cache import cache_dir

__all__ = ["VERDICT_SCHEMA", "VerdictCache", "code_fingerprint"]

VERDICT_SCHEMA = "agentgym.verdict/1"
#: The packages whose files decide a verdict (the validator, the envs, their helpers).
_PACKAGES = ("agentgym", "agentgym.leaderboard", "agentgym.environments")


def _version(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:
        return "missing"


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """sha256 of the judging code: every file of :data:`_PACKAGES` (compiled caches aside),
    by path and content, plus the Python, gymnasium and numpy versions."""
    digest = hashlib.sha256()
    for extra in (platform.python_version(), _version("gymnasium"), _version("numpy")):
        digest.update(extra.encode() + b"\0")
    for package in _PACKAGES:
        for root in map(Path, import_module(package).__path__):
            for path in sorted(root.rglob("*")):
                if "__pycache__" in path.parts or path.suffix == ".pyc" or not path.is_file():
                    continue
                digest.update(f"{package}:{path.relative_to(root).as_posix()}\0".encode())
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


class VerdictCache:
    """Accepted bundles' recomputed numbers, one JSON file per (bundle, code) pair."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else cache_dir("leaderboard", "verdicts")

    def key(self, manifest_bytes: bytes) -> str:
        """The file stem of a bundle's verdict: its manifest's sha256 and the code's."""
        return f"{hashlib.sha256(manifest_bytes).hexdigest()}-{code_fingerprint()[:32]}"

    def get(self, key: str, names: Sequence[str]) -> dict[str, Any] | None:
        """The verdict stored under ``key`` if its runs are the files ``names``, else None."""
        try:
            data = json.loads((self.root / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if (not isinstance(data, dict) or data.get("schema") != VERDICT_SCHEMA
                or [run.get("name") for run in data.get("runs", [])] != list(names)):
            return None
        return data

    def put(self, key: str, runs: list[dict[str, Any]], seconds: float) -> None:
        """Store a verdict (atomically; a cache that cannot be written is left alone)."""
        data = {"schema": VERDICT_SCHEMA, "validated_at": datetime.now(UTC).isoformat(),
                "seconds": seconds, "runs": runs}
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".verdict-", suffix=".tmp")
        except OSError:
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, separators=(",", ":"))
            os.replace(tmp, self.root / f"{key}.json")
        except OSError:
            Path(tmp).unlink(missing_ok=True)
