"""The VPR trainer: state-group advantages, flat groups dropped, real rollouts, exact resume."""

import io

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rich.console import Console  # noqa: E402
from trainer_fakes import fake_rollout_state_groups, tiny_policy, weights  # noqa: E402

from agentgym.trainers import vpr as vpr_trainer  # noqa: E402
from agentgym.trainers.config import VPRConfig  # noqa: E402
from agentgym.trainers.metrics import read_metrics, without_timing  # noqa: E402


def cfg_for(tmp_path, **kw):
    base = dict(env="agentgym/TicTacToe-v0", out_dir=str(tmp_path), updates=1,
                seeds_per_update=2, k=4, max_new_tokens=4, max_turns=2, lr=1e-2,
                progress=False, plots=False)
    base.update(kw)
    return VPRConfig(**base)


def quiet():
    return Console(file=io.StringIO(), width=200)


def test_flat_state_groups_are_dropped_and_counted(tmp_path):
    # Groups 0 and 2 (turn 0 of each seed) score by parity; groups 1 and 3 are flat.
    score = fake_rollout_state_groups(lambda g, ids: float(ids[0] % 2) if g % 2 == 0 else 1.0)
    policy = tiny_policy()
    row = vpr_trainer.train(cfg_for(tmp_path), policy=policy, rollout=score,
                            console=quiet())[0]
    assert row["state_groups"] == 4 and row["zero_spread_fraction"] == 0.5
    assert row["trained_rows"] == 8 and row["skipped"] == 0 and np.isfinite(row["loss"])


def test_an_all_flat_batch_is_reported_and_skipped(tmp_path):
    policy = tiny_policy()
    before = weights(policy.model)
    console = quiet()
    row = vpr_trainer.train(cfg_for(tmp_path), policy=policy,
                            rollout=fake_rollout_state_groups(lambda g, ids: -1.0),
                            console=console)[0]
    assert row["skipped"] == 1 and row["zero_spread_fraction"] == 1.0 and "loss" not in row
    assert "zero score spread" in console.file.getvalue()
    after = weights(policy.model)
    assert all(torch.equal(before[k], after[k]) for k in before)


def test_real_state_group_rollouts_on_tictactoe_and_bit_for_bit_resume(tmp_path):
    full = tiny_policy()
    rows_full = vpr_trainer.train(cfg_for(tmp_path / "full", updates=2), policy=full,
                                  console=quiet())
    row = rows_full[0]
    # Two episodes of at most two committed turns; k candidates at every state.
    assert row["episodes"] == 2 and 2 <= row["env_steps"] <= 4
    assert row["state_groups"] == row["env_steps"]
    assert 0.0 <= row["valid_action_rate"] <= 1.0 and 0.0 <= row["env_time_share"] <= 1.0
    assert row["tokens_per_s"] > 0
    vpr_trainer.train(cfg_for(tmp_path / "part", updates=1), policy=tiny_policy(),
                      console=quiet())
    resumed = tiny_policy()
    rows_resumed = vpr_trainer.train(cfg_for(tmp_path / "part", updates=2, resume=True),
                                     policy=resumed, console=quiet())
    assert [without_timing(r) for r in rows_resumed] == [without_timing(r) for r in rows_full]
    a, b = weights(full.model), weights(resumed.model)
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert len(read_metrics(tmp_path / "part" / "metrics.jsonl")) == 2
