"""The validator accepts an honest bundle and rejects each forgery with a precise one-liner."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentgym.leaderboard.errors import Rejected
from agentgym.leaderboard.validate import validate_bundle
from agentgym.metrics import summarise

TTT = "results/000-tictactoe-v0.json"
SUDOKU = "results/001-sudoku-v0.json"
SOKOBAN = "results/002-sokoban-v0.json"


def test_honest_bundle_accepted_with_the_claimed_numbers(bundles: dict[str, Path],
                                                         results_files: dict[str, list[Path]]
                                                         ) -> None:
    report = validate_bundle(bundles["random"])
    claimed = [json.loads(p.read_text()) for p in results_files["random"]]
    assert [run.env_id for run in report.runs] == [c["env_id"] for c in claimed]
    for run, data in zip(report.runs, claimed, strict=True):
        assert run.summary == data["summary"]
        assert len(run.episodes) == len(data["task_seeds"]) * data["trials"]
    steps = sum(len(ep["trace"]) for data in claimed for ep in data["episodes"])
    assert report.steps == steps and report.episodes == (3 + 3 + 2) * 2
    assert report.line().startswith(f"accepted: 3 files, 16 episodes, {steps} steps replayed")


def _reject(forge: Callable[..., Path], bundle: Path, edit: Callable[..., None],
            *fragments: str) -> str:
    forged = forge(bundle, edit)
    with pytest.raises(Rejected) as caught:
        validate_bundle(forged)
    message = str(caught.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message
    return message


def _episode(results: dict[str, Any], name: str, *, failing: bool | None = None,
             min_steps: int = 1) -> tuple[int, dict[str, Any]]:
    for i, ep in enumerate(results[name]["episodes"]):
        if len(ep["trace"]) >= min_steps and (failing is None or ep["success"] != failing):
            return i, ep
    raise AssertionError(f"no such episode in {name}")


def _resummarise(data: dict[str, Any], family: str = "games") -> None:
    data["summary"] = summarise(data["episodes"], trials=data["trials"], family=family)


def test_forged_reward(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        i, ep = _episode(results, TTT)
        ep["trace"][0]["reward"] += 1.0
        ep["episode_return"] += 1.0
        _resummarise(results[TTT])

    msg = _reject(forge, bundles["oracle"], edit, TTT, "trace[0].reward", "replay gives",
                  "results claim")
    assert "episodes[0]" in msg


def test_forged_summary(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        results[SUDOKU]["summary"]["success_rate"] = 1.0

    _reject(forge, bundles["random"], edit, SUDOKU, "summary.success_rate: recomputed")


def test_forged_success_on_the_last_step(bundles: dict[str, Path],
                                         forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        i, ep = _episode(results, SUDOKU, failing=True)
        ep["success"] = ep["trace"][-1]["success"] = True
        _resummarise(results[SUDOKU])

    _reject(forge, bundles["random"], edit, SUDOKU, ".success: replay gives false")


def test_dropped_failing_episodes(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        data = results[SUDOKU]
        kept = [ep for ep in data["episodes"] if ep["success"]]
        assert len(kept) < len(data["episodes"])  # random fails some 4x4 sudokus
        data["episodes"] = kept
        _resummarise(data)

    _reject(forge, bundles["random"], edit, SUDOKU, "episodes: ", "expected 6 (3 tasks x 2 "
            "trials); missing task")


def test_reordered_episodes(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        eps = results[TTT]["episodes"]
        eps[1], eps[2] = eps[2], eps[1]

    _reject(forge, bundles["oracle"], edit, TTT, "episodes[1].episode: expected 1 (task 0 "
            "trial 1), results have 2", "out of order")


def test_initial_observation_edited(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        results[SOKOBAN]["episodes"][1]["initial_observation_sha"] = "0" * 16

    _reject(forge, bundles["oracle"], edit, SOKOBAN, "episodes[1].initial_observation_sha")


def test_step_observation_edited(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        i, ep = _episode(results, TTT, min_steps=2)
        ep["trace"][1]["observation_sha"] = "f" * 16

    _reject(forge, bundles["oracle"], edit, TTT, "trace[1].observation_sha", "ffffffff")


def test_reordered_steps(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        i, ep = _episode(results, SOKOBAN, min_steps=2)
        ep["trace"][0], ep["trace"][1] = ep["trace"][1], ep["trace"][0]

    _reject(forge, bundles["oracle"], edit, SOKOBAN, ".trace[0].")


def test_changed_seed(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    from agentgym.splits import task_set_hash

    def edit(manifest: dict, results: dict) -> None:
        data = results[TTT]
        data["task_seeds"][1] = 7
        data["task_set_hash"] = task_set_hash(data["env_id"], data["env_kwargs"],
                                              data["task_seeds"])
        manifest["files"][0].update(task_seeds=data["task_seeds"],
                                    task_set_hash=data["task_set_hash"])

    _reject(forge, bundles["oracle"], edit, TTT, "task_seeds[1]: 7 is not split 'test'",
            "changed seed")


def test_task_set_hash_forged(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        results[TTT]["task_set_hash"] = manifest["files"][0]["task_set_hash"] = "0" * 16

    _reject(forge, bundles["oracle"], edit, TTT, "task_set_hash: recomputed")


def test_other_verifier_version(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        results[TTT]["verifier"]["version"] = "1"
        manifest["files"][0]["verifier"] = results[TTT]["verifier"]

    _reject(forge, bundles["oracle"], edit, TTT, "verifier.version: the installed env has",
            'results claim "1"')


def test_truncated_trace(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        i, ep = _episode(results, TTT, min_steps=2)
        gone = ep["trace"].pop()
        ep["steps"] -= 1
        ep["episode_return"] -= gone["reward"]
        _resummarise(results[TTT])

    _reject(forge, bundles["oracle"], edit, TTT, "truncated trace")


def test_made_up_extra_step(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        i, ep = _episode(results, SOKOBAN)
        ep["trace"].append(dict(ep["trace"][-1]))
        ep["steps"] += 1

    _reject(forge, bundles["oracle"], edit, SOKOBAN, "made-up step")


def test_forged_tokens(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        results[TTT]["episodes"][0]["prompt_tokens"] = 10  # the steps say 0

    _reject(forge, bundles["oracle"], edit, TTT, "episodes[0].prompt_tokens: recomputed")


def test_wrong_types(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        results[TTT]["episodes"][2]["steps"] = "3"

    _reject(forge, bundles["oracle"], edit, TTT,
            'episodes[2].steps: expected an integer, got "3"')


def test_boolean_is_not_a_number(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        results[TTT]["episodes"][0]["trace"][0]["reward"] = True

    _reject(forge, bundles["oracle"], edit, TTT, "trace[0].reward: expected a number, got true")


def test_unknown_env_id(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        results[TTT]["env_id"] = manifest["files"][0]["env_id"] = "agentgym/Chess-v9"

    _reject(forge, bundles["oracle"], edit, TTT, "env_id: unknown env id 'agentgym/Chess-v9'")


def test_dirty_tree_manifest(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        manifest["git"]["dirty"] = True

    _reject(forge, bundles["oracle"], edit, "manifest.json: git.dirty")


def test_manifest_disagrees_with_results(bundles: dict[str, Path],
                                         forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        manifest["files"][1]["trials"] = 1

    _reject(forge, bundles["oracle"], edit, "manifest.json: files[1].trials: says 1",
            SUDOKU)


def test_incompatible_agentgym_version(bundles: dict[str, Path],
                                       forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        for data in results.values():
            data["versions"]["agentgym"] = "9.0.0"
        manifest["agentgym_version"] = "9.0.0"

    _reject(forge, bundles["oracle"], edit, TTT, "versions.agentgym: '9.0.0'")


def test_contradicting_results_in_one_bundle(bundles: dict[str, Path],
                                             forge: Callable[..., Path]) -> None:
    def edit(manifest: dict, results: dict) -> None:
        results[SUDOKU]["versions"]["agentgym"] = "0.1.7"

    # The manifest names one agentgym version for the bundle; a file of another is refused.
    _reject(forge, bundles["oracle"], edit, "manifest.json: agentgym_version: says '0.1.0'",
            f"{SUDOKU} has '0.1.7'")


def test_hash_mismatch(bundles: dict[str, Path], tmp_path: Path) -> None:
    from lb_helpers import read_members

    from agentgym.leaderboard.bundle import write_bundle

    members = read_members(bundles["oracle"])
    manifest = json.loads(members.pop("manifest.json"))
    members[SOKOBAN] = members[SOKOBAN].replace(b'"success": true', b'"success": false', 1)
    forged = write_bundle(tmp_path / "b.tar.gz", manifest, members)
    with pytest.raises(Rejected, match=rf"^{SOKOBAN}: sha256 is .* files\[2\].sha256 says"):
        validate_bundle(forged)


def test_seed_the_env_refuses(bundles: dict[str, Path], forge: Callable[..., Path]) -> None:
    from agentgym.splits import task_set_hash

    def edit(manifest: dict, results: dict) -> None:
        data = results[TTT]
        data["split"] = manifest["files"][0]["split"] = None  # custom seeds: any int is named
        data["task_seeds"][0] = data["episodes"][0]["seed"] = -5
        data["episodes"][1]["seed"], data["episodes"][1]["agent_seed"] = -5, -5 + 1_000_003
        data["episodes"][0]["agent_seed"] = -5
        data["task_set_hash"] = task_set_hash(data["env_id"], data["env_kwargs"],
                                              data["task_seeds"])
        manifest["files"][0].update(task_seeds=data["task_seeds"],
                                    task_set_hash=data["task_set_hash"])

    _reject(forge, bundles["oracle"], edit, TTT, "episodes[0].seed: the env cannot reset with -5")


def _retotal(ep: dict[str, Any]) -> None:
    from agentgym.leaderboard.replay import episode_totals

    totals = episode_totals(ep["trace"])
    ep.update(totals)


def test_failed_episode_with_a_partial_trace_is_accepted(bundles: dict[str, Path],
                                                         forge: Callable[..., Path]) -> None:
    """The agent gave up (endpoint errors): the steps it did are replayed; not a success."""

    def edit(manifest: dict, results: dict) -> None:
        i, ep = _episode(results, TTT, min_steps=2)
        ep["trace"] = ep["trace"][:1]
        _retotal(ep)
        ep.update(failed=True, failure="endpoint kept failing", success=False)
        _resummarise(results[TTT])

    report = validate_bundle(forge(bundles["oracle"], edit))
    assert report.runs[0].summary["failed_episodes"] == 1
    assert report.runs[0].summary["success_rate"] == 5 / 6


def test_tokens_are_trusted_when_they_add_up(bundles: dict[str, Path],
                                             forge: Callable[..., Path]) -> None:
    """Tokens cannot be replayed: consistent ones (steps -> episode -> summary) are accepted."""

    def edit(manifest: dict, results: dict) -> None:
        for ep in results[TTT]["episodes"]:
            for step in ep["trace"]:
                step["prompt_tokens"], step["completion_tokens"] = 120, 8
            _retotal(ep)
        _resummarise(results[TTT])

    run = validate_bundle(forge(bundles["oracle"], edit)).runs[0]
    mean_steps = run.summary["mean_steps"]
    assert run.summary["mean_tokens"] == pytest.approx(128 * mean_steps)


def test_a_family_policy_without_observations(bundles: dict[str, Path],
                                              forge: Callable[..., Path],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Under the terminal family's policy (here forced onto the games): observation hashes are
    not compared, rewards still are, and every episode gets a fresh env."""
    import agentgym.leaderboard.validate as validate_module
    from agentgym.leaderboard.replay import policy_for

    made: list[str] = []
    real_make = validate_module.make_text_env
    monkeypatch.setattr(validate_module, "policy_for", lambda family: policy_for("terminal"))
    monkeypatch.setattr(validate_module, "make_text_env",
                        lambda env_id, kwargs: made.append(env_id) or real_make(env_id, kwargs))

    def edit_observations(manifest: dict, results: dict) -> None:
        for ep in results[TTT]["episodes"]:
            ep["initial_observation_sha"] = "0" * 16
            for step in ep["trace"]:
                step["observation_sha"] = "0" * 16

    report = validate_bundle(forge(bundles["oracle"], edit_observations))
    assert made.count("agentgym/TicTacToe-v0") == len(report.runs[0].episodes) == 6

    def edit_reward(manifest: dict, results: dict) -> None:
        results[TTT]["episodes"][0]["trace"][0]["reward"] = 5.0

    _reject(forge, bundles["oracle"], edit_reward, TTT, "trace[0].reward: replay gives")


def test_metric_extras_are_replayed_where_the_env_reports_them(tmp_path: Path) -> None:
    """Household's info carries ``task_type`` (success by task type is a summary metric)."""
    from lb_helpers import CLEAN, forge_bundle

    from agentgym.evaluation import evaluate
    from agentgym.leaderboard.submit import submit

    run = evaluate("agentgym/Household-v0", "oracle", split="test", limit=1, progress=False)
    data = run.to_json()
    env = __import__("gymnasium").make("agentgym/Household-v0", **data["env_kwargs"])
    task_type = env.reset(seed=data["task_seeds"][0])[1]["task_type"]
    env.close()
    assert data["episodes"][0]["extras"] == {"task_type": task_type}  # the eval keeps it
    assert data["summary"]["success_by_task_type"] == {task_type: 1.0}
    path = tmp_path / "household.json"
    path.write_text(json.dumps(data))
    submit([path], tmp_path / "b.tar.gz", git=CLEAN)
    report = validate_bundle(tmp_path / "b.tar.gz")
    assert report.runs[0].summary["success_by_task_type"] == {task_type: 1.0}
    name = "results/000-household-v0.json"

    def drop(manifest: dict, results: dict) -> None:
        del results[name]["episodes"][0]["extras"]
        _resummarise(results[name], family="household")

    dropped = forge_bundle(tmp_path / "b.tar.gz", drop, tmp_path / "dropped.tar.gz")
    with pytest.raises(Rejected, match=r"episodes\[0\]\.extras\.task_type: replay gives"):
        validate_bundle(dropped)

    def edit(manifest: dict, results: dict) -> None:
        results[name]["episodes"][0]["extras"]["task_type"] = "made-up"
        _resummarise(results[name], family="household")

    forged = forge_bundle(tmp_path / "b.tar.gz", edit, tmp_path / "forged.tar.gz")
    with pytest.raises(Rejected, match=r"episodes\[0\]\.extras\.task_type: replay gives"):
        validate_bundle(forged)


# ---------------------------------------------------------------------- env_kwargs (issue 32)
@pytest.mark.parametrize(("env_id", "kwargs", "fragment"), [
    # A weaker sandbox would replay the submitter's shell commands on the validator's host.
    ("agentgym/Terminal-v0", {"backend": "bwrap"},
     "env_kwargs: backend is operator-only: a leaderboard bundle may not set it"),
    ("agentgym/Terminal-v0", {"task": "/etc"}, "env_kwargs: task must be one of"),
    ("agentgym/SearchQA-v0", {"corpus": "/etc/passwd"}, "env_kwargs: corpus must be one of"),
    ("agentgym/SearchQA-v0", {"questions": "/etc/passwd"},
     "env_kwargs: questions is operator-only"),
    ("agentgym/SearchQA-v0", {"scale": 742},
     "env_kwargs: scale must be in [1, "),
    ("agentgym/TicTacToe-v0", {"sise": 1}, "env_kwargs: agentgym/TicTacToe-v0 takes no kwarg"),
    ("agentgym/TicTacToe-v0", {"max_invalid": 0}, "env_kwargs: max_invalid must be in"),
])
def test_a_bundle_may_set_only_bundle_scoped_kwargs_and_is_refused_before_any_replay(
        bundles: dict[str, Path], forge: Callable[..., Path], monkeypatch: pytest.MonkeyPatch,
        env_id: str, kwargs: dict[str, Any], fragment: str) -> None:
    import agentgym.leaderboard.validate as validate

    def no_replay(*args: Any, **kw: Any) -> None:
        raise AssertionError("replayed a step of a bundle that should have been refused")

    monkeypatch.setattr(validate, "replay_episode", no_replay)

    def edit(manifest: dict, results: dict) -> None:
        # The last file: the refusal must come before the first file is replayed too.
        results[SOKOBAN]["env_id"] = manifest["files"][2]["env_id"] = env_id
        results[SOKOBAN]["env_kwargs"] = manifest["files"][2]["env_kwargs"] = kwargs

    message = _reject(forge, bundles["random"], edit, SOKOBAN, fragment)
    assert message.startswith(SOKOBAN)


def test_the_replay_runs_with_the_hardened_backend_whatever_the_bundle_says() -> None:
    from agentgym.leaderboard.validate import check_env_kwargs

    data = {"env_id": "agentgym/Terminal-v0", "env_kwargs": {"split": "test"}}
    assert check_env_kwargs(data, "r.json") == {"split": "test", "backend": "docker"}
    data = {"env_id": "agentgym/Sokoban-v0", "env_kwargs": {"size": 7}}
    assert check_env_kwargs(data, "r.json") == {"size": 7}
