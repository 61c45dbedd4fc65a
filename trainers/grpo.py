"""GRPO (and GiGPO) for text-game agents, in one readable loop.

Each update:

1. reseed torch from ``(seed, update)`` and play ``groups`` seeds, ``group_size`` episodes
   each from the same start (:func:`agentgym.trainers.rollout.rollout_groups`): every
   agent turn is a row with the sampler's exact prompt ids, completion ids and log-probs;
2. advantages: GRPO (``(R - mean) / std`` of the episode return over the group, broadcast
   to the episode's turns), Dr.GRPO (no std) or GiGPO (GRPO plus anchor-state step credit);
3. drop the rows of groups whose returns are all equal: they carry no signal, and a batch
   made only of them is *reported and skipped*, not trained on (the "loss = 0" trap);
4. ``epochs`` passes of the clipped-ratio loss over the agent's own tokens
   (:func:`agentgym.trainers.loss.policy_loss`), one optimizer step per minibatch;
5. push the new weights to the sampler (``sampler.sync``), log a metrics row, checkpoint.

``train(cfg)`` is what ``agentgym train --algo grpo`` runs.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from rich.console import Console

from agentgym.progress import progress_bar
from agentgym.trainers.advantages import dr_grpo, gigpo, grpo, scale_negatives, zero_spread_fraction
from agentgym.trainers.checkpoint import load_checkpoint, save_checkpoint
from agentgym.trainers.config import GRPOConfig, RLConfig, RunConfig, config_dict
from agentgym.trainers.loss import collate, policy_loss, sequence_logprobs
from agentgym.trainers.metrics import MetricsLog, plot_metrics, rollout_metrics
from agentgym.trainers.optim import make_optimizer, optimizer_step
from agentgym.trainers.records import StepRecord, StepTable

__all__ = [
    "Policy",
    "decoder_blocks",
    "freeze_below",
    "grpo_advantages",
    "load_policy",
    "make_env_factory",
    "ppo_update",
    "progress_bar",
    "run_dir",
    "train",
    "trainable",
]


# --- the pieces a trainer holds ---------------------------------------------------------------


@dataclass
class Policy:
    """What a rollout needs (``sampler``, ``tokenizer``) plus the model being trained."""

    model: torch.nn.Module
    tokenizer: Any
    sampler: Any


def load_policy(cfg: RunConfig) -> Policy:
    """Load ``cfg.model`` (a random-init one from ``cfg.seed``) and a sampler for it."""
    from agentgym.llm.models import load_model
    from agentgym.llm.sampler import make_sampler

    dtype = getattr(torch, cfg.dtype) if cfg.dtype else None
    model, tokenizer = load_model(cfg.model, device=cfg.device, dtype=dtype, seed=cfg.seed)
    if cfg.trainable_layers:
        freeze_below(model, cfg.trainable_layers)
    if cfg.lora_rank:
        from peft import LoraConfig, get_peft_model

        torch.manual_seed(cfg.seed)  # the adapters' initial weights
        lora = LoraConfig(r=cfg.lora_rank, lora_alpha=cfg.lora_alpha,
                          target_modules="all-linear", task_type="CAUSAL_LM")
        model = get_peft_model(model, lora)
    return Policy(model, tokenizer, make_sampler(model, tokenizer))


def decoder_blocks(model: torch.nn.Module) -> torch.nn.ModuleList:
    """The stack of transformer blocks of a causal LM (the ModuleList with one per layer)."""
    count = getattr(getattr(model, "config", None), "num_hidden_layers", None)
    for module in model.modules():
        if isinstance(module, torch.nn.ModuleList) and len(module) == count:
            return module
    raise ValueError(f"cannot find the transformer blocks of {type(model).__name__}")


def freeze_below(model: torch.nn.Module, layers: int) -> None:
    """Train only the last ``layers`` blocks and what follows them (the final norm).

    The embeddings stay frozen (and a tied output head with them): were they trainable, the
    backward pass would run through every block again to reach them.

    >>> from agentgym.llm.models import byte_tokenizer, tiny_random_model
    >>> model = tiny_random_model(byte_tokenizer(), layers=2)
    >>> freeze_below(model, 1)
    >>> sorted({n.split(".")[2] for n, p in model.named_parameters() if p.requires_grad})
    ['1', 'weight']
    >>> freeze_below(model, 3)
    Traceback (most recent call last):
    ...
    ValueError: trainable_layers=3 but the model has 2 blocks
    """
    blocks = decoder_blocks(model)
    if not 1 <= layers <= len(blocks):
        raise ValueError(f"trainable_layers={layers} but the model has {len(blocks)} blocks")
    model.requires_grad_(False)
    for block in blocks[len(blocks) - layers :]:
        block.requires_grad_(True)
    # The final norm is a sibling of the blocks, after them.
    parent = next(m for m in model.modules() if any(c is blocks for c in m.children()))
    for name, child in parent.named_children():
        if "norm" in name:
            child.requires_grad_(True)


def trainable(model: torch.nn.Module) -> list[torch.nn.Parameter]:
    """The parameters the optimizer updates (only the adapters of a LoRA model)."""
    return [p for p in model.parameters() if p.requires_grad]


def make_env_factory(cfg: RunConfig) -> Callable[[], gym.Env]:
    """``gym.make(cfg.env, **cfg.env_kwargs)`` as a factory (a ``server_url`` kwarg works)."""
    return lambda: gym.make(cfg.env, **cfg.env_kwargs)


def run_dir(cfg: RunConfig, algo: str) -> Path:
    return Path(cfg.out_dir or f"runs/{algo}")


# --- advantages -------------------------------------------------------------------------------


def grpo_advantages(table: StepTable, cfg: GRPOConfig) -> tuple[np.ndarray, np.ndarray, float]:
    """Per-row advantages, the rows worth training on, and the zero-spread group fraction.

    GRPO / Dr.GRPO normalise one value per episode (its return) within its group, then give
    it to every turn of the episode. GiGPO adds the step advantage of anchor states.
    """
    trajectory = table.column("trajectory")
    group = table.column("group")
    returns = table.episode_returns(cfg.reward_mode)
    # One entry per episode (its first row): a long episode must not weigh more in the mean.
    episodes, first = np.unique(trajectory, return_index=True)
    episode_group = group[first]
    zero_spread = zero_spread_fraction(returns[first], episode_group)
    if cfg.advantage == "gigpo":
        adv = gigpo(returns, table.rewards(cfg.reward_mode), group, trajectory,
                    table.column("state_key"), gamma=cfg.gamma, weight=cfg.step_weight)
    else:
        per_episode = (grpo if cfg.advantage == "grpo" else dr_grpo)(returns[first], episode_group)
        adv = per_episode[np.searchsorted(episodes, trajectory)]
    # Groups with spread: every row of them is signal (a member at the mean has A = 0 but
    # still counts in the loss's mean). GiGPO's step part can give signal in a flat group.
    spread = {g for g in np.unique(episode_group)
              if np.ptp(returns[first][episode_group == g]) > 0}
    keep = np.array([g in spread for g in group.tolist()], dtype=bool) | (adv != 0)
    return adv, keep, zero_spread


# --- the policy update ------------------------------------------------------------------------


def ppo_update(
    policy: Policy,
    optimizer: torch.optim.Optimizer,
    rows: Sequence[StepRecord],
    advantages: np.ndarray,
    cfg: RLConfig,
    ref_model: torch.nn.Module | None = None,
) -> dict[str, float]:
    """``cfg.epochs`` passes of the clipped loss over ``rows``; returns mean stats per step."""
    model = policy.model
    pad_id = getattr(policy.tokenizer, "pad_token_id", None) or 0
    advantages = scale_negatives(advantages, cfg.negative_weight)
    size = cfg.minibatch_size or len(rows)
    totals: dict[str, float] = {}
    steps = 0
    model.train()
    for _ in range(cfg.epochs):
        for start in range(0, len(rows), size):
            chunk = rows[start : start + size]
            batch = collate([r.prompt_ids for r in chunk], [r.completion_ids for r in chunk],
                            [r.logprobs for r in chunk], pad_id=pad_id).to(cfg.device)
            adv = torch.tensor(advantages[start : start + size], dtype=torch.float32,
                               device=cfg.device)
            new, entropy = sequence_logprobs(model, batch.input_ids, batch.attention_mask,
                                             batch.completion_mask, temperature=cfg.temperature,
                                             with_entropy=True)
            ref = None
            if ref_model is not None:
                with torch.no_grad():
                    ref = sequence_logprobs(ref_model, batch.input_ids, batch.attention_mask,
                                            batch.completion_mask, temperature=cfg.temperature)
            loss, stats = policy_loss(
                new, batch.old_logprobs, adv, batch.completion_mask,
                eps_low=cfg.eps_low, eps_high=cfg.eps_high, agg=cfg.agg, beta=cfg.beta,
                ref_logprobs=ref, entropy=entropy.detach(),
                constant=cfg.loss_constant or len(chunk) * cfg.max_new_tokens,
            )
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            step = optimizer_step(optimizer, lr=cfg.lr, warmup_steps=cfg.warmup_steps,
                                  max_grad_norm=cfg.max_grad_norm)
            stats.update(loss=float(loss.detach()), grad_norm=step.grad_norm, lr=step.lr)
            for key, value in stats.items():
                totals[key] = totals.get(key, 0.0) + value
            steps += 1
    model.eval()
    # The sampler must generate with the weights just trained (stale weights: a known bug).
    policy.sampler.sync(model)
    return {key: value / steps for key, value in totals.items()}


# --- the loop ---------------------------------------------------------------------------------


def train(
    cfg: GRPOConfig,
    *,
    policy: Policy | None = None,
    rollout: Callable[..., Any] | None = None,
    console: Console | None = None,
) -> list[dict[str, Any]]:
    """Run GRPO / GiGPO for ``cfg.updates`` updates; returns the metrics rows.

    Writes ``metrics.jsonl``, ``checkpoint/``, ``model/`` and ``curves.png`` under
    ``cfg.out_dir``. ``policy`` and ``rollout`` default to ``load_policy(cfg)`` and
    :func:`~agentgym.trainers.rollout.rollout_groups` (tests pass small fakes).
    """
    cfg.check()
    console = console or Console(stderr=True, highlight=False)
    out = run_dir(cfg, "grpo")
    if rollout is None:
        from agentgym.trainers.rollout import rollout_groups as rollout
    policy = policy or load_policy(cfg)
    # The reference for the KL term is the initial model, frozen; none is kept when beta = 0.
    ref_model = copy.deepcopy(policy.model).eval().requires_grad_(False) if cfg.beta else None
    optimizer = make_optimizer(trainable(policy.model), lr=cfg.lr)
    start, rows = 0, []
    if cfg.resume:
        start, rows = load_checkpoint(out / "checkpoint", model=policy.model, optimizer=optimizer)
        policy.sampler.sync(policy.model)
    log = MetricsLog(out / "metrics.jsonl", rows)
    make_env = make_env_factory(cfg)
    began = time.perf_counter()

    with progress_bar(cfg.progress, console, status=True) as bar:
        task = bar.add_task("grpo", total=cfg.updates, completed=start, status="")
        for update in range(start, cfg.updates):
            # 1. Rollouts. Reseeding per update makes update u the same whether or not the
            # run was resumed before it.
            torch.manual_seed(cfg.seed * 1_000_003 + update)
            seeds = [cfg.seed + update * cfg.groups + g for g in range(cfg.groups)]
            t0 = time.perf_counter()
            table = rollout(make_env, policy, seeds=seeds, group_size=cfg.group_size,
                            max_turns=cfg.max_turns, max_new_tokens=cfg.max_new_tokens,
                            temperature=cfg.temperature, system_prompt=cfg.system_prompt or None,
                            seed=cfg.seed * 1_000_003 + update, history_turns=cfg.history)
            row: dict[str, Any] = {"update": update + 1}
            row.update(rollout_metrics(table, cfg.reward_mode, time.perf_counter() - t0))

            # 2-3. Advantages; zero-spread groups are dropped, an all-flat batch is skipped.
            adv, keep, zero_spread = grpo_advantages(table, cfg)
            row["zero_spread_fraction"] = zero_spread
            row["trained_rows"] = int(keep.sum())
            row["skipped"] = int(not keep.any())
            if row["skipped"]:
                console.print(f"update {update + 1}: every group has zero reward spread "
                              f"(all {cfg.groups} flat); no gradient step")
            else:
                # 4-5. The clipped-ratio update on the kept rows, then the sampler sync.
                t1 = time.perf_counter()
                kept = [r for r, k in zip(table, keep, strict=True) if k]
                row.update(ppo_update(policy, optimizer, kept, adv[keep], cfg, ref_model))
                row["update_s"] = time.perf_counter() - t1
            row["elapsed_s"] = time.perf_counter() - began
            log.log(row)

            done = update + 1
            if (cfg.checkpoint_every and done % cfg.checkpoint_every == 0) or done == cfg.updates:
                save_checkpoint(out / "checkpoint", model=policy.model, optimizer=optimizer,
                                step=done, config=config_dict(cfg), metrics=log.rows)
            bar.update(task, advance=1, status=f"reward {row['reward_mean']:.3f} "
                       f"success {row['success_rate']:.0%} flat {zero_spread:.0%}")

    finish_run(policy, log.rows, out, cfg, "grpo")
    return log.rows


def finish_run(policy: Policy, rows: list[dict[str, Any]], out: Path, cfg: RunConfig,
               algo: str) -> None:
    """Save the trained model (loadable as ``--model out/model``) and plot the curves.

    A LoRA model is saved with its adapters merged, so the folder is a plain model.
    """
    from agentgym.llm.models import save_model

    model = policy.model
    if hasattr(model, "merge_and_unload"):
        model = copy.deepcopy(model).merge_and_unload()
    save_model(model, policy.tokenizer, out / "model")
    if cfg.plots:
        plot_metrics(rows, out / "curves.png", title=f"{algo} on {cfg.env} ({cfg.model})")
