"""Every bundled task passes ``agentgym tasks check``: it builds offline, doing nothing scores 0,
the oracle (the reference solution as one command, then submit) scores 1.0 and makes every
milestone hold. The images are COPY-only builds on the shared base, so this takes a few
seconds per task.
"""

from __future__ import annotations

import pytest
from terminal_support import needs_docker

from agentgym.environments.terminal.checks import check_task
from agentgym.environments.terminal.task import bundled_tasks

TASKS = bundled_tasks()


@needs_docker
@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_bundled_task_passes_every_check(task):
    report = check_task(task.root, backend="docker")
    assert report.ok, "\n".join(report.lines())
    names = [c.name for c in report.checks if c.status == "ok"]
    assert "reference solution scores 1.0" in names and "doing nothing scores 0" in names
