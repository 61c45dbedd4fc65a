"""Terminal-v0: shell and coding tasks in sandboxed containers, scored by hidden tests.

Modules: :mod:`.task` (a task directory in Harbor's layout, parsed and validated),
:mod:`.verifier` (artifacts out, stripped, into a clean container, hidden tests in, JUnit XML
or Harbor's reward file back; the milestones of the process reward), :mod:`.env`
(:class:`~.env.TerminalEnv`, ``agentgym/Terminal-v0``'s entry point), :mod:`.agents` (what the
generic oracle and random agents play here), :mod:`.checks` (``agentgym tasks check``).
The sandboxes come from :mod:`agentgym.sandbox`; the bundled tasks live in ``tasks/``.
"""

from .task import Task, TaskError, bundled_tasks, find_task, load_task, tasks_in_split

__all__ = ["Task", "TaskError", "bundled_tasks", "find_task", "load_task", "tasks_in_split"]
