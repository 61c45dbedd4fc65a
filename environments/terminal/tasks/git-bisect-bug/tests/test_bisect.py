"""Hidden tests for git-bisect-bug: the named commit must be bad and its parent good."""
import re
from pathlib import Path

import agentgym_harness as agent

REPO = "/app"
CHECK = "from stats import median; print(median([4, 1, 3, 2]))"
# the subject of the first bad commit (the image's history is built deterministically)
FIRST_BAD_SUBJECT = "Simplify index arithmetic"


def git(*args: str) -> str:
    """git in the agent's repository, run as the agent (its hooks and config are its own)."""
    out = agent.run(["git", "-C", REPO, *args])
    assert out.returncode == 0, f"git {' '.join(args)} failed: {out.stderr}"
    return out.stdout.strip()


def checkout_of(rev: str) -> str:
    return agent.git_tree(REPO, rev)


def answer() -> str:
    text = Path(REPO, "FIRST_BAD").read_text()
    assert re.fullmatch(r"[0-9a-f]{40}\n?", text), f"not a full hash: {text!r}"
    return text.strip()


def median_at(rev: str) -> str | None:
    """What median([4,1,3,2]) prints at `rev` (run as the agent), or None when that tree
    cannot be imported."""
    dest = checkout_of(rev)
    out = agent.run(["python3", "-E", "-s", "-c", CHECK], cwd=dest, timeout=10)
    return out.stdout.strip() if out.returncode == 0 else None


def bisected() -> str:
    """The answer, when it is where a bisection ends: a commit after v1.0 on main whose
    parent is good and that is not (bad, or a tree that cannot be imported), so the state
    checks below cannot be earned by naming any commit (such as main's tip)."""
    rev = answer()
    assert rev in git("rev-list", "v1.0..main").split()
    assert median_at(f"{rev}^") == "2.5", "its parent is not good: not where a bisection ends"
    assert median_at(rev) != "2.5"
    return rev


def test_answer_is_a_commit_after_v1_on_main():
    rev = answer()
    commits = git("rev-list", "v1.0..main").split()
    assert rev in commits
    assert git("log", "-1", "--format=%s", rev) == FIRST_BAD_SUBJECT


def test_answer_is_bad_and_its_parent_good():
    rev = answer()
    assert median_at(rev) not in (None, "2.5")
    assert median_at(f"{rev}^") == "2.5"


def test_history_unchanged_and_bisect_finished():
    bisected()
    assert git("log", "-1", "--format=%s", "main") == "Link the API docs"
    assert git("rev-list", "--count", "main") == "26"
    assert git("rev-parse", "v1.0^{commit}") == git("rev-list", "-1", "--grep=^Add mode$", "main")
    assert not Path(REPO, ".git", "BISECT_LOG").exists()
    assert not Path(REPO, ".git", "BISECT_START").exists()


def test_main_checked_out_and_tree_clean():
    bisected()
    assert git("symbolic-ref", "--short", "HEAD") == "main"
    assert git("status", "--porcelain", "--untracked-files=no") == ""
    assert "lo, lo" in Path(REPO, "util.py").read_text(), "the bug was to be found, not fixed"
