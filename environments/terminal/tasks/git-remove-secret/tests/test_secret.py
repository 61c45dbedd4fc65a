"""Hidden tests for git-remove-secret."""
import subprocess
from pathlib import Path

import pytest

REPO = "/app"
SECRET = "sk_live_9Qm2TzR7vK4pL8xW3nB6yD1f"


def git(*args: str) -> str:
    out = subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=True)
    assert out.returncode == 0, f"git {' '.join(args)} failed: {out.stderr}"
    return out.stdout


def head_payments() -> dict:
    src = git("show", "HEAD:payments.py")
    assert SECRET not in src
    ns: dict = {}
    exec(compile(src, "payments.py", "exec"), ns)
    return ns


def test_auth_header_reads_environment(monkeypatch):
    ns = head_payments()
    assert "API_KEY" not in ns
    monkeypatch.setenv("PAYMENTS_API_KEY", "k1")
    assert ns["auth_header"]() == {"Authorization": "Bearer k1"}
    monkeypatch.setenv("PAYMENTS_API_KEY", "k2")
    assert ns["charge_request"](150) == {
        "amount": 150, "currency": "eur", "headers": {"Authorization": "Bearer k2"}}
    with pytest.raises(ValueError):
        ns["charge_request"](0)
    monkeypatch.delenv("PAYMENTS_API_KEY")
    with pytest.raises(RuntimeError):
        ns["auth_header"]()
    monkeypatch.setenv("PAYMENTS_API_KEY", "")
    with pytest.raises(RuntimeError):
        ns["auth_header"]()


def test_commit_amended_not_added():
    assert git("log", "-1", "--format=%B", "HEAD").strip() == "Add payment client"
    assert git("log", "--format=%s", "HEAD^").splitlines() == [
        "Describe the shop", "Initial shop"]
    files = git("ls-tree", "-r", "--name-only", "HEAD").split()
    assert {"config.example.ini", "docs/setup.md", "payments.py", ".gitignore"} <= set(files)
    assert ".env" in git("show", "HEAD:.gitignore").split()
    assert "__pycache__/" in git("show", "HEAD:.gitignore").split()
    setup = git("show", "HEAD:docs/setup.md")
    assert "export PAYMENTS_API_KEY=<your key>" in setup and "Then run the server." in setup


def test_secret_in_no_object():
    out = subprocess.run(["git", "-C", REPO, "cat-file", "--batch-all-objects", "--batch"],
                         capture_output=True)
    assert out.returncode == 0
    assert b"Add payment client" in out.stdout  # the database was read
    assert SECRET.encode() not in out.stdout
    for path in Path(REPO, ".git").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_env_file_kept_and_ignored():
    assert f"PAYMENTS_API_KEY={SECRET}" in Path(REPO, ".env").read_text().splitlines()
    ignored = subprocess.run(["git", "-C", REPO, "check-ignore", "-q", ".env"])
    assert ignored.returncode == 0
    assert ".env" not in git("ls-files").split()


def test_clean_on_main():
    for name in git("ls-files").split():
        assert SECRET not in Path(REPO, name).read_text(), name
    assert git("symbolic-ref", "--short", "HEAD").strip() == "main"
    assert git("status", "--porcelain") == ""
    assert SECRET not in git("log", "--all", "-p")
