"""Hidden tests for build-makefile-zipapp: the build runs in a clean copy of /app."""
import os
import shutil
import subprocess
import time
import zipfile
from pathlib import Path

import pytest

APP = Path("/app")


@pytest.fixture
def work(tmp_path):
    dest = tmp_path / "app"
    shutil.copytree(APP, dest, ignore=shutil.ignore_patterns("build", "dist", ".git"))
    # the copy keeps the agent's mtimes; put every source in the past so later edits are newer
    past = time.time() - 3600
    for path in dest.rglob("*"):
        os.utime(path, (past, past))
    return dest


def make(work: Path, *targets: str) -> subprocess.CompletedProcess:
    out = subprocess.run(["make", *targets], cwd=work, capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stdout + out.stderr
    return out


def test_make_builds_a_proper_zipapp(work):
    make(work)
    pyz = work / "dist" / "wc.pyz"
    assert pyz.read_bytes().startswith(b"#!/usr/bin/env python3\n")
    with zipfile.ZipFile(pyz) as zf:
        names = set(zf.namelist())
        assert {"__main__.py", "wordcount/__init__.py", "wordcount/cli.py",
                "wordcount/counting.py", "wordcount/_version.py"} <= names
        assert "wordcount.cli" in zf.read("__main__.py").decode()


def test_zipapp_runs(work):
    make(work)
    (work / "in.txt").write_text("a b c\nd e\n")
    assert os.access(work / "dist" / "wc.pyz", os.X_OK), "dist/wc.pyz is not executable"
    # run through python3: /tmp (where the copy lives) may be mounted noexec
    out = subprocess.run(["python3", "dist/wc.pyz", "in.txt"], cwd=work, capture_output=True,
                         text=True, timeout=10)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "2 5 10 in.txt\n"
    ver = subprocess.run(["python3", "dist/wc.pyz", "--version"], cwd=work,
                         capture_output=True, text=True, timeout=10)
    assert ver.stdout == "wordcount 1.4.0\n"
    piped = subprocess.run(["python3", "dist/wc.pyz"], cwd=work, input="x y\n",
                           capture_output=True, text=True, timeout=10)
    assert piped.stdout == "1 2 4\n"


def test_incremental_rebuilds(work):
    make(work)
    pyz = work / "dist" / "wc.pyz"
    built = pyz.stat().st_mtime_ns
    make(work)
    assert pyz.stat().st_mtime_ns == built, "rebuilt with nothing changed"
    (work / "VERSION").write_text("9.9.9\n")
    make(work)
    ver = subprocess.run(["python3", str(pyz), "--version"], capture_output=True, text=True)
    assert ver.stdout == "wordcount 9.9.9\n"
    counting = work / "src" / "wordcount" / "counting.py"
    counting.write_text(counting.read_text().replace("len(data)", "len(data) + 1000"))
    make(work)
    (work / "in.txt").write_text("a\n")
    out = subprocess.run(["python3", str(pyz), "in.txt"], cwd=work, capture_output=True,
                         text=True)
    assert out.stdout == "1 1 1002 in.txt\n"


def test_make_test_and_clean(work):
    make(work, "test")
    make(work, "clean")
    assert not (work / "build").exists() and not (work / "dist").exists()
    make(work, "test")
