"""Resumable runs: an interrupted evaluation continues from its journal to the same file."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest

from agentgym.agents import RandomAgent
from agentgym.eval_journal import journal_path
from agentgym.evaluation import evaluate, without_timings

ENV = "agentgym/TicTacToe-v0"


class StopsAfter(RandomAgent):
    """The random agent (same name, same description), but Ctrl-C after ``k`` episodes."""

    name: ClassVar[str] = "random"

    def __init__(self, k: int) -> None:
        super().__init__()
        self.left = k

    def reset(self, env: Any, *, seed: int | None = None) -> None:
        if self.left == 0:
            raise KeyboardInterrupt
        self.left -= 1
        super().reset(env, seed=seed)


def run(out: Path | None, agent: Any = "random", **kwargs: Any):
    return evaluate(ENV, agent, limit=4, trials=2, out=out, progress=False, **kwargs)


def test_an_interrupted_run_resumes_to_the_uninterrupted_file(tmp_path):
    whole = tmp_path / "whole.json"
    run(whole)
    assert not journal_path(whole).exists()  # removed after the final write

    out = tmp_path / "resumed.json"
    with pytest.raises(KeyboardInterrupt):
        run(out, StopsAfter(3))
    journal = journal_path(out)
    lines = journal.read_text().splitlines()
    assert len(lines) == 1 + 3 and not out.exists()  # header + 3 finished episodes
    assert json.loads(lines[0])["config"]["task_seeds"] == [100_000, 100_001, 100_002, 100_003]

    class Counting(RandomAgent):
        resets = 0

        def reset(self, env: Any, *, seed: int | None = None) -> None:
            Counting.resets += 1
            super().reset(env, seed=seed)

    run(out, Counting())
    assert Counting.resets == 8 - 3  # only the missing episodes were played
    assert not journal.exists()
    a, b = json.loads(whole.read_text()), json.loads(out.read_text())
    assert without_timings(a) == without_timings(b)


def test_a_torn_last_line_is_played_again(tmp_path):
    out = tmp_path / "r.json"
    with pytest.raises(KeyboardInterrupt):
        run(out, StopsAfter(2))
    journal = journal_path(out)
    journal.write_bytes(journal.read_bytes() + b'{"episode": 2, "tas')  # killed mid-write
    report = run(out)
    assert [e.episode for e in report.episodes] == list(range(8))
    whole = run(None)
    assert without_timings(report.to_json()) == without_timings(whole.to_json())


def test_a_journal_of_another_run_is_refused_before_playing(tmp_path):
    out = tmp_path / "r.json"
    with pytest.raises(KeyboardInterrupt):
        run(out, StopsAfter(1))
    before = journal_path(out).read_text()
    with pytest.raises(ValueError, match="journal of another run; delete it to start over, or "
                                         "give another --out"):
        evaluate(ENV, "random", limit=3, trials=2, out=out, progress=False)
    with pytest.raises(ValueError, match="journal of another run"):
        evaluate(ENV, "oracle", limit=4, trials=2, out=out, progress=False)
    assert journal_path(out).read_text() == before


def test_a_killed_cli_run_resumes(tmp_path):
    out = tmp_path / "r.json"
    argv = [sys.executable, "-m", "agentgym.cli", "eval", "agentgym/Sudoku-v0", "--agent",
            "oracle", "--limit", "100", "-k", "size=4", "--out", str(out), "-q"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    journal = journal_path(out)
    deadline = time.monotonic() + 60
    # Kill it once a few episodes are journalled (a hard kill: no cleanup runs).
    while time.monotonic() < deadline and proc.poll() is None:
        if journal.exists() and len(journal.read_text().splitlines()) > 3:
            break
        time.sleep(0.01)
    proc.kill()
    proc.wait()
    if out.exists():
        pytest.skip("the run finished before it could be killed")
    done = len(journal.read_text().splitlines()) - 1
    assert 0 < done < 100
    assert subprocess.run(argv, capture_output=True).returncode == 0
    resumed = json.loads(out.read_text())
    whole = evaluate("agentgym/Sudoku-v0", "oracle", limit=100, env_kwargs={"size": 4},
                     progress=False)
    assert without_timings(resumed) == without_timings(whole.to_json())
