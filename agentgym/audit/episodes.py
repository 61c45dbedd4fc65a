"""Playing one audited episode and recording what every check reads.

An :class:`Episode` keeps the actions, the per-step rewards and flags, the declared potential
before and after each step, the ``info`` keys seen before the end, and anything the env did
that the contract forbids (an exception out of ``step``, a reward after the end, a
``score_actions`` that disagrees with the step).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentgym.agents.base import Agent
from agentgym.audit.policies import INVALID_ACTION
from agentgym.audit.spec import AuditSpec
from agentgym.core import CONTRACT_INFO_KEYS

__all__ = ["Episode", "env_shaping_potential", "play_episode", "replay_matches"]

#: Largest difference two rewards may have and still count as equal (float round-off).
EPSILON = 1e-6


@dataclass
class Episode:
    """One audited episode, as the checks read it."""

    policy: str
    seed: int
    actions: list[str] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    process: list[float] = field(default_factory=list)
    valid: list[bool] = field(default_factory=list)
    potentials: list[float] = field(default_factory=list)
    gamma: float = 1.0
    invalid_penalty: float = 0.0
    early_keys: set[str] = field(default_factory=set)
    success: bool = False
    outcome: float = 0.0
    ended: bool = False
    error: str = ""
    #: Contract breaches seen while playing: one line each.
    breaches: list[str] = field(default_factory=list)

    @property
    def ret(self) -> float:
        """The undiscounted return: the sum of the rewards ``step`` paid."""
        return float(sum(self.rewards))

    def shaping_errors(self) -> list[str]:
        """Steps whose process reward (less the invalid penalty) is not the declared potential
        difference ``gamma * phi(after) - phi(before)``."""
        errors = []
        for t, (process, valid) in enumerate(zip(self.process, self.valid, strict=True)):
            if t + 1 >= len(self.potentials):
                break
            paid = process - (0.0 if valid else self.invalid_penalty)
            expected = self.gamma * self.potentials[t + 1] - self.potentials[t]
            if not math.isclose(paid, expected, rel_tol=0.0, abs_tol=EPSILON):
                errors.append(f"seed {self.seed} step {t + 1} ({self.actions[t][:40]!r}): paid "
                              f"{paid:.6g}, potential difference {expected:.6g}")
        return errors


def env_shaping_potential(env: Any) -> bool:
    """Whether ``env`` declares its shaping potential to :class:`~agentgym.core.TextEnv`
    (``_shaping_potential()`` is a number, with process scoring on): the audit then checks the
    shaping against it where the family's spec declares none."""
    hook = getattr(env, "_shaping_potential", None)
    return bool(getattr(env, "score_process", False)) and callable(hook) and hook() is not None


def play_episode(
    env: Any,
    agent: Agent,
    seed: int,
    spec: AuditSpec,
    *,
    name: str | None = None,
    check_scores: bool = False,
    after_end: bool = True,
    actions: list[str] | None = None,
) -> Episode:
    """Play ``agent`` (or the fixed ``actions``) on ``env`` from ``seed`` to the end.

    ``check_scores`` asks ``score_actions([a])`` before each step and records a breach when it
    is not the process reward the step then pays. ``after_end`` steps twice more once the
    episode is over and records a breach for any reward, flag or observation change.
    """
    ep = Episode(policy=name or agent.name, seed=seed,
                 invalid_penalty=float(env.invalid_penalty))
    try:
        obs, info = env.reset(seed=seed)
        agent.reset(env, seed=seed)
        ep.early_keys |= set(info)
        # The spec's potential, else the env's own (TextEnv's hook, whose end rule counts the
        # last potential as the outcome) with the env's gamma.
        own = spec.potential is None and env_shaping_potential(env)
        if spec.potential is not None:
            ep.gamma = float(spec.gamma(env))
            ep.potentials.append(float(spec.potential(env)))
        elif own:
            ep.gamma = float(env.gamma)
            ep.potentials.append(float(env._shaping_potential()))
        script = iter(actions) if actions is not None else None
        while True:
            action = agent.act(obs, info) if script is None else next(script, INVALID_ACTION)
            scored = env.score_actions([action])[0] if check_scores else None
            obs, reward, terminated, truncated, info = env.step(action)
            ep.actions.append(action)
            ep.rewards.append(float(reward))
            ep.process.append(float(info["reward_components"]["process"]))
            ep.valid.append(bool(info["valid_action"]))
            if spec.potential is not None:
                ep.potentials.append(float(spec.potential(env)))
            elif own:  # the end rule: the last potential is the outcome
                ended = terminated or truncated
                ep.potentials.append(float(info["reward_components"]["outcome"]) if ended
                                     else float(env._shaping_potential()))
            if scored is not None and not math.isclose(
                scored, ep.process[-1], rel_tol=0.0, abs_tol=EPSILON
            ):
                ep.breaches.append(f"seed {seed} step {len(ep.actions)}: score_actions said "
                                   f"{scored:.6g}, the step paid {ep.process[-1]:.6g}")
            if not math.isfinite(reward):
                ep.breaches.append(f"seed {seed} step {len(ep.actions)}: reward {reward}")
            if terminated or truncated:
                break
            ep.early_keys |= set(info)
        ep.ended = True
        ep.success = bool(info["success"])
        ep.outcome = float(info["reward_components"]["outcome"])
        if after_end:
            _check_after_end(env, ep, obs, terminated, truncated)
    except Exception as exc:  # the contract: no action ever raises out of step
        ep.error = f"{type(exc).__name__}: {exc}"[:300]
    ep.early_keys -= CONTRACT_INFO_KEYS
    return ep


def _check_after_end(env: Any, ep: Episode, obs: str, terminated: bool, truncated: bool) -> None:
    for action in (INVALID_ACTION, ep.actions[-1] if ep.actions else INVALID_ACTION):
        after = env.step(action)
        if after[1] != 0.0 or after[2] != terminated or after[3] != truncated or after[0] != obs:
            ep.breaches.append(
                f"seed {ep.seed}: stepping after the end paid {after[1]} or changed the "
                "flags or the observation"
            )
            return


def replay_matches(make_env: Callable[[], Any], ep: Episode, spec: AuditSpec) -> str:
    """Replay ``ep``'s actions from its seed in a fresh env; "" when every reward and the
    verdict repeat, else the first difference."""
    env = make_env()
    try:
        again = play_episode(env, _Scripted(), ep.seed, spec, name=ep.policy,
                             check_scores=True, after_end=False, actions=ep.actions)
    finally:
        env.close()
    if again.error:
        return f"seed {ep.seed}: the replay raised {again.error}"
    if again.breaches:
        return again.breaches[0]
    for t, (a, b) in enumerate(zip(ep.rewards, again.rewards, strict=False)):
        if not math.isclose(a, b, rel_tol=0.0, abs_tol=EPSILON):
            return f"seed {ep.seed} step {t + 1}: {a:.6g} first, {b:.6g} on replay"
    if len(ep.rewards) != len(again.rewards) or ep.success != again.success:
        return f"seed {ep.seed}: the replay ended differently"
    return ""


class _Scripted(Agent):
    """Stands in for the agent when ``play_episode`` replays fixed actions."""

    name = "replay"

    def act(self, observation: str, info: dict[str, Any]) -> str:
        raise RuntimeError("a replay plays its script, never asks its agent")
