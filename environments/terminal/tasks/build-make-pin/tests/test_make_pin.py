"""Hidden tests for build-make-pin: make runs in a clean copy of /app, as the agent through
agentgym_harness."""
import configparser
import sys
import tarfile
from pathlib import Path

import agentgym_harness as agent
import pytest

HIDDEN_TEST = """
import pytest
from calc import divide, precision


def test_precision_is_four():
    assert precision() == 4


def test_divide_rounds():
    assert divide(2, 3) == 0.6667
    assert divide(10, 4) == 2.5
    assert divide(-1, 7) == -0.1429


def test_divide_by_zero():
    with pytest.raises(ZeroDivisionError):
        divide(1, 0)
"""


@pytest.fixture
def work():
    return Path(agent.copy_tree("/app", "dist", "__pycache__"))


def make(work: Path, *args: str) -> agent.Completed:
    return agent.run(["make", *args], cwd=str(work), timeout=30)


def test_check_env_passes(work):
    out = make(work, "check-env")
    assert out.returncode == 0, out.stdout + out.stderr


def test_pins_are_real_and_enforced(work):
    pins = [ln.split("#")[0].strip() for ln in (work / "requirements.txt").read_text().splitlines()]
    pins = [p for p in pins if p]
    assert f"pytest=={pytest.__version__}" in pins
    parser = configparser.ConfigParser()
    parser.read(work / "calc.ini")
    assert parser["runtime"]["python"] == f"{sys.version_info.major}.{sys.version_info.minor}"
    assert make(work, "check-env").returncode == 0
    agent.write(work / "requirements.txt", "pytest==0.0.1\n")
    assert make(work, "check-env").returncode != 0, "check-env no longer checks the pins"


def test_make_test_with_visible_and_stricter_tests(work):
    out = make(work, "test")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 passed" in out.stdout
    agent.write(work / "tests" / "test_calc.py", HIDDEN_TEST)
    out = make(work, "test", "PYTHON=/usr/bin/python3")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "3 passed" in out.stdout


def test_config_precision(work):
    parser = configparser.ConfigParser()
    parser.read(work / "calc.ini")
    assert parser["calc"]["precision"] == "4"
    assert "precison" not in parser["calc"]


def test_make_dist(work):
    out = make(work, "dist")
    assert out.returncode == 0, out.stdout + out.stderr
    with tarfile.open(work / "dist" / "calc-2.4.1.tar.gz") as tar:
        names = set(tar.getnames())
    assert {"src/calc/__init__.py", "calc.ini", "Makefile"} <= names
