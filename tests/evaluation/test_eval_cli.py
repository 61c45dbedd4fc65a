"""``agentgym eval``: splits, trials, agent options, the results file and one-line errors."""

from __future__ import annotations

import json
import os

import pytest
from test_cli_eval import one_error_line

from agentgym import cli, evaluation
from agentgym.eval_journal import journal_path
from agentgym.metrics import summarise
from agentgym.splits import task_set_hash

TTT = "agentgym/TicTacToe-v0"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--split", "dev"], "agentgym/TicTacToe-v0 has no split 'dev'; its splits: test"),
        (["--limit", "101"], "--limit 101 is over the 100 tasks of agentgym/TicTacToe-v0's"),
        (["--limit", "0"], "--limit must be a positive int, got 0"),
        (["--trials", "0"], "trials must be a positive int, got 0"),
        (["--workers", "0"], "workers must be a positive int, got 0"),
        (["--limit", "2", "--seed", "3"], "either a split (--split/--limit) or custom seeds"),
        (["-a", "model"], "agent option 'model' is not of the form name=value"),
        (["-a", "temperature=0.5"], "agent 'random' takes no option 'temperature'"),
        (["--agent", "llm", "-a", "model=/no/such"], "model '/no/such' does not exist"),
        (["--agent", "llm", "-a", "model=tiny-random", "-a", "top_p=2"], "top_p must be"),
        (["--out", "/proc/no/such/r.json"], "cannot create its folder"),
        (["--agent", "openai"], "agent 'openai' needs a server: set AGENTGYM_LLM_BASE_URL"),
        (["--agent", "openai", "-a", "base_url=http://127.0.0.1:9/v1", "-a", "retries=-1",
          "-a", "model=m"], "retries must be an int >= 0"),
    ],
)
def test_bad_input_is_one_line_before_any_episode(argv, message, capsys, monkeypatch):
    def no_episode(*args, **kwargs):
        raise AssertionError("no episode may run")

    monkeypatch.setattr(evaluation, "run_episode", no_episode)
    for var in ("AGENTGYM_LLM_BASE_URL", "OPENAI_BASE_URL", "AGENTGYM_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)
    assert cli.main(["eval", TTT, "-q", *argv]) == 2
    line = one_error_line(capsys)
    assert line.startswith("agentgym eval: error: ") and message in line


def test_an_unwritable_out_is_refused(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user that writes anywhere (root)")
        assert cli.main(["eval", TTT, "--limit", "1", "--out", str(locked / "r.json")]) == 2
        assert "not writable" in one_error_line(capsys)
    finally:
        locked.chmod(0o700)


def test_results_file_follows_the_schema_and_its_summary_is_metrics_summarise(tmp_path, capsys):
    out = tmp_path / "r.json"
    argv = ["eval", TTT, "--agent", "random", "--limit", "3", "--trials", "2", "--out",
            str(out), "-q"]
    assert cli.main(argv) == 0
    printed = capsys.readouterr().out
    assert "random on agentgym/TicTacToe-v0, split test (3 tasks) x 2 trials" in printed
    for row in ("score", "success rate", "pass^2", "mean process return", "mean outcome return",
                "mean steps", "tokens / episode", "failed episodes"):
        assert row in printed
    data = json.loads(out.read_text())
    assert list(data) == ["schema", "env_id", "env_kwargs", "split", "task_seeds",
                          "task_set_hash", "trials", "verifier", "agent", "episodes",
                          "summary", "versions"]
    assert data["schema"] == "agentgym.eval/2" and data["split"] == "test"
    assert data["task_set_hash"] == task_set_hash(TTT, {}, data["task_seeds"])
    assert data["agent"] == {"name": "random"}
    assert set(data["versions"]) == {"agentgym", "gymnasium", "numpy", "python"}
    assert len(data["episodes"]) == 6
    step = data["episodes"][0]["trace"][0]
    assert set(step) == {"action", "raw_text", "reward", "reward_components", "valid_action",
                         "action_error", "terminated", "truncated", "success",
                         "observation_sha", "prompt_tokens", "completion_tokens", "agent_s",
                         "env_s"}
    assert data["summary"] == summarise(data["episodes"], trials=2, family="games")
    assert not journal_path(out).exists()


def test_llm_agent_from_the_cli_records_its_options_and_tokens(tmp_path, capsys):
    out = tmp_path / "llm.json"
    argv = ["eval", TTT, "--agent", "llm", "-a", "model=tiny-random", "-a", "temperature=0.3",
            "-a", "max_new_tokens=4", "--limit", "1", "-k", "max_invalid=2", "--out", str(out),
            "-q"]
    assert cli.main(argv) == 0, capsys.readouterr().err
    data = json.loads(out.read_text())
    assert data["agent"]["model"] == "tiny-random" and data["agent"]["temperature"] == 0.3
    assert data["agent"]["max_new_tokens"] == 4 and data["agent"]["prompt"] == "standard"
    assert data["env_kwargs"] == {"max_invalid": 2}
    episode = data["episodes"][0]
    assert episode["prompt_tokens"] == sum(s["prompt_tokens"] for s in episode["trace"]) > 0
    assert all(s["raw_text"] == s["action"] for s in episode["trace"])
    assert data["summary"]["mean_completion_tokens"] == episode["completion_tokens"] > 0


def test_a_rerun_with_another_config_names_the_journal(tmp_path, capsys, monkeypatch):
    out = tmp_path / "r.json"
    journal = journal_path(out)
    journal.write_text(json.dumps({"journal": "agentgym.eval-journal/1", "config": {}}) + "\n")
    assert cli.main(["eval", TTT, "--limit", "2", "--out", str(out), "-q"]) == 2
    line = one_error_line(capsys)
    assert str(journal) in line and "delete it to start over, or give another --out" in line


def test_parallel_cli_run_matches_the_serial_one(tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    base = ["eval", "agentgym/Sokoban-v0", "--agent", "random", "--limit", "3", "-q"]
    assert cli.main([*base, "--out", str(a)]) == 0
    assert cli.main([*base, "--workers", "2", "--out", str(b)]) == 0
    strip = evaluation.without_timings
    assert strip(json.loads(a.read_text())) == strip(json.loads(b.read_text()))


def test_an_out_the_os_refuses_is_one_line_even_as_root(tmp_path, capsys, monkeypatch):
    # Root writes anywhere, so the permission answer is forced here: the refusal must come
    # before the run (no journal, no file) and be one line.
    monkeypatch.setattr(cli.os, "access", lambda path, mode: False)
    out = tmp_path / "r.json"
    assert cli.main(["eval", TTT, "--limit", "1", "--out", str(out)]) == 2
    assert "not writable" in one_error_line(capsys)
    assert not out.exists() and not journal_path(out).exists()
