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

``train(cfg)`` is what ``agentgym train --algo grpo`` runs: its ``one_update`` is steps 1-5's
GRPO part; the loop around it (set-up, resume, reseeding, evaluation, metrics, checkpoints,
the saved model), :func:`run_updates`, is shared with VPR (:mod:`.vpr`).
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

from .advantages import dr_grpo, gigpo, grpo, scale_negatives, zero_spread_fraction
from .checkpoint import load_checkpoint, save_checkpoint
from .config import GRPOConfig, RLConfig, RunConfig, config_dict, update_seed
from .evaluate import greedy_eval
from .loss import (
    collate,
    logprob_gap,
    policy_loss,
    sequence_logprobs,
    truncated_is_weights,
)
from .memory import set_mmap_threshold
from .metrics import MetricsLog, plot_metrics, rollout_metrics
from .optim import make_optimizer, optimizer_step
from .records import StepRecord, StepTable
from .rollout import Policy

__all__ = [
    "DiskReference",
    "Policy",
    "RLRun",
    "compute_dtype",
    "decoder_blocks",
    "freeze_below",
    "grpo_advantages",
    "load_policy",
    "make_env_factory",
    "ppo_update",
    "progress_bar",
    "reference_model",
    "run_dir",
    "run_updates",
    "train",
    "trainable",
]


# --- the pieces a trainer holds ---------------------------------------------------------------


def compute_dtype(cfg: RunConfig) -> torch.dtype | None:
    """The autocast dtype of ``cfg.dtype`` (None: float32 compute, no autocast).

    >>> from agentgym.trainers.config import GRPOConfig
    >>> compute_dtype(GRPOConfig(dtype="bfloat16")), compute_dtype(GRPOConfig())
    (torch.bfloat16, None)
    """
    return {"bfloat16": torch.bfloat16, "float16": torch.float16}.get(cfg.dtype)


def load_policy(cfg: RunConfig) -> Policy:
    """Load ``cfg.model`` (a random-init one from ``cfg.seed``) and a sampler for it.

    The trained weights are float32 whatever ``cfg.dtype`` says: AdamW's steps at RL learning
    rates are far below bfloat16's resolution (8 bits of mantissa: a weight of 0.02 moves in
    steps of ~1e-4, and an update of lr 1e-6 rounds away). ``cfg.dtype`` is the compute dtype:
    the loss's forward runs under autocast in it, and the sampler holds its own copy of the
    weights in it (synced after every update); with float32 it samples from the model itself.
    """
    from agentgym.llm.models import load_model
    from agentgym.llm.sampler import make_sampler

    # Before the model's weights are allocated, so they are not in the heap either.
    set_mmap_threshold(cfg.malloc_mmap_threshold)
    model, tokenizer = load_model(cfg.model, device=cfg.device, dtype=torch.float32, seed=cfg.seed,
                                  attn_implementation=cfg.attn_implementation or None)
    if cfg.gradient_checkpointing:
        # Non-reentrant: works with frozen inputs (the embeddings) and with peft adapters.
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if cfg.trainable_layers:
        freeze_below(model, cfg.trainable_layers)
    if cfg.lora_rank:
        from peft import LoraConfig, get_peft_model

        torch.manual_seed(cfg.seed)  # the adapters' initial weights
        # peft annotates lora_alpha as int, but only divides it by r: a float alpha works.
        lora = LoraConfig(r=cfg.lora_rank, lora_alpha=cfg.lora_alpha,  # pyright: ignore[reportArgumentType]
                          target_modules="all-linear", task_type="CAUSAL_LM")
        model = get_peft_model(model, lora)
    half = compute_dtype(cfg)
    options: dict[str, Any] = {"dtype": half} if half is not None else {}
    sampler = make_sampler(model, tokenizer, **options)
    return Policy(sampler=sampler, tokenizer=tokenizer, model=model)


class DiskReference:
    """The initial weights of a full model, kept in a file and read only when needed.

    The KL reference is read once per update, for one no-gradient pass; held in memory, a
    float32 copy costs as much as the model (SmolLM2-135M: 0.54 GB) all run long. On CPU
    the trainers save it to ``path`` instead and :meth:`load` memory-maps it for that pass:
    the same float32 values, so the same reference log-probs, at the cost of reading the file
    once per update (from the page cache). :func:`ppo_update` runs the trained model's own
    modules on these weights (``torch.func.functional_call``), so no second model is built.
    """

    def __init__(self, model: torch.nn.Module, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        torch.save({k: v.detach().cpu() for k, v in model.state_dict().items()}, self.path)

    def load(self) -> dict[str, torch.Tensor]:
        return torch.load(self.path, mmap=True, weights_only=True)

    def close(self) -> None:
        self.path.unlink(missing_ok=True)


def reference_model(
    policy: Policy, cfg: RLConfig, folder: Path | None = None
) -> torch.nn.Module | DiskReference | None:
    """The frozen initial model the KL term reads (None when ``beta = 0``, and under LoRA).

    Under LoRA no copy is made: the reference is the same model with its adapters disabled
    (:func:`ppo_update` runs it inside peft's ``disable_adapter()``), which is exactly the
    initial model since only the adapters train. On CPU with a ``folder``, a
    :class:`DiskReference` in it. Otherwise a frozen copy, stored in the compute dtype when
    that is half precision: its forward runs under autocast, which rounds the matrices'
    weights to that dtype anyway, and it halves the copy's memory.
    """
    if not cfg.beta or hasattr(policy.model, "disable_adapter"):
        return None
    if folder is not None and torch.device(cfg.device).type == "cpu":
        return DiskReference(policy.model, folder / "reference.pt")
    ref = copy.deepcopy(policy.model).eval().requires_grad_(False)
    half = compute_dtype(cfg)
    return ref.to(half) if half is not None else ref


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


def _spans(count: int, minibatch: int, micro: int) -> list[list[tuple[int, int]]]:
    """Row ranges: one list per optimizer step (minibatch), one range per micro-batch.

    >>> _spans(5, 4, 2)
    [[(0, 2), (2, 4)], [(4, 5)]]
    """
    return [[(m, min(m + micro, s + minibatch, count))
             for m in range(s, min(s + minibatch, count), micro)]
            for s in range(0, count, minibatch)]


def _on_weights(model: torch.nn.Module, state: dict[str, torch.Tensor]) -> Callable[..., Any]:
    """``model``'s forward on the weights in ``state`` (``torch.func.functional_call``): the
    closure holds the only reference to them, so dropping it frees them."""

    def forward(**kwargs: Any) -> Any:
        return torch.func.functional_call(model, state, args=(), kwargs=kwargs,
                                         tie_weights=False)  # both keys are in state

    return forward


def ppo_update(
    policy: Policy,
    optimizer: torch.optim.Optimizer,
    rows: Sequence[StepRecord],
    advantages: np.ndarray,
    cfg: RLConfig,
    ref_model: torch.nn.Module | DiskReference | None = None,
) -> dict[str, float]:
    """``cfg.epochs`` passes of the clipped loss over ``rows``; returns mean stats per step.

    1. Before any step, the trainer's own forward (no gradient) gives every row's log-probs
       at the rollout's weights: the ratio's denominator. The sampler's log-probs, from
       another dtype or kernel, are not used in the ratio; their gap to the trainer's is
       reported (``sampler_logprob_gap_mean`` / ``_max``, nats per token) and, with
       ``tis_cap > 0``, corrected by truncated importance sampling. The reference
       log-probs (``beta > 0``) are computed in the same pass.
    2. One optimizer step per ``minibatch_size`` rows, its gradient accumulated over
       micro-batches of ``micro_batch_size`` rows; each micro-batch's loss is scaled by its
       share of the minibatch (sequences for seq-mean, tokens for token-mean; token-sum's
       divisor is the minibatch's), so the step equals one over the whole minibatch.
    """
    model = policy.model
    pad_id = getattr(policy.tokenizer, "pad_token_id", None) or 0
    half = compute_dtype(cfg)
    advantages = scale_negatives(advantages, cfg.negative_weight)
    size = cfg.minibatch_size or len(rows)
    steps_spans = _spans(len(rows), size, min(cfg.micro_batch_size or size, size))

    def forward(m: torch.nn.Module, batch: Any, **kw: Any) -> Any:
        return sequence_logprobs(m, batch.input_ids, batch.attention_mask, batch.completion_mask,
                                 temperature=cfg.temperature, autocast_dtype=half, **kw)

    # 1. The trainer's log-probs at the rollout's weights (and the reference's), per micro-batch.
    model.train()
    reference: Any = ref_model
    if isinstance(ref_model, DiskReference):  # the trained modules on the initial weights
        reference = _on_weights(model, ref_model.load())

    batches, old, ref = {}, {}, {}
    gap_sum, gap_max, tokens = 0.0, 0.0, 0.0
    with torch.no_grad():
        for span in (s for spans in steps_spans for s in spans):
            chunk = rows[span[0] : span[1]]
            batch = collate([r.prompt_ids for r in chunk], [r.completion_ids for r in chunk],
                            [r.logprobs for r in chunk], pad_id=pad_id).to(cfg.device)
            batches[span] = batch
            old[span] = forward(model, batch)
            mask = batch.completion_mask
            n = float(mask.sum())
            if n:
                mean, worst = logprob_gap(old[span], batch.old_logprobs, mask)
                gap_sum, gap_max, tokens = gap_sum + mean * n, max(gap_max, worst), tokens + n
            if reference is not None:
                ref[span] = forward(reference, batch)
            elif cfg.beta and hasattr(model, "disable_adapter"):
                with model.disable_adapter():  # LoRA: the base model is the initial one
                    ref[span] = forward(model, batch)

    reference = None  # a DiskReference's weights are read; let them go
    # 2. The clipped-ratio steps.
    totals: dict[str, float] = {}
    steps = 0
    for _ in range(cfg.epochs):
        for spans in steps_spans:
            masks = [batches[s].completion_mask for s in spans]
            seqs = [float((m.sum(dim=1) > 0).sum()) for m in masks]
            toks = [float(m.sum()) for m in masks]
            constant = cfg.loss_constant or (spans[-1][1] - spans[0][0]) * cfg.max_new_tokens
            optimizer.zero_grad(set_to_none=True)
            stats: dict[str, float] = {}
            for i, span in enumerate(spans):
                batch = batches[span]
                adv = torch.tensor(advantages[span[0] : span[1]], dtype=torch.float32,
                                   device=cfg.device)
                new, entropy = forward(model, batch, with_entropy=True)
                weights = None
                if cfg.tis_cap > 0:
                    weights = truncated_is_weights(old[span], batch.old_logprobs,
                                                   batch.completion_mask, cfg.tis_cap)
                loss, part = policy_loss(
                    new, old[span], adv, batch.completion_mask,
                    eps_low=cfg.eps_low, eps_high=cfg.eps_high, agg=cfg.agg, beta=cfg.beta,
                    ref_logprobs=ref.get(span), entropy=entropy, constant=constant,
                    is_weights=weights,
                )
                if cfg.agg == "seq-mean":
                    share = seqs[i] / max(sum(seqs), 1.0)
                elif cfg.agg == "token-mean":
                    share = toks[i] / max(sum(toks), 1.0)
                else:  # token-sum: the divisor is already the minibatch's constant
                    share = 1.0
                (loss * share).backward()
                # Per-token means, weighted by the micro-batch's tokens; the loss, summed.
                weight = toks[i] / max(sum(toks), 1.0)
                if weights is not None:
                    part["tis_weight_mean"] = float(
                        (weights * batch.completion_mask).sum() / max(toks[i], 1.0))
                for key, value in part.items():
                    stats[key] = stats.get(key, 0.0) + value * weight
                stats["loss"] = stats.get("loss", 0.0) + float(loss.detach()) * share
            step = optimizer_step(optimizer, lr=cfg.lr, warmup_steps=cfg.warmup_steps,
                                  max_grad_norm=cfg.max_grad_norm)
            stats.update(grad_norm=step.grad_norm, lr=step.lr, skipped_steps=float(step.skipped))
            for key, value in stats.items():
                totals[key] = totals.get(key, 0.0) + value
            steps += 1
    optimizer.zero_grad(set_to_none=True)  # the gradients are not needed until the next update
    model.eval()
    # The sampler must generate with the weights just trained (stale weights: a known bug).
    policy.sampler.sync(model)
    out = {key: value / steps for key, value in totals.items()}
    out["skipped_steps"] = int(totals.get("skipped_steps", 0))  # a count, not a mean
    out["sampler_logprob_gap_mean"] = gap_sum / tokens if tokens else 0.0
    out["sampler_logprob_gap_max"] = gap_max
    return out


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
    if rollout is None:
        from .rollout import rollout_groups as rollout

    def one_update(run: RLRun, update: int) -> tuple[dict[str, Any], str]:
        # 1. Rollouts: `groups` seeds, `group_size` episodes each.
        seeds = [cfg.seed + update * cfg.groups + g for g in range(cfg.groups)]
        t0 = time.perf_counter()
        table = rollout(run.make_env, run.policy, seeds=seeds, group_size=cfg.group_size,
                        max_turns=cfg.max_turns, max_new_tokens=cfg.max_new_tokens,
                        temperature=cfg.temperature, system_prompt=cfg.system_prompt or None,
                        seed=update_seed(cfg.seed, update), history_turns=cfg.history)
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
            row.update(ppo_update(run.policy, run.optimizer, kept, adv[keep], cfg,
                                  run.ref_model))
            row["update_s"] = time.perf_counter() - t1
        return row, (f"reward {row['reward_mean']:.3f} success {row['success_rate']:.0%} "
                     f"flat {zero_spread:.0%}")

    return run_updates(cfg, "grpo", one_update, policy=policy, console=console)


# --- the loop every RL trainer shares ----------------------------------------------------------


@dataclass
class RLRun:
    """What an RL trainer's update works with: the policy, its optimizer, the frozen
    reference (None when ``beta = 0``), the env factory; set up by :func:`run_updates`."""

    policy: Policy
    optimizer: torch.optim.Optimizer
    ref_model: Any
    make_env: Callable[[], gym.Env]


def run_updates(
    cfg: RLConfig,
    algo: str,
    one_update: Callable[[RLRun, int], tuple[dict[str, Any], str]],
    *,
    policy: Policy | None = None,
    console: Console,
) -> list[dict[str, Any]]:
    """Set up (or resume) a run, call ``one_update(run, update)`` for each update left, and
    finish it; returns the metrics rows.

    Around each update: torch reseeded from ``(seed, update)`` first (so update u draws the
    same whether or not the run was resumed before it); after it, the held-out evaluation every
    ``eval_every`` updates, the metrics row (``one_update``'s, plus ``elapsed_s``), a
    checkpoint every ``checkpoint_every`` updates and at the end, and the progress bar's
    status (``one_update``'s second value). At the end the model is saved and the curves
    plotted (:func:`finish_run`).
    """
    out = run_dir(cfg, algo)
    policy = policy or load_policy(cfg)
    # The reference for the KL term is the initial model, frozen; none is kept when beta = 0.
    ref_model = reference_model(policy, cfg, out)
    optimizer = make_optimizer(trainable(policy.model), lr=cfg.lr)
    start, rows = 0, []
    if cfg.resume:
        start, rows = load_checkpoint(out / "checkpoint", model=policy.model, optimizer=optimizer)
        policy.sampler.sync(policy.model)
    log = MetricsLog(out / "metrics.jsonl", rows)
    run = RLRun(policy, optimizer, ref_model, make_env_factory(cfg))
    began = time.perf_counter()
    if cfg.eval_every and start == 0:  # the starting point of the held-out curve
        log.log({"update": 0, **greedy_eval(run.make_env, policy, cfg)})

    with progress_bar(cfg.progress, console, status=True) as bar:
        task = bar.add_task(algo, total=cfg.updates, completed=start, status="")
        for update in range(start, cfg.updates):
            torch.manual_seed(update_seed(cfg.seed, update))
            row, status = one_update(run, update)
            done = update + 1
            if cfg.eval_every and (done % cfg.eval_every == 0 or done == cfg.updates):
                row.update(greedy_eval(run.make_env, policy, cfg))
            row["elapsed_s"] = time.perf_counter() - began
            log.log(row)
            if (cfg.checkpoint_every and done % cfg.checkpoint_every == 0) or done == cfg.updates:
                save_checkpoint(out / "checkpoint", model=policy.model, optimizer=optimizer,
                                step=done, config=config_dict(cfg), metrics=log.rows)
            bar.update(task, advance=1, status=status)

    if isinstance(ref_model, DiskReference):
        ref_model.close()
    finish_run(policy, log.rows, out, cfg, algo)
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
