"""Parallel episodes: --workers N gives the serial run's results, merged in episode order."""

from __future__ import annotations

import json

from agentgym.eval_journal import journal_path
from agentgym.evaluation import evaluate, without_timings


def test_parallel_equals_serial_for_a_seeded_random_agent(tmp_path):
    kwargs = {"limit": 5, "trials": 2, "progress": False}
    serial = evaluate("agentgym/Minesweeper-v0", "random", **kwargs)
    out = tmp_path / "p.json"
    parallel = evaluate("agentgym/Minesweeper-v0", "random", workers=2, out=out, **kwargs)
    assert [e.episode for e in parallel.episodes] == list(range(10))
    assert without_timings(serial.to_json()) == without_timings(parallel.to_json())
    assert without_timings(json.loads(out.read_text())) == without_timings(serial.to_json())
    assert not journal_path(out).exists()


def test_parallel_with_an_agent_object_and_more_workers_than_episodes():
    from agentgym.agents import OracleAgent

    serial = evaluate("agentgym/TicTacToe-v0", OracleAgent(), limit=2, progress=False)
    parallel = evaluate("agentgym/TicTacToe-v0", OracleAgent(), limit=2, workers=4,
                        progress=False)
    assert without_timings(serial.to_json()) == without_timings(parallel.to_json())
