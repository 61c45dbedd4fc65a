"""Hidden tests for build-make-pin: make runs in a clean copy of /app, as the agent through
agentgym_harness.

`make test` must really run pytest on the tests in `tests/`: the stricter tests written into
the copy carry a token drawn here at test time, and each one, when pytest runs it, records a
digest of the token, its own name (from pytest's `request` fixture) and what the calc code
returned. The digests are computed here from the expected values and compared. `make
check-env` must accept the right pins and reject each wrong one; every configuration it is
given is written here from constants."""
import configparser
import hashlib
import secrets
import sys
import tarfile
from pathlib import Path

import agentgym_harness as agent
import pytest

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
PYTEST = pytest.__version__

HIDDEN_TEST = """
import hashlib

import pytest
from calc import divide, precision

TOKEN = {token!r}
PROOF = {proof!r}


def record(request, value):
    digest = hashlib.sha256(f"{{TOKEN}}|{{request.node.name}}|{{value!r}}".encode()).hexdigest()
    with open(PROOF, "a") as fh:
        fh.write(f"{{request.node.name}} {{digest}}\\n")


def test_precision_is_four(request):
    assert precision() == 4
    record(request, precision())


def test_divide_rounds(request):
    got = (divide(2, 3), divide(10, 4), divide(-1, 7))
    assert got == (0.6667, 2.5, -0.1429)
    record(request, got)


def test_divide_by_zero(request):
    with pytest.raises(ZeroDivisionError) as caught:
        divide(1, 0)
    record(request, caught.type.__name__)
"""
# what each hidden test records, when the calc code is right
RECORDED = {"test_precision_is_four": 4, "test_divide_rounds": (0.6667, 2.5, -0.1429),
            "test_divide_by_zero": "ZeroDivisionError"}


def config(python: str = PYTHON) -> str:
    return f"[runtime]\npython = {python}\n\n[calc]\nprecision = 4\n"


def wrong_versions(version: str) -> list[str]:
    parts = [int(p) if p.isdigit() else 0 for p in version.split(".")[:3]]
    parts += [0] * (3 - len(parts))
    major, minor, patch = parts
    return ["0.0.1", f"{major}.{minor}.{patch + 1}", f"{major}.{minor + 1}.{patch}",
            f"{major + 1}.{minor}.{patch}", f"{version}.{secrets.randbelow(90) + 10}"]


@pytest.fixture
def work():
    return Path(agent.copy_tree("/app", "dist", "__pycache__"))


def make(work: Path, *args: str) -> agent.Completed:
    return agent.run(["make", *args], cwd=str(work), timeout=30)


def make_test_runs_hidden_tests(work: Path, *args: str) -> None:
    token = secrets.token_hex(16)
    proof = work / f"proof-{token}.txt"
    agent.write(work / "tests" / "test_calc.py", HIDDEN_TEST.format(token=token, proof=str(proof)))
    out = make(work, "test", *args)
    assert out.returncode == 0, out.stdout + out.stderr
    expected = sorted(
        f"{name} {hashlib.sha256(f'{token}|{name}|{value!r}'.encode()).hexdigest()}"
        for name, value in RECORDED.items())
    got = sorted(agent.read(proof).splitlines())
    assert got == expected, "make test did not run the tests in tests/ with pytest"


def rejects(work: Path, requirements: str, ini: str) -> bool:
    agent.write(work / "requirements.txt", requirements)
    agent.write(work / "calc.ini", ini)
    return make(work, "check-env").returncode != 0


def test_check_env_passes(work):
    out = make(work, "check-env")
    assert out.returncode == 0, out.stdout + out.stderr
    # and it still checks: the right configuration passes, a wrong Python version does not
    assert not rejects(work, f"pytest=={PYTEST}\n", config()), "rejects the right pins"
    assert rejects(work, f"pytest=={PYTEST}\n", config("2.7")), "check-env checks nothing"


def test_pins_are_real_and_enforced(work):
    pins = [ln.split("#")[0].strip() for ln in (work / "requirements.txt").read_text().splitlines()]
    pins = [p for p in pins if p]
    assert f"pytest=={PYTEST}" in pins
    parser = configparser.ConfigParser()
    parser.read(work / "calc.ini")
    assert parser["runtime"]["python"] == PYTHON
    assert make(work, "check-env").returncode == 0
    good = f"# pins\npytest=={PYTEST}\n"
    bad_pins = [f"pytest=={v}\n" for v in wrong_versions(PYTEST)]
    bad_pins.append(f"{good}agentgym-missing-pkg=={secrets.randbelow(9) + 1}.0\n")
    major, minor = sys.version_info.major, sys.version_info.minor
    bad_pythons = [f"{major}.{minor + 1}", f"{major}.{max(minor - 1, 0)}", f"{major + 1}.{minor}",
                   f"{major}.{minor}{secrets.randbelow(9) + 1}"]
    assert not rejects(work, good, config()), "check-env rejects the right pins"
    for requirements in bad_pins:
        assert rejects(work, requirements, config()), f"check-env accepts {requirements!r}"
    for python in bad_pythons:
        assert rejects(work, good, config(python)), f"check-env accepts python = {python}"
    assert not rejects(work, good, config()), "check-env rejects the right pins"


def test_make_test_with_visible_and_stricter_tests(work):
    out = make(work, "test")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 passed" in out.stdout
    make_test_runs_hidden_tests(work)
    make_test_runs_hidden_tests(work, "PYTHON=/usr/bin/python3")


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
