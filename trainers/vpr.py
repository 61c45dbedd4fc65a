"""VPR (verifiable process rewards): K candidates at every visited state, scored by the oracle.

Each update:

1. reseed torch from ``(seed, update)``; for each of ``seeds_per_update`` episodes, at every
   state the agent visits sample ``k`` candidate turns, score each with the env's
   ``score_actions`` (exactly the process reward ``step`` would pay, without stepping),
   commit one best candidate and go on (:func:`agentgym.trainers.rollout.rollout_state_groups`);
   every candidate is a row, grouped by the state it was sampled at;
2. advantages (:func:`agentgym.trainers.advantages.vpr`): each score minus its state
   group's mean, groups whose K scores are all equal dropped, the rest whitened across the
   batch;
3. a batch whose every state group is flat is *reported and skipped*;
4. the clipped-ratio update on the kept candidates (:func:`agentgym.trainers.grpo.ppo_update`,
   the same loss as GRPO) and the sampler sync.

``one_update`` in :func:`train` is those four steps; the loop around it (set-up, resume,
reseeding, evaluation, the metrics row, checkpoints, the saved model) is the one GRPO runs
too, :func:`agentgym.trainers.grpo.run_updates`.

``train(cfg)`` is what ``agentgym train --algo vpr`` runs. The env must have
``score_actions`` (every agentgym env does, local or remote).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
from rich.console import Console

from .advantages import vpr
from .config import VPRConfig, update_seed
from .grpo import Policy, RLRun, ppo_update, run_updates
from .metrics import rollout_metrics

__all__ = ["train"]


def train(
    cfg: VPRConfig,
    *,
    policy: Policy | None = None,
    rollout: Callable[..., Any] | None = None,
    console: Console | None = None,
) -> list[dict[str, Any]]:
    """Run VPR for ``cfg.updates`` updates; returns the metrics rows (files as GRPO's)."""
    cfg.check()
    console = console or Console(stderr=True, highlight=False)
    if rollout is None:
        from .rollout import rollout_state_groups as rollout

    def one_update(run: RLRun, update: int) -> tuple[dict[str, Any], str]:
        # 1. State-group rollouts: k scored candidates at each visited state.
        n = cfg.seeds_per_update
        seeds = [cfg.seed + update * n + i for i in range(n)]
        t0 = time.perf_counter()
        table = rollout(run.make_env, run.policy, seeds=seeds, k=cfg.k,
                        max_turns=cfg.max_turns, max_new_tokens=cfg.max_new_tokens,
                        temperature=cfg.temperature, system_prompt=cfg.system_prompt or None,
                        seed=update_seed(cfg.seed, update), history_turns=cfg.history)
        row: dict[str, Any] = {"update": update + 1}
        row.update(rollout_metrics(table, cfg.reward_mode, time.perf_counter() - t0))

        # 2-3. Centre on the state group, drop flat groups, whiten; skip an all-flat batch.
        scores = table.rewards(cfg.reward_mode)
        states = table.column("group")
        adv = vpr(scores, states)
        n_states = len(np.unique(states))
        row["candidate_score_mean"] = float(scores.mean()) if len(scores) else 0.0
        row["state_groups"] = n_states
        row["zero_spread_fraction"] = adv.dropped_groups / n_states if n_states else 1.0
        row["trained_rows"] = int(adv.keep.sum())
        row["skipped"] = int(not adv.keep.any())
        if row["skipped"]:
            console.print(f"update {update + 1}: every state group has zero score spread "
                          f"(all {n_states} flat); no gradient step")
        else:
            # 4. The same clipped-ratio update as GRPO, on the kept candidates.
            t1 = time.perf_counter()
            kept = [r for r, k in zip(table, adv.keep, strict=True) if k]
            row.update(ppo_update(run.policy, run.optimizer, kept, adv.advantages[adv.keep],
                                  cfg, run.ref_model))
            row["update_s"] = time.perf_counter() - t1
        return row, (f"score {row['candidate_score_mean']:.3f} "
                     f"flat {row['zero_spread_fraction']:.0%}")

    return run_updates(cfg, "vpr", one_update, policy=policy, console=console)
