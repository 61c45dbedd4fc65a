"""``agentgym tasks check`` refuses hidden tests that reach the agent's code outside the
harness (issue 29): each way in is one case, named by file and line."""

from __future__ import annotations

import pytest

from agentgym.environments.terminal.boundary import boundary_violations
from agentgym.environments.terminal.task import bundled_tasks


@pytest.mark.parametrize(
    ("source", "line", "why"),
    [
        ("import sys\nsys.path.insert(0, '/app')\n", 2, "changes sys.path"),
        ("import sys\nsys.path.append('/app')\n", 2, "changes sys.path"),
        ("import sys\nsys.path[:0] = ['/app']\n", 2, "changes sys.path"),
        ("import sys\nsys.path += ['/app']\n", 2, "changes sys.path"),
        ("import shop\n", 1, "imports 'shop', which is not the standard library"),
        ("from shop.pricing import price\n", 1, "imports 'shop.pricing'"),
        ("import subprocess\n", 1, "imports 'subprocess', which starts processes"),
        ("from subprocess import run\n", 1, "imports 'subprocess'"),
        ("import importlib.util\n", 1, "imports 'importlib.util'"),
        ("import pickle\n", 1, "imports 'pickle'"),
        ("import ctypes\n", 1, "imports 'ctypes'"),
        ("from concurrent.futures import ProcessPoolExecutor\n", 1, "imports 'concurrent"),
        ("import os\nos.system('make')\n", 2, "uses os.system"),
        ("import os\nos.execv('/app/x', [])\n", 2, "uses os.execv"),
        ("import os\nos.posix_spawn('/app/x', [], {})\n", 2, "uses os.posix_spawn"),
        ("from os import popen\n", 1, "imports os.popen"),
        ("exec(open('/app/x.py').read())\n", 1, "calls exec()"),
        ("__import__('shop')\n", 1, "calls __import__()"),
        ("compile('x', 'f', 'exec')\n", 1, "calls compile()"),
        ("def broken(:\n", 1, "does not parse"),
        # Found by the red team: each passed the first version of the check.
        ("import asyncio\n", 1, "imports 'asyncio'"),
        ("import os as o\no.system('make')\n", 2, "uses os.system"),
        ("import os as o\ngetattr(o, 'system')('make')\n", 2, "calls getattr()"),
        ("from os import *\n", 1, "imports * from os"),
        ("import sys as s\ns.path.insert(0, '/app')\n", 2, "changes sys.path"),
        ("from sys import path\npath.insert(0, '/app')\n", 1, "changes sys.path"),
        ("import builtins\n", 1, "imports 'builtins'"),
        ("import pdb\n", 1, "imports 'pdb'"),
        ("import tarfile\ntarfile.open('/app/a.tar').extractall('/tmp/x')\n", 2,
         "calls extractall()"),
        ("import os\nos.__dict__['system']('make')\n", 2, "reads os.__dict__"),
        ("__builtins__['exec']('x')\n", 1, "uses __builtins__"),
    ],
)
def test_each_way_past_the_harness_is_named_by_file_and_line(tmp_path, source, line, why):
    (tmp_path / "test_x.py").write_text(source)
    found = boundary_violations(tmp_path)
    assert found and found[0].startswith(f"test_x.py:{line}: ") and why in found[0], found


def test_the_harness_the_stdlib_pytest_and_the_tests_own_helpers_pass(tmp_path):
    (tmp_path / "helpers.py").write_text("import json\n")
    (tmp_path / "test_x.py").write_text(
        "import json, os, re, pathlib\nimport pytest\nimport agentgym_harness as agent\n"
        "from helpers import json as j\nfrom . import helpers\nos.path.join('a', 'b')\n")
    assert boundary_violations(tmp_path) == []


def test_every_bundled_task_keeps_to_the_boundary():
    crossing = {t.id: boundary_violations(t.tests_dir) for t in bundled_tasks()
                if t.test_kind == "pytest"}
    assert {k: v for k, v in crossing.items() if v} == {}


def test_tasks_check_fails_a_task_whose_tests_import_the_agents_code(tmp_path):
    import shutil

    from terminal_support import FIXTURES

    from agentgym.environments.terminal.checks import check_task

    task = tmp_path / "fix-add"
    shutil.copytree(FIXTURES / "fix-add", task)
    (task / "tests" / "test_calc.py").write_text(
        "import sys\nsys.path.insert(0, '/app')\nimport calc\n\n\n"
        "def test_a():\n    assert calc.add(1, 1) == 2\n\n\ndef test_b():\n    assert True\n")
    report = check_task(task)
    assert not report.ok
    line = next(x for x in report.lines() if "behind the harness" in x)
    assert line.startswith("fail") and "test_calc.py:2: changes sys.path" in line
