"""Fixtures of the terminal tests; the fixture tasks' own hidden tests are not collected."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from terminal_support import FIXTURES

# fixtures/*/tests/test_*.py are hidden tests of the fixture tasks, run by the verifier inside
# a container; collected here they would fail (they look at /app).
collect_ignore_glob = ["fixtures/*"]


@pytest.fixture
def task_copy(tmp_path: Path):
    """A writable copy of a fixture task: ``task_copy("sum-numbers") -> Path``."""

    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(FIXTURES / name, target)
        return target

    return copy
