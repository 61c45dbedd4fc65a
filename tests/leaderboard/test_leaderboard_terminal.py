"""Terminal-v0 under the terminal family's replay policy, against real Docker.

Its id is in the test id, so ``tests/conftest.py`` skips it, saying why, where no Docker daemon
or base image is ready (as for every Terminal-v0 case of the suite).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lb_helpers import CLEAN, forge_bundle

from agentgym.evaluation import evaluate
from agentgym.leaderboard.errors import Rejected
from agentgym.leaderboard.replay import policy_for
from agentgym.leaderboard.submit import submit
from agentgym.leaderboard.validate import validate_bundle


@pytest.mark.parametrize("env_id", ["agentgym/Terminal-v0"])
def test_terminal_replayed_in_fresh_sandboxes(env_id: str, tmp_path: Path) -> None:
    assert not policy_for("terminal").observations
    report = evaluate(env_id, "oracle", split="test", limit=1, progress=False)
    path = report.write(tmp_path / "terminal.json")
    bundle = tmp_path / "b.tar.gz"
    submit([path], bundle, git=CLEAN)
    accepted = validate_bundle(bundle)
    assert accepted.runs[0].summary == report.summary
    assert accepted.steps == len(report.episodes[0].trace)
    name = "results/000-terminal-v0.json"

    def edit(manifest: dict, results: dict) -> None:
        trace = results[name]["episodes"][0]["trace"]
        # An observation hash is not replayable here, so editing one is not a forgery ...
        trace[0]["observation_sha"] = "0" * 16
        # ... but the hidden tests' result is.
        last = trace[-1]["reward_components"]
        assert last["tests_total"] > 0
        last["tests_passed"] = last["tests_total"] + 1

    forged = forge_bundle(bundle, edit, tmp_path / "forged.tar.gz")
    with pytest.raises(Rejected, match=rf"^{name}: episodes\[0\]\.trace\[\d+\]\.reward_components"
                       r"\.tests_passed: replay gives \d"):
        validate_bundle(forged)
