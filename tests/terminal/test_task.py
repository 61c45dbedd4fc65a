"""task.toml parsing and validation: good fixtures load, every bad field is named, a key of the
pre-Harbor layout says where it moved."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from terminal_support import FIXTURES

from agentgym.environments.terminal.task import (
    CATEGORIES,
    DIFFICULTIES,
    MOVED_KEYS,
    TASKS_DIR,
    TaskError,
    bundled_tasks,
    find_task,
    load_task,
    tasks_in_split,
)


def test_fixture_task_loads_with_its_fields():
    task = load_task(FIXTURES / "sum-numbers")
    assert task.id == "sum-numbers" and task.name == "agentgym/sum-numbers"
    assert (task.difficulty, task.category, task.tags) == ("easy", "data", ("fixture", "awk"))
    assert (task.split, task.max_steps, task.command_timeout_s) == ("train", 8, 5.0)
    assert task.limits.memory_mb == 256 and task.limits.pids == 64
    assert task.limits.workspace_mb == 64 and task.limits.network is False
    assert task.limits.command_timeout_s == 5.0
    assert task.verifier_timeout_s == 30.0 and task.artifacts == ("/app",)
    assert task.test_kind == "pytest" and task.workdir == "/app" and task.test_count == 3
    assert [name for name, _ in task.milestones()] == ["01_answer_exists", "02_answer_right"]
    assert "numbers.txt" in task.instruction and "awk" in task.solution


def test_harbor_fixture_is_a_harbor_task():
    task = load_task(FIXTURES / "harbor-sum")
    assert task.test_kind == "harbor" and task.milestone_paths == ()
    assert task.test_count is None  # optional where agentgym's verifier reads only reward.txt


def test_test_sh_beside_pytest_files_is_for_harbor_only(task_copy):
    # A bundled task carries both: agentgym runs test_*.py, Harbor runs test.sh.
    root = task_copy("sum-numbers")
    (root / "tests" / "test.sh").write_text("#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n")
    assert load_task(root).test_kind == "pytest"
    for test_file in (root / "tests").glob("test_*.py"):
        test_file.unlink()
    assert load_task(root).test_kind == "harbor"


def test_the_declared_test_count_is_required_for_pytest_tasks(task_copy):
    root = task_copy("sum-numbers")
    _edit(root / "task.toml", "test_count = 3\n", "")
    with pytest.raises(TaskError, match=r"task.toml: \[metadata.agentgym\].test_count is missing"):
        load_task(root)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new))


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('difficulty = "easy"', 'difficulty = "expert"',
         "[metadata].difficulty must be easy | medium | hard, got 'expert'"),
        ('split = "train"', 'split = "dev"',
         "[metadata.agentgym].split must be train | test, got 'dev'"),
        ("max_steps = 8", "max_steps = 0",
         "[metadata.agentgym].max_steps must be in [1, 1000], got 0"),
        ("max_steps = 8", 'max_steps = "8"', "[metadata.agentgym].max_steps must be an integer"),
        ("max_steps = 8", "max_step = 8", "[metadata.agentgym].max_step is not a known key"),
        ("pids = 64", "pids = 1", "[metadata.agentgym].pids must be in [16, 4096], got 1"),
        ("test_count = 3", "test_count = 0",
         "[metadata.agentgym].test_count must be in [1, 10000], got 0"),
        ("test_count = 3", 'test_count = "3"', "[metadata.agentgym].test_count must be an integer"),
        ('user = "agent"', 'usr = "agent"', "[agent].usr is not a known key"),
        ("memory_mb = 256", "memory_mb = 1", "[environment].memory_mb must be in [64, 65536]"),
        ('network_mode = "no-network"', 'network_mode = "allowlist"',
         "[environment].network_mode must be no-network | public, got 'allowlist'"),
        ('network_mode = "no-network"', 'network_mode = "no-network"\nworkdir = "/app/../x"',
         "[environment].workdir must be a plain absolute path"),
        ('environment_mode = "separate"', 'environment_mode = "shared"',
         "[verifier].environment_mode must be separate, got 'shared'"),
        ("command_timeout_sec = 5.0", "command_timeout_sec = -1",
         "[metadata.agentgym].command_timeout_sec must be in (0, 600]"),
        ('name = "agentgym/sum-numbers"', 'name = "agentgym/other"',
         "[task].name must end with the directory name 'sum-numbers'"),
        ('artifacts = ["/app"]', 'artifacts = ["app"]', "artifacts must hold absolute paths"),
        ('artifacts = ["/app"]', 'artifacts = ["/app/../etc"]', "artifacts must hold plain"),
        ('artifacts = ["/app"]', 'artifacts = ["/usr/lib"]', "artifacts may not copy '/usr/lib'"),
        ('artifacts = ["/app"]', 'artifacts = ["/verifier"]', "may not copy '/verifier'"),
        ('category = "data"', 'category = 3', "[metadata].category must be a string"),
        ('tags = ["fixture", "awk"]', 'tags = ["ok", 1]', "[metadata].tags must be a list"),
        ('difficulty = "easy"', 'difficulty = ', "not valid TOML"),
    ],
)
def test_bad_fields_are_refused_naming_file_and_field(task_copy, old, new, message):
    root = task_copy("sum-numbers")
    _edit(root / "task.toml", old, new)
    with pytest.raises(TaskError) as err:
        load_task(root)
    assert str(err.value).startswith(f"{root / 'task.toml'}: "), err.value
    assert message in str(err.value)


@pytest.mark.parametrize(("table", "key"), sorted(MOVED_KEYS))
def test_a_key_of_the_old_layout_says_where_it_moved(task_copy, table, key):
    root = task_copy("sum-numbers")
    text = (root / "task.toml").read_text()
    old = f"{key} = false" if key == "allow_internet" else f'{key} = "/app"' if key == "workdir" \
        else f'{key} = "train"' if key == "split" else f"{key} = 8"
    if f"[{table}]" in text:
        text = text.replace(f"[{table}]\n", f"[{table}]\n{old}\n")
    else:
        text += f"\n[{table}]\n{old}\n"
    (root / "task.toml").write_text(text)
    with pytest.raises(TaskError) as err:
        load_task(root)
    message = str(err.value)
    assert message.startswith(f"{root / 'task.toml'}: [{table}]") and "\n" not in message
    where = MOVED_KEYS[(table, key)].split(" ")[0]
    assert "moved" in message and where in message, message


def test_agentgym_keys_under_metadata_must_be_a_table(task_copy):
    root = task_copy("sum-numbers")
    text = (root / "task.toml").read_text()
    start = text.index("[metadata.agentgym]")
    end = text.index("[verifier]")
    text = text[:start] + text[end:]
    text = text.replace('tags = ["fixture", "awk"]', 'tags = ["fixture", "awk"]\nagentgym = 3')
    (root / "task.toml").write_text(text)
    with pytest.raises(TaskError, match=r"\[metadata.agentgym\] must be a table, got int"):
        load_task(root)


def test_a_section_that_is_no_table_is_named(task_copy):
    root = task_copy("sum-numbers")
    _edit(root / "task.toml", '[verifier]\ntimeout_sec = 30.0\nenvironment_mode = "separate"\n', "")
    _edit(root / "task.toml", 'version = "1.0"', 'version = "1.0"\nverifier = "fast"')
    with pytest.raises(TaskError, match=r"task.toml: \[verifier\] must be a table"):
        load_task(root)


def test_a_missing_required_field_is_named(task_copy):
    root = task_copy("sum-numbers")
    _edit(root / "task.toml", 'difficulty = "easy"\n', "")
    with pytest.raises(TaskError, match=r"task.toml: \[metadata\].difficulty is missing"):
        load_task(root)


@pytest.mark.parametrize(
    ("remove", "message"),
    [
        ("task.toml", "task.toml: missing"),
        ("instruction.md", "instruction.md: missing"),
        ("environment/Dockerfile", "Dockerfile: missing"),
        ("solution/solve.sh", "solve.sh: missing"),
        ("tests/test_answer.py", "tests: missing"),
    ],
)
def test_missing_files_are_named(task_copy, remove, message):
    root = task_copy("sum-numbers")
    (root / remove).unlink()
    with pytest.raises(TaskError, match=message):
        load_task(root)


def test_an_empty_instruction_is_refused(task_copy):
    root = task_copy("sum-numbers")
    (root / "instruction.md").write_text("  \n")
    with pytest.raises(TaskError, match=r"instruction\.md: is empty"):
        load_task(root)


def test_find_task_takes_ids_and_paths():
    assert find_task(str(FIXTURES / "sum-numbers")).id == "sum-numbers"
    with pytest.raises(TaskError, match="unknown task 'no-such-task'"):
        find_task("no-such-task")
    with pytest.raises(TaskError, match="task must be"):
        find_task("")


def test_bundled_tasks_parse_sorted_with_known_categories():
    tasks = bundled_tasks()
    ids = [t.id for t in tasks]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    for task in tasks:
        assert task.name == f"agentgym/{task.id}"
        # Every bundled task carries Harbor's test.sh beside agentgym's pytest files.
        assert task.test_kind == "pytest" and (task.tests_dir / "test.sh").is_file(), task.id
        assert task.test_count is not None and task.test_count >= 1, task.id
        assert task.category in CATEGORIES, task.id
        assert task.root == (TASKS_DIR / task.id).resolve()
        assert find_task(task.id) == task and find_task(f"agentgym/{task.id}") == task
    train, test = tasks_in_split("train"), tasks_in_split("test")
    assert sorted(t.id for t in train + test) == ids
    with pytest.raises(ValueError, match="split must be"):
        tasks_in_split("eval")


def test_the_bundled_set_is_large_and_balanced():
    # The issue: at least 30 tasks, three levels with at least 8 each, both splits used.
    tasks = bundled_tasks()
    assert len(tasks) >= 30
    for level in DIFFICULTIES:
        assert sum(t.difficulty == level for t in tasks) >= 8, level
    assert tasks_in_split("train") and tasks_in_split("test")


def _test_functions(tests_dir: Path) -> int | None:
    """``def test_*`` at module level and in ``Test*`` classes of ``tests_dir/test_*.py``, as
    pytest collects them; None where a ``parametrize`` needs pytest itself to count."""
    count = 0

    def visit(body) -> int | None:
        found = 0
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if node.name.startswith("test"):
                    if any("parametrize" in ast.unparse(d) for d in node.decorator_list):
                        return None
                    found += 1
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                inner = visit(node.body)
                if inner is None:
                    return None
                found += inner
        return found

    for path in sorted(tests_dir.glob("test_*.py")):
        found = visit(ast.parse(path.read_text(encoding="utf-8")).body)
        if found is None:
            return None
        count += found
    return count


def test_declared_test_counts_match_the_hidden_tests():
    # [metadata.agentgym].test_count is what the verifier holds pytest's total to; a test added
    # or removed without updating it would fail the task's oracle run.
    wrong = []
    for task in bundled_tasks():
        counted = _test_functions(task.tests_dir)
        if counted is not None and counted != task.test_count:
            wrong.append(f"{task.root / 'task.toml'}: [metadata.agentgym].test_count is "
                         f"{task.test_count}, tests/ defines {counted}")
    assert not wrong, "\n".join(wrong)
