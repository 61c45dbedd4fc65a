"""Hidden tests for git-remove-secret.

git and the committed payments.py run as the agent through agentgym_harness; the snippet
sets the environment, calls the functions and reports what came back (value or exception);
it is compared here."""
from pathlib import Path

import agentgym_harness as agent

REPO = "/app"
SECRET = "sk_live_9Qm2TzR7vK4pL8xW3nB6yD1f"


def git(*args: str) -> str:
    """git in the agent's repository, run as the agent (its hooks and config are its own)."""
    out = agent.run(["git", "-C", REPO, *args])
    assert out.returncode == 0, f"git {' '.join(args)} failed: {out.stderr}"
    assert not out.truncated, f"git {' '.join(args)}: output cut at 4 MiB"
    return out.stdout


def head_payments() -> str:
    """A directory holding HEAD's payments.py as the module ``head_payments`` (written by
    the agent's uid, imported only in its child)."""
    src = git("show", "HEAD:payments.py")
    assert SECRET not in src
    where = agent.tempdir()
    agent.write(f"{where}/head_payments.py", src)
    return where


CALLS = """
import os
import head_payments as payments


def attempt(fn, *args):
    try:
        return ["value", fn(*args)]
    except Exception as exc:
        return ["raised", [c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins"],
                str(exc)]


has_api_key = "API_KEY" in vars(payments)
os.environ["PAYMENTS_API_KEY"] = "k1"
k1 = attempt(payments.auth_header)
os.environ["PAYMENTS_API_KEY"] = "k2"
charged = attempt(payments.charge_request, 150)
zero = attempt(payments.charge_request, 0)
del os.environ["PAYMENTS_API_KEY"]
unset = attempt(payments.auth_header)
os.environ["PAYMENTS_API_KEY"] = ""
empty = attempt(payments.auth_header)
result = [has_api_key, k1, charged, zero, unset, empty]
"""


def raised(outcome, kind: str) -> bool:
    return outcome[0] == "raised" and kind in outcome[1]


def test_auth_header_reads_environment():
    where = head_payments()
    has_api_key, k1, charged, zero, unset, empty = agent.python(CALLS, path=where)
    assert has_api_key is False
    assert k1 == ["value", {"Authorization": "Bearer k1"}]
    assert charged == ["value", {
        "amount": 150, "currency": "eur", "headers": {"Authorization": "Bearer k2"}}]
    assert raised(zero, "ValueError"), zero
    assert raised(unset, "RuntimeError"), unset
    assert raised(empty, "RuntimeError"), empty


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
    objects = git("cat-file", "--batch-all-objects", "--batch")
    assert "Add payment client" in objects  # the database was read
    assert SECRET not in objects
    for path in Path(REPO, ".git").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_env_file_kept_and_ignored():
    assert f"PAYMENTS_API_KEY={SECRET}" in Path(REPO, ".env").read_text().splitlines()
    ignored = agent.run(["git", "-C", REPO, "check-ignore", "-q", ".env"])
    assert ignored.returncode == 0
    assert ".env" not in git("ls-files").split()


def test_clean_on_main():
    for name in git("ls-files").split():
        assert SECRET not in Path(REPO, name).read_text(), name
    assert git("symbolic-ref", "--short", "HEAD").strip() == "main"
    assert git("status", "--porcelain") == ""
    assert SECRET not in git("log", "--all", "-p")
