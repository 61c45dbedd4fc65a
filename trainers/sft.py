"""SFT on an agent's trajectories (the oracle's, by default): the warm start for RL.

A zero-shot small model rarely closes an ``<action>`` tag, so almost every GRPO group has
zero reward spread and nothing to learn from. Fine-tuning first on oracle play teaches the
format (and some play). The conversation is built exactly as the RL rollouts build it
(:class:`~agentgym.llm.chat.ChatTokens`: the env's system prompt, each observation as a
user turn, invalid-action feedback first), so the warm-started model sees the same prompts
under RL. Each agent turn is one sequence: its prompt (the conversation so far) and its
completion, ``<action>ACTION</action>``; the loss is the mean negative log-likelihood of
the completion tokens only.

1. play ``episodes`` episodes with ``agent`` (seeds ``seed ..``), record every turn's ids;
2. ``epochs`` passes in a seeded shuffled order, ``batch_size`` turns per optimizer step;
3. a metrics row per step, checkpoints, and the model saved to ``out_dir/model`` so that
   ``agentgym train --algo grpo --model out_dir/model`` continues from it.

``train(cfg)`` is what ``agentgym train --algo sft`` runs.
"""

from __future__ import annotations

import math
import time
from typing import Any

import torch
from rich.console import Console

from agentgym.agents import make_agent
from agentgym.llm.chat import ChatTokens
from agentgym.wrappers.chat import render_user, system_prompt_for

from .checkpoint import load_checkpoint, save_checkpoint
from .config import SFTConfig, config_dict, update_seed
from .grpo import (
    Policy,
    compute_dtype,
    finish_run,
    load_policy,
    make_env_factory,
    progress_bar,
    run_dir,
    trainable,
)
from .loss import collate, sequence_logprobs
from .metrics import MetricsLog
from .optim import make_optimizer, optimizer_step

__all__ = ["agent_turns", "train"]


def agent_turns(cfg: SFTConfig, tokenizer: Any) -> tuple[list[tuple[list[int], list[int]]], dict]:
    """``(prompt_ids, completion_ids)`` of every turn ``cfg.agent`` plays, and play stats."""
    make_env = make_env_factory(cfg)
    turns: list[tuple[list[int], list[int]]] = []
    successes = 0
    for seed in range(cfg.seed, cfg.seed + cfg.episodes):
        env = make_env()
        try:
            agent = make_agent(cfg.agent)
            observation, info = env.reset(seed=seed)
            agent.reset(env, seed=seed)
            chat = ChatTokens(tokenizer, cfg.system_prompt or system_prompt_for(env),
                              history_turns=cfg.history)
            chat.add_user(render_user(str(observation)))
            for _ in range(cfg.max_turns):
                text = f"<action>{agent.act(observation, info)}</action>"
                completion = list(tokenizer.encode(text, add_special_tokens=False))
                turns.append((chat.prompt_ids(), completion))
                chat.add_assistant(completion)
                observation, _, terminated, truncated, info = env.step(text)
                if terminated or truncated:
                    successes += bool(info.get("success", False))
                    break
                chat.add_user(render_user(str(observation), str(info.get("action_error") or "")))
        finally:
            env.close()
    return turns, {"episodes": cfg.episodes, "agent_success_rate": successes / cfg.episodes}


def train(
    cfg: SFTConfig, *, policy: Policy | None = None, console: Console | None = None
) -> list[dict[str, Any]]:
    """Fine-tune on ``cfg.agent``'s turns; returns the metrics rows (one per optimizer step)."""
    cfg.check()
    console = console or Console(stderr=True, highlight=False)
    out = run_dir(cfg, "sft")
    policy = policy or load_policy(cfg)
    model, tokenizer = policy.model, policy.tokenizer
    pad_id = getattr(tokenizer, "pad_token_id", None) or 0

    # 1. The data: every turn of the agent's episodes, tokenised as the rollouts would.
    turns, play = agent_turns(cfg, tokenizer)
    console.print(f"sft: {len(turns)} turns from {play['episodes']} {cfg.agent} episodes "
                  f"(it solved {play['agent_success_rate']:.0%})")
    steps_per_epoch = math.ceil(len(turns) / cfg.batch_size)
    total = cfg.epochs * steps_per_epoch

    optimizer = make_optimizer(trainable(model), lr=cfg.lr)
    half = compute_dtype(cfg)  # float32 weights, the forward under autocast in this dtype
    start, rows = 0, []
    if cfg.resume:
        start, rows = load_checkpoint(out / "checkpoint", model=model, optimizer=optimizer)
    log = MetricsLog(out / "metrics.jsonl", rows)
    began = time.perf_counter()
    model.train()

    with progress_bar(cfg.progress, console, status=True) as bar:
        task = bar.add_task("sft", total=total, completed=start, status="")
        for step in range(start, total):
            # 2. This step's turns: a shuffled order per epoch, from (seed, epoch) alone.
            epoch, i = divmod(step, steps_per_epoch)
            order = torch.randperm(
                len(turns), generator=torch.Generator().manual_seed(update_seed(cfg.seed, epoch))
            ).tolist()
            chunk = [turns[j] for j in order[i * cfg.batch_size : (i + 1) * cfg.batch_size]]
            batch = collate([p for p, _ in chunk], [c for _, c in chunk], pad_id=pad_id)
            batch = batch.to(cfg.device)
            logprobs = sequence_logprobs(model, batch.input_ids, batch.attention_mask,
                                         batch.completion_mask, autocast_dtype=half)
            # Mean NLL over the completion tokens (the agent's text) only.
            tokens = batch.completion_mask.sum()
            loss = -(logprobs * batch.completion_mask).sum() / tokens.clamp(min=1.0)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            taken = optimizer_step(optimizer, lr=cfg.lr, warmup_steps=cfg.warmup_steps,
                                   max_grad_norm=cfg.max_grad_norm)

            # 3. Metrics and checkpoints.
            row = {"update": step + 1, "epoch": epoch + 1, "loss": float(loss.detach()),
                   "tokens": int(tokens), "grad_norm": taken.grad_norm, "lr": taken.lr,
                   "skipped": taken.skipped, "elapsed_s": time.perf_counter() - began, **play}
            log.log(row)
            done = step + 1
            if (cfg.checkpoint_every and done % cfg.checkpoint_every == 0) or done == total:
                save_checkpoint(out / "checkpoint", model=model, optimizer=optimizer, step=done,
                                config=config_dict(cfg), metrics=log.rows)
            bar.update(task, advance=1, status=f"loss {row['loss']:.3f}")

    model.eval()
    policy.sampler.sync(model)
    finish_run(policy, log.rows, out, cfg, "sft")
    return log.rows
