"""Run configurations: one dataclass per algorithm, read from TOML, overridden on the command line.

Every field is a config key. A TOML file holds any subset of them (top-level keys; the env's
kwargs as an ``[env_kwargs]`` table), and the command line overrides any of them, as
``--group-size 8``, ``--group_size=8`` or ``--set group_size=8``. A key the algorithm does
not have, or a value of the wrong type or out of range, is refused with one line before
anything is loaded.

>>> cfg = load_config("grpo", overrides={"group_size": "8", "env_kwargs": '{"size": 4}'})
>>> cfg.group_size, cfg.env_kwargs, cfg.advantage
(8, {'size': 4}, 'grpo')
>>> load_config("grpo", overrides={"k": "4"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown config key 'k' for grpo; valid keys: ...
"""

import contextlib
import dataclasses
import json
import tomllib
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "CONFIGS",
    "GRPOConfig",
    "RunConfig",
    "SFTConfig",
    "VPRConfig",
    "config_dict",
    "config_from_dict",
    "load_config",
    "parse_overrides",
]


@dataclass
class RunConfig:
    """Keys every trainer has."""

    env: str = "agentgym/TicTacToe-v0"  # a registered Gymnasium id (see `agentgym list`)
    env_kwargs: dict[str, Any] = field(default_factory=dict)  # passed to gym.make
    model: str = "tiny-random"  # a transformers path, "smollm2" or "tiny-random"
    out_dir: str = ""  # where metrics, checkpoints, plots and the model go ("": runs/<algo>)
    seed: int = 0  # env seeds and torch's RNG derive from it
    lr: float = 1e-5
    # > 0: the rate rises linearly to lr over the first N optimizer steps (trainers.optim)
    warmup_steps: int = 0
    max_grad_norm: float = 1.0  # 0: no clipping
    max_turns: int = 8  # agent turns per episode
    device: str = "cpu"
    dtype: str = ""  # "": the model's default; "bfloat16" on a GPU
    lora_rank: int = 0  # > 0: train LoRA adapters of this rank (peft) instead of all weights
    lora_alpha: float = 16.0
    # > 0: train only the last N transformer blocks and the final norm; the blocks below are
    # frozen, so the backward pass stops above them (SmolLM2, last 4 of 30: 3.3x faster on CPU)
    trainable_layers: int = 0
    system_prompt: str = ""  # "": the env's own system prompt
    history_turns: int = -1  # earlier exchanges kept in each prompt (-1: all; 0: none)
    checkpoint_every: int = 1  # updates between checkpoints (0: only at the end)
    resume: bool = False  # continue from out_dir/checkpoint
    progress: bool = True  # the console progress bar
    plots: bool = True  # PNG curves at the end of the run

    @property
    def history(self) -> int | None:
        """``history_turns`` as :class:`~agentgym.llm.chat.ChatTokens` takes it (None: all)."""
        return None if self.history_turns < 0 else self.history_turns

    def check(self) -> None:
        """Raise ``ValueError`` (one line) for a value out of range."""
        _at_least("max_turns", self.max_turns, 1)
        _at_least("checkpoint_every", self.checkpoint_every, 0)
        _at_least("seed", self.seed, 0)
        _at_least("lora_rank", self.lora_rank, 0)
        _at_least("history_turns", self.history_turns, -1)
        _at_least("trainable_layers", self.trainable_layers, 0)
        _at_least("warmup_steps", self.warmup_steps, 0)
        if self.trainable_layers and self.lora_rank:
            raise ValueError("set trainable_layers or lora_rank, not both")
        if self.dtype and self.dtype not in ("float32", "float16", "bfloat16"):
            raise ValueError(f"dtype must be float32, float16 or bfloat16; got {self.dtype!r}")
        if not self.lr > 0:
            raise ValueError(f"lr must be > 0, got {self.lr}")
        if self.max_grad_norm < 0:
            raise ValueError(f"max_grad_norm must be >= 0, got {self.max_grad_norm}")


@dataclass
class RLConfig(RunConfig):
    """Keys the two RL trainers share: sampling and the policy loss."""

    updates: int = 20  # rollout + optimisation rounds
    max_new_tokens: int = 32  # sampled tokens per turn
    temperature: float = 1.0  # sampling temperature (the loss uses the same one)
    reward_mode: str = "both"  # "both", "process" or "outcome": what the advantage reads
    eps_low: float = 0.2  # ratio clipped to [1 - eps_low, 1 + eps_high]
    eps_high: float = 0.2
    # Negative advantages are multiplied by this (1: the plain estimator; 0: learn only from
    # better-than-average samples). See trainers.advantages.scale_negatives.
    negative_weight: float = 1.0
    beta: float = 0.0  # KL to the initial model (0: off, no reference model is kept)
    agg: str = "seq-mean"  # "seq-mean", "token-sum" or "token-mean"
    loss_constant: float = 0.0  # token-sum divisor (0: sequences x max_new_tokens)
    epochs: int = 1  # passes over each rollout batch
    minibatch_size: int = 0  # sequences per optimizer step (0: the whole batch)

    def check(self) -> None:
        super().check()
        _at_least("updates", self.updates, 1)
        _at_least("max_new_tokens", self.max_new_tokens, 1)
        _at_least("epochs", self.epochs, 1)
        _at_least("minibatch_size", self.minibatch_size, 0)
        _one_of("reward_mode", self.reward_mode, ("both", "process", "outcome"))
        _one_of("agg", self.agg, ("seq-mean", "token-sum", "token-mean"))
        if not 0.0 <= self.negative_weight <= 1.0:
            raise ValueError(f"negative_weight must be in [0, 1], got {self.negative_weight}")
        if not self.temperature > 0:
            raise ValueError(f"temperature must be > 0, got {self.temperature}")
        if self.eps_low < 0 or self.eps_high < 0 or self.beta < 0 or self.loss_constant < 0:
            raise ValueError("eps_low, eps_high, beta and loss_constant must be >= 0")


@dataclass
class GRPOConfig(RLConfig):
    """GRPO over episode groups; GiGPO adds anchor-state step credit."""

    groups: int = 2  # seeds per update; each seed is one group
    group_size: int = 4  # episodes per seed (>= 2: one episode has no spread)
    advantage: str = "grpo"  # "grpo", "dr_grpo" or "gigpo"
    gamma: float = 0.95  # GiGPO's step-return discount
    step_weight: float = 1.0  # GiGPO's w in A = A_episode + w * A_step

    def check(self) -> None:
        super().check()
        _at_least("groups", self.groups, 1)
        if self.group_size < 2:
            raise ValueError(
                f"group_size must be >= 2 for GRPO (a group of one has no reward spread to "
                f"learn from), got {self.group_size}; set --group-size 4"
            )
        _one_of("advantage", self.advantage, ("grpo", "dr_grpo", "gigpo"))
        if not 0.0 <= self.gamma <= 1.0:
            raise ValueError(f"gamma must be in [0, 1], got {self.gamma}")


@dataclass
class VPRConfig(RLConfig):
    """VPR: K candidates per visited state, scored by the env's oracle."""

    seeds_per_update: int = 2  # episodes per update (one committed path each)
    k: int = 4  # candidates sampled at every state (>= 2)
    reward_mode: str = "process"  # VPR trains on the oracle's per-candidate score

    def check(self) -> None:
        super().check()
        _at_least("seeds_per_update", self.seeds_per_update, 1)
        if self.k < 2:
            raise ValueError(
                f"k must be >= 2 for VPR (one candidate per state has no spread), got "
                f"{self.k}; set --k 4"
            )


@dataclass
class SFTConfig(RunConfig):
    """Supervised fine-tuning on an agent's trajectories (the oracle's, for warm starts)."""

    lr: float = 1e-4
    agent: str = "oracle"  # an agentgym agent name (see agentgym.agents)
    episodes: int = 32  # trajectories, seeds seed .. seed + episodes - 1
    epochs: int = 3  # passes over the trajectories
    batch_size: int = 8  # turns per optimizer step

    def check(self) -> None:
        super().check()
        _at_least("episodes", self.episodes, 1)
        _at_least("epochs", self.epochs, 1)
        _at_least("batch_size", self.batch_size, 1)


CONFIGS: dict[str, type[RunConfig]] = {"grpo": GRPOConfig, "vpr": VPRConfig, "sft": SFTConfig}


# --- checks -----------------------------------------------------------------------------------


def _at_least(name: str, value: int, low: int) -> None:
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")


def _one_of(name: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")


# --- reading values -----------------------------------------------------------------------------


def _types(cls: type[RunConfig]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


def _coerce(key: str, kind: Any, value: Any) -> Any:
    """``value`` (from TOML, or a command-line string) as the key's type, or a one-line error."""
    origin = typing.get_origin(kind) or kind
    text = isinstance(value, str)
    if origin is bool:
        if text and value.lower() in ("true", "false", "1", "0", "yes", "no"):
            return value.lower() in ("true", "1", "yes")
        if isinstance(value, bool):
            return value
    elif origin is int:
        if text:
            try:
                return int(value)
            except ValueError:
                pass
        elif isinstance(value, int) and not isinstance(value, bool):
            return value
    elif origin is float:
        if text:
            try:
                return float(value)
            except ValueError:
                pass
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif origin is dict:
        if text:
            with contextlib.suppress(json.JSONDecodeError):
                value = json.loads(value)
        if isinstance(value, Mapping):
            return dict(value)
    elif (origin is str or isinstance(kind, types.UnionType)) and text:
        return value
    name = getattr(origin, "__name__", str(kind))
    raise ValueError(f"config key {key!r} must be a {name}, got {value!r}")


def parse_overrides(tokens: Sequence[str]) -> dict[str, str]:
    """Command-line overrides as ``{key: text}``: ``--key value``, ``--key=value``, ``--set k=v``.

    Hyphens in keys are read as underscores; a key with no value is ``true`` (``--resume``).

    >>> parse_overrides(["--group-size", "8", "--lr=1e-5", "--set", "beta=0.01", "--resume"])
    {'group_size': '8', 'lr': '1e-5', 'beta': '0.01', 'resume': 'true'}
    """
    out: dict[str, str] = {}
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "--set":
            if i + 1 >= len(tokens) or "=" not in tokens[i + 1]:
                raise ValueError("--set needs KEY=VALUE, e.g. --set group_size=8")
            key, _, value = tokens[i + 1].partition("=")
            i += 2
        elif token.startswith("--") and len(token) > 2:
            key, sep, value = token[2:].partition("=")
            if not sep:
                if i + 1 < len(tokens) and not tokens[i + 1].startswith("--"):
                    value = tokens[i + 1]
                    i += 1
                else:  # a bare flag: --resume, --plots (a non-bool key then refuses "true")
                    value = "true"
            i += 1
        else:
            raise ValueError(f"unexpected argument {token!r}; config overrides are --KEY VALUE")
        out[key.strip().replace("-", "_")] = value
    return out


def config_from_dict(algo: str, values: Mapping[str, Any]) -> RunConfig:
    """A config of ``algo`` from ``values`` (TOML-like types or strings), checked."""
    if algo not in CONFIGS:
        raise ValueError(f"unknown algo {algo!r}; choose one of {', '.join(CONFIGS)}")
    cls = CONFIGS[algo]
    kinds = _types(cls)
    for key in values:
        if key not in kinds:
            raise ValueError(
                f"unknown config key {key!r} for {algo}; valid keys: {', '.join(kinds)}"
            )
    cfg = cls(**{key: _coerce(key, kinds[key], value) for key, value in values.items()})
    cfg.check()
    return cfg


def load_config(
    algo: str, path: str | Path | None = None, overrides: Mapping[str, Any] | None = None
) -> RunConfig:
    """The defaults of ``algo``, then the TOML file at ``path``, then ``overrides``."""
    values: dict[str, Any] = {}
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"config file {path} does not exist")
        try:
            values.update(tomllib.loads(path.read_text(encoding="utf-8")))
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"config file {path} is not valid TOML: {exc}") from None
    values.update(overrides or {})
    return config_from_dict(algo, values)


def config_dict(cfg: RunConfig) -> dict[str, Any]:
    """The config as plain JSON-able values (what checkpoints and metrics record)."""
    return dataclasses.asdict(cfg)
