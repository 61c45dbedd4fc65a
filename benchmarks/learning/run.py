"""Does RL teach SmolLM2-135M more than a board-blind script? GRPO and VPR at equal env steps.

    # 0. the reference lines (no model): random, best board-blind script, oracle
    .venv/bin/python benchmarks/learning/baselines.py --settings tictactoe-vpr --out runs/baselines
    # 1. choosing configurations: validation seeds only, as often as needed
    .venv/bin/python benchmarks/learning/run.py --split val --out runs/learn-val --seeds 2
    # 2. the reported figures: test seeds, once, with the configurations 1 chose
    .venv/bin/python benchmarks/learning/run.py --split test --out runs/learn-test --seeds 5

The setting is tic-tac-toe's ``preset="vpr"`` (the optimal opponent, the agent's side drawn per
episode; a draw is a success), where the best board-blind script is far from the oracle
(``baselines.py``). The protocol:

1. **Warm start.** ``agentgym train --algo sft`` of SmolLM2-135M-Instruct on a few oracle
   episodes (``--sft-config``), partial on purpose. Every RL run starts from this one model.
2. **Arms** (``--arms``): ``grpo``, standard GRPO (``--grpo-config``, ``negative_weight = 1``);
   ``vpr`` (``--vpr-config``); and variants of GRPO, reported beside standard GRPO and never
   instead of it: ``grpo-pos`` (``negative_weight = 0``, the old runs' filtered imitation).
   ``--seeds`` training seeds per arm (>= 5 for the reported figures); each run stops at the
   first update past ``--budget`` env steps (``env.step`` calls; VPR's scoring of its K
   candidates with ``score_actions`` does not step the env). Runs go ``--parallel`` at a
   time, each a process with ``torch.set_num_threads(--threads)``.
3. **Seeds.** ``--split val`` evaluates on the validation seeds (from ``--val-seed``),
   ``--split test`` on the test seeds (from ``--test-seed``): the same ranges as
   ``baselines.py``, disjoint from each other and from every training seed. A test folder
   records the digest of its configurations and refuses to run others, so test seeds are
   touched once per folder; choose configurations on ``val`` only.
4. **Evaluation.** ``--eval-episodes`` seeds (>= 200 on test), one episode each, greedy
   (temperature 0): the warm start, then every ``--eval-every`` env steps of each run and at
   its end. The warm start and each final model are also played sampled at T=1.
5. **Figures** (``report.summarize``): 95% intervals on every one: Wilson per evaluation,
   bootstrap over training seeds for an arm's mean, a two-sample bootstrap for an arm minus
   the best board-blind script (``--baselines``) and minus the warm start, and a paired
   bootstrap by training seed for VPR minus GRPO. ``learning.png`` has the reference lines:
   random legal moves, the best board-blind script, the SFT warm start and the oracle.

Outputs under ``--out``: ``learning.json`` (every figure and per-episode outcome),
``learning.png``, and each run's folder (``metrics.jsonl``, ``curves.png``, ``model/``).
``--warm-only`` builds and evaluates the warm start alone. ``--plan`` prints the jobs and a
CPU-time estimate and starts nothing. Errors are one line (``error: ...``) and exit status 2.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

from baselines import TEST_SEED, VAL_SEED  # noqa: E402

#: arm -> (trainer, the argparse attribute of its config, overrides on top of that config).
ARMS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "grpo": ("grpo", "grpo_config", {"negative_weight": 1.0}),
    "vpr": ("vpr", "vpr_config", {}),
    "grpo-pos": ("grpo", "grpo_config", {"negative_weight": 0.0}),
}
#: The least a reported (test) figure may rest on.
MIN_TEST_EPISODES = 200
MIN_TEST_SEEDS = 5
#: CPU seconds on one core, from the old runs on 2 shared cores (benchmarks/learning/README.md,
#: history): a VPR run of ~160 env steps took 830-1,200 s with 90 evaluation episodes, a GRPO
#: run 660-1,000 s; a greedy evaluation episode (~4 turns of up to 12 tokens) about 2 s.
RUN_S_PER_ENV_STEP = 5.0
EVAL_S_PER_EPISODE = 2.0


class BudgetReached(Exception):
    """Raised by the counting rollout once a run has taken its env-step budget."""


def split_seeds(split: str, episodes: int, val_seed: int = VAL_SEED,
                test_seed: int = TEST_SEED) -> list[int]:
    """The evaluation seeds of ``split``: ``episodes`` seeds from its first seed.

    >>> split_seeds("val", 3), split_seeds("test", 2)
    ([700000, 700001, 700002], [800000, 800001])
    """
    if split not in ("val", "test"):
        raise ValueError(f"split must be val or test, got {split!r}")
    if episodes < 1:
        raise ValueError(f"need at least one evaluation episode, got {episodes}")
    first = val_seed if split == "val" else test_seed
    seeds = list(range(first, first + episodes))
    other = range(test_seed, test_seed + episodes) if split == "val" else range(
        val_seed, val_seed + episodes)
    if set(seeds) & set(other):
        raise ValueError("validation and test seeds overlap; move --val-seed or --test-seed")
    return seeds


#: Keys each job's spec sets itself: an override would send the warm start elsewhere, or make
#: the arms play another setting than the reference lines.
PROTOCOL_KEYS = frozenset({"model", "seed", "out_dir", "updates", "progress", "plots",
                           "checkpoint_every", "env", "env_kwargs", "resume"})


def parse_sets(pairs: list[str]) -> dict[str, Any]:
    """``--set KEY=VALUE`` pairs as config overrides for every job (the warm start's training
    and evaluation, every RL run), each value read as TOML, else kept as text: how the same
    protocol runs on a GPU (``--set device=cuda --set dtype=bfloat16``).

    >>> parse_sets(["device=cuda", "micro_batch_size=8", "dtype=bfloat16"])
    {'device': 'cuda', 'micro_batch_size': 8, 'dtype': 'bfloat16'}
    """
    from agentgym.trainers.config import GRPOConfig, SFTConfig, VPRConfig

    known = set(GRPOConfig.model_fields) | set(VPRConfig.model_fields) | set(
        SFTConfig.model_fields)
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"--set takes KEY=VALUE, got {pair!r}")
        if key in PROTOCOL_KEYS:
            raise ValueError(f"--set {key}: the protocol sets it for each job")
        if key not in known:
            raise ValueError(f"--set {key}: not a trainer config key")
        try:
            out[key] = tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError:
            out[key] = value
    return out


def configs_digest(paths: list[Path], extra: dict[str, Any]) -> str:
    """A digest of the configuration files' text and the protocol's settings, which a test
    folder records so that its seeds serve one set of configurations only."""
    h = hashlib.sha256()
    for path in paths:
        h.update(path.read_bytes())
    h.update(json.dumps(extra, sort_keys=True).encode())
    return h.hexdigest()[:16]


def guard_test_split(out: Path, digest: str) -> None:
    """Refuse a test run in a folder whose test seeds already served other configurations."""
    marker = out / "test_split.json"
    if marker.is_file():
        before = json.loads(marker.read_text())["digest"]
        if before != digest:
            raise ValueError(
                f"{out} already holds test-seed results for other configurations (digest "
                f"{before}, now {digest}); the test seeds are touched once: choose on --split val")
    else:
        marker.write_text(json.dumps({"digest": digest}))


def estimate_cpu_s(arms: int, seeds: int, budget: int, eval_every: int, episodes: int) -> float:
    """CPU seconds (one core) of a study: the RL steps, each run's greedy evaluations (every
    ``eval_every`` env steps, the last at the budget) and its sampled final one, and the warm
    start's two. An estimate from :data:`RUN_S_PER_ENV_STEP` and :data:`EVAL_S_PER_EPISODE`.

    >>> round(estimate_cpu_s(2, 5, 160, 80, 200))  # 10 x (800 + 3 x 400) + 800
    20800
    """
    points = -(-budget // eval_every)  # greedy evaluations of a run, the last included
    per_run = RUN_S_PER_ENV_STEP * budget + EVAL_S_PER_EPISODE * episodes * (points + 1)
    warm = EVAL_S_PER_EPISODE * episodes * 2
    return arms * seeds * per_run + warm


# --- evaluation ---------------------------------------------------------------------------------


def evaluate(policy: Any, cfg: Any, seeds: list[int], temperature: float = 0.0) -> dict[str, Any]:
    """One episode per seed at ``temperature`` (0: greedy): per-episode success (``outcomes``),
    the valid-action rate, and the number of distinct games played (a board-blind script
    plays few). Sampling is seeded (``seed=0``), so the same weights give the same figures."""
    from agentgym.trainers.grpo import make_env_factory
    from agentgym.trainers.rollout import rollout_groups

    table = rollout_groups(make_env_factory(cfg), policy, seeds=seeds, group_size=1,
                           max_turns=cfg.max_turns, max_new_tokens=cfg.max_new_tokens,
                           temperature=temperature, system_prompt=cfg.system_prompt or None,
                           seed=0, history_turns=cfg.history)
    stats = table.stats
    games: dict[int, list[tuple[int, ...]]] = {}
    for row in table:
        games.setdefault(row.trajectory, []).append(tuple(row.completion_ids))
    return {"outcomes": [int(bool(x)) for x in stats.episode_success],
            "success": float(stats.success_rate),
            "valid_action_rate": float(stats.valid_action_rate),
            "distinct_games": len({tuple(moves) for moves in games.values()}),
            "episodes": len(seeds), "env_steps": len(stats.valid_action),
            "temperature": temperature}


# --- one job, in its own process ----------------------------------------------------------------


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
    seeds = spec["eval_seeds"]
    began = time.perf_counter()
    policy = load_policy(cfg)
    result: dict[str, Any] = {"arm": spec["arm"], "algo": algo, "seed": cfg.seed,
                              "config": spec["config"], "overrides": spec["overrides"]}
    if spec["job"] == "eval":
        result["eval"] = evaluate(policy, cfg, seeds)
        result["eval_s"] = time.perf_counter() - began
        result["eval_sampled"] = evaluate(policy, cfg, seeds, temperature=1.0)
    else:
        from agentgym.trainers import grpo, vpr
        from agentgym.trainers.rollout import rollout_groups, rollout_state_groups

        inner = rollout_groups if algo == "grpo" else rollout_state_groups
        budget, every = spec["budget"], spec["eval_every"]
        curve: list[dict[str, Any]] = []
        steps = {"n": 0}

        def add_curve_point() -> None:
            curve.append({"env_steps": steps["n"], "elapsed_s": time.perf_counter() - began,
                          **{k: v for k, v in evaluate(policy, cfg, seeds).items()
                             if k != "env_steps"}})

        def counting_rollout(*args: Any, **kwargs: Any) -> Any:
            # Held-out evaluation every `every` env steps, then a stop at the budget. Step 0
            # (the warm start) is evaluated once for all runs by the warm-start job.
            last = curve[-1]["env_steps"] if curve else 0
            if steps["n"] and (steps["n"] >= last + every or steps["n"] >= budget):
                add_curve_point()
                Path(spec["result"] + ".partial").write_text(json.dumps(
                    {**result, "curve": curve, "env_steps": steps["n"], "partial": True}))
            if steps["n"] >= budget:
                raise BudgetReached
            state = torch.get_rng_state()  # the evaluation must not change the run's sampling
            table = inner(*args, **kwargs)
            torch.set_rng_state(state)
            steps["n"] += len(table.stats.valid_action)
            return table

        train = grpo.train if algo == "grpo" else vpr.train
        try:
            train(cfg, policy=policy, rollout=counting_rollout)
            ran_out = True  # the updates ran out before the budget
        except BudgetReached:
            ran_out = False
        if ran_out and (not curve or curve[-1]["env_steps"] != steps["n"]):
            add_curve_point()
        result["final_sampled"] = evaluate(policy, cfg, seeds, temperature=1.0)
        out = Path(cfg.out_dir)
        save_model(policy.model, policy.tokenizer, out / "model")
        rows = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines() if x]
        plot_metrics(rows, out / "curves.png", title=f"{spec['arm']} seed {cfg.seed}")
        result.update(curve=curve, env_steps=steps["n"], stopped_at_budget=not ran_out,
                      updates=len(rows))
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


def load_baselines(path: str, env_id: str, env_kwargs: dict[str, Any]) -> dict[str, Any] | None:
    """The baselines JSON of the runs' setting, or None without ``--baselines``.

    Refuses a file measured on another game or kwargs that change success (the reward
    scales do not: they move no success)."""
    if not path:
        return None
    if not Path(path).is_file():
        raise ValueError(f"--baselines: {path} does not exist (run baselines.py first)")
    data = json.loads(Path(path).read_text())
    import gymnasium as gym

    import agentgym  # noqa: F401  (registers the ids)

    def rules(env: str, kwargs: dict[str, Any]) -> dict[str, Any]:
        config = gym.make(env, **kwargs).unwrapped.config()
        return {k: v for k, v in config.items() if "reward" not in k and "penalty" not in k}

    if data.get("env") != env_id or rules(data["env"], data["env_kwargs"]) != rules(
            env_id, env_kwargs):
        raise ValueError(f"--baselines {path} was measured on {data.get('env')} "
                         f"{data.get('env_kwargs')}, the runs play {env_id} {env_kwargs}")
    return data


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="runs/learning", help="output folder")
    p.add_argument("--split", choices=("val", "test"), default="val",
                   help="evaluation seeds: val (choose configurations) or test (report, once)")
    p.add_argument("--arms", default="grpo,vpr", help=f"comma-separated subset of "
                   f"{', '.join(ARMS)}")
    p.add_argument("--seeds", type=int, default=5, help="training seeds per arm")
    p.add_argument("--first-seed", type=int, default=1, help="first training seed")
    p.add_argument("--budget", type=int, default=160, help="env steps per RL run")
    p.add_argument("--eval-every", type=int, default=80, help="env steps between evaluations")
    p.add_argument("--eval-episodes", type=int, default=MIN_TEST_EPISODES,
                   help="evaluation seeds (one episode each)")
    p.add_argument("--val-seed", type=int, default=VAL_SEED)
    p.add_argument("--test-seed", type=int, default=TEST_SEED)
    p.add_argument("--baselines", default="runs/baselines/tictactoe-vpr.json",
                   help='baselines.py JSON of the setting ("": no reference lines)')
    p.add_argument("--sft-config", default="configs/learn_ttt_sft.toml")
    p.add_argument("--grpo-config", default="configs/learn_ttt_grpo.toml")
    p.add_argument("--vpr-config", default="configs/learn_ttt_vpr.toml")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a config override for every job, e.g. --set device=cuda --set "
                   "dtype=bfloat16 (repeatable; part of the test split's digest)")
    p.add_argument("--parallel", type=int, default=2, help="runs at a time")
    p.add_argument("--threads", type=int, default=1, help="torch threads per run")
    p.add_argument("--timeout", type=float, default=7200, help="seconds per run before a kill")
    p.add_argument("--warm-only", action="store_true",
                   help="build and evaluate the warm start only")
    p.add_argument("--summarize-only", action="store_true",
                   help="start nothing; write the figures from what --out holds")
    p.add_argument("--plan", action="store_true",
                   help="print the jobs and a CPU-time estimate; start nothing")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        worker(json.loads(args.worker))
        return 0

    arms = [a for a in args.arms.split(",") if a]
    sets = parse_sets(args.set)
    for a in arms:
        if a not in ARMS:
            raise ValueError(f"--arms takes {', '.join(ARMS)}, got {a!r}")
    if any(a.startswith("grpo-") for a in arms) and "grpo" not in arms:
        raise ValueError("a GRPO variant is reported beside standard GRPO: add grpo to --arms")
    config_paths = [ROOT / args.sft_config] + [ROOT / getattr(args, ARMS[a][1]) for a in arms]
    for path in config_paths:
        if not path.is_file():
            raise ValueError(f"config file {path} does not exist")
    if min(args.seeds, args.budget, args.eval_every, args.parallel, args.threads) < 1:
        raise ValueError("--seeds, --budget, --eval-every, --parallel and --threads must be >= 1")
    if args.split == "test" and (args.eval_episodes < MIN_TEST_EPISODES
                                 or (not args.warm_only and args.seeds < MIN_TEST_SEEDS)):
        raise ValueError(f"a test run reports figures: it needs --eval-episodes >= "
                         f"{MIN_TEST_EPISODES} and --seeds >= {MIN_TEST_SEEDS}")
    seeds = split_seeds(args.split, args.eval_episodes, args.val_seed, args.test_seed)
    # Every arm and the warm start play one setting, or the reference lines mean nothing.
    settings = {json.dumps([c.get("env"), c.get("env_kwargs", {})], sort_keys=True)
                for c in (tomllib.loads(path.read_text()) for path in config_paths)}
    if len(settings) > 1:
        raise ValueError(f"the configs play different settings: {sorted(settings)}")
    env_id, env_kwargs = json.loads(settings.pop())
    baselines = load_baselines(args.baselines, env_id, env_kwargs)
    train_seeds = range(args.first_seed, args.first_seed + args.seeds)
    if args.plan:
        cpu = estimate_cpu_s(0 if args.warm_only else len(arms), args.seeds, args.budget,
                             args.eval_every, args.eval_episodes)
        print(f"{args.split} split, seeds {seeds[0]}-{seeds[-1]}; arms {arms} x training seeds "
              f"{list(train_seeds)}; {args.budget} env steps per run")
        print(f"estimated CPU time: {cpu / 3600:.1f} core-hours "
              f"({cpu / 3600 / min(args.parallel, os.cpu_count() or 1):.1f} h wall "
              f"at --parallel {args.parallel})")
        return 0
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    protocol = {"split": args.split, "arms": arms, "budget": args.budget,
                "eval_every": args.eval_every, "eval_episodes": args.eval_episodes,
                "val_seed": args.val_seed, "test_seed": args.test_seed,
                "overrides": {a: ARMS[a][2] for a in arms}, **({"set": sets} if sets else {})}
    digest = configs_digest(config_paths, protocol)
    if args.split == "test" and not args.summarize_only:
        guard_test_split(out, digest)
    common = {"eval_seeds": seeds, "threads": args.threads}

    # 1. The warm start (once; reused if it is there).
    sft_dir = out / "sft"
    if args.summarize_only and not (out / "eval_warm.json").is_file():
        raise ValueError(f"--summarize-only: {out} holds no warm-start evaluation yet")
    if not args.summarize_only and not (sft_dir / "model").is_dir():
        print(f"warm start: agentgym train --algo sft --config {args.sft_config}", flush=True)
        t0 = time.perf_counter()
        env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
        # `python -P -m agentgym.cli`: the same command where agentgym is installed without
        # its console script on PATH (pip --target on a GPU machine); -P keeps the checkout's
        # agentgym/ folder, which lacks the trainers, from shadowing the installed package.
        flags = [f for pair in args.set for f in ("--set", pair)]
        subprocess.run([sys.executable, "-P", "-m", "agentgym.cli", "train", "--algo", "sft",
                        "--config", args.sft_config, "--out-dir", str(sft_dir),
                        "--progress", "false", *flags], cwd=ROOT, env=env, check=True)
        (out / "sft_wall_s.txt").write_text(f"{time.perf_counter() - t0:.1f}\n")
    model = str(sft_dir / "model")

    # 2. The warm start's evaluation, then the RL runs, `parallel` at a time.
    eval_cfg = args.grpo_config if "grpo" in arms or not arms else getattr(
        args, ARMS[arms[0]][1])
    warm = {"name": "warm-start eval", "job": "eval", "arm": "warm", "algo": "grpo"
            if eval_cfg == args.grpo_config else "vpr", "config": eval_cfg,
            "overrides": {**sets, "model": model, "out_dir": str(out / "eval_warm")},
            "result": str(out / "eval_warm.json"), **common}
    runs = [] if args.warm_only else [
        {"name": f"{arm} seed {s}", "job": "train", "arm": arm, "algo": ARMS[arm][0],
         "config": getattr(args, ARMS[arm][1]),
         "overrides": {**sets, **ARMS[arm][2], "model": model, "seed": s,
                       "out_dir": str(out / f"{arm}_s{s}"), "progress": False, "plots": False,
                       "checkpoint_every": 0, "updates": 100_000},
         "budget": args.budget, "eval_every": args.eval_every,
         "result": str(out / f"{arm}_s{s}.json"), **common}
        for s in train_seeds for arm in sorted(arms, key=lambda a: a != "vpr")]
    if not args.summarize_only:
        todo = [] if Path(warm["result"]).is_file() else [warm]
        run_jobs(todo + [r for r in runs if not Path(r["result"]).is_file()], args.parallel,
                 args.timeout)

    # 3. The figures.
    from report import plot, summarize

    warm_json = json.loads(Path(warm["result"]).read_text())
    warm_eval = {**warm_json["eval"], "sampled": warm_json.get("eval_sampled")}
    # A run killed at --timeout leaves its curve so far in RESULT.partial.
    results = []
    for r in runs:
        for path in (Path(r["result"]), Path(r["result"] + ".partial")):
            if path.is_file():
                results.append(json.loads(path.read_text()))
                break
    summary = {"env": env_id, "env_kwargs": env_kwargs, "split": args.split,
               "eval_seeds": [seeds[0], seeds[-1]], "configs_digest": digest,
               "protocol": protocol, "warm_start_eval_s": warm_json.get("eval_s"),
               "eval": "greedy (temperature 0), one episode per seed",
               **summarize(warm_eval, results, baselines),
               "runs": results, "warm_start": warm_json}
    (out / "learning.json").write_text(json.dumps(summary, indent=1))
    plot(summary, out / "learning.png",
         title=f"SmolLM2-135M on {env_id} {env_kwargs}: {args.split} seeds "
               f"{seeds[0]}-{seeds[-1]}, greedy")
    refs = summary["references"]
    for key, ref in refs.items():
        lo, hi = ref["ci95"]
        print(f"{key}: {ref['success']:.1%} [{lo:.1%}, {hi:.1%}] ({ref['episodes']} episodes)")
    for arm, e in summary["arms"].items():
        lo, hi = e["final"]["ci95"]
        line = f"{arm}: final {e['final']['mean']:.1%} [{lo:.1%}, {hi:.1%}] over seeds {e['seeds']}"
        if "minus_best_script" in e:
            d = e["minus_best_script"]
            line += (f"; minus the best board-blind script {d['mean']:+.1%} "
                     f"[{d['ci95'][0]:+.1%}, {d['ci95'][1]:+.1%}]")
        print(line)
    for name, d in summary["paired"].items():
        print(f"{name} (paired by seed): {d['mean']:+.1%} [{d['ci95'][0]:+.1%}, "
              f"{d['ci95'][1]:+.1%}]")
    print(f"wrote {out / 'learning.png'} and {out / 'learning.json'}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (ValueError, subprocess.CalledProcessError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
