"""Hidden tests for build-makefile-zipapp: the build runs in a clean copy of /app, as the
agent through agentgym_harness."""
import os
import zipfile
from pathlib import Path

import agentgym_harness as agent
import pytest

APP = Path("/app")


@pytest.fixture
def work():
    # the copy keeps the agent's mtimes; put every source in the past so later edits are newer
    return Path(agent.copy_tree(str(APP), "build", "dist", ".git", age_s=3600))


def make(work: Path, *targets: str) -> agent.Completed:
    out = agent.run(["make", *targets], cwd=str(work), timeout=30)
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
    agent.write(work / "in.txt", "a b c\nd e\n")
    assert os.access(work / "dist" / "wc.pyz", os.X_OK), "dist/wc.pyz is not executable"
    # run through python3: /tmp (where the copy lives) may be mounted noexec
    out = agent.run(["python3", "dist/wc.pyz", "in.txt"], cwd=str(work), timeout=10)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "2 5 10 in.txt\n"
    ver = agent.run(["python3", "dist/wc.pyz", "--version"], cwd=str(work), timeout=10)
    assert ver.stdout == "wordcount 1.4.0\n"
    piped = agent.run(["python3", "dist/wc.pyz"], cwd=str(work), input="x y\n", timeout=10)
    assert piped.stdout == "1 2 4\n"


def test_incremental_rebuilds(work):
    make(work)
    pyz = work / "dist" / "wc.pyz"
    built = pyz.stat().st_mtime_ns
    make(work)
    assert pyz.stat().st_mtime_ns == built, "rebuilt with nothing changed"
    agent.write(work / "VERSION", "9.9.9\n")
    make(work)
    ver = agent.run(["python3", str(pyz), "--version"], cwd=str(work))
    assert ver.stdout == "wordcount 9.9.9\n"
    counting = work / "src" / "wordcount" / "counting.py"
    agent.write(counting, counting.read_text().replace("len(data)", "len(data) + 1000"))
    make(work)
    agent.write(work / "in.txt", "a\n")
    out = agent.run(["python3", str(pyz), "in.txt"], cwd=str(work))
    assert out.stdout == "1 1 1002 in.txt\n"


def version_of_build(work: Path) -> str:
    return agent.run(["python3", "dist/wc.pyz", "--version"], cwd=str(work), timeout=10).stdout


def test_make_test_and_clean(work):
    # `make test` builds when needed: from a clean tree, and again after `make clean`
    make(work, "test")
    assert version_of_build(work) == "wordcount 1.4.0\n"
    make(work, "clean")
    assert not (work / "build").exists() and not (work / "dist").exists()
    make(work, "test")
    assert version_of_build(work) == "wordcount 1.4.0\n"
