"""Hidden tests for git-reword-commit. The trees and author dates below are those the
image's deterministic build script produces; rewording a message must not change them."""
import os

import agentgym_harness as agent

REPO = "/app"
NEW_MESSAGE = "Add pagination to the list endpoint\n\nCloses #12."
# (tree, author date, subject) oldest first, with the fixed subject
EXPECTED = [
    ("15883975bd1f92f8c66c7e7c607e69ea9fac988b", "1704106800", "Start the API"),
    ("647779ba7b91a03eb9108e3f42c3a810e99299a6", "1704110400", "Add the list endpoint"),
    ("b77bf50b18a94b1551f1c7eae6eb0cc0f96b770d", "1704114000",
     "Add pagination to the list endpoint"),
    ("5748afb26beadc1dc2be46fcc68a6674eafdc953", "1704117600", "Add README"),
    ("87209d8f3fd60e35b4e00e42f1c331d46cbbdd6b", "1704121200", "Document paging"),
    ("19c8fd7cc198c5e1c872d6f0f762d64042e1422c", "1704124800", "Add health route"),
]


def git(*args: str) -> str:
    """git in the agent's repository, run as the agent (its hooks and config are its own)."""
    out = agent.run(["git", "-C", REPO, *args])
    assert out.returncode == 0, f"git {' '.join(args)} failed: {out.stderr}"
    return out.stdout.strip()


def history(fmt: str) -> list[str]:
    return git("log", "--reverse", f"--format={fmt}", "main").splitlines()


def test_message_rewritten():
    assert git("log", "-1", "--format=%B", "main~3") == NEW_MESSAGE


def test_subjects_order_and_count():
    assert history("%s") == [e[2] for e in EXPECTED]


def test_trees_unchanged():
    assert "Add pagination to the list endpoint" in history("%s")
    assert history("%T") == [e[0] for e in EXPECTED]


def test_authors_unchanged():
    assert "Add pagination to the list endpoint" in history("%s")
    assert history("%at") == [e[1] for e in EXPECTED]
    assert set(history("%an <%ae>")) == {"Dana Dev <dana@example.com>"}


def test_clean_state():
    assert git("log", "-1", "--format=%B", "main~3") == NEW_MESSAGE
    assert git("symbolic-ref", "--short", "HEAD") == "main"
    assert git("for-each-ref", "--format=%(refname)", "refs/heads") == "refs/heads/main"
    assert not os.path.exists(f"{REPO}/.git/rebase-merge")
    assert not os.path.exists(f"{REPO}/.git/rebase-apply")
    assert git("status", "--porcelain") == ""
