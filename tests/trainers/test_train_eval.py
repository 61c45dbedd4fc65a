"""eval_every / eval_seeds inside train(), and the metrics.csv sink beside metrics.jsonl."""

import csv
import io

import pytest

pytest.importorskip("torch")

from rich.console import Console
from trainer_fakes import fake_rollout_groups, fake_rollout_state_groups, tiny_policy

from agentgym.trainers import grpo as grpo_trainer
from agentgym.trainers import vpr as vpr_trainer
from agentgym.trainers.config import GRPOConfig, VPRConfig
from agentgym.trainers.metrics import read_metrics, without_timing

EVAL = dict(eval_every=2, eval_seeds=[500, 501], max_turns=2, max_new_tokens=4, lr=1e-2,
            progress=False, plots=False, seed=0)


def run_grpo(out, updates, **kw):
    cfg = GRPOConfig(out_dir=str(out), updates=updates, groups=2, group_size=4, **{**EVAL, **kw})
    return grpo_trainer.train(cfg, policy=tiny_policy(), rollout=fake_rollout_groups(),
                              console=Console(file=io.StringIO()))


def test_grpo_evaluates_before_training_and_every_n_updates(tmp_path):
    rows = run_grpo(tmp_path, updates=3)
    assert [r["update"] for r in rows] == [0, 1, 2, 3]
    evaluated = [r["update"] for r in rows if "eval_success_rate" in r]
    assert evaluated == [0, 2, 3]  # the start, every 2nd update, and the last
    for r in rows:
        if "eval_success_rate" in r:
            assert r["eval_episodes"] == 2 and 0 <= r["eval_success_rate"] <= 1
            assert 0 <= r["eval_valid_action_rate"] <= 1
    assert read_metrics(tmp_path / "metrics.jsonl") == rows
    with (tmp_path / "metrics.csv").open() as f:
        table = list(csv.DictReader(f))
    assert [int(r["update"]) for r in table] == [0, 1, 2, 3]
    assert table[1]["eval_success_rate"] == "" and table[2]["eval_success_rate"] != ""
    assert float(table[3]["loss"]) == pytest.approx(rows[3]["loss"])


def test_evaluation_does_not_change_training(tmp_path):
    with_eval = run_grpo(tmp_path / "a", updates=2)
    without = run_grpo(tmp_path / "b", updates=2, eval_every=0, eval_seeds=[])
    drop = lambda r: {k: v for k, v in without_timing(r).items()  # noqa: E731
                      if not k.startswith("eval_")}
    assert [drop(r) for r in with_eval[1:]] == [drop(r) for r in without]


def test_resume_with_evaluation_is_bit_for_bit(tmp_path):
    # eval_every=1: the stopped run's last update (evaluated, being its last) is one the
    # full run evaluates too.
    full = run_grpo(tmp_path / "full", updates=2, eval_every=1)
    run_grpo(tmp_path / "part", updates=1, eval_every=1)
    resumed = run_grpo(tmp_path / "part", updates=2, resume=True, eval_every=1)
    assert [without_timing(r) for r in resumed] == [without_timing(r) for r in full]
    with (tmp_path / "part" / "metrics.csv").open() as f:
        assert [int(r["update"]) for r in csv.DictReader(f)] == [0, 1, 2]


def test_vpr_evaluates_too(tmp_path):
    cfg = VPRConfig(out_dir=str(tmp_path), updates=1, seeds_per_update=1, k=2, **EVAL)
    rows = vpr_trainer.train(cfg, policy=tiny_policy(), rollout=fake_rollout_state_groups(),
                             console=Console(file=io.StringIO()))
    assert rows[0]["update"] == 0 and "eval_success_rate" in rows[0]
    assert "eval_success_rate" in rows[-1]
