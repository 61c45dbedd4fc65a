"""``agentgym train``: read the config, refuse bad input before any work, run the trainer.

    agentgym train --algo grpo --env agentgym/TicTacToe-v0 --model tiny-random \\
        --config configs/grpo_tictactoe.toml --group-size 8 --updates 50

Every config key (see :mod:`agentgym.trainers.config`) can be set in the TOML file and
overridden after it as ``--key value``, ``--key=value`` or ``--set key=value``; env kwargs
also as ``-k name=value``. Refused in one line, exit status 2, before a model is loaded: an
unknown key or a bad value, a model path that does not exist, an env id that is not
registered, env kwargs the env refuses, a GRPO group size of 1, a VPR ``k`` of 1, an env
without ``score_actions`` for VPR, an unknown SFT agent (or an oracle agent on an env
without ``oracle_actions``), a device that is not there, ``--resume`` with no checkpoint.

This module imports neither torch nor transformers at import time, so ``agentgym --help``
stays fast; the trainer modules are imported only to run.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from rich.console import Console

from .config import (
    CONFIGS,
    RunConfig,
    SFTConfig,
    config_dict,
    config_from_dict,
    load_config,
    parse_overrides,
)

__all__ = ["NAMED_MODELS", "add_train_arguments", "check_run", "cmd_train", "read_config"]

#: Model specs that are names, not paths (see :func:`agentgym.llm.models.load_model`).
NAMED_MODELS = ("tiny-random", "smollm2")


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """The fixed options of ``agentgym train``; everything else is a config override."""
    keys = "; ".join(
        f"{algo}: {', '.join(cls.model_fields)}"
        for algo, cls in sorted(CONFIGS.items())
    )
    parser.epilog = f"config keys, each settable as --KEY VALUE. {keys}"
    parser.add_argument("--algo", required=True, choices=sorted(CONFIGS),
                        help="grpo (GiGPO with --advantage gigpo), vpr, or sft")
    parser.add_argument("--env", help="env id, e.g. agentgym/Sokoban-v0 (config key `env`)")
    parser.add_argument("--model", help="transformers model dir or .gguf, 'smollm2' or "
                        "'tiny-random' (config key `model`)")
    parser.add_argument("--config", metavar="TOML", help="config file (see configs/)")
    parser.add_argument("-k", "--kw", action="append", default=[], metavar="NAME=VALUE",
                        help="an env kwarg, repeatable (JSON values), merged into env_kwargs")


def read_config(args: argparse.Namespace, overrides: list[str]) -> RunConfig:
    """The run's config: defaults, then the TOML file, then the command line."""
    from agentgym.cli import parse_kwargs

    values: dict[str, Any] = dict(parse_overrides(overrides))
    if args.env is not None:
        values["env"] = args.env
    if args.model is not None:
        values["model"] = args.model
    cfg = load_config(args.algo, args.config, values)
    if not args.kw:
        return cfg
    # -k merges into the file's and the overrides' env_kwargs; the merge is checked again.
    kwargs = {**cfg.env_kwargs, **parse_kwargs(args.kw, cfg.env)}
    return config_from_dict(args.algo, {**config_dict(cfg), "env_kwargs": kwargs})


def check_run(algo: str, cfg: RunConfig) -> None:
    """Refuse, in one line, what would fail later: checked before any model is loaded."""
    import gymnasium as gym

    import agentgym

    if cfg.env not in gym.registry:
        known = ", ".join(agentgym.env_ids())
        raise ValueError(f"env id {cfg.env!r} is not registered; agentgym ids: {known}")
    if cfg.model not in NAMED_MODELS and not Path(os.path.expanduser(cfg.model)).exists():
        raise ValueError(
            f"model path {cfg.model!r} does not exist; give a transformers model directory, "
            f"a .gguf file, or one of {', '.join(NAMED_MODELS)}"
        )
    if cfg.device != "cpu":
        import torch

        try:
            device = torch.device(cfg.device)
        except RuntimeError:
            raise ValueError(
                f"device {cfg.device!r} is not a torch device (cpu, cuda, cuda:1)"
            ) from None
        if device.type == "cuda" and not torch.cuda.is_available():
            raise ValueError(f"device {cfg.device!r}: no CUDA GPU is available here; use cpu")
    if cfg.resume:
        from .grpo import run_dir

        if not (run_dir(cfg, algo) / "checkpoint" / "state.pt").is_file():
            raise ValueError(f"--resume: no checkpoint in {run_dir(cfg, algo)}/checkpoint")
    oracle_agent = False
    if algo == "sft":
        from agentgym.agents import agent_names

        assert isinstance(cfg, SFTConfig)  # read_config builds the config class of the algo
        if cfg.agent not in agent_names():
            raise ValueError(f"unknown agent {cfg.agent!r}; agents: {', '.join(agent_names())}")
        oracle_agent = cfg.agent == "oracle"
    # Build the env once: its kwargs are judged now, and VPR needs its oracle.
    try:
        env = gym.make(cfg.env, **cfg.env_kwargs)
    except TypeError as exc:
        raise ValueError(f"{cfg.env} refused its kwargs: {exc}") from None
    try:
        if algo == "vpr" and not callable(getattr(env.unwrapped, "score_actions", None)):
            raise ValueError(
                f"{cfg.env} has no score_actions(), which VPR needs to score candidates; "
                "train it with --algo grpo"
            )
        if oracle_agent and not callable(getattr(env.unwrapped, "oracle_actions", None)):
            raise ValueError(f"{cfg.env} has no oracle_actions() for --agent oracle")
    finally:
        env.close()


def cmd_train(args: argparse.Namespace, console: Console) -> int:
    """Run ``agentgym train``; errors propagate as exceptions (the CLI prints one line)."""
    cfg = read_config(args, list(getattr(args, "overrides", [])))
    check_run(args.algo, cfg)
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as exc:
        hint = "install the train extra: pip install 'agentgym[train]'"
        raise ImportError(f"{exc}; {hint}") from None
    if args.algo == "grpo":
        from .grpo import train
    elif args.algo == "vpr":
        from .vpr import train
    else:
        from .sft import train
    from .grpo import run_dir

    rows = train(cfg, console=console)  # type: ignore[arg-type]
    out = run_dir(cfg, args.algo)
    last = rows[-1] if rows else {}
    summary = ", ".join(f"{k} {last[k]:.3f}" for k in ("reward_mean", "success_rate", "loss")
                        if isinstance(last.get(k), (int, float)))
    console.print(f"agentgym train: {args.algo} done, {len(rows)} rows in {out}/metrics.jsonl"
                  f"{'; last: ' + summary if summary else ''}", soft_wrap=True)
    return 0
