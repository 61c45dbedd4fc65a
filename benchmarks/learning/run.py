"""Proof that the reference trainers learn: SFT warm start, then GRPO and VPR at equal env steps.

    .venv/bin/python benchmarks/learning/run.py --out runs/learning          # 3 seeds each
    .venv/bin/python benchmarks/learning/run.py --out runs/quick --seeds 1 --algos grpo

1. **Warm start.** ``agentgym train --algo sft`` of SmolLM2-135M-Instruct on a few oracle
   episodes (``configs/learn_sft.toml``; deliberately partial, so there is room to improve).
   Every RL run starts from this one model.
2. **RL.** GRPO (``configs/learn_grpo.toml``) and VPR (``configs/learn_vpr.toml``) from the
   warm start, ``--seeds`` seeds each, every run stopped once it has taken ``--budget`` env
   steps (``env.step`` calls, i.e. committed turns; VPR additionally *scores* its K candidates
   per state with ``score_actions``, which does not step the env). Runs go ``--parallel`` at
   a time, each in its own process with ``torch.set_num_threads(--threads)`` (default 1).
3. **Held-out evaluation.** A fixed set of ``--eval-episodes`` seeds (from ``--eval-seed``,
   disjoint from every training seed), one episode each, played greedily (temperature 0) by
   the current weights: for the warm start, every ``--eval-every`` env steps during each run,
   and at the end; the warm start and each final model are also played sampled at
   temperature 1 (the policy RL trains). Success = the env's ``info["success"]`` at the
   episode's end.
4. **Outputs** under ``--out``: ``learning.png`` (held-out success against env steps, each
   seed thin, the mean thick, both algorithms) and ``learning.json`` (every figure), plus each
   run's own folder (``metrics.jsonl``, ``curves.png``, ``model/``).

Errors are one line (``error: ...``) and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ALGOS = ("grpo", "vpr")


class BudgetReached(Exception):
    """Raised by the counting rollout once a run has taken its env-step budget."""


# --- evaluation ---------------------------------------------------------------------------------


def evaluate(policy: Any, cfg: Any, seeds: list[int], temperature: float = 0.0,
             group_size: int = 1) -> dict[str, float]:
    """``group_size`` episodes per held-out seed at ``temperature`` (0: greedy); success and
    valid-action rates, and the number of distinct games played. Sampling is seeded
    (``seed=0``), so the same weights give the same figures."""
    from agentgym.trainers.grpo import make_env_factory
    from agentgym.trainers.rollout import rollout_groups

    table = rollout_groups(make_env_factory(cfg), policy, seeds=seeds, group_size=group_size,
                           max_turns=cfg.max_turns, max_new_tokens=cfg.max_new_tokens,
                           temperature=temperature, system_prompt=cfg.system_prompt or None,
                           seed=0, history_turns=cfg.history)
    stats = table.stats
    # A board-blind move script plays the same few games whatever the opponent does, so the
    # number of distinct games (as sequences of the agent's completions) tells it apart.
    games: dict[int, list[tuple[int, ...]]] = {}
    for row in table:
        games.setdefault(row.trajectory, []).append(tuple(row.completion_ids))
    return {"success": float(stats.success_rate),
            "valid_action_rate": float(stats.valid_action_rate),
            "distinct_games": len({tuple(moves) for moves in games.values()}),
            "episodes": len(seeds) * group_size, "env_steps": len(stats.valid_action)}


# --- one run, in its own process ----------------------------------------------------------------


def worker(spec: dict[str, Any]) -> None:
    """Run one job (``eval`` of a model, or an RL run with a budget) and write its JSON."""
    import torch

    torch.set_num_threads(spec["threads"])
    from agentgym.llm.models import save_model
    from agentgym.trainers.config import load_config
    from agentgym.trainers.grpo import load_policy
    from agentgym.trainers.metrics import plot_metrics

    algo = spec["algo"]
    cfg = load_config(algo, spec["config"], spec["overrides"])
    eval_seeds = list(range(spec["eval_seed"], spec["eval_seed"] + spec["eval_episodes"]))
    began = time.perf_counter()
    policy = load_policy(cfg)
    result: dict[str, Any] = {"algo": algo, "seed": cfg.seed, "config": spec["config"],
                              "overrides": spec["overrides"]}
    if spec["job"] == "eval":
        result["eval"] = evaluate(policy, cfg, eval_seeds)
        # The same seeds sampled at temperature 1: the policy the RL runs actually sample,
        # which greedy decoding can hide.
        result["eval_sampled"] = evaluate(policy, cfg, eval_seeds, temperature=1.0)
    else:
        from agentgym.trainers import grpo, vpr
        from agentgym.trainers.rollout import rollout_groups, rollout_state_groups

        inner = rollout_groups if algo == "grpo" else rollout_state_groups
        budget, every = spec["budget"], spec["eval_every"]
        curve: list[dict[str, Any]] = []
        steps = {"n": 0}

        def add_curve_point() -> None:
            curve.append({"env_steps": steps["n"], "elapsed_s": time.perf_counter() - began,
                          **{k: v for k, v in evaluate(policy, cfg, eval_seeds).items()
                             if k != "env_steps"}})

        def counting_rollout(*args: Any, **kwargs: Any) -> Any:
            # Held-out evaluation at every `every` env steps, then stop at the budget. Step 0
            # is the warm start, evaluated once for every run (the same model and seeds).
            last = curve[-1]["env_steps"] if curve else 0
            if steps["n"] and (steps["n"] >= last + every or steps["n"] >= budget):
                add_curve_point()
                Path(spec["result"] + ".partial").write_text(json.dumps(
                    {**result, "curve": curve, "env_steps": steps["n"], "partial": True}))
            if steps["n"] >= budget:
                raise BudgetReached
            state = torch.get_rng_state()  # the eval must not change the run's sampling
            table = inner(*args, **kwargs)
            torch.set_rng_state(state)
            steps["n"] += len(table.stats.valid_action)
            return table

        train = grpo.train if algo == "grpo" else vpr.train
        try:
            train(cfg, policy=policy, rollout=counting_rollout)
            ran_out = True  # updates ran out before the budget
        except BudgetReached:
            ran_out = False
        if ran_out and (not curve or curve[-1]["env_steps"] != steps["n"]):
            add_curve_point()
        # The final weights sampled at temperature 1 too (the policy RL trains).
        result["final_sampled"] = evaluate(policy, cfg, eval_seeds, temperature=1.0)
        out = Path(cfg.out_dir)
        save_model(policy.model, policy.tokenizer, out / "model")
        rows = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines() if x]
        plot_metrics(rows, out / "curves.png", title=f"{algo} seed {cfg.seed}")
        result.update(curve=curve, env_steps=steps["n"], stopped_at_budget=not ran_out,
                      updates=len(rows), train_rows=rows)
    result["wall_s"] = time.perf_counter() - began
    Path(spec["result"]).write_text(json.dumps(result, indent=1))


# --- the driver ---------------------------------------------------------------------------------


def launch(spec: dict[str, Any], log: Path) -> subprocess.Popen:
    threads = str(spec["threads"])
    env = dict(os.environ, OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads)
    with log.open("w") as out:
        return subprocess.Popen([sys.executable, __file__, "--worker", json.dumps(spec)],
                                stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env=env)


def run_jobs(specs: list[dict[str, Any]], parallel: int, timeout_s: float) -> None:
    """Run the jobs ``parallel`` at a time; a job over ``timeout_s`` is killed."""
    pending, running = list(specs), []
    while pending or running:
        while pending and len(running) < parallel:
            spec = pending.pop(0)
            log = Path(spec["result"]).with_suffix(".log")
            print(f"start {spec['name']} (log {log})", flush=True)
            running.append((spec, launch(spec, log), time.monotonic()))
        time.sleep(2)
        for item in list(running):
            spec, proc, t0 = item
            if proc.poll() is None and time.monotonic() - t0 > timeout_s:
                proc.kill()
                print(f"killed {spec['name']} after {timeout_s:.0f} s", flush=True)
            if proc.poll() is not None:
                running.remove(item)
                print(f"done {spec['name']} rc={proc.returncode} "
                      f"({time.monotonic() - t0:.0f} s)", flush=True)


def plot(summary: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    colors = {"grpo": "tab:blue", "vpr": "tab:orange"}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, key in zip(axes, ("success", "valid_action_rate"), strict=True):
        ax.axhline(summary["warm_start"][key], color="gray", ls="--", label="warm start (SFT)")
        for algo in ALGOS:
            runs = [r for r in summary["runs"] if r["algo"] == algo and r.get("curve")]
            for r in runs:
                xs = [p["env_steps"] for p in r["curve"]]
                ax.plot(xs, [p[key] for p in r["curve"]], color=colors[algo], alpha=0.3, lw=1)
            if runs:
                n = min(len(r["curve"]) for r in runs)
                xs = np.mean([[p["env_steps"] for p in r["curve"][:n]] for r in runs], axis=0)
                ys = np.mean([[p[key] for p in r["curve"][:n]] for r in runs], axis=0)
                ax.plot(xs, ys, color=colors[algo], lw=2.5, marker="o",
                        label=f"{algo} (mean of {len(runs)} seed{'s' * (len(runs) > 1)})")
        if summary["warm_start"].get("sampled"):
            ax.axhline(summary["warm_start"]["sampled"][key], color="gray", ls=":",
                       label="warm start, sampled T=1")
        for algo in ALGOS:
            pts = [(r["final"]["env_steps"], r["final_sampled"][key]) for r in summary["runs"]
                   if r["algo"] == algo and r.get("final_sampled") and r.get("final")]
            if pts:
                ax.scatter(*zip(*pts, strict=True), marker="x", s=60, color=colors[algo],
                           label=f"{algo} final, sampled T=1")
        ax.set_xlabel("env steps (env.step calls)")
        ax.set_ylabel(f"held-out {key.replace('_', ' ')}")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"{summary['model']} on {summary['env']} {summary['env_kwargs']}: "
                 f"{summary['eval_episodes']} held-out seeds, lines greedy (T=0)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="runs/learning", help="output folder")
    p.add_argument("--seeds", type=int, default=3, help="RL seeds per algorithm")
    p.add_argument("--first-seed", type=int, default=1, help="first RL seed")
    p.add_argument("--algos", default="grpo,vpr", help="comma-separated subset of grpo,vpr")
    p.add_argument("--budget", type=int, default=160, help="env steps per RL run")
    p.add_argument("--eval-every", type=int, default=80, help="env steps between evaluations")
    p.add_argument("--eval-episodes", type=int, default=30, help="held-out seeds")
    p.add_argument("--eval-seed", type=int, default=900_000, help="first held-out seed")
    p.add_argument("--sft-config", default="configs/learn_sft.toml")
    p.add_argument("--grpo-config", default="configs/learn_grpo.toml")
    p.add_argument("--vpr-config", default="configs/learn_vpr.toml")
    p.add_argument("--parallel", type=int, default=2, help="runs at a time")
    p.add_argument("--threads", type=int, default=1,
                   help="torch threads per run (--parallel 1 --threads 2: one run on both cores)")
    p.add_argument("--timeout", type=float, default=1200, help="seconds per run before a kill")
    p.add_argument("--summarize-only", action="store_true",
                   help="start no run; write the plot and JSON from what --out holds")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        worker(json.loads(args.worker))
        return 0

    algos = [a for a in args.algos.split(",") if a]
    for a in algos:
        if a not in ALGOS:
            raise ValueError(f"--algos takes grpo and/or vpr, got {a!r}")
    for path in (args.sft_config, args.grpo_config, args.vpr_config):
        if not (ROOT / path).is_file():
            raise ValueError(f"config file {path} does not exist")
    if min(args.seeds, args.budget, args.eval_episodes, args.parallel, args.threads) < 1:
        raise ValueError("--seeds, --budget, --eval-episodes, --parallel and --threads "
                         "must be >= 1")
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    common = {"eval_seed": args.eval_seed, "eval_episodes": args.eval_episodes,
              "threads": args.threads}

    # 1. The warm start (once; reused if it is already there).
    sft_dir = out / "sft"
    if args.summarize_only and not Path(out / "eval_warm.json").is_file():
        raise ValueError(f"--summarize-only: {out} holds no warm-start evaluation yet")
    if not (sft_dir / "model").is_dir():
        print(f"warm start: agentgym train --algo sft --config {args.sft_config}", flush=True)
        t0 = time.perf_counter()
        env = dict(os.environ, OMP_NUM_THREADS="1")
        subprocess.run([str(Path(sys.executable).with_name("agentgym")), "train", "--algo", "sft",
                        "--config", args.sft_config, "--out-dir", str(sft_dir),
                        "--progress", "false"], cwd=ROOT, env=env, check=True)
        (out / "sft_wall_s.txt").write_text(f"{time.perf_counter() - t0:.1f}\n")
    model = str(sft_dir / "model")

    # 2. Warm-start evaluation, then the RL runs, `parallel` at a time.
    warm = {"name": "warm-start eval", "job": "eval", "algo": "grpo", "config": args.grpo_config,
            "overrides": {"model": model, "out_dir": str(out / "eval_warm")},
            "result": str(out / "eval_warm.json"), **common}
    runs = [{"name": f"{algo} seed {s}", "job": "train", "algo": algo,
             "config": getattr(args, f"{algo}_config"),
             "overrides": {"model": model, "seed": s, "out_dir": str(out / f"{algo}_s{s}"),
                           "progress": False, "plots": False, "checkpoint_every": 0,
                           "updates": 100_000},
             "budget": args.budget, "eval_every": args.eval_every,
             "result": str(out / f"{algo}_s{s}.json"), **common}
            for s in range(args.first_seed, args.first_seed + args.seeds)
            for algo in sorted(algos, key=lambda a: a != "vpr")]  # VPR, the longer, first
    warm_done = Path(warm["result"]).is_file() and "eval_sampled" in json.loads(
        Path(warm["result"]).read_text())
    jobs = [] if warm_done else [warm]
    if not args.summarize_only:
        run_jobs(jobs + [r for r in runs if not Path(r["result"]).is_file()], args.parallel,
                 args.timeout)

    # 3. The figures.
    warm_json = json.loads(Path(warm["result"]).read_text())
    warm_result = {**warm_json["eval"],
                   "sampled": warm_json.get("eval_sampled")}
    # A run killed at --timeout leaves its curve so far in RESULT.partial.
    results = [json.loads(Path(r["result"]).read_text()) if Path(r["result"]).is_file()
               else json.loads(Path(r["result"] + ".partial").read_text()) for r in runs
               if Path(r["result"]).is_file() or Path(r["result"] + ".partial").is_file()]
    import tomllib
    env_cfg = tomllib.loads((ROOT / args.grpo_config).read_text())
    summary = {"env": env_cfg.get("env"), "env_kwargs": env_cfg.get("env_kwargs", {}),
               "model": env_cfg.get("model"),
               "budget_env_steps": args.budget, "eval_episodes": args.eval_episodes,
               "eval_seeds": [args.eval_seed, args.eval_seed + args.eval_episodes - 1],
               "eval": "greedy (temperature 0), one episode per held-out seed",
               "warm_start": warm_result, "runs": []}
    for r in results:
        r.setdefault("final_sampled", None)  # a run killed at --timeout has none
        r.pop("train_rows", None)
        metrics = Path(r["overrides"]["out_dir"]) / "metrics.jsonl"
        train_rows = ([json.loads(x) for x in metrics.read_text().splitlines() if x]
                      if metrics.is_file() else [])
        r["updates"] = len(train_rows)
        r["curve"] = [{**warm_json["eval"], "env_steps": 0, "elapsed_s": 0.0}, *r.get("curve", [])]
        r["final"] = r["curve"][-1] if len(r["curve"]) > 1 else None
        r["gain_points"] = (100 * (r["final"]["success"] - warm_result["success"])
                            if r["final"] else None)
        keys = ("zero_spread_fraction", "valid_action_rate", "success_rate", "skipped")
        r["train_means"] = {k: sum(x.get(k) or 0 for x in train_rows) / max(1, len(train_rows))
                            for k in keys}
        summary["runs"].append(r)
    (out / "learning.json").write_text(json.dumps(summary, indent=1))
    plot(summary, out / "learning.png")
    print(f"warm start: greedy success {warm_result['success']:.0%}, "
          f"valid {warm_result['valid_action_rate']:.0%}; sampled (T=1) success "
          f"{(warm_result['sampled'] or {}).get('success', float('nan')):.0%}")
    for r in summary["runs"]:
        if r["final"]:
            killed = " (killed: partial)" if r.get("partial") else ""
            sampled = r["final_sampled"]["success"] if r["final_sampled"] else float("nan")
            print(f"{r['algo']} seed {r['seed']}: success {r['final']['success']:.0%} "
                  f"({r['gain_points']:+.0f} points) at {r['final']['env_steps']} env steps, "
                  f"{r['final']['elapsed_s']:.0f} s{killed}; "
                  f"zero-spread {r['train_means']['zero_spread_fraction']:.0%}; "
                  f"sampled (T=1) success {sampled:.0%}")
    print(f"wrote {out / 'learning.png'} and {out / 'learning.json'}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (ValueError, subprocess.CalledProcessError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
