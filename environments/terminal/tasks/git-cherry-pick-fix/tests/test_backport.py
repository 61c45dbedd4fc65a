"""Hidden tests for git-cherry-pick-fix: the back-port on release/1.2."""
import io
import os
import subprocess
import tarfile

import pytest

REPO = "/app"
REL = "release/1.2"


def git(*args: str, raw: bool = False):
    out = subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=not raw)
    assert out.returncode == 0, f"git {' '.join(args)} failed: {out.stderr}"
    return out.stdout if raw else out.stdout.strip()


def fix_commit() -> str:
    return git("log", "-1", "--format=%H", "--grep=^fix: accept lowercase", "main")


def release_module():
    assert git("log", "-1", "--format=%s", f"{REL}^") == "Changelog for 1.2.1"
    ns: dict = {}
    exec(compile(git("show", f"{REL}:sizes.py"), "sizes.py", "exec"), ns)
    return ns


def test_one_new_commit_recording_the_pick():
    assert git("log", "-1", "--format=%s", f"{REL}^") == "Changelog for 1.2.1"
    assert git("rev-list", "--count", REL) == "4"
    message = git("log", "-1", "--format=%B", REL)
    assert f"(cherry picked from commit {fix_commit()})" in message


def test_fix_present_on_release():
    ns = release_module()
    parse = ns["parse_size"]
    assert parse("10k") == 10240
    assert parse(" 1.5G ") == 1610612736
    assert parse("1.5g") == 1610612736
    assert parse("0.5k") == 512
    assert parse("3m") == 3 * 1024 ** 2


def test_release_behaviour_kept():
    ns = release_module()
    parse = ns["parse_size"]
    assert parse("2t") == 2 * 1024 ** 4
    assert parse("512") == 512
    with pytest.raises(ValueError):
        parse("3T")
    with pytest.raises(ValueError):
        parse("2.5t")
    assert "format_size" not in ns
    assert "P" not in ns["UNITS"]


def test_release_tests_pass(tmp_path):
    assert git("log", "-1", "--format=%s", f"{REL}^") == "Changelog for 1.2.1"
    with tarfile.open(fileobj=io.BytesIO(git("archive", REL, raw=True))) as tar:
        tar.extractall(tmp_path)
    text = (tmp_path / "tests" / "test_sizes.py").read_text()
    assert "test_lowercase_and_fractional_suffix" in text and "test_limit" in text
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    out = subprocess.run(["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                         cwd=tmp_path, capture_output=True, text=True, env=env, timeout=20)
    assert out.returncode == 0, out.stdout
    assert "4 passed" in out.stdout


def test_main_untouched_and_release_checked_out():
    assert git("log", "--format=%s", "main").splitlines() == [
        "Support petabytes", "Document format_size",
        "fix: accept lowercase and fractional size suffixes", "Add format_size", "Add parse_size"]
    assert git("symbolic-ref", "--short", "HEAD") == REL
    assert not os.path.exists(f"{REPO}/.git/CHERRY_PICK_HEAD")
    assert git("status", "--porcelain") == ""
