"""A built wheel carries every file of every bundled task (dotfiles too), so a task played from
an installed agentgym builds the same image, with the same hash, as from a checkout."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "environments" / "terminal" / "tasks"


# slow: an isolated pip build of the wheel
@pytest.mark.slow
def test_the_wheel_ships_every_task_file(tmp_path):
    # pip builds it as `pip install .` would (an isolated build with the declared backend).
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w",
                            str(tmp_path), str(ROOT)], check=True, capture_output=True, text=True)
    # Every data folder is a declared package (pyproject.toml): none of setuptools' "Package
    # would be ignored" warning blocks, which each install would print otherwise.
    assert "would be ignored" not in built.stdout + built.stderr, built.stderr[-2000:]
    (wheel,) = tmp_path.glob("agentgym-*.whl")
    prefix = "agentgym/environments/terminal/tasks/"
    shipped = {n[len(prefix):] for n in zipfile.ZipFile(wheel).namelist() if n.startswith(prefix)}
    on_disk = {p.relative_to(TASKS).as_posix() for p in TASKS.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert any(Path(name).name.startswith(".") for name in on_disk)  # the case this guards
    assert shipped == on_disk
