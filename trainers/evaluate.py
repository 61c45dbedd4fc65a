"""Held-out greedy evaluation inside a training run (``eval_every`` / ``eval_seeds``).

One episode per seed of ``cfg.eval_seeds``, played with the run's own sampler at
temperature 0 (greedy) through :func:`~agentgym.trainers.rollout.rollout_groups`, with the
run's ``max_turns``, ``max_new_tokens``, system prompt and history. Choose seeds the
trainer never trains on: its rollouts use ``seed + update * groups + g`` (GRPO) or
``seed + update * seeds_per_update + i`` (VPR), counting up from ``cfg.seed``, so a block
far above (``--eval-seeds 100000:100200``) stays held out.

Greedy decoding draws no random numbers and the sampler is given its seed explicitly, so an
evaluation leaves torch's global RNG as it was: a run with evaluations trains exactly as one
without them, and resumes bit for bit.

>>> from agentgym.trainers.config import GRPOConfig
>>> from agentgym.trainers.grpo import load_policy, make_env_factory
>>> cfg = GRPOConfig(max_turns=1, max_new_tokens=4, eval_every=1, eval_seeds=[7, 8])
>>> row = greedy_eval(make_env_factory(cfg), load_policy(cfg), cfg)
>>> row["eval_episodes"], 0.0 <= row["eval_success_rate"] <= 1.0
(2, True)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym

from agentgym.rewards import combine_rewards

from .config import RLConfig

__all__ = ["greedy_eval"]


def greedy_eval(make_env: Callable[[], gym.Env], policy: Any, cfg: RLConfig) -> dict[str, float]:
    """``eval_success_rate``, ``eval_reward_mean`` (in ``cfg.reward_mode``),
    ``eval_valid_action_rate``, ``eval_episodes`` and ``eval_s`` over ``cfg.eval_seeds``."""
    from .rollout import rollout_groups

    began = time.perf_counter()
    table = rollout_groups(make_env, policy, seeds=list(cfg.eval_seeds), group_size=1,
                           max_turns=cfg.max_turns, max_new_tokens=cfg.max_new_tokens,
                           temperature=0.0, system_prompt=cfg.system_prompt or None,
                           seed=0, history_turns=cfg.history)
    episodes = len(cfg.eval_seeds)
    reward = sum(combine_rewards(r.reward_components, cfg.reward_mode) for r in table)
    return {
        "eval_episodes": episodes,
        "eval_success_rate": table.stats.success_rate,
        "eval_reward_mean": reward / episodes,
        "eval_valid_action_rate": table.stats.valid_action_rate,
        "eval_s": time.perf_counter() - began,
    }
