"""``agentgym audit`` as a user runs it: a table, a JSON report, exit 1 on a failed check, one
line for bad input, and user envs through --import."""

from __future__ import annotations

import json

import pytest

from agentgym.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["audit", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_user_env_passes_through_import_and_writes_its_report(tmp_path, capsys):
    report = tmp_path / "audit.json"
    status, out, _ = run(capsys, "planted/Walk-v0", "--import", "planted_envs", "--episodes",
                         "2", "--budget", "0.5", "-q", "--json", str(report))
    assert status == 0, out
    assert "planted/Walk-v0: pass" in out
    (data,) = json.loads(report.read_text())
    assert data["env_id"] == "planted/Walk-v0" and data["passed"] is True
    assert data["agentgym_version"]
    names = [row["name"] for row in data["rows"]]
    assert names[0].startswith("reference") and "search" in names and "replay" in names


def test_a_planted_defect_exits_1_and_names_the_check(tmp_path, capsys):
    status, out, _ = run(capsys, "planted/Walk-v0", "--import", "planted_envs", "-k",
                         "defect=success-without-outcome", "--episodes", "2", "--budget", "0.5",
                         "-q")
    assert status == 1
    assert "FAIL: success means outcome" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "give one env id or --all"),
        (["agentgym/Sokoban-v0", "--all"], "give one env id or --all"),
        (["nope/Nothing-v0"], "unknown env id 'nope/Nothing-v0'"),
        (["agentgym/Sokoban-v0", "--episodes", "0"], "--episodes must be at least 1"),
        (["agentgym/Sokoban-v0", "--budget", "-3"], "--budget must be"),
        (["agentgym/Sokoban-v0", "--import", "no_such_module_here"], "--import"),
        (["agentgym/Sokoban-v0", "-k", "colour=red"], "takes no kwarg 'colour'"),
        (["CartPole-v1"], "not an agentgym text env"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
