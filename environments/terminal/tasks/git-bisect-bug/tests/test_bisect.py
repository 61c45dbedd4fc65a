"""Hidden tests for git-bisect-bug: the named commit must be bad and its parent good."""
import io
import re
import subprocess
import tarfile
from pathlib import Path

REPO = "/app"
CHECK = "from stats import median; print(median([4, 1, 3, 2]))"


def git(*args: str, raw: bool = False):
    out = subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=not raw)
    assert out.returncode == 0, f"git {' '.join(args)} failed: {out.stderr}"
    return out.stdout if raw else out.stdout.strip()


def answer() -> str:
    text = Path(REPO, "FIRST_BAD").read_text()
    assert re.fullmatch(r"[0-9a-f]{40}\n?", text), f"not a full hash: {text!r}"
    return text.strip()


def median_at(rev: str, tmp: Path) -> str | None:
    """What median([4,1,3,2]) prints at `rev`, or None when that tree cannot be imported."""
    dest = tmp / rev
    dest.mkdir()
    with tarfile.open(fileobj=io.BytesIO(git("archive", rev, raw=True))) as tar:
        tar.extractall(dest)
    out = subprocess.run(["python3", "-E", "-s", "-c", CHECK], cwd=dest, capture_output=True,
                         text=True, timeout=10)
    return out.stdout.strip() if out.returncode == 0 else None


def test_answer_is_a_commit_after_v1_on_main():
    rev = answer()
    commits = git("rev-list", "v1.0..main").split()
    assert rev in commits


def test_answer_is_bad_and_its_parent_good(tmp_path):
    rev = answer()
    assert median_at(rev, tmp_path) not in (None, "2.5")
    assert median_at(f"{rev}^", tmp_path) == "2.5"


def test_history_unchanged_and_bisect_finished():
    answer()
    assert git("log", "-1", "--format=%s", "main") == "Link the API docs"
    assert git("rev-list", "--count", "main") == "26"
    assert git("rev-parse", "v1.0^{commit}") == git("rev-list", "-1", "--grep=^Add mode$", "main")
    assert not Path(REPO, ".git", "BISECT_LOG").exists()
    assert not Path(REPO, ".git", "BISECT_START").exists()


def test_main_checked_out_and_tree_clean():
    answer()
    assert git("symbolic-ref", "--short", "HEAD") == "main"
    assert git("status", "--porcelain", "--untracked-files=no") == ""
    assert "lo, lo" in Path(REPO, "util.py").read_text(), "the bug was to be found, not fixed"
