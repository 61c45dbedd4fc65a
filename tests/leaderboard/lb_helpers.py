"""Helpers of the leaderboard tests: a clean git state, test-made archives, a forger.

``forge_bundle`` unpacks an honest bundle, lets a test edit its manifest and results, then
*re-hashes* the files into the manifest and re-packs: a forger who knows the format gets past
the hash check, so what rejects the forgery is the check under test, not the sha256.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentgym.leaderboard.bundle import write_bundle
from agentgym.leaderboard.manifest import GitState

CLEAN = GitState("0123456789abcdef0123456789abcdef01234567", False, "checkout")
#: (env id, env kwargs, tasks) of every run; Sudoku 4x4 is where `random` fails.
RUNS = (
    ("agentgym/TicTacToe-v0", {}, 3),
    ("agentgym/Sudoku-v0", {"size": 4}, 3),
    ("agentgym/Sokoban-v0", {"size": 6, "boxes": 1}, 2),
)
TRIALS = 2

Edit = Callable[[dict[str, Any], dict[str, dict[str, Any]]], None]


def read_members(bundle: Path) -> dict[str, bytes]:
    """Every member of a (trusted, test-made) bundle, by name."""
    with tarfile.open(bundle, "r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers()}  # type: ignore[union-attr]



def forge_bundle(bundle: Path, edit: Edit, out: Path) -> Path:
    """A copy of ``bundle`` at ``out`` after ``edit(manifest, results)``, hashes updated."""
    members = read_members(bundle)
    manifest = json.loads(members.pop("manifest.json"))
    results = {name: json.loads(raw) for name, raw in members.items()}
    edit(manifest, results)
    files = {}
    for entry in manifest["files"]:
        raw = (json.dumps(results[entry["path"]], indent=1) + "\n").encode()
        entry["sha256"], entry["bytes"] = hashlib.sha256(raw).hexdigest(), len(raw)
        files[entry["path"]] = raw
    return write_bundle(out, manifest, files)


def raw_tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes]]) -> Path:
    """A .tar.gz with exactly ``members`` (for archives ``write_bundle`` refuses to make)."""
    with tarfile.open(path, "w:gz") as tar:
        for info, data in members:
            if info.isfile():
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)
    return path
