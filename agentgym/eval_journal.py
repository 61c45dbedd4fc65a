"""The journal that makes an evaluation resumable: finished episodes, one JSON line each.

``agentgym eval ... --out FILE`` appends every finished episode to ``FILE.partial.jsonl``
(:func:`journal_path`) and flushes it, after a first line describing the run (env, kwargs,
task seeds, trials, verifier, agent). Running the same command again reads the journal back and
plays only the episodes it lacks; a journal of another run is refused, since mixing episodes
of two configurations would make a results file that describes neither. A line cut short by
a kill mid-write is dropped (that episode is played again). The journal is removed once the
results file is written.

>>> import tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = journal_path(pathlib.Path(tmp) / "r.json")
...     journal = Journal.open(path, {"env_id": "x"}, episodes=2)
...     journal.append({"episode": 0, "steps": 3})
...     again = Journal.open(path, {"env_id": "x"}, episodes=2)
...     [e["episode"] for e in again.episodes], path.name
([0], 'r.json.partial.jsonl')
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

__all__ = ["JOURNAL_SCHEMA", "Journal", "journal_path"]

JOURNAL_SCHEMA = "agentgym.eval-journal/1"


def journal_path(out: str | Path) -> Path:
    """Where the journal of a run writing ``out`` lives: next to it.

    >>> journal_path("results/Sokoban-oracle.json").as_posix()
    'results/Sokoban-oracle.json.partial.jsonl'
    """
    out = Path(out)
    return out.with_name(out.name + ".partial.jsonl")


def _normal(value: Any) -> Any:
    # Compare configs as they read back from JSON (tuples become lists, keys strings).
    return json.loads(json.dumps(value, sort_keys=True))


class Journal:
    """An open journal: the episodes it already holds and :meth:`append` for new ones."""

    def __init__(self, path: Path, episodes: list[dict[str, Any]]) -> None:
        self.path = path
        self.episodes = episodes

    @classmethod
    def open(cls, path: Path, header: dict[str, Any], episodes: int) -> Journal:
        """Continue the journal at ``path`` (its header must equal ``header``) or start one.

        Raises:
            ValueError: the journal describes another run, or is not a journal.
        """
        path = Path(path)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("w", encoding="utf-8") as f:
                f.write(json.dumps({"journal": JOURNAL_SCHEMA, "config": header}) + "\n")
            return cls(path, [])
        refuse = (
            f"{path} holds a journal of another run; delete it to start over, or give "
            "another --out"
        )
        raw = path.read_bytes()
        lines = raw.split(b"\n")
        try:
            first = json.loads(lines[0])
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ValueError(f"{path} is not an agentgym eval journal; delete it") from None
        if not isinstance(first, dict) or first.get("journal") != JOURNAL_SCHEMA:
            raise ValueError(f"{path} is not an agentgym eval journal; delete it")
        if _normal(first.get("config")) != _normal(header):
            raise ValueError(refuse)
        done: dict[int, dict[str, Any]] = {}
        good = len(lines[0]) + 1
        for line in lines[1:]:
            if not line.strip():
                good += len(line) + 1
                continue
            try:
                episode = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                break  # a torn last line: that episode is played again
            index = episode.get("episode") if isinstance(episode, dict) else None
            if not isinstance(index, int) or not 0 <= index < episodes:
                raise ValueError(f"{path} has an episode line that does not fit this run; "
                                 "delete it")
            done[index] = episode
            good += len(line) + 1
        if good < len(raw):
            # Cut the torn tail so the next append starts on a line of its own.
            with path.open("r+b") as f:
                f.truncate(good)
        return cls(path, [done[i] for i in sorted(done)])

    def append(self, episode: dict[str, Any]) -> None:
        """Add one finished episode, on disk before this returns (flushed)."""
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(episode) + "\n")
            f.flush()
            os.fsync(f.fileno())
        self.episodes.append(episode)

    def remove(self) -> None:
        """Delete the journal (the results file now holds every episode)."""
        self.path.unlink(missing_ok=True)
