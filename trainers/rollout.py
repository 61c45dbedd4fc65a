"""Rollouts: a policy plays envs and every agent turn becomes a :class:`StepRecord`.

Two shapes, one per family of advantage estimators:

* :func:`rollout_groups` (GRPO, Dr.GRPO, GiGPO): for each seed, ``group_size`` episodes that
  start from ``reset(seed=seed)``, so a group's episodes share their first state;
* :func:`rollout_state_groups` (VPR): one episode per seed; at every visited state the policy
  samples ``k`` candidates, the env's oracle scores each (``score_actions``), the best one is
  committed with ``step``, and every candidate becomes a row of that state's group.

Envs are used only through the Gymnasium API and the contract methods (``score_actions``, on
``env.unwrapped``), so an env from ``gym.make(id, server_url=...)`` trains as a local one.

The conversation of an episode is a :class:`~agentgym.llm.chat.ChatTokens`: the system prompt
(the env's own by default), then per turn the observation as a user message (the error of an
invalid action first, as :class:`~agentgym.wrappers.chat.ChatObservation` writes it) and the
sampled completion verbatim (with ``history_turns=N``, only the last N exchanges stay in
the prompt). The prompt ids, completion ids and log-probs in each row are the
sampler's own; the text goes to ``env.step`` only. Each generate call batches every episode
still running, and sampling stops at ``</action>``.

An episode that ``max_turns`` cuts off, or whose next prompt would be longer than
``max_prompt_tokens`` (the context-overflow guard; None: no limit), ends with
``truncated=True`` on its last row (a limit outside the game, as the env contract defines
truncation). The returned table carries ``table.stats``, a :class:`RolloutStats`: the time
spent in envs and in generation, the env's ``valid_action`` per step, and which episodes
succeeded.

>>> import gymnasium as gym
>>> import agentgym
>>> from agentgym.llm import TransformersSampler, load_model
>>> model, tokenizer = load_model("tiny-random")
>>> policy = Policy(TransformersSampler(model, tokenizer), tokenizer)
>>> table = rollout_groups(lambda: gym.make("agentgym/TicTacToe-v0"), policy, seeds=[0],
...                        group_size=2, max_turns=2, max_new_tokens=8, seed=0)
>>> sorted(table.by_trajectory()), set(table.column("group").tolist())
([0, 1], {0})
>>> 0.0 <= table.stats.env_time_share <= 1.0
True
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np

from agentgym.llm.chat import ChatTokens
from agentgym.llm.sampler import Sample, Sampler
from agentgym.wrappers.chat import render_user, stop_sequences_for, system_prompt_for

from .records import StepRecord, StepTable, state_key

__all__ = ["Policy", "RolloutStats", "rollout_groups", "rollout_state_groups"]


@dataclass
class Policy:
    """A sampler and its model's tokenizer (all a rollout reads), and the model a trainer
    trains (None for a policy that only samples: an evaluation, a test).

    Any object with ``sampler`` and ``tokenizer`` attributes will do for a rollout.
    """

    sampler: Sampler
    tokenizer: Any
    model: Any = None


@dataclass
class RolloutStats:
    """Totals of one rollout.

    ``env_seconds`` covers making, resetting, stepping and scoring envs;
    ``generation_seconds`` the sampler's calls. ``valid_action`` has one entry per env step
    taken (the env's ``info["valid_action"]``), ``episode_success`` one per episode (True when
    it ended solved). ``committed`` and ``episode_turn`` have one entry per row of the table:
    whether the row's completion was stepped (always, in :func:`rollout_groups`; the best
    candidate in :func:`rollout_state_groups`) and the turn of the episode it answered.
    """

    env_seconds: float = 0.0
    generation_seconds: float = 0.0
    generated_tokens: int = 0
    valid_action: list[bool] = field(default_factory=list)
    committed: list[bool] = field(default_factory=list)
    episode_turn: list[int] = field(default_factory=list)
    episode_success: list[bool] = field(default_factory=list)

    @property
    def env_time_share(self) -> float:
        """Env time over env plus generation time (0.0 before anything ran)."""
        total = self.env_seconds + self.generation_seconds
        return self.env_seconds / total if total > 0 else 0.0

    @property
    def valid_action_rate(self) -> float:
        """Fraction of env steps whose action the env accepted (0.0 with no steps)."""
        return float(np.mean(self.valid_action)) if self.valid_action else 0.0

    @property
    def success_rate(self) -> float:
        """Fraction of episodes that ended solved (0.0 with no episodes)."""
        return float(np.mean(self.episode_success)) if self.episode_success else 0.0


# --- shared pieces --------------------------------------------------------------------------


def _check_int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")
    return int(value)


def _check_seeds(seeds: Any) -> list[int]:
    seeds = list(seeds)
    if not seeds:
        raise ValueError("seeds must list at least one seed")
    return [_check_int("each seed", s, 0) for s in seeds]


def _turn_seed(seed: int | None, turn: int) -> int | None:
    """The sampler seed of one turn, derived from the rollout seed (None stays None)."""
    if seed is None:
        return None
    return int(np.random.SeedSequence([seed, turn]).generate_state(1, dtype=np.uint64)[0] >> 2)


class _Episode:
    """One running episode: its env, its conversation, and the observation it must answer."""

    def __init__(
        self,
        env: gym.Env,
        tokenizer: Any,
        system: str,
        *,
        index: int,
        group: int,
        seed: int,
        history_turns: int | None = None,
    ) -> None:
        self.env = env
        self.index = index
        self.group = group
        self.observation, info = env.reset(seed=seed)
        self.env_state_key = info.get("state_key")
        self.chat = ChatTokens(tokenizer, system, history_turns=history_turns)
        self.chat.add_user(render_user(str(self.observation)))
        self.turn = 0
        self.done = False
        self.success = False

    def state_key(self) -> str:
        """The key of the state the agent answers: the env's canonical ``info["state_key"]``
        where it gives one (Household: the same state behind different feedback text), else
        the digest of the raw observation (GiGPO's anchor states)."""
        if isinstance(self.env_state_key, str) and self.env_state_key:
            return self.env_state_key
        return state_key(str(self.observation))


def _timed_generate(
    policy: Any, prompts: list[list[int]], stats: RolloutStats, **settings: Any
) -> list[Sample]:
    start = time.perf_counter()
    samples = policy.sampler.generate(prompts, **settings)
    stats.generation_seconds += time.perf_counter() - start
    stats.generated_tokens += sum(len(s.completion_ids) for s in samples)
    return samples


def _timed_step(env: gym.Env, text: str, stats: RolloutStats) -> tuple[Any, ...]:
    start = time.perf_counter()
    result = env.step(text)
    stats.env_seconds += time.perf_counter() - start
    return result


@dataclass(frozen=True)
class _Limits:
    """Where a rollout cuts an episode the env has not ended."""

    max_turns: int
    max_prompt_tokens: int | None

    @classmethod
    def check(cls, max_turns: Any, max_prompt_tokens: Any) -> _Limits:
        max_turns = _check_int("max_turns", max_turns, 1)
        if max_prompt_tokens is not None:
            max_prompt_tokens = _check_int("max_prompt_tokens", max_prompt_tokens, 1)
        return cls(max_turns, max_prompt_tokens)

    def first_prompt_fits(self, episode: _Episode) -> None:
        length = len(episode.chat.prompt_ids())
        if self.max_prompt_tokens is not None and length > self.max_prompt_tokens:
            raise ValueError(
                f"the first prompt has {length} tokens, over max_prompt_tokens="
                f"{self.max_prompt_tokens} (raise it or shorten the system prompt)"
            )


def _advance(
    episode: _Episode,
    sample: Sample,
    step: tuple[Any, ...],
    limits: _Limits,
    stats: RolloutStats,
) -> tuple[bool, bool]:
    """Record the reply in the conversation and move to the next observation.

    Returns the row's ``(terminated, truncated)``: the env's, with ``truncated`` also set
    when ``max_turns`` ends the episode here, or when the next prompt would be longer than
    ``max_prompt_tokens``.
    """
    observation, _, terminated, truncated, info = step
    stats.valid_action.append(bool(info.get("valid_action", False)))
    episode.chat.add_assistant(sample.completion_ids)
    episode.turn += 1
    truncated = bool(truncated) or (not terminated and episode.turn >= limits.max_turns)
    if not (terminated or truncated):
        episode.observation = observation
        episode.env_state_key = info.get("state_key")
        episode.chat.add_user(
            render_user(str(observation), str(info.get("action_error", "") or ""))
        )
        if limits.max_prompt_tokens is not None:
            truncated = len(episode.chat.prompt_ids()) > limits.max_prompt_tokens
    if terminated or truncated:
        episode.done = True
        episode.success = bool(info.get("success", False))
    return bool(terminated), truncated


def _start(
    make_env: Callable[[], gym.Env],
    count: int,
    stats: RolloutStats,
    check: Callable[[gym.Env], None] | None = None,
) -> list[gym.Env]:
    envs: list[gym.Env] = []
    try:
        for _ in range(count):
            start = time.perf_counter()
            env = make_env()
            stats.env_seconds += time.perf_counter() - start
            envs.append(env)
            if check is not None and len(envs) == 1:
                check(env)
    except BaseException:
        for env in envs:
            env.close()
        raise
    return envs


# --- GRPO: groups of episodes from the same seed --------------------------------------------


def rollout_groups(
    make_env: Callable[[], gym.Env],
    policy: Any,
    *,
    seeds: list[int],
    group_size: int,
    max_turns: int,
    max_new_tokens: int,
    temperature: float = 1.0,
    top_p: float = 1.0,
    system_prompt: str | None = None,
    seed: int | None = None,
    max_prompt_tokens: int | None = None,
    history_turns: int | None = None,
) -> StepTable:
    """Play ``group_size`` episodes from each seed; one row per agent turn.

    Group id = the index of the seed in ``seeds``; trajectory ids run ``0, 1, ...`` over the
    episodes (seed by seed). Each row's ``reward_components`` is the env's
    ``info["reward_components"]`` of that step and its ``state_key`` the env's
    ``info["state_key"]`` of the state the agent answered, or (envs without one) the key of
    the raw observation. ``seed`` seeds the sampler (turn by turn), so the same
    policy weights, envs and seed give the same table. ``make_env`` is called once per
    episode; every env it makes is closed before returning. ``max_prompt_tokens`` ends an
    episode (truncated) before a prompt would exceed it; a first prompt over it is refused.
    ``history_turns`` (None: all) is how many earlier exchanges each prompt keeps (see
    :class:`~agentgym.llm.chat.ChatTokens`).
    """
    seeds = _check_seeds(seeds)
    group_size = _check_int("group_size", group_size, 1)
    limits = _Limits.check(max_turns, max_prompt_tokens)
    stats = RolloutStats()
    envs = _start(make_env, len(seeds) * group_size, stats)
    table = StepTable()
    try:
        episodes = []
        start = time.perf_counter()
        for index, env in enumerate(envs):
            group = index // group_size
            system = system_prompt if system_prompt is not None else system_prompt_for(env)
            episodes.append(
                _Episode(env, policy.tokenizer, system, index=index, group=group, seed=seeds[group],
                         history_turns=history_turns)
            )
        stats.env_seconds += time.perf_counter() - start
        for episode in episodes:
            limits.first_prompt_fits(episode)
        turn = 0
        while running := [e for e in episodes if not e.done]:
            samples = _timed_generate(
                policy,
                [e.chat.prompt_ids() for e in running],
                stats,
                max_new_tokens=max_new_tokens,
                temperature=temperature,
                top_p=top_p,
                seed=_turn_seed(seed, turn),
                stop=stop_sequences_for(envs[0]),
            )
            for episode, sample in zip(running, samples, strict=True):
                step = _timed_step(episode.env, sample.text, stats)
                info = step[4]
                key, number = episode.state_key(), episode.turn
                terminated, truncated = _advance(episode, sample, step, limits, stats)
                table.append(
                    StepRecord(
                        group=episode.group,
                        trajectory=episode.index,
                        turn=number,
                        state_key=key,
                        reward_components=info["reward_components"],
                        terminated=terminated,
                        truncated=truncated,
                        prompt_ids=sample.prompt_ids,
                        completion_ids=sample.completion_ids,
                        logprobs=sample.logprobs,
                    )
                )
                stats.committed.append(True)
                stats.episode_turn.append(number)
            turn += 1
        stats.episode_success = [e.success for e in episodes]
    finally:
        for env in envs:
            env.close()
    table.stats = stats
    return table


# --- VPR: state groups of k scored candidates -----------------------------------------------


def _require_oracle(env: gym.Env) -> None:
    if not callable(getattr(env.unwrapped, "score_actions", None)):
        name = getattr(env.spec, "id", None) or type(env.unwrapped).__name__
        raise ValueError(
            f"{name} has no score_actions oracle; state-group (VPR) rollouts need one "
            "(use GRPO for this env)"
        )


def rollout_state_groups(
    make_env: Callable[[], gym.Env],
    policy: Any,
    *,
    seeds: list[int],
    k: int,
    max_turns: int,
    max_new_tokens: int,
    temperature: float = 1.0,
    top_p: float = 1.0,
    system_prompt: str | None = None,
    seed: int | None = None,
    max_prompt_tokens: int | None = None,
    history_turns: int | None = None,
) -> StepTable:
    """One episode per seed; at each state ``k`` scored candidates, the best one committed.

    Every candidate is a row: its own trajectory (ids ``0, 1, ...``, each of one row at
    ``turn=0``; the episode turn is ``table.stats.episode_turn``), in the group of its state
    (group ids ``0, 1, ...`` per visited state, in order). ``reward_components["process"]``
    is the candidate's ``score_actions`` score, which is exactly the process reward ``step``
    would pay. The committed row (highest score, ties to the lowest index) carries the env's
    own ``reward_components`` and end flags; the others ``{"process": score, "outcome": 0.0}``
    (what a step would have paid as outcome is not known without taking it).

    ``max_prompt_tokens`` and ``history_turns`` work as in :func:`rollout_groups`. Refuses
    ``k < 2`` (a group of one has no spread) and an env without ``score_actions``,
    before any generation, with a one-line :class:`ValueError`.
    """
    seeds = _check_seeds(seeds)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise ValueError(f"k must be an int >= 2 (candidates per state), got {k!r}")
    limits = _Limits.check(max_turns, max_prompt_tokens)
    stats = RolloutStats()
    envs = _start(make_env, len(seeds), stats, check=_require_oracle)
    table = StepTable()
    try:
        episodes = []
        start = time.perf_counter()
        for index, env in enumerate(envs):
            system = system_prompt if system_prompt is not None else system_prompt_for(env)
            episodes.append(
                _Episode(env, policy.tokenizer, system, index=index, group=index, seed=seeds[index],
                         history_turns=history_turns)
            )
        stats.env_seconds += time.perf_counter() - start
        for episode in episodes:
            limits.first_prompt_fits(episode)
        turn, group, trajectory = 0, 0, 0
        while running := [e for e in episodes if not e.done]:
            prompts = [e.chat.prompt_ids() for e in running for _ in range(k)]
            samples = _timed_generate(
                policy,
                prompts,
                stats,
                max_new_tokens=max_new_tokens,
                temperature=temperature,
                top_p=top_p,
                seed=_turn_seed(seed, turn),
                stop=stop_sequences_for(envs[0]),
            )
            for i, episode in enumerate(running):
                candidates = samples[i * k : (i + 1) * k]
                start = time.perf_counter()
                scores = episode.env.unwrapped.score_actions([c.text for c in candidates])
                stats.env_seconds += time.perf_counter() - start
                best = int(np.argmax(scores))  # the first of the top scores
                key, number = episode.state_key(), episode.turn
                step = _timed_step(episode.env, candidates[best].text, stats)
                info = step[4]
                terminated, truncated = _advance(
                    episode, candidates[best], step, limits, stats
                )
                for j, (candidate, score) in enumerate(zip(candidates, scores, strict=True)):
                    chosen = j == best
                    components = (
                        info["reward_components"]
                        if chosen
                        else {"process": float(score), "outcome": 0.0}
                    )
                    table.append(
                        StepRecord(
                            group=group,
                            trajectory=trajectory,
                            turn=0,
                            state_key=key,
                            reward_components=components,
                            terminated=terminated and chosen,
                            truncated=truncated and chosen,
                            prompt_ids=candidate.prompt_ids,
                            completion_ids=candidate.completion_ids,
                            logprobs=candidate.logprobs,
                        )
                    )
                    trajectory += 1
                    stats.committed.append(chosen)
                    stats.episode_turn.append(number)
                group += 1
            turn += 1
        stats.episode_success = [e.success for e in episodes]
    finally:
        for env in envs:
            env.close()
    table.stats = stats
    return table
