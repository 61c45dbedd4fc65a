"""Hidden tests for git-recover-deleted."""
from pathlib import Path

import agentgym_harness as agent

REPO = "/app"
SCHEMA = """CREATE TABLE items (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    qty INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE suppliers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
"""


def git(*args: str) -> str:
    """git in the agent's repository, run as the agent (its hooks and config are its own)."""
    out = agent.run(["git", "-C", REPO, *args])
    assert out.returncode == 0, f"git {' '.join(args)} failed: {out.stderr}"
    return out.stdout


def test_file_restored_in_working_tree():
    assert Path(REPO, "db", "schema.sql").read_text() == SCHEMA


def test_restore_commit_on_top_of_old_main():
    assert git("log", "-1", "--format=%B", "main").strip() == "Restore db/schema.sql"
    assert git("log", "-1", "--format=%s", "main^").strip() == "Update README"
    assert git("rev-list", "--count", "main").strip() == "9"
    assert git("show", "main:db/schema.sql") == SCHEMA


def test_restore_commit_only_adds_schema():
    assert git("log", "-1", "--format=%s", "main").strip() == "Restore db/schema.sql"
    changes = git("diff-tree", "--no-commit-id", "-r", "--name-status", "main").split("\n")
    assert [c for c in changes if c] == ["A\tdb/schema.sql"]
    assert not Path(REPO, "old_notes.txt").exists()


def test_history_preserved_and_clean():
    subjects = git("log", "--format=%s", "main^").split("\n")
    assert subjects[:3] == ["Update README", "Bump app banner again", "Remove unused files"]
    deleting = git("log", "-1", "--format=%H", "--grep=^Remove unused files$", "main").strip()
    assert git("show", f"{deleting}^:db/schema.sql") == SCHEMA
    assert "db/schema.sql" in git("ls-tree", "-r", "--name-only", "main")
    assert git("symbolic-ref", "--short", "HEAD").strip() == "main"
    assert git("status", "--porcelain") == ""
