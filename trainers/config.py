"""Run configurations: one pydantic model per algorithm, from TOML and the command line.

Every field is a config key, with its type, bounds and a one-line description (``agentgym train
--help`` lists them). A TOML file holds any subset of them (top-level keys; the env's kwargs as
an ``[env_kwargs]`` table), and the command line overrides any of them, as ``--group-size 8``,
``--group_size=8`` or ``--set group_size=8``: the model reads such text as the key's type
(``"8"``, ``"true"``, ``"1e-5"``; ``env_kwargs`` as a JSON object). A key the algorithm does not
have, a value of the wrong type or out of range, or an env kwarg the env's declared config
(:mod:`agentgym.config`) refuses, is refused with one line before anything is loaded.

The models share :class:`~agentgym.config.EnvConfig`'s machinery (strict types, one-line
messages from :meth:`~agentgym.config.EnvConfig.parse`) and are frozen: a run's config is
settled before anything loads.

>>> cfg = load_config("grpo", overrides={"group_size": "8", "env_kwargs": '{"max_steps": 9}'})
>>> cfg.group_size, cfg.env_kwargs, cfg.advantage
(8, {'max_steps': 9}, 'grpo')
>>> load_config("grpo", overrides={"k": "4"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown config key 'k' for grpo; valid keys: ...
>>> load_config("grpo", overrides={"lr": "fast"})
Traceback (most recent call last):
...
ValueError: lr must be a finite number > 0, got 'fast'
>>> load_config("grpo", overrides={"env": "agentgym/Sokoban-v0", "env_kwargs": '{"size": 99}'})
Traceback (most recent call last):
...
ValueError: env_kwargs for agentgym/Sokoban-v0: size must be in [5, 10], got 99
"""

import contextlib
import json
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import (
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from agentgym.config import EnvConfig

__all__ = [
    "CONFIGS",
    "GRPOConfig",
    "RLConfig",
    "RunConfig",
    "SFTConfig",
    "VPRConfig",
    "config_dict",
    "config_from_dict",
    "load_config",
    "parse_overrides",
    "update_seed",
]

#: A run seeded ``s`` seeds torch (and its rollout) at update ``u`` with ``s * SEED_STRIDE +
#: u``: update u draws the same whether or not the run was resumed before it, and runs of
#: different seeds never share a draw below a million updates (the stride is prime).
SEED_STRIDE = 1_000_003


def update_seed(seed: int, update: int) -> int:
    """The seed of update (or SFT epoch) ``update`` of a run seeded ``seed``.

    >>> update_seed(0, 5), update_seed(2, 0)
    (5, 2000006)
    """
    return seed * SEED_STRIDE + update

#: Lax (pydantic's default mode) readers of command-line text for the scalar field types.
_FROM_TEXT = {kind: TypeAdapter(kind) for kind in (bool, int, float)}
#: Kwargs ``gym.make`` hands to a RemoteEnv (with ``server_url``), not to the env itself.
_REMOTE_KWARGS = ("server_url", "token", "timeout", "retry_for")


class RunConfig(EnvConfig):
    """Keys every trainer has."""

    env: str = Field("agentgym/TicTacToe-v0",
                     description="a registered Gymnasium id (see `agentgym list`)")
    env_kwargs: dict[str, Any] = Field(
        default_factory=dict,
        description="passed to gym.make; checked against the env's declared config")
    model: str = Field("tiny-random", description='a transformers path, "smollm2" or "tiny-random"')
    out_dir: str = Field("", description='where metrics, checkpoints, plots and the model go '
                         '("": runs/<algo>)')
    seed: int = Field(0, ge=0, description="env seeds and torch's RNG derive from it")
    lr: float = Field(1e-5, gt=0, description="the optimizer's learning rate")
    warmup_steps: int = Field(0, ge=0, description="> 0: the rate rises linearly to lr over the "
                              "first N optimizer steps (trainers.optim)")
    max_grad_norm: float = Field(1.0, ge=0, description="gradient clipping norm (0: no clipping)")
    max_turns: int = Field(8, ge=1, description="agent turns per episode")
    device: str = Field("cpu", description="a torch device: cpu, cuda, cuda:1")
    dtype: Literal["", "float32", "float16", "bfloat16"] = Field(
        "", description='compute dtype: the weights stay float32 and the forward runs under '
        'torch.autocast in this dtype ("" or "float32": no autocast; "bfloat16" on a GPU); the '
        'sampler keeps its own copy in it')
    attn_implementation: Literal["", "eager", "sdpa", "flash_attention_2"] = Field(
        "", description='the attention kernel transformers uses ("": its default)')
    gradient_checkpointing: bool = Field(
        False, description="recompute each block's activations in the backward pass instead "
        "of holding them (less memory, ~30% more compute)")
    malloc_mmap_threshold: int = Field(
        0, ge=0, le=2**25, description="glibc: blocks of at least this many bytes get their own "
        "mapping, returned to the OS when freed (0: glibc's default; 65536 cut a SmolLM2 "
        "update's peak RSS by 0.8 GB at ~40% more update time; trainers/memory.py)")
    lora_rank: int = Field(0, ge=0, description="> 0: train LoRA adapters of this rank (peft) "
                           "instead of all weights")
    lora_alpha: float = Field(16.0, description="LoRA's scaling numerator (alpha / rank)")
    trainable_layers: int = Field(
        0, ge=0, description="> 0: train only the last N transformer blocks and the final norm; "
        "the blocks below are frozen, so the backward pass stops above them (SmolLM2, last 4 of "
        "30: 3.3x faster on CPU)")
    system_prompt: str = Field("", description='"": the env\'s own system prompt')
    history_turns: int = Field(-1, ge=-1, description="earlier exchanges kept in each prompt "
                               "(-1: all; 0: none)")
    checkpoint_every: int = Field(1, ge=0, description="updates between checkpoints (0: only at "
                                  "the end)")
    resume: bool = Field(False, description="continue from out_dir/checkpoint")
    progress: bool = Field(True, description="the console progress bar")
    plots: bool = Field(True, description="PNG curves at the end of the run")

    @property
    def history(self) -> int | None:
        """``history_turns`` as :class:`~agentgym.llm.chat.ChatTokens` takes it (None: all)."""
        return None if self.history_turns < 0 else self.history_turns

    def check(self) -> None:
        """Raise ``ValueError`` (one line) for a value out of range: the whole config again,
        for one whose ``env_kwargs`` dict was changed in place."""
        type(self).parse(config_dict(self))

    @field_validator("*", mode="before")
    @classmethod
    def _text(cls, value: Any, info: ValidationInfo) -> Any:
        assert info.field_name is not None  # None only in a model validator, never in a field's
        return _from_text(cls.model_fields[info.field_name].annotation, value)

    @field_validator("env_kwargs", mode="before")
    @classmethod
    def _kwargs_table(cls, value: Any) -> Any:
        kwargs = value
        if isinstance(value, str):
            with contextlib.suppress(json.JSONDecodeError):
                kwargs = json.loads(value)
        if not isinstance(kwargs, Mapping):
            raise ValueError(f"env_kwargs must be a dict (a TOML table, or a JSON object on the "
                             f"command line), got {value!r}")
        return dict(kwargs)

    @model_validator(mode="after")
    def _rules(self) -> Self:
        if self.trainable_layers and self.lora_rank:
            raise ValueError("set trainable_layers or lora_rank, not both")
        _check_env_kwargs(self.env, self.env_kwargs)
        return self


class RLConfig(RunConfig):
    """Keys the two RL trainers share: sampling and the policy loss."""

    updates: int = Field(20, ge=1, description="rollout + optimisation rounds")
    max_new_tokens: int = Field(32, ge=1, description="sampled tokens per turn")
    temperature: float = Field(1.0, gt=0, description="sampling temperature (the loss uses the "
                               "same one)")
    reward_mode: Literal["both", "process", "outcome"] = Field(
        "both", description="what the advantage reads")
    eps_low: float = Field(0.2, ge=0, description="ratio clipped to [1 - eps_low, 1 + eps_high]")
    eps_high: float = Field(0.2, ge=0, description="upper clip of the ratio (see eps_low)")
    negative_weight: float = Field(
        1.0, ge=0, le=1, description="negative advantages are multiplied by this (1: the plain "
        "estimator; 0: learn only from better-than-average samples; "
        "trainers.advantages.scale_negatives)")
    beta: float = Field(0.0, ge=0, description="KL to the initial model (0: off, no reference "
                        "model is kept)")
    agg: Literal["seq-mean", "token-sum", "token-mean"] = Field(
        "seq-mean", description="how token losses are aggregated")
    loss_constant: float = Field(0.0, ge=0, description="token-sum divisor (0: sequences x "
                                 "max_new_tokens)")
    epochs: int = Field(1, ge=1, description="passes over each rollout batch")
    minibatch_size: int = Field(0, ge=0, description="sequences per optimizer step (0: the "
                                "whole batch)")
    micro_batch_size: int = Field(4, ge=0, description="sequences per forward/backward pass; "
                                  "a minibatch's gradients are accumulated over its micro-"
                                  "batches, so the step is the minibatch's (0: the whole "
                                  "minibatch at once)")
    tis_cap: float = Field(0.0, ge=0, description="> 0: truncated importance sampling, each "
                           "token's loss weighted by min(p_trainer / p_sampler, tis_cap) at "
                           "the rollout's weights (0: off)")
    eval_every: int = Field(0, ge=0, description="> 0: a greedy evaluation on eval_seeds before "
                            "the first update and every N updates, in the metrics rows")
    eval_seeds: list[int] = Field(
        default_factory=list, description='held-out env seeds of that evaluation, one episode '
        'each: a JSON list, "a,b,c" or "START:STOP"')

    @field_validator("eval_seeds", mode="before")
    @classmethod
    def _seed_list(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        text = value.strip()
        if text.startswith("["):
            with contextlib.suppress(json.JSONDecodeError):
                return json.loads(text)
            return value
        if ":" in text:
            start, _, stop = text.partition(":")
            with contextlib.suppress(ValueError):
                return list(range(int(start), int(stop)))
            return value
        with contextlib.suppress(ValueError):
            return [int(part) for part in text.split(",") if part.strip()]
        return value

    @model_validator(mode="after")
    def _eval_needs_seeds(self) -> Self:
        if self.eval_every and not self.eval_seeds:
            raise ValueError("eval_every > 0 needs eval_seeds (held-out env seeds), e.g. "
                             "--eval-seeds 1000:1030")
        if any(s < 0 for s in self.eval_seeds):
            raise ValueError(f"eval_seeds must be >= 0, got {self.eval_seeds}")
        return self


class GRPOConfig(RLConfig):
    """GRPO over episode groups; GiGPO adds anchor-state step credit."""

    groups: int = Field(2, ge=1, description="seeds per update; each seed is one group")
    # No ge=2 here: the validator below says why a group needs two episodes.
    group_size: int = Field(4, description="episodes per seed (>= 2: one episode has no spread)")
    advantage: Literal["grpo", "dr_grpo", "gigpo"] = Field(
        "grpo", description="the advantage estimator")
    gamma: float = Field(0.95, ge=0, le=1, description="GiGPO's step-return discount")
    step_weight: float = Field(1.0, description="GiGPO's w in A = A_episode + w * A_step")

    @model_validator(mode="before")
    @classmethod
    def _dr_grpo_sums_tokens(cls, data: Any) -> Any:
        # Dr.GRPO is two changes together: no std in the advantage *and* no per-sequence
        # length normalisation in the loss. advantage="dr_grpo" alone brings the second.
        if isinstance(data, Mapping) and data.get("advantage") == "dr_grpo" and "agg" not in data:
            return {**data, "agg": "token-sum"}
        return data

    @model_validator(mode="after")
    def _groups_of_two(self) -> Self:
        if self.advantage == "dr_grpo" and self.agg == "seq-mean":
            raise ValueError(
                "advantage='dr_grpo' with agg='seq-mean' is not Dr.GRPO (it also drops the "
                "per-sequence length normalisation); use agg='token-sum' or leave agg unset"
            )
        if self.group_size < 2:
            raise ValueError(
                f"group_size must be >= 2 for GRPO (a group of one has no reward spread to "
                f"learn from), got {self.group_size}; set --group-size 4"
            )
        return self


class VPRConfig(RLConfig):
    """VPR: K candidates per visited state, scored by the env's oracle."""

    seeds_per_update: int = Field(2, ge=1, description="episodes per update (one committed "
                                  "path each)")
    # No ge=2 here: the validator below says why.
    k: int = Field(4, description="candidates sampled at every state (>= 2)")
    reward_mode: Literal["both", "process", "outcome"] = Field(
        "process", description="VPR trains on the oracle's per-candidate score")

    @model_validator(mode="after")
    def _two_candidates(self) -> Self:
        if self.reward_mode != "process":
            raise ValueError(
                f"VPR trains on each candidate's process score (only the committed candidate "
                f"has an outcome), so reward_mode must be 'process', got {self.reward_mode!r}"
            )
        if self.k < 2:
            raise ValueError(
                f"k must be >= 2 for VPR (one candidate per state has no spread), got "
                f"{self.k}; set --k 4"
            )
        return self


class SFTConfig(RunConfig):
    """Supervised fine-tuning on an agent's trajectories (the oracle's, for warm starts)."""

    lr: float = Field(1e-4, gt=0, description="the optimizer's learning rate")
    agent: str = Field("oracle", description="an agentgym agent name (see agentgym.agents)")
    episodes: int = Field(32, ge=1, description="trajectories, seeds seed .. seed + episodes - 1")
    epochs: int = Field(3, ge=1, description="passes over the trajectories")
    batch_size: int = Field(8, ge=1, description="turns per optimizer step")


CONFIGS: dict[str, type[RunConfig]] = {"grpo": GRPOConfig, "vpr": VPRConfig, "sft": SFTConfig}


def _from_text(kind: Any, value: Any) -> Any:
    """``value`` as ``kind`` when it is text and ``kind`` is bool, int or float (``"true"``,
    ``"8"``, ``"1e-5"``); otherwise, or when the text does not read as one, ``value`` as is,
    for the field's own check to refuse."""
    reader = _FROM_TEXT.get(kind)
    if reader is not None and isinstance(value, str):
        with contextlib.suppress(ValidationError):
            return reader.validate_python(value, strict=False)
    return value


def _check_env_kwargs(env: str, kwargs: Mapping[str, Any]) -> None:
    """Refuse (one line) env kwargs the env's declared config refuses. An id that is not
    registered is left to ``agentgym train``'s own check; one without a declared config, to
    ``gym.make``. With a ``server_url`` the server checks who may set what; the values are
    checked here all the same."""
    import gymnasium as gym

    if env not in gym.registry:
        return
    from agentgym.envinfo import config_model

    model = config_model(env)
    if model is None:
        return
    remote = kwargs.get("server_url") is not None
    drop = _REMOTE_KWARGS if remote else ("server_url",)
    own = {k: v for k, v in kwargs.items() if k not in drop}
    try:
        model.parse({**gym.registry[env].kwargs, **own}, owner=env)
    except ValueError as exc:
        message = str(exc)
        if not message.startswith(env):
            message = f"env_kwargs for {env}: {message}"
        raise ValueError(message) from None


# --- reading values -----------------------------------------------------------------------------


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
    for key in values:
        if key not in cls.model_fields:
            raise ValueError(
                f"unknown config key {key!r} for {algo}; valid keys: {', '.join(cls.model_fields)}"
            )
    # Text read first, so that a message shows the value read: "max_turns must be >= 1, got 0".
    values = {k: _from_text(cls.model_fields[k].annotation, v) for k, v in values.items()}
    return cls.parse(values, owner=algo)


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
    return cfg.model_dump(mode="json")
