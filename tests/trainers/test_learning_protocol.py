"""The learning benchmark's protocol (benchmarks/learning/): intervals, scripts, seeds, figures.

The intervals are checked against values worked out by hand; the protocol's guards (disjoint
validation and test seeds, test seeds touched once, >= 200 test episodes and >= 5 training
seeds, a GRPO variant only beside standard GRPO, baselines of the same game) against the
misuses they exist to refuse.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

LEARNING = Path(__file__).resolve().parents[2] / "benchmarks" / "learning"
sys.path.insert(0, str(LEARNING))

import baselines  # noqa: E402
import blind  # noqa: E402
import intervals  # noqa: E402
import report  # noqa: E402
import run  # noqa: E402

# --- intervals: hand-computed values ------------------------------------------------------------


def test_wilson_matches_the_hand_computed_interval():
    # 8 of 10, z = 1.96: centre (0.8 + 1.96^2 / 20) / (1 + 1.96^2 / 10) = 0.99208 / 1.38416
    # = 0.71674; half-width 1.96 * sqrt(0.016 + 0.009604) / 1.38416 = 0.22658.
    lo, hi = intervals.wilson_interval(8, 10, z=1.96)
    assert lo == pytest.approx(0.71674 - 0.22658, abs=1e-4)
    assert hi == pytest.approx(0.71674 + 0.22658, abs=1e-4)
    # 0 of 20: [0, z^2 / (n + z^2)] = [0, 3.8415 / 23.8415].
    assert intervals.wilson_interval(0, 20) == (0.0, pytest.approx(3.841459 / 23.841459))
    # n of n mirrors 0 of n.
    lo, hi = intervals.wilson_interval(20, 20)
    assert hi == 1.0 and lo == pytest.approx(20 / 23.841459)


def test_wilson_is_not_the_wald_interval():
    # Wald at 1 of 100 goes below zero (0.01 - 1.96 * 0.00995 < 0); Wilson stays inside [0, 1]
    # and is asymmetric around 1%.
    lo, hi = intervals.wilson_interval(1, 100)
    assert 0.0 < lo < 0.01 < hi
    assert hi - 0.01 > 0.01 - lo


@pytest.mark.parametrize("k, n", [(0, 0), (3, 2), (-1, 5), (1.5, 4), (True, 4)])
def test_wilson_refuses_impossible_counts(k, n):
    with pytest.raises((ValueError, TypeError)):
        intervals.wilson_interval(k, n)


def test_bootstrap_mean_of_two_values_by_hand():
    # The mean of 2 draws from {0, 1}: 0 w.p. 1/4, 0.5 w.p. 1/2, 1 w.p. 1/4, so its 2.5th and
    # 97.5th percentiles are 0 and 1.
    assert intervals.bootstrap_mean_interval([0.0, 1.0]) == (0.5, 0.0, 1.0)
    # At the 40% level (30th and 70th percentiles) both fall on 0.5.
    assert intervals.bootstrap_mean_interval([0.0, 1.0], level=0.4) == (0.5, 0.5, 0.5)
    # Seeded: the same draws every time.
    values = [0.1, 0.4, 0.35, 0.8, 0.5]
    assert intervals.bootstrap_mean_interval(values) == intervals.bootstrap_mean_interval(values)


def test_paired_bootstrap_removes_what_the_pair_shares():
    # VPR is 5 points above GRPO in every seed, while the seeds spread over 80 points: paired,
    # the difference is exactly +0.05; unpaired, the interval is wide and holds zero.
    grpo = [0.1, 0.5, 0.9]
    vpr = [0.15, 0.55, 0.95]
    assert intervals.paired_bootstrap_interval(vpr, grpo) == (0.05, 0.05, 0.05)
    _, lo, hi = intervals.bootstrap_difference_interval(vpr, grpo)
    assert lo < 0 < hi


def test_difference_to_a_reference_carries_the_reference_noise():
    # Constant arm 0.5 against 4 fair coin flips: the reference's bootstrap mean is 0 with
    # probability 1/16 > 2.5% and 1 likewise, so the interval is [0.5 - 1, 0.5 - 0].
    assert intervals.bootstrap_difference_interval([0.5, 0.5], [1, 0, 1, 0]) == (0.0, -0.5, 0.5)
    # With no noise on either side the interval is the point.
    assert intervals.bootstrap_difference_interval([0.7] * 5, [1] * 10) == (-0.3, -0.3, -0.3)


@pytest.mark.parametrize("a, b", [([0.1, 0.2], [0.1]), ([], []), ([math.nan], [0.1])])
def test_paired_bootstrap_refuses_unpaired_or_bad_input(a, b):
    with pytest.raises(ValueError):
        intervals.paired_bootstrap_interval(a, b)


def test_level_must_be_a_probability():
    for level in (0.0, 1.0, 95):
        with pytest.raises(ValueError):
            intervals.bootstrap_mean_interval([0.1, 0.2], level=level)


def test_excludes_zero_needs_the_whole_interval_on_one_side():
    assert intervals.excludes_zero((0.1, 0.01, 0.2))
    assert intervals.excludes_zero((-0.1, -0.2, -0.01))
    assert not intervals.excludes_zero((0.1, 0.0, 0.2))
    assert not intervals.excludes_zero((0.1, -0.01, 0.2))


# --- board-blind scripts ------------------------------------------------------------------------


def test_priority_script_plays_the_first_legal_action_of_its_list():
    s = blind.Script(("3 3", "2 2", "1 1"), "priority")
    s.reset()
    assert s.act({"available_actions": ["1 1", "2 2"]}) == "2 2"
    assert s.act({"available_actions": ["1 1"]}) == "1 1"
    # Nothing of its list is legal: it answers its first action (which the env rejects).
    assert s.act({"available_actions": ["1 2"]}) == "3 3"


def test_sequence_script_walks_its_list_and_skips_blocked_moves():
    s = blind.Script(("up", "up", "left"), "sequence")
    s.reset()
    legal = {"available_actions": ["up", "left"]}
    assert [s.act(legal) for _ in range(4)] == ["up", "up", "left", "up"]
    s.reset()
    assert s.act({"available_actions": ["left"]}) == "left"  # both ups blocked


def test_a_script_never_reads_the_board():
    # The attack a learned "script" could hide: two different boards with the same legal moves
    # get the same answer, whatever the observation says.
    agent = baselines.ScriptAgent(blind.Script(baselines.CENTRE_CORNERS_EDGES, "priority"))
    agent.reset(None)
    info = {"available_actions": ["1 1", "3 3"]}
    assert agent.act("X . .\n. O .\n. . .", info) == agent.act("completely different", info)


def test_random_scripts_are_reproducible_permutations():
    a = blind.random_scripts(["a", "b", "c", "d"], "priority", 5, 0, seed=3)
    b = blind.random_scripts(["a", "b", "c", "d"], "priority", 5, 0, seed=3)
    assert [s.actions for s in a] == [s.actions for s in b]
    assert all(sorted(s.actions) == ["a", "b", "c", "d"] for s in a)
    seq = blind.random_scripts(["up", "down"], "sequence", 2, 15, seed=0)
    assert all(len(s.actions) == 15 for s in seq)
    with pytest.raises(ValueError):
        blind.random_scripts(["a"], "priority", 0, 0, seed=0)
    with pytest.raises(ValueError):
        blind.Script((), "priority")
    with pytest.raises(ValueError):
        blind.Script(("a",), "shuffle")  # type: ignore[arg-type]


# --- baselines ----------------------------------------------------------------------------------


def test_baselines_choose_on_validation_and_report_on_test(tmp_path):
    rc = baselines.main(["--out", str(tmp_path), "--settings", "tictactoe-vpr", "--scripts", "12",
                         "--screen", "10", "--top", "3", "--val-episodes", "20",
                         "--test-episodes", "30", "--progress", "0"])
    assert rc == 0
    data = json.loads((tmp_path / "tictactoe-vpr.json").read_text())
    assert data["val_seeds"] == [baselines.VAL_SEED, baselines.VAL_SEED + 19]
    assert data["test_seeds"] == [baselines.TEST_SEED, baselines.TEST_SEED + 29]
    best = data["best_script"]
    assert sorted(best["actions"]) == sorted(baselines.SETTINGS["tictactoe-vpr"].vocabulary)
    assert len(best["test_outcomes"]) == 30 and best["test"]["successes"] == sum(
        best["test_outcomes"])
    # The oracle never loses to the optimal opponent; a draw is a success.
    assert data["oracle"]["success"] == 1.0
    assert data["random"]["success"] < data["oracle"]["success"]
    lo, hi = best["test"]["ci95"]
    assert lo <= best["test"]["success"] <= hi
    # Replaying the chosen script on the test seeds gives the reported outcomes.
    import gymnasium as gym

    env = gym.make("agentgym/TicTacToe-v0", preset="vpr")
    agent = baselines.ScriptAgent(blind.Script(tuple(best["actions"]), "priority"))
    replay = [int(baselines.play(env, agent, s)) for s in range(baselines.TEST_SEED,
                                                                 baselines.TEST_SEED + 30)]
    assert replay == best["test_outcomes"]


def test_baselines_refuse_overlapping_seeds_and_unknown_settings(tmp_path, capsys):
    with pytest.raises(ValueError, match="overlap"):
        baselines.measure("tictactoe-vpr", baselines.SETTINGS["tictactoe-vpr"], scripts=2,
                          screen=2, top=1, val_episodes=5, test_episodes=5, val_seed=10,
                          test_seed=12, search_seed=0, progress=False)
    with pytest.raises(ValueError, match="unknown setting"):
        baselines.main(["--out", str(tmp_path), "--settings", "chess"])


# --- the figures --------------------------------------------------------------------------------


def _eval(k: int, n: int = 10, steps: int = 0) -> dict:
    return {"outcomes": [1] * k + [0] * (n - k), "env_steps": steps}


def _baselines(script_k: int, n: int = 10) -> dict:
    r = report.rate(_eval(script_k, n))
    return {"random": report.rate(_eval(1, n)), "oracle": report.rate(_eval(n, n)),
            "best_script": {"test": r, "test_outcomes": _eval(script_k, n)["outcomes"]}}


def test_summary_pairs_vpr_with_grpo_by_seed():
    runs = []
    for seed, k in zip((1, 2, 3), (2, 5, 8), strict=True):
        runs.append({"arm": "grpo", "seed": seed,
                     "curve": [_eval(k - 1, steps=40), _eval(k, steps=80)]})
        runs.append({"arm": "vpr", "seed": seed,
                     "curve": [_eval(k, steps=41), _eval(k + 1, steps=82)]})
    s = report.summarize(_eval(1), runs, _baselines(5), n_boot=2000)
    assert s["arms"]["grpo"]["per_seed_final"]["2"]["success"] == 0.5
    assert s["arms"]["grpo"]["final"]["mean"] == pytest.approx(0.5)
    # VPR is one episode in ten (+0.1) above GRPO in every seed.
    d = s["paired"]["vpr - grpo"]
    assert d["mean"] == pytest.approx(0.1) and d["ci95"] == [pytest.approx(0.1)] * 2
    assert d["excludes_zero"] and d["seeds"] == [1, 2, 3]
    # GRPO's mean equals the script's 50%: not a win over the script.
    assert s["arms"]["grpo"]["beats_best_script"] is False
    assert s["arms"]["grpo"]["curve"][0]["env_steps"] == 40
    assert s["references"]["warm_start"]["success"] == 0.1
    assert set(s["references"]) >= {"random", "oracle", "best_script", "warm_start"}


def test_summary_calls_a_win_only_when_the_interval_clears_the_script():
    runs = [{"arm": "vpr", "seed": s, "curve": [_eval(150, n=200)]} for s in range(1, 6)]
    s = report.summarize(_eval(0, 200), runs, _baselines(50, 200), n_boot=2000)
    assert s["arms"]["vpr"]["beats_best_script"] is True
    runs = [{"arm": "vpr", "seed": s, "curve": [_eval(k, n=200)]}
            for s, k in zip(range(1, 6), (60, 200, 0, 150, 40), strict=True)]
    s = report.summarize(_eval(0, 200), runs, _baselines(100, 200), n_boot=2000)
    assert s["arms"]["vpr"]["beats_best_script"] is False  # seeds spread over the script


def test_variants_are_paired_with_standard_grpo():
    assert report.pairs(["grpo", "vpr"]) == [("vpr", "grpo")]
    assert report.pairs(["grpo", "grpo-pos", "vpr"]) == [("vpr", "grpo"), ("grpo-pos", "grpo")]
    assert report.pairs(["vpr"]) == []


def test_plot_draws_the_four_reference_lines(tmp_path):
    runs = [{"arm": "grpo", "seed": 1, "curve": [_eval(3, steps=80)]}]
    s = report.summarize(_eval(1), runs, _baselines(5), n_boot=200)
    report.plot(s, tmp_path / "p.png")
    assert (tmp_path / "p.png").stat().st_size > 0
    assert [k for k, _, _ in report.REFERENCE_LINES] == ["oracle", "best_script", "warm_start",
                                                         "random"]


# --- the protocol's guards ----------------------------------------------------------------------


def test_validation_and_test_seeds_are_disjoint():
    val, test = run.split_seeds("val", 500), run.split_seeds("test", 500)
    assert not set(val) & set(test)
    with pytest.raises(ValueError, match="overlap"):
        run.split_seeds("test", 200, val_seed=800_100, test_seed=800_000)
    with pytest.raises(ValueError):
        run.split_seeds("train", 10)


def test_test_seeds_serve_one_set_of_configurations(tmp_path):
    run.guard_test_split(tmp_path, "abc")
    run.guard_test_split(tmp_path, "abc")  # the same configurations may resume
    with pytest.raises(ValueError, match="touched once"):
        run.guard_test_split(tmp_path, "def")


def test_config_digest_follows_the_files(tmp_path):
    f = tmp_path / "a.toml"
    f.write_text("lr = 1e-5\n")
    before = run.configs_digest([f], {"budget": 160})
    assert run.configs_digest([f], {"budget": 320}) != before
    f.write_text("lr = 2e-5\n")
    assert run.configs_digest([f], {"budget": 160}) != before


@pytest.mark.parametrize("argv, message", [
    (["--split", "test", "--seeds", "3"], "--seeds >= 5"),
    (["--split", "test", "--eval-episodes", "30"], "--eval-episodes >= 200"),
    (["--arms", "grpo-pos,vpr"], "beside standard GRPO"),
    (["--arms", "ppo"], "--arms takes"),
    (["--seeds", "0"], "must be >= 1"),
])
def test_run_refuses_a_protocol_a_reviewer_would_not_accept(argv, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        run.main([*argv, "--baselines", "", "--out", str(tmp_path)])


def test_baselines_of_another_setting_are_refused(tmp_path):
    other = tmp_path / "b.json"
    other.write_text(json.dumps({"env": "agentgym/TicTacToe-v0",
                                 "env_kwargs": {"opponent": "random"}}))
    with pytest.raises(ValueError, match="was measured on"):
        run.load_baselines(str(other), "agentgym/TicTacToe-v0", {"preset": "vpr"})
    # Reward scales change no success: the same rules are accepted.
    same = tmp_path / "s.json"
    same.write_text(json.dumps({"env": "agentgym/TicTacToe-v0",
                                "env_kwargs": {"preset": "vpr", "legal_reward": -1.0}}))
    assert run.load_baselines(str(same), "agentgym/TicTacToe-v0", {"preset": "vpr"})


def test_plan_prints_an_estimate_and_starts_nothing(tmp_path, capsys):
    assert run.main(["--plan", "--split", "test", "--baselines", "", "--out",
                     str(tmp_path / "x")]) == 0
    out = capsys.readouterr().out
    assert "core-hours" in out and "800000-800199" in out
    assert not (tmp_path / "x").exists()


def test_arms_must_play_the_warm_starts_setting(tmp_path):
    # An attack on the reference lines: GRPO on the random opponent (where a script reaches
    # 86%) beside VPR on preset="vpr" would be plotted against one set of lines.
    grpo = tmp_path / "g.toml"
    grpo.write_text((LEARNING.parents[1] / "configs/learn_ttt_grpo.toml").read_text().replace(
        'preset = "vpr"', 'opponent = "random"'))
    with pytest.raises(ValueError, match="different settings"):
        run.main(["--plan", "--baselines", "", "--grpo-config", str(grpo)])


def test_set_overrides_every_job_and_the_test_digest(tmp_path, monkeypatch):
    assert run.parse_sets(["device=cuda", "micro_batch_size=8", "beta=0.01"]) == {
        "device": "cuda", "micro_batch_size": 8, "beta": 0.01}
    with pytest.raises(ValueError, match="KEY=VALUE"):
        run.parse_sets(["device"])
    for owned in ("out_dir=/tmp/elsewhere", "model=tiny-random", "env_kwargs={}"):
        with pytest.raises(ValueError, match="the protocol sets it"):
            run.parse_sets([owned])
    with pytest.raises(ValueError, match="not a trainer config key"):
        run.parse_sets(["devcie=cuda"])

    class Started(Exception):
        pass

    def no_training(cmd, **kwargs):
        raise Started(cmd)

    monkeypatch.setattr(run.subprocess, "run", no_training)
    digests, commands = [], []
    for sets in ([], ["--set", "device=cuda", "--set", "dtype=bfloat16"]):
        out = tmp_path / str(len(sets))
        with pytest.raises(Started) as started:
            run.main(["--split", "test", "--seeds", "5", "--baselines", "", "--out", str(out),
                      *sets])
        digests.append(json.loads((out / "test_split.json").read_text())["digest"])
        commands.append(started.value.args[0])
    # The warm start trains with the overrides, and a test folder that served CPU runs
    # refuses GPU ones: --set is part of the protocol's digest.
    assert digests[0] != digests[1]
    assert commands[1][-4:] == ["--set", "device=cuda", "--set", "dtype=bfloat16"]
    assert commands[1][1:4] == ["-P", "-m", "agentgym.cli"]
