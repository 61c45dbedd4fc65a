"""``submit``: the manifest it writes, the git state it reads, the results it refuses."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from lb_helpers import CLEAN, read_members

from agentgym.leaderboard.errors import Rejected
from agentgym.leaderboard.manifest import BUNDLE_SCHEMA, GitState, git_state
from agentgym.leaderboard.submit import submit

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def test_manifest_describes_every_file(results_files: dict[str, list[Path]],
                                       tmp_path: Path) -> None:
    import hashlib

    paths = results_files["oracle"]
    manifest = submit(paths, tmp_path / "b.tar.gz", agent_description="minimax and BFS",
                      git=CLEAN)
    members = read_members(tmp_path / "b.tar.gz")
    assert next(iter(members)) == "manifest.json"
    assert json.loads(members["manifest.json"]) == manifest
    assert manifest["schema"] == BUNDLE_SCHEMA and manifest["agentgym_version"] == "0.1.0"
    assert manifest["git"] == {"commit": CLEAN.commit, "dirty": False, "source": "checkout"}
    assert manifest["agent"] == {"name": "oracle", "description": "minimax and BFS",
                                 "prompt": "standard"}
    for entry, path in zip(manifest["files"], paths, strict=True):
        data = json.loads(path.read_text())
        assert members[entry["path"]] == path.read_bytes()  # byte for byte, traces included
        assert entry["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert entry["bytes"] == path.stat().st_size
        for key in ("env_id", "env_kwargs", "split", "task_set_hash", "task_seeds", "trials",
                    "verifier"):
            assert entry[key] == data[key]
        assert entry["prompt"] == "standard" and entry["agent"] == "oracle"
    assert [e["path"] for e in manifest["files"]] == [
        "results/000-tictactoe-v0.json", "results/001-sudoku-v0.json",
        "results/002-sokoban-v0.json"]


def test_dirty_tree_refused_unless_allowed(results_files: dict[str, list[Path]],
                                           tmp_path: Path) -> None:
    dirty = GitState(CLEAN.commit, True, "checkout")
    with pytest.raises(ValueError, match=r"uncommitted changes .*--allow-dirty"):
        submit(results_files["oracle"], tmp_path / "b.tar.gz", git=dirty)
    assert not (tmp_path / "b.tar.gz").exists()
    manifest = submit(results_files["oracle"], tmp_path / "b.tar.gz", git=dirty,
                      allow_dirty=True)
    assert manifest["git"]["dirty"] is True


def test_contradicting_results_refused(results_files: dict[str, list[Path]],
                                       tmp_path: Path) -> None:
    ttt = results_files["oracle"][0]
    with pytest.raises(Rejected, match="appears twice"):
        submit([ttt, ttt], tmp_path / "b.tar.gz", git=CLEAN)
    other = json.loads(ttt.read_text())
    other["versions"]["agentgym"] = "0.1.9"
    changed = tmp_path / "other.json"
    changed.write_text(json.dumps(other))
    with pytest.raises(Rejected, match=r"versions\.agentgym: '0\.1\.9', but .* one bundle is one "
                       r"agentgym version"):
        submit([results_files["oracle"][1], changed], tmp_path / "b.tar.gz", git=CLEAN)
    with pytest.raises(Rejected, match=r"agent\.name: \"random\", but .* one bundle is one agent"):
        submit([results_files["oracle"][0], results_files["random"][1]], tmp_path / "b.tar.gz",
               git=CLEAN)


def test_malformed_results_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match=r"bad\.json: not valid JSON"):
        submit([bad], tmp_path / "b.tar.gz", git=CLEAN)
    bad.write_text(json.dumps({"schema": "agentgym.eval/2", "env_id": 3}))
    with pytest.raises(Rejected, match=r"bad\.json: env_id: expected a string, got 3"):
        submit([bad], tmp_path / "b.tar.gz", git=CLEAN)


def test_no_checkout_records_a_null_commit(tmp_path: Path) -> None:
    assert git_state(tmp_path) == GitState(None, False, "installed")


@needs_git
def test_git_state_of_a_checkout(tmp_path: Path) -> None:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(tmp_path), *args], check=True,
                              capture_output=True, text=True).stdout.strip()

    git("init", "-q")
    (tmp_path / "a.py").write_text("x = 1\n")
    git("add", "a.py")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    head = git("rev-parse", "HEAD")
    assert git_state(tmp_path) == GitState(head, False, "checkout")
    (tmp_path / "a.py").write_text("x = 2\n")
    assert git_state(tmp_path) == GitState(head, True, "checkout")
    (tmp_path / "a.py").write_text("x = 1\n")  # back to the committed text: clean again
    assert not git_state(tmp_path).dirty
    (tmp_path / "new.py").write_text("")  # an untracked file is code that was not committed
    assert git_state(tmp_path).dirty
    # A folder inside a checkout is not a checkout of its own (a venv's site-packages).
    (tmp_path / "sub").mkdir()
    assert git_state(tmp_path / "sub") == GitState(None, False, "installed")


def test_two_runs_of_one_split_refused(tmp_path: Path) -> None:
    from agentgym.evaluation import evaluate

    paths = [evaluate("agentgym/TicTacToe-v0", "oracle", split="test", limit=n,
                      progress=False).write(tmp_path / f"{n}.json") for n in (1, 2)]
    with pytest.raises(Rejected, match=r"agentgym/TicTacToe-v0 split 'test' appears twice"):
        submit(paths, tmp_path / "b.tar.gz", git=CLEAN)
    custom = [evaluate("agentgym/TicTacToe-v0", "oracle", seed=s, episodes=1,
                       progress=False).write(tmp_path / f"c{s}.json") for s in (0, 5)]
    manifest = submit(custom, tmp_path / "b.tar.gz", git=CLEAN)  # two custom task sets: fine
    assert [f["split"] for f in manifest["files"]] == [None, None]
