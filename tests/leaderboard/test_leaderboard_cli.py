"""``agentgym leaderboard``: exit status 0 accepted, 1 rejected, 2 usage errors; one line each."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from agentgym.cli import main
from agentgym.leaderboard.manifest import GitState


def test_submit_then_validate(results_files: dict[str, list[Path]], tmp_path: Path,
                              monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    from lb_helpers import CLEAN

    monkeypatch.setattr("agentgym.leaderboard.submit.git_state", lambda: CLEAN)
    out = tmp_path / "b.tar.gz"
    paths = [str(p) for p in results_files["oracle"]]
    assert main(["leaderboard", "submit", *paths, "--out", str(out),
                 "--agent-description", "scripted oracle"]) == 0
    assert f"wrote {out}: 3 results files of oracle" in capsys.readouterr().out
    manifest = json.loads(__import__("lb_helpers").read_members(out)["manifest.json"])
    assert manifest["agent"]["description"] == "scripted oracle"
    assert main(["leaderboard", "validate", str(out), "-q"]) == 0
    printed = capsys.readouterr().out
    assert "accepted: 3 files, 16 episodes" in printed
    assert "results/001-sudoku-v0.json: oracle on agentgym/Sudoku-v0 (test)" in printed


def test_submit_dirty_tree_is_a_usage_error(results_files: dict[str, list[Path]],
                                            tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    dirty = GitState("a" * 40, True, "checkout")
    monkeypatch.setattr("agentgym.leaderboard.submit.git_state", lambda: dirty)
    paths = [str(p) for p in results_files["oracle"]]
    assert main(["leaderboard", "submit", *paths, "--out", str(tmp_path / "b.tar.gz")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("agentgym leaderboard: error: the agentgym checkout has uncommitted")
    assert "\n" not in err
    assert main(["leaderboard", "submit", *paths, "--out", str(tmp_path / "b.tar.gz"),
                 "--allow-dirty"]) == 0
    assert "DIRTY" in capsys.readouterr().out
    # ... and the validator rejects what --allow-dirty made.
    assert main(["leaderboard", "validate", str(tmp_path / "b.tar.gz"), "-q"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("agentgym leaderboard validate: rejected: manifest.json: git.dirty")


def test_validate_rejection_is_exit_1_and_one_line(bundles: dict[str, Path],
                                                   forge: Callable[..., Path],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        results["results/000-tictactoe-v0.json"]["episodes"][0]["trace"][0]["reward"] = 9.0

    forged = forge(bundles["oracle"], edit)
    assert main(["leaderboard", "validate", str(forged), "-q"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("agentgym leaderboard validate: rejected: results/000-tictactoe-v0."
                          "json: episodes[0].trace[0].reward: replay gives")
    assert "\n" not in err


def test_usage_errors_are_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["leaderboard", "validate", str(tmp_path / "nope.tar.gz")]) == 2
    assert "no such bundle file" in capsys.readouterr().err
    assert main(["leaderboard", "validate", "x", "--max-bytes", "0"]) == 2
    assert "--max-bytes must be >= 1" in capsys.readouterr().err
    assert main(["leaderboard", "submit", str(tmp_path / "missing.json"), "--out",
                 str(tmp_path / "b.tar.gz")]) == 2
    assert "missing.json" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["leaderboard", "build", "a.tar.gz"])  # no --out
    assert exited.value.code == 2


def test_validate_small_size_limit(bundles: dict[str, Path],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["leaderboard", "validate", str(bundles["oracle"]), "--max-bytes", "100"]) == 1
    assert "over the bundle size limit of 100" in capsys.readouterr().err


def test_build_skips_rejected_bundles(bundles: dict[str, Path], forge: Callable[..., Path],
                                      tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        manifest["git"]["dirty"] = True

    forged = forge(bundles["random"], edit)
    site = tmp_path / "site"
    assert main(["leaderboard", "build", str(bundles["oracle"]), str(forged), "--out",
                 str(site), "-q"]) == 1
    captured = capsys.readouterr()
    assert f"rejected: {forged}: manifest.json: git.dirty" in captured.err
    assert "(1 accepted, 1 rejected)" in captured.out
    page = (site / "index.html").read_text()
    assert "oracle" in page and ">random<" not in page
    assert "Rejected bundles" in page and "forged.tar.gz" in page
    assert main(["leaderboard", "build", str(bundles["oracle"]), "--out", str(site),
                 "-q"]) == 0
