"""A terminal task: its directory (Harbor's layout) parsed and validated into a :class:`Task`.

A task directory holds ``task.toml``, ``instruction.md``, ``environment/Dockerfile`` (``FROM``
the project's base image) and the files it copies, ``tests/`` (hidden: ``test_*.py`` run by
pytest, and/or Harbor's ``tests/test.sh`` writing ``/logs/verifier/reward.txt``),
``solution/solve.sh`` and optional ``milestones/*.sh``. Every error names the file and the
field, so ``agentgym tasks check`` can print it as it is::

    path/to/task.toml: [metadata].difficulty must be easy | medium | hard, got 'expert'

``task.toml`` is Harbor's schema (``harbor lint`` reports no unknown field): Harbor's own keys
where Harbor has one (``[environment].network_mode``, ``[environment].workdir``, the budgets
and limits), agentgym's own keys under the free-form ``[metadata.agentgym]`` table (``split``,
``max_steps``, ``command_timeout_sec``, ``pids``, ``test_count``). A key of the old layout is
refused with one line saying where it moved (:data:`MOVED_KEYS`).

>>> from agentgym.environments.terminal.task import bundled_tasks
>>> all(t.split in ("train", "test") for t in bundled_tasks())
True
"""

from __future__ import annotations

import math
import posixpath
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentgym.sandbox.limits import Limits

__all__ = [
    "CATEGORIES",
    "DIFFICULTIES",
    "MOVED_KEYS",
    "SPLITS",
    "TASKS_DIR",
    "Task",
    "TaskError",
    "bundled_task_ids",
    "bundled_tasks",
    "find_task",
    "load_task",
    "tasks_in_split",
]

#: Where the bundled tasks live (one directory per task id).
TASKS_DIR = Path(__file__).resolve().parent / "tasks"
DIFFICULTIES: tuple[str, ...] = ("easy", "medium", "hard")
SPLITS: tuple[str, ...] = ("train", "test")
#: The bundled tasks' categories; a task from elsewhere (Harbor) may name its own.
CATEGORIES: tuple[str, ...] = ("shell", "text", "git", "python", "data", "build", "logs")
# Paths an artifact may not be under: the verifier's own places, the system, kernel views.
# Copying /usr or /etc out of the agent's container would carry its edits into the test run.
_FORBIDDEN_ARTIFACT_ROOTS = (
    "/verifier", "/logs", "/tests", "/proc", "/sys", "/dev", "/usr", "/lib", "/lib64", "/bin",
    "/sbin", "/etc", "/boot", "/run", "/var/lib", "/opt/venv",
)


#: Keys of the pre-Harbor layout and where each one lives now (``harbor lint`` rejects the old
#: places as unknown fields, and ``allow_internet`` is deprecated there).
MOVED_KEYS: dict[tuple[str, str], str] = {
    ("agent", "max_steps"): "[metadata.agentgym].max_steps",
    ("agent", "command_timeout_sec"): "[metadata.agentgym].command_timeout_sec",
    ("environment", "pids"): "[metadata.agentgym].pids",
    ("environment", "allow_internet"): '[environment].network_mode ("no-network" | "public")',
    ("agentgym", "split"): "[metadata.agentgym].split",
    ("agentgym", "workdir"): "[environment].workdir",
}
# Harbor's network modes agentgym can honour (its sandbox has no host allowlist).
_NETWORK_MODES: dict[str, bool] = {"no-network": False, "public": True}
_AGENTGYM_KEYS = frozenset({"split", "max_steps", "command_timeout_sec", "pids", "test_count"})

# Artifact paths and the workdir go into shell scripts of the verifier: plain characters only.
_PLAIN_PATH = re.compile(r"[A-Za-z0-9._/-]+")


class TaskError(ValueError):
    """A task directory that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class Task:
    """One parsed, validated task directory.

    ``id`` is the directory's name (``task.toml``'s ``[task].name`` ends with it,
    ``agentgym/<id>`` for the bundled tasks). ``test_kind`` is ``"pytest"`` when ``tests/`` has
    ``test_*.py`` files (agentgym's verifier runs them; a ``tests/test.sh`` beside them is only
    for Harbor) and ``"harbor"`` for a ``tests/test.sh`` alone. ``test_count`` is the number of
    test cases pytest collects, as ``task.toml`` declares it (required for pytest tasks, None
    for a Harbor task that does not declare one). ``limits`` are the sandbox limits of the
    agent's container (and of the verifier's, with the verifier's timeout).

    >>> task = load_task(TASKS_DIR / bundled_tasks()[0].id)
    >>> task.workdir, task.difficulty in DIFFICULTIES
    ('/app', True)
    """

    id: str
    name: str
    description: str
    difficulty: str
    category: str
    tags: tuple[str, ...]
    split: str
    max_steps: int
    command_timeout_s: float
    agent_timeout_s: float
    limits: Limits
    verifier_timeout_s: float
    build_timeout_s: float
    artifacts: tuple[str, ...]
    workdir: str
    root: Path
    instruction_path: Path
    environment_dir: Path
    tests_dir: Path
    solution_path: Path
    milestone_paths: tuple[Path, ...]
    test_kind: str
    test_count: int | None = None

    @property
    def instruction(self) -> str:
        """The text of ``instruction.md`` (what the agent is asked to do)."""
        return self.instruction_path.read_text(encoding="utf-8").strip()

    @property
    def solution(self) -> str:
        """The text of ``solution/solve.sh``."""
        return self.solution_path.read_text(encoding="utf-8")

    def milestones(self) -> list[tuple[str, str]]:
        """``(name, script text)`` of each milestone, in file-name order."""
        return [(p.stem, p.read_text(encoding="utf-8")) for p in self.milestone_paths]


# ---------------------------------------------------------------------- field readers
class _Fields:
    """Reads typed fields out of one parsed TOML file, with errors naming file and field."""

    def __init__(self, path: Path, data: dict[str, Any]) -> None:
        self.path = path
        self.data = data

    def fail(self, field: str, message: str) -> TaskError:
        return TaskError(f"{self.path}: {field} {message}")

    def section(self, name: str) -> dict[str, Any]:
        """The table ``name`` (dotted when nested: ``"metadata.agentgym"``); ``{}`` if absent."""
        value: Any = self.data
        for depth, part in enumerate(name.split(".")):
            value = value.get(part, {})
            if not isinstance(value, dict):
                where = ".".join(name.split(".")[: depth + 1])
                raise self.fail(f"[{where}]", f"must be a table, got {type(value).__name__}")
        return value

    def get(self, section: str | None, key: str, default: Any = ..., *, kind: Any = str) -> Any:
        table = self.data if section is None else self.section(section)
        field = key if section is None else f"[{section}].{key}"
        if key not in table:
            if default is ...:
                raise self.fail(field, "is missing")
            return default
        value = table[key]
        if kind is float:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise self.fail(field, f"must be a number, got {value!r}")
            if not math.isfinite(value):
                raise self.fail(field, f"must be a finite number, got {value!r}")
            return float(value)
        if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise self.fail(field, f"must be an integer, got {value!r}")
        if kind is not int and not isinstance(value, kind):
            want = {str: "a string", bool: "true or false", list: "a list"}.get(kind, kind)
            raise self.fail(field, f"must be {want}, got {value!r}")
        return value

    def number(self, section: str, key: str, default: float, low: float, high: float) -> float:
        value = self.get(section, key, default, kind=float)
        if not low < value <= high:
            raise self.fail(f"[{section}].{key}", f"must be in ({low:g}, {high:g}], got {value:g}")
        return value

    def integer(self, section: str, key: str, default: int, low: int, high: int) -> int:
        value = self.get(section, key, default, kind=int)
        if not low <= value <= high:
            raise self.fail(f"[{section}].{key}", f"must be in [{low}, {high}], got {value}")
        return value

    def choice(self, section: str, key: str, choices: tuple[str, ...], default: Any = ...) -> str:
        value = self.get(section, key, default)
        if value not in choices:
            raise self.fail(f"[{section}].{key}", f"must be {' | '.join(choices)}, got {value!r}")
        return value

    def strings(self, section: str | None, key: str, default: list[str]) -> tuple[str, ...]:
        value = self.get(section, key, default, kind=list)
        field = key if section is None else f"[{section}].{key}"
        for item in value:
            if not isinstance(item, str) or not item.strip():
                raise self.fail(field, f"must be a list of non-empty strings, got {item!r}")
        return tuple(value)


def _check_artifact(fields: _Fields, path: str) -> str:
    if not _PLAIN_PATH.fullmatch(path):
        raise fields.fail("artifacts", f"must be paths of letters, digits and ._-/, got {path!r}")
    if not path.startswith("/"):
        raise fields.fail("artifacts", f"must hold absolute paths, got {path!r}")
    norm = posixpath.normpath(path)
    if norm != path.rstrip("/") or ".." in path.split("/") or norm == "/":
        raise fields.fail("artifacts", f"must hold plain absolute paths below /, got {path!r}")
    for bad in _FORBIDDEN_ARTIFACT_ROOTS:
        if norm == bad or norm.startswith(bad + "/"):
            raise fields.fail("artifacts", f"may not copy {path!r} (under {bad})")
    return norm


def _refuse_unknown(fields: _Fields, section: str, known: set[str] | frozenset[str]) -> None:
    unknown = sorted(set(fields.section(section)) - known)
    if unknown:
        names = ", ".join(sorted(known))
        raise fields.fail(f"[{section}].{unknown[0]}", f"is not a known key ({names})")


def _require_file(root: Path, rel: str, what: str) -> Path:
    path = root / rel
    if not path.is_file():
        raise TaskError(f"{path}: missing ({what})")
    return path


def load_task(directory: str | Path) -> Task:
    """Parse and validate the task in ``directory``.

    Raises:
        TaskError: a file is missing or ``task.toml`` has a bad field; the message names
            the file and the field.

    >>> try:
    ...     load_task("/nonexistent/task")
    ... except TaskError as exc:
    ...     print(exc)
    /nonexistent/task: no such task directory
    """
    root = Path(directory)
    if not root.is_dir():
        raise TaskError(f"{root}: no such task directory")
    toml_path = root / "task.toml"
    if not toml_path.is_file():
        raise TaskError(f"{toml_path}: missing (every task has a task.toml)")
    try:
        data = tomllib.loads(toml_path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TaskError(f"{toml_path}: not valid TOML: {exc}") from None
    f = _Fields(toml_path, data)
    # The old layout: one line saying where the key lives now.
    if "agentgym" in data:
        raise f.fail("[agentgym]", "moved: split to [metadata.agentgym].split, workdir to "
                     "[environment].workdir (Harbor rejects unknown tables)")
    for (table, key), place in MOVED_KEYS.items():
        if table != "agentgym" and key in f.section(table):
            raise f.fail(f"[{table}].{key}", f"moved to {place} (Harbor's task.toml schema)")

    f.get(None, "version", "1.0")
    name = f.get("task", "name")
    task_id = root.resolve().name
    if name.rsplit("/", 1)[-1] != task_id:
        raise f.fail("[task].name", f"must end with the directory name {task_id!r}, got {name!r}")
    description = f.get("task", "description", "")

    difficulty = f.choice("metadata", "difficulty", DIFFICULTIES)
    category = f.get("metadata", "category")
    if not category.strip():
        raise f.fail("[metadata].category", "must not be empty")
    tags = f.strings("metadata", "tags", [])

    # A typo in these would silently fall back to a default budget.
    _refuse_unknown(f, "agent", {"timeout_sec", "user"})
    _refuse_unknown(f, "metadata.agentgym", _AGENTGYM_KEYS)

    gym = "metadata.agentgym"
    max_steps = f.integer(gym, "max_steps", 30, 1, 1000)
    command_timeout = f.number(gym, "command_timeout_sec", 10.0, 0.0, 600.0)
    agent_timeout = f.number("agent", "timeout_sec", 300.0, 0.0, 86_400.0)
    verifier_timeout = f.number("verifier", "timeout_sec", 60.0, 0.0, 3600.0)
    # agentgym always verifies in a fresh container of the clean image: Harbor's "separate".
    f.choice("verifier", "environment_mode", ("separate",), "separate")

    build_timeout = f.number("environment", "build_timeout_sec", 120.0, 0.0, 7200.0)
    cpus = f.number("environment", "cpus", 1.0, 0.0, 64.0)
    memory_mb = f.integer("environment", "memory_mb", 512, 64, 65_536)
    storage_mb = f.integer("environment", "storage_mb", 256, 1, 65_536)
    pids = f.integer(gym, "pids", 128, 16, 4096)
    # Harbor's default is "public"; agentgym's stays offline unless the task says otherwise.
    internet = _NETWORK_MODES[f.choice("environment", "network_mode", tuple(_NETWORK_MODES),
                                       "no-network")]

    split = f.choice(gym, "split", SPLITS, "train")
    workdir = f.get("environment", "workdir", "/app")
    if (not _PLAIN_PATH.fullmatch(workdir) or not workdir.startswith("/")
            or posixpath.normpath(workdir) != workdir or workdir == "/"):
        raise f.fail("[environment].workdir", f"must be a plain absolute path, got {workdir!r}")
    artifacts = tuple(_check_artifact(f, p) for p in f.strings(None, "artifacts", [workdir]))
    if not artifacts:
        raise f.fail("artifacts", "must list at least one path")

    instruction = _require_file(root, "instruction.md", "what the agent is asked to do")
    if not instruction.read_text(encoding="utf-8", errors="replace").strip():
        raise TaskError(f"{instruction}: is empty")
    environment = root / "environment"
    _require_file(root, "environment/Dockerfile", "the task image, FROM the base image")
    solution = _require_file(root, "solution/solve.sh", "the reference solution")
    tests = root / "tests"
    # test_*.py are agentgym's hidden tests even beside a test.sh (which is then Harbor's).
    if tests.is_dir() and any(tests.glob("test_*.py")):
        test_kind = "pytest"
    elif (tests / "test.sh").is_file():
        test_kind = "harbor"
    else:
        raise TaskError(f"{tests}: missing (hidden tests: tests/test_*.py or tests/test.sh)")
    # What pytest collects; the verifier fails a run whose JUnit total differs.
    test_count = None
    if test_kind == "pytest" or "test_count" in f.section(gym):
        test_count = f.integer(gym, "test_count", ..., 1, 10_000)
    milestones = tuple(sorted((root / "milestones").glob("*.sh")))

    return Task(
        id=task_id,
        name=name,
        description=description,
        difficulty=difficulty,
        category=category,
        tags=tags,
        split=split,
        max_steps=max_steps,
        command_timeout_s=command_timeout,
        agent_timeout_s=agent_timeout,
        limits=Limits(
            memory_mb=memory_mb,
            cpus=cpus,
            pids=pids,
            network=internet,
            workspace_mb=storage_mb,
            command_timeout_s=command_timeout,
        ),
        verifier_timeout_s=verifier_timeout,
        build_timeout_s=build_timeout,
        artifacts=artifacts,
        workdir=workdir,
        root=root.resolve(),
        instruction_path=instruction,
        environment_dir=environment.resolve(),
        tests_dir=tests.resolve(),
        solution_path=solution,
        milestone_paths=milestones,
        test_kind=test_kind,
        test_count=test_count,
    )


def _task_dirs(tasks_dir: Path) -> list[Path]:
    if not tasks_dir.is_dir():
        return []
    return sorted(p for p in tasks_dir.iterdir() if p.is_dir() and p.name[0] not in "._")


def bundled_task_ids(tasks_dir: Path = TASKS_DIR) -> tuple[str, ...]:
    """The ids of the bundled tasks, sorted, from the folder names alone (nothing is parsed).

    Only folders with a ``task.toml``: :func:`find_task` resolves exactly those ids to the
    bundled task, never to a directory of the same name elsewhere.

    >>> bundled_task_ids() == tuple(t.id for t in bundled_tasks())
    True
    """
    return tuple(p.name for p in _task_dirs(tasks_dir) if (p / "task.toml").is_file())


def bundled_tasks(tasks_dir: Path = TASKS_DIR) -> list[Task]:
    """Every bundled task, sorted by id (a broken one raises :class:`TaskError`).

    >>> ids = [t.id for t in bundled_tasks()]
    >>> ids == sorted(ids)
    True
    """
    return [load_task(d) for d in _task_dirs(tasks_dir)]


def tasks_in_split(split: str, tasks_dir: Path = TASKS_DIR) -> list[Task]:
    """The bundled tasks of ``split`` (``"train"`` or ``"test"``), sorted by id.

    >>> {t.split for t in tasks_in_split("test")} <= {"test"}
    True
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    return [t for t in bundled_tasks(tasks_dir) if t.split == split]


def find_task(name: str, tasks_dir: Path = TASKS_DIR) -> Task:
    """A bundled task by id (``"csv-column-sum"`` or ``"agentgym/csv-column-sum"``), or any
    task directory by path (a name with a ``/`` that is a directory, or one that exists).

    >>> find_task(bundled_tasks()[0].id).id == bundled_tasks()[0].id
    True
    """
    if not isinstance(name, str) or not name.strip():
        raise TaskError(f"task must be a task id or a task directory, got {name!r}")
    bare = name.removeprefix("agentgym/")
    candidate = tasks_dir / bare
    if "/" not in bare and (candidate / "task.toml").is_file():
        return load_task(candidate)
    if Path(name).is_dir():
        return load_task(name)
    known = ", ".join(p.name for p in sorted(tasks_dir.iterdir()) if p.is_dir()) or "none"
    raise TaskError(f"unknown task {name!r}; bundled tasks: {known}")
