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


def test_build_reuses_the_verdict_of_validate(bundles: dict[str, Path], tmp_path: Path,
                                              verdict_cache: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    import agentgym.leaderboard.validate as validate

    assert main(["leaderboard", "validate", str(bundles["oracle"]), "-q"]) == 0
    assert len(list(verdict_cache.glob("*.json"))) == 1
    capsys.readouterr()
    replays = []
    real = validate.validate_results
    monkeypatch.setattr(validate, "validate_results",
                        lambda *a, **k: replays.append(a[1]) or real(*a, **k))
    site = tmp_path / "site"
    assert main(["leaderboard", "build", str(bundles["oracle"]), str(bundles["random"]),
                 "--out", str(site), "-q"]) == 0
    out = capsys.readouterr().out
    assert "reused (same bundle, same code)" in out  # oracle: validated above
    assert len(replays) == 3  # random's three files only: it had no verdict yet
    replays.clear()
    assert main(["leaderboard", "build", str(bundles["oracle"]), str(bundles["random"]),
                 "--out", str(tmp_path / "again"), "-q"]) == 0
    assert replays == [] and capsys.readouterr().out.count("reused") == 2
    assert (site / "index.html").read_text().split("built")[0] == (
        tmp_path / "again" / "index.html").read_text().split("built")[0]
    assert main(["leaderboard", "build", str(bundles["oracle"]), "--out", str(site), "-q",
                 "--replay"]) == 0
    assert len(replays) == 3 and "reused" not in capsys.readouterr().out


def test_a_verdict_is_for_one_bundle_and_one_code(bundles: dict[str, Path], forge,
                                                  verdict_cache: Path,
                                                  monkeypatch: pytest.MonkeyPatch
                                                  ) -> None:  # type: ignore[no-untyped-def]
    from agentgym.leaderboard import verdicts
    from agentgym.leaderboard.errors import Rejected
    from agentgym.leaderboard.validate import validate_bundle

    cache = verdicts.VerdictCache()
    assert cache.root == verdict_cache
    validate_bundle(bundles["oracle"], verdicts=cache)

    # A forged copy has another manifest (the files' hashes), so it is replayed: rejected.
    def edit(manifest: dict, results: dict) -> None:
        results["results/000-tictactoe-v0.json"]["episodes"][0]["trace"][0]["reward"] = 9.0

    with pytest.raises(Rejected, match="replay gives"):
        validate_bundle(forge(bundles["oracle"], edit), verdicts=cache, reuse=True)
    # Other code (a changed env, say) has another fingerprint: replayed again.
    assert validate_bundle(bundles["oracle"], verdicts=cache, reuse=True).reused_from
    monkeypatch.setattr(verdicts, "code_fingerprint", lambda: "f" * 64)
    assert validate_bundle(bundles["oracle"], verdicts=cache, reuse=True).reused_from is None
    # A cache entry that is not a verdict is ignored, not trusted.
    for path in verdict_cache.glob("*.json"):
        path.write_text("{}")
    assert validate_bundle(bundles["oracle"], verdicts=cache, reuse=True).reused_from is None


def test_validate_several_bundles(bundles: dict[str, Path], forge: Callable[..., Path],
                                  capsys: pytest.CaptureFixture[str]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        manifest["git"]["dirty"] = True

    forged = forge(bundles["random"], edit)
    assert main(["leaderboard", "validate", str(bundles["oracle"]), str(forged),
                 str(bundles["random"]), "-q"]) == 1
    captured = capsys.readouterr()
    assert captured.out.count(": accepted: 3 files, 16 episodes") == 2
    assert captured.err.strip() == (f"agentgym leaderboard validate: rejected: {forged}: "
                                    f"{captured.err.split(f'{forged}: ', 1)[1].strip()}")
    assert "manifest.json: git.dirty" in captured.err
    assert main(["leaderboard", "validate", str(bundles["oracle"]), str(bundles["random"]),
                 "-q"]) == 0


def test_validate_and_build_with_jobs(bundles: dict[str, Path], forge: Callable[..., Path],
                                      tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        results["results/000-tictactoe-v0.json"]["episodes"][0]["trace"][0]["reward"] = 9.0

    forged = forge(bundles["oracle"], edit)
    given = [str(bundles["random"]), str(forged), str(bundles["oracle"])]
    assert main(["leaderboard", "validate", *given, "-q", "--jobs", "2"]) == 1
    captured = capsys.readouterr()
    lines = [line for line in captured.out.splitlines() if ": accepted:" in line]
    assert [line.split(": accepted:")[0] for line in lines] == [given[0], given[2]]  # in order
    assert f"rejected: {forged}: results/000-tictactoe-v0.json: episodes[0]" in captured.err
    site = tmp_path / "site"
    assert main(["leaderboard", "build", *given, "--out", str(site), "--jobs", "3"]) == 1
    captured = capsys.readouterr()
    assert captured.out.count("reused (same bundle, same code)") == 2  # the workers' records
    assert "(2 accepted, 1 rejected)" in captured.out
    assert main(["leaderboard", "validate", str(tmp_path / "nope.tar.gz"), given[0],
                 "--jobs", "2"]) == 2
    assert main(["leaderboard", "validate", given[0], "--jobs", "0"]) == 2
