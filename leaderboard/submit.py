"""Make a submission bundle from results files (``agentgym leaderboard submit``).

Each results file is checked for the schema's types first, the files against each other (one
agent, one agentgym version, no run twice), and the git state of the agentgym checkout is
read (:func:`~.manifest.git_state`): a modified tree is refused unless ``allow_dirty``, and
then recorded as such, so that the validator rejects the bundle instead of trusting it. The
results files go into the bundle byte for byte, with their traces (a results file of schema
``agentgym.eval/2`` carries every episode's step trace).

>>> import tempfile, pathlib
>>> from agentgym.evaluation import evaluate
>>> from agentgym.leaderboard.manifest import GitState
>>> tmp = pathlib.Path(tempfile.mkdtemp())
>>> run = evaluate("agentgym/TicTacToe-v0", "oracle", split="test", limit=2, progress=False)
>>> _ = run.write(tmp / "ttt.json")
>>> clean = GitState("0" * 40, False, "checkout")
>>> manifest = submit([tmp / "ttt.json"], tmp / "b.tar.gz", git=clean)
>>> [f["path"] for f in manifest["files"]]
['results/000-tictactoe-v0.json']
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .bundle import write_bundle
from .manifest import GitState, build_manifest, check_consistent, git_state
from .schema import check_results

__all__ = ["submit"]


def _read(path: Path) -> tuple[dict[str, Any], bytes]:
    raw = path.read_bytes()
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from exc
    check_results(data, str(path))
    return data, raw


def submit(results: Sequence[str | Path], out: str | Path, *, agent_description: str = "",
           allow_dirty: bool = False, git: GitState | None = None) -> dict[str, Any]:
    """Bundle ``results`` into ``out``; return the manifest written.

    ``git`` overrides the state read from the checkout (tests; tools that know better).

    Raises:
        ValueError: no files, a malformed or contradicting results file, a dirty tree without
            ``allow_dirty``, an ``out`` that is a directory.
        OSError: a results file cannot be read.
    """
    if not results:
        raise ValueError("give at least one results file")
    out = Path(out)
    if out.is_dir():
        raise ValueError(f"--out {out} is a directory; give a file path such as bundle.tar.gz")
    runs = [_read(Path(p)) for p in results]
    check_consistent([(str(p), data) for p, (data, _) in zip(results, runs, strict=True)])
    state = git if git is not None else git_state()
    if state.dirty and not allow_dirty:
        raise ValueError(f"the agentgym checkout has uncommitted changes (commit "
                         f"{(state.commit or '?')[:12]}); commit them, or pass --allow-dirty "
                         "(the bundle is then marked dirty and the validator rejects it)")
    manifest = build_manifest(runs, agent_description=agent_description, git=state)
    files = {entry["path"]: raw for entry, (_, raw) in zip(manifest["files"], runs, strict=True)}
    write_bundle(out, manifest, files)
    return manifest
