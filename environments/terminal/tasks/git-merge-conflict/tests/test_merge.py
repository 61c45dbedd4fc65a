"""Hidden tests for git-merge-conflict: the merge commit on main and its resolved content."""
import importlib.util
import subprocess

import pytest

REPO = "/app"
SETTINGS = """[server]
host = 0.0.0.0
port = 8080
timeout = 30
workers = 4
retries = 5
"""


def git(*args: str) -> str:
    out = subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=True)
    assert out.returncode == 0, f"git {' '.join(args)} failed: {out.stderr}"
    return out.stdout


def merged_client():
    """Load client.py as committed in main's tip (not the working tree)."""
    parents = git("log", "-1", "--format=%P", "main").split()
    assert len(parents) == 2, "main's tip is not a merge commit"
    src = git("show", "main:client.py")
    spec = importlib.util.spec_from_loader("merged_client", loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(src, "client.py", "exec"), module.__dict__)
    return module


def test_merge_commit_parents():
    parents = git("log", "-1", "--format=%P", "main").split()
    assert len(parents) == 2
    assert git("log", "-1", "--format=%s", parents[0]).strip() == "Document fetch_url"
    assert parents[1] == git("rev-parse", "feature/retry").strip()


def test_settings_resolved():
    assert git("show", "main:settings.ini") == SETTINGS
    with open(f"{REPO}/settings.ini") as fh:
        assert fh.read() == SETTINGS


def test_fetch_url_retries_with_timeout():
    client = merged_client()
    assert not hasattr(client, "fetch")
    calls = []

    def flaky(url, timeout):
        calls.append((url, timeout))
        if len(calls) < 3:
            raise ConnectionError("down")
        return "ok"

    assert client.fetch_url(flaky, "http://x", timeout=7) == "ok"
    assert calls == [("http://x", 7)] * 3


def test_fetch_url_gives_up_and_propagates():
    client = merged_client()
    calls = []

    def dead(url, timeout):
        calls.append(timeout)
        raise ConnectionError(f"attempt {len(calls)}")

    with pytest.raises(ConnectionError, match="attempt 2"):
        client.fetch_url(dead, "u", retries=2)
    assert calls == [30, 30]

    def broken(url, timeout):
        calls.append("broken")
        raise KeyError("no")

    calls.clear()
    with pytest.raises(KeyError):
        client.fetch_url(broken, "u")
    assert calls == ["broken"]


def test_both_sides_kept_no_markers_clean():
    files = git("ls-tree", "-r", "--name-only", "main").split()
    assert "RETRY.md" in files
    assert "fetch_url" in git("show", "main:README.md")
    for name in files:
        text = git("show", f"main:{name}")
        assert "<<<<<<<" not in text and ">>>>>>>" not in text, name
    assert git("symbolic-ref", "--short", "HEAD").strip() == "main"
    assert git("status", "--porcelain") == ""
