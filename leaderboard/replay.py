"""Replaying a trace against the env, and the per-family rule of what a replay must reproduce.

agentgym envs are deterministic per seed, so replaying an episode's actions from
``reset(seed)`` must give back, step by step, the very reward, reward components, validity,
``terminated``/``truncated``, ``success`` and observation the trace claims. Floats are compared
exactly (``==``): the same code on the same inputs gives the same bits, and JSON keeps a float's
every bit (``repr`` round-trips). Only the episode *totals*, which a results writer may add up in
another order, are compared with a tolerance (:data:`TOTAL_TOLERANCE`).

One family cannot repeat its observations bit for bit: the terminal family's shell output
holds timings, process ids and temp names. :data:`FAMILY_POLICIES` is the one place that says so:
its episodes are replayed each in a fresh env (a fresh sandbox), comparing rewards, reward
components (the hidden tests' results), validity, termination and success, but not observation
hashes. Every other family gets :data:`EXACT`.

>>> replayed = {"reward": 1.0, "observation_sha": "a"}
>>> step_mismatches(replayed, {"reward": 0.5, "observation_sha": "b"}, EXACT)
[('reward', 1.0, 0.5), ('observation_sha', 'a', 'b')]
>>> step_mismatches(replayed, {"reward": 1.0, "observation_sha": "b"}, policy_for("terminal"))
[]
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from agentgym.evaluation import episode_totals, observation_digest, step_fields
from agentgym.metrics import EXTRA_INFO_KEYS, episode_extras

from .errors import Rejected
from .schema import type_name

__all__ = [
    "EXACT",
    "FAMILY_POLICIES",
    "METRIC_EXTRAS",
    "STEP_FIELDS",
    "TOTAL_TOLERANCE",
    "ReplayPolicy",
    "ReplayedEpisode",
    "episode_totals",
    "policy_for",
    "replay_episode",
    "step_mismatches",
    "total_mismatches",
]


@dataclass(frozen=True)
class ReplayPolicy:
    """What a replay of one family must reproduce, and how it is run."""

    #: Compare ``initial_observation_sha`` and each step's ``observation_sha``.
    observations: bool = True
    #: Make a new env for every episode (a fresh sandbox), closed after it.
    fresh_env_per_episode: bool = False
    #: Why the family differs from :data:`EXACT` (shown in docs and the accepted report).
    reason: str = ""


EXACT = ReplayPolicy()
FAMILY_POLICIES: dict[str, ReplayPolicy] = {
    "terminal": ReplayPolicy(
        observations=False,
        fresh_env_per_episode=True,
        reason="shell output holds timings and process ids; rewards and hidden-test results "
        "are compared, observation hashes are not",
    ),
}

#: Fields of a trace step a replay reproduces, in the order mismatches are reported.
STEP_FIELDS = ("reward", "reward_components", "valid_action", "terminated", "truncated",
               "success", "observation_sha")
#: Relative and absolute tolerance for episode totals (sums of per-step floats).
TOTAL_TOLERANCE = 1e-9
#: Episode ``extras`` that :func:`agentgym.metrics.summarise` reads: recomputed from the
#: replay's last info with :func:`agentgym.metrics.episode_extras`, and must equal the claim.
METRIC_EXTRAS = EXTRA_INFO_KEYS


def policy_for(family: str | None) -> ReplayPolicy:
    """The replay policy of an env family.

    >>> policy_for("games") is EXACT, policy_for("terminal").observations
    (True, False)
    """
    return FAMILY_POLICIES.get(family or "", EXACT)


def step_mismatches(replayed: Mapping[str, Any], claimed: Mapping[str, Any],
                    policy: ReplayPolicy) -> list[tuple[str, Any, Any]]:
    """``(field, replayed value, claimed value)`` for each replayable field that differs.

    Reward components are compared one by one (``reward_components.tests_passed``); a
    component only one side has is ``None`` on the other.

    >>> mine = {"reward_components": {"process": 1.0, "outcome": 0.0}}
    >>> for row in step_mismatches(mine, {"reward_components": {"outcome": 1.0, "bonus": 2.0}},
    ...                            EXACT):
    ...     print(row)
    ('reward_components.process', 1.0, None)
    ('reward_components.outcome', 0.0, 1.0)
    ('reward_components.bonus', None, 2.0)
    """
    out = []
    for name in STEP_FIELDS:
        if (name == "observation_sha" and not policy.observations) or name not in replayed:
            continue
        mine, theirs = replayed[name], claimed.get(name)
        if name == "reward_components" and isinstance(theirs, Mapping):
            for key in [*mine, *(k for k in theirs if k not in mine)]:
                if mine.get(key) != theirs.get(key):
                    out.append((f"{name}.{key}", mine.get(key), theirs.get(key)))
        elif mine != theirs:
            out.append((name, mine, theirs))
    return out


def total_mismatches(recomputed: Mapping[str, Any],
                     claimed: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """``(field, recomputed, claimed)`` for each episode total that differs.

    >>> total_mismatches({"steps": 3, "episode_return": 1.0}, {"steps": 3, "episode_return": 1.0})
    []
    >>> total_mismatches({"steps": 3, "episode_return": 1.0}, {"steps": 2, "episode_return": 0.9})
    [('steps', 3, 2), ('episode_return', 1.0, 0.9)]
    """
    out = []
    for name, value in recomputed.items():
        other = claimed.get(name)
        if isinstance(value, float) and isinstance(other, (int, float)) \
                and not isinstance(other, bool):
            same = math.isclose(value, other, rel_tol=TOTAL_TOLERANCE, abs_tol=TOTAL_TOLERANCE)
        else:
            same = value == other and type(value) is type(other)
        if not same:
            out.append((name, value, other))
    return out


@dataclass
class ReplayedEpisode:
    """The replay's own record of an episode (claimed fields that cannot be replayed copied)."""

    record: dict[str, Any]
    steps: int


def _show(value: Any) -> str:
    return type_name(value)


def _first_line(exc: BaseException) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def replay_episode(env: gym.Env, episode: Mapping[str, Any], policy: ReplayPolicy,
                   where: str) -> ReplayedEpisode:
    """Replay one episode of a results file on ``env``; raise :class:`Rejected` at a mismatch.

    ``where`` names the file and episode in messages (``results/000.json: episodes[3]``).
    """
    try:
        observation, info = env.reset(seed=episode["seed"])
    except (ValueError, TypeError, OverflowError) as exc:
        raise Rejected(f"{where}.seed: the env cannot reset with {_show(episode['seed'])} "
                       f"({_first_line(exc)})") from exc
    if policy.observations:
        sha = observation_digest(str(observation))
        if sha != episode["initial_observation_sha"]:
            raise Rejected(f"{where}.initial_observation_sha: replay gives {_show(sha)}, "
                           f"results claim {_show(episode['initial_observation_sha'])}")
    replayed: list[dict[str, Any]] = []
    ended_at: int | None = None
    last_info: Mapping[str, Any] = info
    for i, claimed in enumerate(episode["trace"]):
        if ended_at is not None:
            raise Rejected(f"{where}.trace[{i}]: a step after the episode ended at step "
                           f"{ended_at} (made-up step)")
        try:
            observation, reward, terminated, truncated, info = env.step(claimed["action"])
        except (ValueError, TypeError) as exc:  # an action no agentgym run could have sent
            raise Rejected(f"{where}.trace[{i}].action: the env refused "
                           f"{_show(claimed['action'])} ({_first_line(exc)})") from exc
        last_info = info
        step = step_fields(observation, reward, terminated, truncated, info, index=i)
        mismatches = step_mismatches(step, claimed, policy)
        if mismatches:  # the first one: the trace is wrong from here on
            name, mine, theirs = mismatches[0]
            raise Rejected(f"{where}.trace[{i}].{name}: replay gives {_show(mine)}, results "
                           f"claim {_show(theirs)} (action {_show(claimed['action'])})")
        step["prompt_tokens"] = claimed["prompt_tokens"]
        step["completion_tokens"] = claimed["completion_tokens"]
        replayed.append(step)
        if step["terminated"] or step["truncated"]:
            ended_at = i
    if ended_at is None and not episode["failed"]:
        raise Rejected(f"{where}.trace: ends after {len(replayed)} steps with the episode still "
                       "running, and the episode is not marked failed (truncated trace)")
    totals = episode_totals(replayed)
    if episode["failed"]:
        totals["success"] = False  # an episode the agent gave up is never a success
    mismatches = total_mismatches(totals, episode)
    if mismatches:
        name, mine, theirs = mismatches[0]
        raise Rejected(f"{where}.{name}: recomputed from the trace {_show(mine)}, results "
                       f"claim {_show(theirs)}")
    record = {key: episode[key] for key in ("episode", "task", "trial", "seed", "agent_seed",
                                            "failed", "failure")}
    record.update(totals)
    extras, claimed_extras = episode_extras(last_info), episode.get("extras", {})
    for key in METRIC_EXTRAS:
        if extras.get(key) != claimed_extras.get(key):
            raise Rejected(f"{where}.extras.{key}: replay gives {_show(extras.get(key))}, "
                           f"results claim {_show(claimed_extras.get(key))}")
    record["extras"] = extras
    return ReplayedEpisode(record, len(replayed))
