"""``agentgym eval``: every failure path is one line on stderr and exit status 2."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
from rich.console import Console
from test_cli import COUNTER, CRASHES, NEEDS_BROWSER, register_toys

from agentgym import cli
from agentgym.evaluation import EvalReport, evaluate

register_toys()


def one_error_line(capsys) -> str:
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        # Registered with Gymnasium, but not an agentgym text env.
        (["eval", "CartPole-v1", "--episodes", "1"],
         "CartPole-v1 is a Gymnasium env but not an agentgym text env"),
        # An id outside the registry has no pinned split: custom seeds are asked for.
        (["eval", "CartPole-v1"], "has no pinned evaluation splits"),
        (["eval", "agentgym/Nope-v0"], "unknown env id 'agentgym/Nope-v0'; agentgym ids: "),
        # The unknown kwarg's message lists the valid ones, read off the class signature.
        (
            ["eval", COUNTER, "--episodes", "1", "-k", "gaol=2"],
            "takes no kwarg 'gaol'; valid kwargs: goal, reward_mode, render_mode, "
            "score_process, max_steps, invalid_penalty, max_invalid",
        ),
        (["eval", COUNTER, "--episodes", "1", "-k", "max_steps=0"],
         "max_steps must be in [1, 100000]"),
        (["eval", COUNTER, "--episodes", "1", "-k", "goal"], "is not of the form name=value"),
        (["eval", COUNTER, "--episodes", "0"], "episodes must be a positive int"),
        (["eval", COUNTER, "--seed", "-2"], "seed must be a non-negative int"),
        # A family agent on another family: refused before any episode is played.
        (
            ["eval", "agentgym/Sokoban-v0", "--agent", "webshop-rule"],
            "agent 'webshop-rule' plays only webshop envs; agentgym/Sokoban-v0 is a games env",
        ),
        (["eval", COUNTER, "--episodes", "1", "--agent", "webshop-rule"],
         "is not in the agentgym registry"),
        # What a browser env without Playwright raises at gym.make, many lines long.
        (["eval", NEEDS_BROWSER, "--episodes", "1"],
         "mode='browser' needs Playwright: pip install"),
        # A family bug mid-episode: still one line, with the exception's first line.
        (["eval", CRASHES, "--episodes", "1", "--agent", "oracle", "-q"],
         "the solver lost its table"),
        # An unwritable --out is refused before the run, not after it.
        (["eval", COUNTER, "--episodes", "1", "--out", "/proc/no/such/r.json"],
         "cannot create its folder"),
        (["eval", COUNTER, "--episodes", "1", "--out", "/"], "is a directory"),
    ],
)
def test_eval_failures_are_one_line_exit_2(argv, message, capsys):
    assert cli.main(argv) == 2
    line = one_error_line(capsys)
    assert line.startswith("agentgym eval: error: ")
    assert message in line


def test_eval_on_a_toy_env_writes_json_and_titles_the_run(tmp_path, capsys):
    out = tmp_path / "sub" / "r.json"
    argv = ["eval", COUNTER, "--agent", "oracle", "--episodes", "3", "--seed", "5",
            "-k", "goal=2", "--out", str(out), "-q"]
    assert cli.main(argv) == 0
    printed = capsys.readouterr().out
    assert "oracle on agentgym-test/Counter-v0 (goal=2), seeds 5..7" in printed
    assert "success rate" in printed and "100.0%" in printed and "wrote" in printed
    assert "score (mean R x 100)" not in printed  # a WebShop number only
    data = json.loads(out.read_text())
    assert data["schema"] == "agentgym.eval/2" and data["env_kwargs"] == {"goal": 2}
    assert data["split"] is None and data["task_seeds"] == [5, 6, 7] and data["trials"] == 1
    assert [e["seed"] for e in data["episodes"]] == [5, 6, 7]
    assert all(e["steps"] == 2 and e["success"] for e in data["episodes"])


def test_title_of_a_one_episode_run_names_its_seed():
    report = evaluate(COUNTER, "random", episodes=1, seed=9, progress=False)
    assert cli.run_title(report) == "random on agentgym-test/Counter-v0, seed 9"


def rendered(report: EvalReport) -> str:
    console = Console(file=io.StringIO(), width=120, color_system=None)
    console.print(cli._summary_table(report))
    return console.file.getvalue()


def test_webshop_summary_prints_the_score_the_readme_quotes():
    report = evaluate(COUNTER, "oracle", episodes=2, progress=False)
    # A WebShop run's score row says it is mean R x 100 (elsewhere: the success rate x 100).
    assert "score (success % )" in rendered(report)
    report.env_id, report.summary["score"] = "agentgym/WebShop-v0", 45.6
    text = rendered(report)
    assert "score (mean R x 100)" in text and "45.6" in text


@pytest.mark.slow
def test_webshop_eval_reports_its_score(capsys):
    argv = ["eval", "agentgym/WebShop-v0", "--agent", "oracle", "--episodes", "2",
            "-k", "num_products=2000", "-q"]
    assert cli.main(argv) == 0, capsys.readouterr().err
    printed = capsys.readouterr().out
    assert "score (mean R x 100)" in printed and "100.0" in printed
    assert "(num_products=2000), seeds 0..1" in printed


def test_browser_mode_without_playwright_is_one_line_with_the_install_command():
    script = (
        "import sys\n"
        "sys.modules['playwright'] = None  # as if it were not installed\n"
        "sys.modules['playwright.sync_api'] = None\n"
        "from agentgym.cli import main\n"
        "sys.exit(main(['eval', 'agentgym/WebShop-v0', '-k', 'mode=browser', '-k',\n"
        "               'num_products=2000', '--episodes', '1', '-q']))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("agentgym eval: error: ")
    assert "pip install" in lines[0]
