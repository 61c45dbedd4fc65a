"""``agentgym tasks list | check`` and ``agentgym docker build-base`` as a user runs them."""

from __future__ import annotations

import shutil

import pytest
from terminal_support import FIXTURES, needs_docker

from agentgym import cli
from agentgym.environments.terminal.task import bundled_tasks


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_tasks_list_shows_every_bundled_task(capsys):
    code, out, err = run(capsys, "tasks", "list")
    assert code == 0 and err == ""
    tasks = bundled_tasks()
    for task in tasks:
        row = next(line for line in out.splitlines() if line.startswith(task.id + " "))
        assert task.difficulty in row and task.category in row and task.split in row
    assert f"{len(tasks)} tasks (" in out


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda root: (root / "task.toml").write_text(
            (root / "task.toml").read_text().replace('"easy"', '"expert"')),
         "task.toml: [metadata].difficulty must be easy | medium | hard, got 'expert'"),
        (lambda root: (root / "solution" / "solve.sh").unlink(), "solve.sh: missing"),
        (lambda root: shutil.rmtree(root / "tests"), "tests: missing"),
        (lambda root: (root / "task.toml").write_text("[task\nname="), "task.toml: not valid TOML"),
        (lambda root: (root / "environment" / "Dockerfile").write_text("FROM python:3.11\n"),
         "FROM must be agentgym/base:bookworm (nothing can be pulled offline), got 'python:3.11'"),
    ],
)
def test_tasks_check_refuses_a_broken_task_naming_file_and_field(capsys, tmp_path, edit,
                                                                  message):
    root = tmp_path / "sum-numbers"
    shutil.copytree(FIXTURES / "sum-numbers", root)
    edit(root)
    code, out, err = run(capsys, "tasks", "check", str(root))
    assert code == 1 and "Traceback" not in out + err
    fail = next(line for line in out.splitlines() if line.startswith("fail"))
    assert message in fail and str(root) in fail
    assert out.splitlines()[-1] == f"{root}: 1 check failed"


def test_tasks_check_of_a_missing_directory(capsys):
    code, out, _ = run(capsys, "tasks", "check", "/no/such/task")
    assert code == 1 and "/no/such/task: no such task directory" in out


def test_usage_errors_are_one_line(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["tasks"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "{list,check}" in err


@needs_docker
def test_tasks_check_passes_the_fixture_tasks(capsys):
    for name in ("sum-numbers", "harbor-sum"):
        code, out, err = run(capsys, "tasks", "check", str(FIXTURES / name))
        assert code == 0, out
        lines = out.splitlines()
        assert all(line.startswith("ok") for line in lines[:-1]), out
        assert any("reference solution scores 1.0" in line for line in lines)
        assert any("doing nothing scores 0" in line for line in lines)
        assert lines[-1].endswith(": usable")


@needs_docker
def test_tasks_check_fails_a_task_the_solution_does_not_solve(capsys, tmp_path):
    root = tmp_path / "sum-numbers"
    shutil.copytree(FIXTURES / "sum-numbers", root)
    (root / "solution" / "solve.sh").write_text("echo 41 > /app/answer.txt\n")
    code, out, _ = run(capsys, "tasks", "check", str(root))
    assert code == 1
    assert "fail  milestones after the solution: 02_answer_right do not hold" in out
    assert "fail  reference solution scores 1.0: 2 of 3 hidden tests pass" in out


@needs_docker
def test_docker_build_base_reuses_the_image(capsys):
    code, out, err = run(capsys, "docker", "build-base")
    assert code == 0 and err == ""
    assert "reusing agentgym/base:bookworm" in out and "base image ready" in out


def test_every_option_of_the_nested_commands_has_help():
    import argparse

    def subs(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return dict(action.choices)

    top = subs(cli.build_parser())
    nested = {"tasks": {"list", "check"}, "docker": {"build-base", "reap"}}
    for command, names in nested.items():
        assert set(subs(top[command])) == names
        for sub in subs(top[command]).values():
            for action in sub._actions:
                assert action.help and action.help != argparse.SUPPRESS, (command, action.dest)
