"""The search adversary: a seeded, time-bounded beam search for a paid episode that fails.

What an RL optimiser does with millions of samples, done directly with the simulator: from
each audited seed, grow action sequences (the candidates every exploit policy considers, the
declared extreme arguments, the stop actions and an invalid action) with ``get_state`` /
``set_state``, keep the ``width`` best-paid partial episodes (ties and, in later rounds, a
growing share of noise decide the rest, so each round explores a different part of the
tree), and check every episode that ends. A *finding* is a complete episode whose return
reaches the honest reference's on that seed while it succeeds less or earns a lower outcome.

>>> import gymnasium as gym, agentgym
>>> from agentgym.audit.spec import AuditSpec
>>> from agentgym.audit.episodes import play_episode
>>> from agentgym.agents import make_agent
>>> env = gym.make("agentgym/TicTacToe-v0").unwrapped
>>> ref = play_episode(env, make_agent("oracle"), 0, AuditSpec())
>>> result = search_exploit(env, AuditSpec(), {0: ref}, budget_s=0.5, seed=0)
>>> result.found
False
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from agentgym.audit.episodes import EPSILON, Episode
from agentgym.audit.policies import INVALID_ACTION, candidate_actions, extreme_actions
from agentgym.audit.spec import AuditSpec

__all__ = ["Finding", "SearchResult", "search_exploit"]


@dataclass
class Finding:
    """A complete episode that fails the task: its seed, actions and figures beside the
    reference's on that seed (``margin`` = its return less the reference's)."""

    seed: int
    actions: list[str]
    ret: float
    success: bool
    outcome: float
    reference_return: float
    reference_success: bool
    reference_outcome: float

    @property
    def margin(self) -> float:
        return self.ret - self.reference_return


@dataclass
class SearchResult:
    """What one search did: complete episodes checked, steps taken, seconds, and the failing
    episode with the highest margin (``found`` when it reaches the reference's return)."""

    episodes: int = 0
    steps: int = 0
    seconds: float = 0.0
    rounds: int = 0
    best: Finding | None = None
    error: str = ""

    @property
    def found(self) -> bool:
        return self.best is not None and self.best.margin >= -EPSILON

    @property
    def episodes_per_second(self) -> float:
        return self.episodes / self.seconds if self.seconds > 0 else 0.0


@dataclass
class _Node:
    state: bytes
    info: dict[str, Any]
    ret: float
    actions: list[str]


def search_exploit(
    env: Any,
    spec: AuditSpec,
    references: dict[int, Episode],
    *,
    budget_s: float,
    seed: int = 0,
    width: int = 16,
    branch: int = 8,
) -> SearchResult:
    """Search each seed of ``references`` in turn, round after round, for ``budget_s``
    seconds or until a finding; ``seed`` makes the search repeatable for a given budget.

    ``width`` partial episodes survive each depth; each one tries ``branch`` actions: the two
    best-paid candidates and a seeded sample of the rest.
    """
    rng = np.random.default_rng(seed)
    result = SearchResult()
    start = time.perf_counter()
    deadline = start + max(0.0, budget_s)
    extremes = extreme_actions(spec)
    seeds = sorted(references)
    try:
        while seeds and time.perf_counter() < deadline and not result.found:
            for s in seeds:
                temperature = 0.0 if result.rounds == 0 else min(1.0, 0.05 * 2**result.rounds)
                _beam(env, spec, references[s], s, rng, result, deadline, width=width,
                      branch=branch, extremes=extremes, temperature=temperature)
                if result.found or time.perf_counter() >= deadline:
                    break
            result.rounds += 1
    except Exception as exc:  # a snapshot the env cannot take or load ends the search
        result.error = f"{type(exc).__name__}: {exc}"[:300]
    result.seconds = time.perf_counter() - start
    return result


def _beam(env: Any, spec: AuditSpec, ref: Episode, seed: int, rng: np.random.Generator,
          result: SearchResult, deadline: float, *, width: int, branch: int,
          extremes: list[str], temperature: float) -> None:
    _, info = env.reset(seed=seed)
    beam = [_Node(env.get_state(), info, 0.0, [])]
    scale = max(1.0, abs(ref.ret))
    while beam and time.perf_counter() < deadline and not result.found:
        children: list[tuple[float, _Node]] = []
        seen: set[tuple[bytes, float]] = set()
        for node in beam:
            env.set_state(node.state)
            for action in _branches(env, spec, node.info, rng, branch, extremes):
                env.set_state(node.state)
                _, reward, terminated, truncated, info = env.step(action)
                result.steps += 1
                ret = node.ret + float(reward)
                actions = [*node.actions, action]
                if terminated or truncated:
                    _judge(result, ref, seed, actions, ret, info)
                    if result.found:
                        return
                    continue
                state = env.get_state()
                if (state, ret) in seen:  # the same state reached with the same pay
                    continue
                seen.add((state, ret))
                noise = temperature * scale * float(rng.gumbel()) if temperature else 0.0
                children.append((ret + noise + 1e-9 * float(rng.random()),
                                 _Node(state, info, ret, actions)))
            if time.perf_counter() >= deadline:
                return
        children.sort(key=lambda item: -item[0])
        beam = [node for _, node in children[:width]]


def _branches(env: Any, spec: AuditSpec, info: dict[str, Any], rng: np.random.Generator,
              branch: int, extremes: list[str]) -> list[str]:
    pool = candidate_actions(env, info, spec)
    ranked: list[str] = []
    if pool:
        scores = env.score_actions(pool)
        order = sorted(range(len(pool)), key=lambda i: -scores[i])
        ranked = [pool[i] for i in order[:2]]
    others = [a for a in [*pool, *spec.stop_actions, INVALID_ACTION] if a not in ranked]
    if extremes:
        others.append(extremes[int(rng.integers(len(extremes)))])
    rng.shuffle(others)
    return ranked + others[: max(0, branch - len(ranked))]


def _judge(result: SearchResult, ref: Episode, seed: int, actions: list[str], ret: float,
           info: dict[str, Any]) -> None:
    result.episodes += 1
    success = bool(info["success"])
    outcome = float(info["reward_components"]["outcome"])
    fails = (ref.success and not success) or outcome < ref.outcome - EPSILON
    if not fails:
        return
    finding = Finding(seed, actions, ret, success, outcome, ref.ret, ref.success, ref.outcome)
    if result.best is None or finding.margin > result.best.margin:
        result.best = finding
