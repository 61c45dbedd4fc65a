"""The bundled terminal tasks, checked by Harbor itself: its loader and its linter.

Harbor (PyPI ``harbor``, Terminal-Bench 2's harness) needs Python >= 3.12, so it lives in a
venv of its own: ``$AGENTGYM_HARBOR_PYTHON``, or ``.venv-harbor`` (made by
``scripts/setup_harbor.sh``, which CI's ``scripts/test.sh`` runs); skipped, with the reason,
when neither exists. By hand::

    bash scripts/setup_harbor.sh && .venv-harbor/bin/harbor lint environments/terminal/tasks/*/

A second test runs one task's ``tests/test.sh`` the way Harbor's separate verifier does
(``/tests``, root, the task's clean image) against real Docker: reward 0 untouched, 1 solved.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest
from terminal_support import needs_docker

from agentgym.environments.terminal.task import bundled_tasks

ROOT = Path(__file__).resolve().parents[2]
#: Where scripts/setup_harbor.sh (run by scripts/test.sh) puts harbor.
HARBOR_VENV_PYTHON = ROOT / ".venv-harbor" / "bin" / "python"
TASKS = bundled_tasks()

# Runs in Harbor's interpreter: load each task with Harbor's Task and is_valid_dir, and lint it
# with Harbor's default rules (lint_task directly, so no per-task [metadata.harbor.lint]
# ignore list can hide a finding).
_LOAD_AND_LINT = r"""
import json, sys
from importlib.metadata import version
from pathlib import Path
from harbor.lint import lint_task
from harbor.lint.models import DEFAULT_RULES
from harbor.models.task.task import Task

results = {}
for arg in sys.argv[1:]:
    root = Path(arg)
    try:
        Task(root)
        loaded = None
    except Exception as exc:
        loaded = f"{type(exc).__name__}: {exc}"
    findings = [f"{f.path}: [{f.rule}] {f.message}"
                for f in lint_task(root, selected_rules=set(DEFAULT_RULES))]
    results[root.name] = {"task_error": loaded, "is_valid_dir": Task.is_valid_dir(root),
                          "lint": findings}
print(json.dumps({"version": version("harbor"), "tasks": results}))
"""
# Harbor's own command line, `harbor lint TASK_DIR...` (exit 0 and no output when clean).
_CLI = "import sys; sys.argv[0] = 'harbor'; from harbor.cli.main import app; app()"


def _harbor_python() -> str:
    if os.environ.get("AGENTGYM_HARBOR_PYTHON"):
        return os.environ["AGENTGYM_HARBOR_PYTHON"]
    if HARBOR_VENV_PYTHON.exists():
        return str(HARBOR_VENV_PYTHON)
    pytest.skip("SKIPPED HARBOR CHECK: no Harbor venv (run scripts/setup_harbor.sh, which "
                "needs a Python >= 3.12, or set AGENTGYM_HARBOR_PYTHON to a Python that has "
                "harbor 0.25)")


def test_every_bundled_task_loads_in_harbor_and_lints_clean():
    python = _harbor_python()
    dirs = [str(t.root) for t in TASKS]
    out = subprocess.run([python, "-c", _LOAD_AND_LINT, *dirs], capture_output=True,
                         text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["version"].startswith("0.25."), report["version"]
    assert sorted(report["tasks"]) == sorted(t.id for t in TASKS)
    problems = [f"{name}: Task() raised {r['task_error']}" for name, r in report["tasks"].items()
                if r["task_error"]]
    problems += [f"{name}: is_valid_dir is False" for name, r in report["tasks"].items()
                 if not r["is_valid_dir"]]
    problems += [line for r in report["tasks"].values() for line in r["lint"]]
    assert not problems, "\n".join(problems)

    cli = subprocess.run([python, "-c", _CLI, "lint", *dirs], capture_output=True, text=True,
                         timeout=300, check=False, cwd=ROOT)
    assert cli.returncode == 0 and not cli.stdout.strip(), cli.stdout[-3000:] + cli.stderr[-2000:]


def test_harbor_rejects_the_old_layout(tmp_path):
    # The check has teeth: a task.toml of the pre-Harbor layout fails Harbor's lint.
    python = _harbor_python()
    task = next(t for t in TASKS if t.id == "csv-column-sum")
    root = tmp_path / task.id
    shutil.copytree(task.root, root)
    toml = root / "task.toml"
    toml.write_text(toml.read_text().replace('environment_mode = "separate"\n', "")
                    + "\n[agentgym]\nsplit = \"train\"\n")
    (root / "tests" / "test.sh").unlink()
    out = subprocess.run([python, "-c", _LOAD_AND_LINT, str(root)], capture_output=True,
                         text=True, timeout=120, check=False)
    result = json.loads(out.stdout.strip().splitlines()[-1])["tasks"][task.id]
    assert result["task_error"] and "tests/test.sh" in result["task_error"]
    assert not result["is_valid_dir"]
    lint = "\n".join(result["lint"])
    for rule in ("unknown-config-field", "shared-verifier", "invalid-task-files"):
        assert f"[{rule}]" in lint, lint


def _docker(*args: str, check: bool = True, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout,
                          check=check)


@needs_docker
@pytest.mark.parametrize("task_id", ["csv-column-sum", "py-parse-duration"])
def test_test_sh_writes_harbors_reward_in_the_clean_image(task_id):
    # py-parse-duration's tests call the agent's package through agentgym_harness, which the
    # base image carries for exactly this: Harbor copies only tests/.
    task = next(t for t in TASKS if t.id == task_id)
    tag = f"agentgym/harbor-check-{task.id}:latest"
    _docker("build", "--network", "none", "-q", "-t", tag, str(task.environment_dir))
    name = f"agentgym-harbor-check-{uuid.uuid4().hex[:8]}"
    _docker("run", "-d", "--name", name, "--network", "none", tag, "sleep", "300")
    try:
        _docker("cp", f"{task.tests_dir}/.", f"{name}:/tests")
        _docker("cp", str(task.solution_path), f"{name}:/tmp/solve.sh")

        def reward() -> str:
            _docker("exec", name, "bash", "/tests/test.sh", check=False)
            return _docker("exec", name, "cat", "/logs/verifier/reward.txt").stdout.strip()

        assert reward() == "0"  # the untouched workspace
        _docker("exec", "-u", "1000:1000", "-w", task.workdir, name, "bash", "/tmp/solve.sh")
        assert reward() == "1"
    finally:
        _docker("rm", "-f", name, check=False)
