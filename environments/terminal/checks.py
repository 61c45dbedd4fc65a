"""``agentgym tasks check DIR``: is a task directory usable, and does it measure anything?

:func:`check_task` runs, in order (a failed step stops the ones that need it):

1. ``task.toml`` and the files parse and validate (:func:`.task.load_task`);
2. the Dockerfile starts ``FROM`` the project's base image (nothing can be pulled offline),
   the hidden tests reach the agent's code only through ``agentgym_harness``
   (:func:`.boundary.boundary_violations`: no import of it, no process of its started by the
   tests themselves) and the solution fits in one action;
3. the image builds offline;
4. doing nothing scores 0 (``reset`` then ``submit``), and not every milestone holds at the
   start (a warning: such a milestone cannot shape anything);
5. the reference solution, played as the ``oracle`` agent plays it (one command, then
   ``submit``), exits 0, makes every milestone hold and scores 1.0.

Every check is one line of the report (``ok``, ``warn``, ``fail`` or ``skip``).

>>> report = check_task("/nonexistent/task")
>>> report.ok, report.lines()[0]
(False, 'fail  task.toml and files: /nonexistent/task: no such task directory')
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from .agents import SUBMIT, solve_command
from .boundary import boundary_violations
from .task import Task, TaskError, load_task

__all__ = ["Check", "CheckReport", "check_task", "dockerfile_base"]

BASE_IMAGE = "agentgym/base:bookworm"


@dataclass(frozen=True)
class Check:
    """One line of a report: what was checked, ``ok`` | ``warn`` | ``fail`` | ``skip``, why."""

    name: str
    status: str
    detail: str

    def line(self) -> str:
        return f"{self.status:<5} {self.name}: {self.detail}"


@dataclass(frozen=True)
class CheckReport:
    """The checks of one task directory; ``ok`` when none failed."""

    directory: str
    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return all(c.status != "fail" for c in self.checks)

    def lines(self) -> list[str]:
        return [c.line() for c in self.checks]


def dockerfile_base(dockerfile: str) -> str | None:
    """The image the first ``FROM`` of a Dockerfile names (None without one).

    >>> dockerfile_base("# c\\nARG X=1\\nFROM agentgym/base:bookworm AS b\\nRUN true\\n")
    'agentgym/base:bookworm'
    """
    for raw in dockerfile.splitlines():
        line = raw.strip()
        if line.upper().startswith("FROM "):
            words = [w for w in line.split()[1:] if not w.startswith("--")]
            return words[0] if words else None
    return None


def check_task(directory: str | Path, *, backend: str = "auto") -> CheckReport:
    """Run every check of the module docstring on the task in ``directory``; never raises
    for a broken task (each problem is a ``fail`` line naming the file and field)."""
    checks: list[Check] = []

    def add(name: str, status: str, detail: str) -> None:
        checks.append(Check(name, status, detail))

    def report() -> CheckReport:
        return CheckReport(str(directory), tuple(checks))

    try:
        task = load_task(directory)
    except TaskError as exc:
        add("task.toml and files", "fail", str(exc))
        return report()
    add("task.toml and files", "ok",
        f"{task.id}: {task.difficulty} {task.category}, split {task.split}, {task.test_kind} "
        f"tests ({task.test_count or 'no'} declared), {len(task.milestone_paths)} milestones, "
        f"{task.max_steps} steps")

    base = dockerfile_base((task.environment_dir / "Dockerfile").read_text(errors="replace"))
    if base != BASE_IMAGE:
        add("Dockerfile FROM", "fail",
            f"{task.environment_dir / 'Dockerfile'}: FROM must be {BASE_IMAGE} (nothing can be "
            f"pulled offline), got {base!r}")
        return report()
    add("Dockerfile FROM", "ok", BASE_IMAGE)

    if task.test_kind == "pytest":
        crossings = boundary_violations(task.tests_dir)
        if crossings:
            add("hidden tests behind the harness", "fail",
                f"{task.tests_dir}/{crossings[0]}"
                + (f" (and {len(crossings) - 1} more)" if len(crossings) > 1 else ""))
            return report()
        add("hidden tests behind the harness", "ok",
            "no import of the agent's code, no process started outside agentgym_harness")

    from .env import TerminalEnv

    solve = solve_command(task.solution, workdir=task.workdir)
    if len(solve) > TerminalEnv.max_action_length:
        add("solution size", "fail",
            f"{task.solution_path}: {len(solve)} characters as one command; the action limit is "
            f"{TerminalEnv.max_action_length}")
        return report()

    image = _build(task, backend, add)
    if image is None:
        return report()
    _play(task, backend, add)
    return report()


def _build(task: Task, backend_name: str, add) -> str | None:
    from agentgym.sandbox import make_backend

    start = time.monotonic()
    try:
        backend = make_backend(backend_name)
    except Exception as exc:  # SandboxError, a missing SDK
        add("image builds offline", "fail", f"no sandbox backend: {exc}")
        return None
    try:
        image = backend.prepare(task.environment_dir, tag=f"agentgym/task-{task.id}")
    except Exception as exc:  # SandboxError with the build log's last line
        add("image builds offline", "fail", f"{task.environment_dir}: {exc}")
        return None
    finally:
        backend.close()
    add("image builds offline", "ok", f"{image} ({time.monotonic() - start:.1f} s)")
    return image


def _play(task: Task, backend: str, add) -> None:
    from .env import TerminalEnv

    env = TerminalEnv(task=str(task.root), backend=backend)
    try:
        env.reset(seed=0)
        before = env.milestone_status()
        _, _, _, _, info = env.step(SUBMIT)
        verdict = info["verdict"]
        if info["reward_components"]["outcome"] == 0.0:
            add("doing nothing scores 0", "ok",
                f"{verdict['passed']} of {verdict['total']} hidden tests pass")
        else:
            add("doing nothing scores 0", "fail",
                f"submitting the untouched task already passes {verdict['passed']} of "
                f"{verdict['total']} hidden tests")
        if before and all(held for _, held in before):
            add("milestones before", "warn", "every milestone already holds at the start")
        elif before:
            add("milestones before", "ok",
                f"{sum(h for _, h in before)} of {len(before)} hold at the start")

        env.reset(seed=0)
        obs, _, _, _, info = env.step(env.oracle_actions()[0])
        if info.get("exit_code") != 0:
            tail = " | ".join(obs.splitlines()[-6:])
            add("reference solution", "fail",
                f"{task.solution_path} exited {info.get('exit_code')}: {tail}")
            return
        after = env.milestone_status()
        failing = [name for name, held in after if not held]
        if failing:
            add("milestones after the solution", "fail",
                f"{', '.join(failing)} do not hold after {task.solution_path.name}")
        elif after:
            add("milestones after the solution", "ok", f"all {len(after)} hold")
        start = time.monotonic()
        _, _, _, _, info = env.step(SUBMIT)
        seconds = time.monotonic() - start
        verdict = info["verdict"]
        if info["reward_components"]["outcome"] == 1.0 and info["success"]:
            add("reference solution scores 1.0", "ok",
                f"{verdict['passed']} of {verdict['total']} hidden tests pass "
                f"(verifier {seconds:.1f} s)")
        else:
            reason = f" ({verdict['reason']})" if verdict["reason"] else ""
            add("reference solution scores 1.0", "fail",
                f"{verdict['passed']} of {verdict['total']} hidden tests pass{reason}")
    except Exception as exc:  # a backend failure mid-check is a failed check, not a crash
        add("episode", "fail", f"{type(exc).__name__}: {exc}")
    finally:
        env.close()
