"""Run an agent over seeded episodes and keep everything needed to re-check the numbers.

Episode ``i`` of a run with base seed ``s`` is played from ``reset(seed=s + i)``, so a result
file names exactly which episodes were played. Every step's action, reward and reward
components are kept (with a short hash of the observation), so a later replay can recompute
every reward from the actions alone.

>>> from agentgym.evaluation import evaluate
>>> report = evaluate("agentgym/TicTacToe-v0", "oracle", episodes=3, seed=0, progress=False)
>>> report.summary["episodes"]
3
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from agentgym.agents import Agent, make_agent
from agentgym.envinfo import family_of, make_text_env
from agentgym.progress import progress_bar

SCHEMA = "agentgym.eval/1"
#: Hard cap on steps per episode, for envs (or wrappers) that never end an episode themselves.
MAX_EPISODE_STEPS = 10_000

__all__ = [
    "SCHEMA",
    "EpisodeResult",
    "EvalReport",
    "StepRecord",
    "check_agent_fits",
    "evaluate",
    "run_episode",
]


def observation_digest(observation: str) -> str:
    """Short, stable fingerprint of an observation (replays compare these)."""
    return hashlib.sha256(observation.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass
class StepRecord:
    """One step of a trace."""

    action: str
    reward: float
    reward_components: dict[str, float]
    valid_action: bool
    action_error: str
    terminated: bool
    truncated: bool
    observation_sha: str


@dataclass
class EpisodeResult:
    """One played episode: its seed, totals and full trace."""

    episode: int
    seed: int
    success: bool
    episode_return: float
    process_return: float
    outcome_return: float
    steps: int
    invalid_actions: int
    terminated: bool
    truncated: bool
    initial_observation_sha: str
    trace: list[StepRecord] = field(default_factory=list)


@dataclass
class EvalReport:
    """All episodes of a run, a summary, and what produced them."""

    env_id: str
    env_kwargs: dict[str, Any]
    agent: dict[str, Any]
    seed: int
    episodes: list[EpisodeResult]
    summary: dict[str, Any]
    versions: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA, **asdict(self)}

    def write(self, path: str | Path) -> Path:
        path = Path(path)
        if path.parent != Path():
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n")
        return path


def run_episode(env: gym.Env, agent: Agent, *, seed: int, episode: int = 0) -> EpisodeResult:
    """Play one episode of ``agent`` on ``env`` from ``reset(seed=seed)``."""
    observation, info = env.reset(seed=seed)
    agent.reset(env, seed=seed)
    result = EpisodeResult(
        episode=episode,
        seed=seed,
        success=False,
        episode_return=0.0,
        process_return=0.0,
        outcome_return=0.0,
        steps=0,
        invalid_actions=0,
        terminated=False,
        truncated=False,
        initial_observation_sha=observation_digest(observation),
    )
    terminated = truncated = False
    while not (terminated or truncated):
        action = agent.act(observation, info)
        observation, reward, terminated, truncated, info = env.step(action)
        if result.steps + 1 >= MAX_EPISODE_STEPS and not (terminated or truncated):
            truncated = True
        components = {k: float(v) for k, v in info["reward_components"].items()}
        result.trace.append(
            StepRecord(
                action=action,
                reward=float(reward),
                reward_components=components,
                valid_action=bool(info["valid_action"]),
                action_error=str(info["action_error"]),
                terminated=bool(terminated),
                truncated=bool(truncated),
                observation_sha=observation_digest(observation),
            )
        )
        result.steps += 1
        result.episode_return += float(reward)
        result.process_return += components["process"]
        result.outcome_return += components["outcome"]
        result.invalid_actions += 0 if info["valid_action"] else 1
    result.terminated, result.truncated = bool(terminated), bool(truncated)
    result.success = bool(info.get("success", False))
    return result


def summarise(episodes: list[EpisodeResult]) -> dict[str, Any]:
    """Means (with standard errors) over episodes; rates as fractions in [0, 1]."""
    if not episodes:
        raise ValueError("no episodes to summarise")

    def mean_se(values: list[float]) -> tuple[float, float]:
        arr = np.asarray(values, dtype=float)
        se = float(arr.std(ddof=1) / math.sqrt(len(arr))) if len(arr) > 1 else 0.0
        return float(arr.mean()), se

    ret, ret_se = mean_se([e.episode_return for e in episodes])
    success, success_se = mean_se([float(e.success) for e in episodes])
    total_steps = sum(e.steps for e in episodes)
    return {
        "episodes": len(episodes),
        "success_rate": success,
        "success_rate_se": success_se,
        "mean_return": ret,
        "mean_return_se": ret_se,
        "mean_process_return": mean_se([e.process_return for e in episodes])[0],
        "mean_outcome_return": mean_se([e.outcome_return for e in episodes])[0],
        "mean_steps": total_steps / len(episodes),
        "invalid_action_rate": (
            sum(e.invalid_actions for e in episodes) / total_steps if total_steps else 0.0
        ),
        "truncated_rate": sum(e.truncated for e in episodes) / len(episodes),
    }


def family_scores(family: str | None, summary: dict[str, Any]) -> dict[str, float]:
    """The headline numbers a family's papers quote, computed from a summary.

    WebShop's *score* is the mean of its reward ``R`` (the outcome: ``R`` at Buy Now, 0 when
    the budget runs out) times 100, as in Yao et al. (2022) and the README's table.

    >>> family_scores("webshop", {"mean_outcome_return": 0.25})
    {'score': 25.0}
    >>> family_scores("games", {"mean_outcome_return": 1.0})
    {}
    """
    if family == "webshop":
        return {"score": 100.0 * summary["mean_outcome_return"]}
    return {}


def check_agent_fits(agent: Agent, env_id: str) -> None:
    """Raise ``ValueError`` when ``agent`` declares families and ``env_id`` is in none of them.

    An agent written for one family (``webshop-rule`` reads WebShop's page model) would
    otherwise play any other env at 100% invalid actions, silently.

    >>> from agentgym.agents import make_agent
    >>> check_agent_fits(make_agent("webshop-rule"), "agentgym/Sokoban-v0")
    Traceback (most recent call last):
    ...
    ValueError: agent 'webshop-rule' plays only webshop envs; agentgym/Sokoban-v0 is a games env
    """
    if not agent.families:
        return
    family = family_of(env_id)
    if family not in agent.families:
        fits = " or ".join(agent.families)
        what = f"a {family} env" if family else "not in the agentgym registry"
        raise ValueError(f"agent {agent.name!r} plays only {fits} envs; {env_id} is {what}")


def versions() -> dict[str, str]:
    """Versions that a reader of a result file needs to reproduce it."""
    import agentgym

    return {
        "agentgym": agentgym.__version__,
        "gymnasium": gym.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
    }


@contextmanager
def _progress(enabled: bool, total: int, label: str) -> Iterator[Any]:
    with progress_bar(enabled) as progress:
        task = progress.add_task(label, total=total)
        yield lambda: progress.advance(task)


def evaluate(
    env_id: str,
    agent: str | Agent,
    *,
    episodes: int,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
    progress: bool = True,
) -> EvalReport:
    """Play ``episodes`` episodes (seeds ``seed .. seed+episodes-1``) and summarise them.

    Raises:
        ValueError: a bad count or seed, an unknown agent, an id that is not an agentgym
            text env, an unknown kwarg, or an agent that does not fit the env's family; all
            before any episode (or the env itself) is built.
    """
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise ValueError(f"episodes must be a positive int, got {episodes!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    env_kwargs = dict(env_kwargs or {})
    agent_obj = make_agent(agent) if isinstance(agent, str) else agent
    check_agent_fits(agent_obj, env_id)
    env = make_text_env(env_id, env_kwargs)
    results: list[EpisodeResult] = []
    try:
        with _progress(progress, episodes, f"{agent_obj.name} on {env_id}") as advance:
            for i in range(episodes):
                results.append(run_episode(env, agent_obj, seed=seed + i, episode=i))
                advance()
    finally:
        env.close()
    summary = summarise(results)
    summary.update(family_scores(family_of(env_id), summary))
    return EvalReport(
        env_id=env_id,
        env_kwargs=env_kwargs,
        agent=agent_obj.describe(),
        seed=seed,
        episodes=results,
        summary=summary,
        versions=versions(),
    )
