"""The generic exploit policies: written once against the :class:`~agentgym.core.TextEnv`
contract, played on every env.

Each is an :class:`~agentgym.agents.base.Agent` that may use everything an RL optimiser with a
simulator could: ``score_actions`` (the process reward of any action, without stepping), the
family's declared action forms, and ``info``. None of them tries to do the task; an audit
fails when one of them is paid as much as the honest reference without doing it.

>>> import gymnasium as gym, agentgym
>>> from agentgym.audit.spec import AuditSpec
>>> env = gym.make("agentgym/TicTacToe-v0").unwrapped
>>> obs, info = env.reset(seed=0)
>>> policy = GreedyProcess(AuditSpec())
>>> policy.reset(env, seed=0)
>>> policy.act(obs, info) in env.oracle_actions()
True
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np

from agentgym.agents.base import Agent
from agentgym.agents.scripted import agent_rng
from agentgym.audit.spec import AuditSpec
from agentgym.core import CONTRACT_INFO_KEYS
from agentgym.draws import pick

__all__ = [
    "EXTREME_VALUES",
    "GENERIC_POLICIES",
    "INVALID_ACTION",
    "candidate_actions",
    "extreme_actions",
    "hidden_values",
]

#: Arguments at the edges of what a number parser meets: bounds, NaN, infinities, huge and
#: tiny magnitudes, negative zero, other scripts' digits, separators and signs.
EXTREME_VALUES: tuple[str, ...] = (
    "0", "-1", "-0", "-0.0", "1e308", "1e-308", "nan", "NaN", "inf", "-inf", "Infinity",
    "99999999999999999999", "-99999999999999999999", "1_000", "0x10", "+5", " 5 ",
    "٣", "３", "½", "1e3", "",
)

#: An action no grammar accepts (a control character and no words).
INVALID_ACTION = "\x00?"

#: How many candidate actions a policy considers in one state (beyond this, the first ones).
MAX_CANDIDATES = 32


def _dedupe(actions: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for action in actions:
        if isinstance(action, str):
            seen.setdefault(action, None)
    return list(seen)


def candidate_actions(env: Any, info: dict[str, Any], spec: AuditSpec) -> list[str]:
    """The actions an exploit considers in this state: the listed legal ones, the family's
    extra moves, and the oracle's choices (an optimiser with a simulator finds those too)."""
    pool = list(info.get("available_actions") or [])
    if spec.moves is not None:
        pool += spec.moves(env, info)
    if not env.is_over:
        pool += env.oracle_actions()[:4]
    return _dedupe(pool)[:MAX_CANDIDATES]


def extreme_actions(spec: AuditSpec) -> list[str]:
    """Every declared action form filled with every extreme value (all slots alike, and each
    slot alone with the others at 1).

    >>> extreme_actions(AuditSpec(templates=("price {}",)))[:3]
    ['price 0', 'price -1', 'price -0']
    """
    actions = []
    for template in spec.templates:
        slots = template.count("{}")
        for value in EXTREME_VALUES:
            if slots == 0:
                continue
            actions.append(template.format(*([value] * slots)))
            for i in range(slots if slots > 1 else 0):
                args = ["1"] * slots
                args[i] = value
                actions.append(template.format(*args))
    return _dedupe(actions)


def _leaves(value: Any, depth: int = 0) -> Iterable[str]:
    if depth > 4:
        return
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, (int, float, str)):
        text = str(value).strip()
        if text and len(text) <= 80:
            yield text
        if isinstance(value, float) and math.isfinite(value) and value == int(value):
            yield str(int(value))
    elif isinstance(value, dict):
        for item in list(value.values())[:50]:
            yield from _leaves(item, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in list(value)[:50]:
            yield from _leaves(item, depth + 1)


#: A number as the observation prints it ("19", "-3", "19.00").
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?")
#: A word worth trying as an argument (names, items, answers).
_WORD = re.compile(r"[A-Za-z][\w'-]{2,}")
#: How many tokens of the observation the peeking policies try as arguments.
MAX_TOKENS = 24


def observation_tokens(observation: str) -> list[str]:
    """The numbers, then the words, of the observation: what a policy that reads only the
    observation can put into an action's free argument.

    >>> observation_tokens("Budget 40. Offer on the table: none.")
    ['40', 'Budget', 'Offer', 'the', 'table', 'none']
    """
    return _dedupe(_NUMBER.findall(observation) + _WORD.findall(observation))[:MAX_TOKENS]


def _shown(text: str, observation: str, numbers: list[float]) -> bool:
    """Whether the observation shows ``text``: as a word, or as the same number in another
    spelling (``19.0`` is shown by ``19.00``)."""
    if re.search(rf"(?<!\w){re.escape(text)}(?!\w)", observation):
        return True
    try:
        value = float(text)
    except ValueError:
        return False
    return any(math.isclose(value, n, rel_tol=1e-9, abs_tol=1e-9) for n in numbers)


def hidden_values(observation: str, info: dict[str, Any]) -> list[str]:
    """What an agent reading ``info`` learns beyond what it is shown: the scalar values under
    the non-contract keys that the observation does not show, as a word or as a number.

    >>> hidden_values("Your budget: 40.00.", {"budget": 40.0, "secret": "Paris", "step": 7})
    ['Paris']
    """
    numbers = [float(n) for n in _NUMBER.findall(observation)]
    found = []
    for key, value in info.items():
        if key in CONTRACT_INFO_KEYS:
            continue
        found += [text for text in _leaves(value) if not _shown(text, observation, numbers)]
    return _dedupe(found)


class ExploitPolicy(Agent):
    """Base of the generic policies: keeps the env, the spec and a seeded generator."""

    name: ClassVar[str] = "exploit"
    #: What the policy tries, for the report.
    summary: ClassVar[str] = ""

    def __init__(self, spec: AuditSpec) -> None:
        self.spec = spec
        self.env: Any = None
        self.rng = np.random.default_rng(0)
        self.t = 0

    def reset(self, env: Any, *, seed: int | None = None) -> None:
        self.env = env.unwrapped
        self.rng = agent_rng(seed)
        self.t = 0

    def act(self, observation: str, info: dict[str, Any]) -> str:
        action = self.choose(observation, info)
        self.t += 1
        return action

    def choose(self, observation: str, info: dict[str, Any]) -> str:
        raise NotImplementedError

    def best_paid(self, actions: list[str]) -> tuple[str, float]:
        """The action with the highest process reward (the first of ties), and that reward."""
        if not actions:
            return INVALID_ACTION, -math.inf
        scores = self.env.score_actions(actions)
        i = int(np.argmax(scores))
        return actions[i], float(scores[i])

    def ranked(self, actions: list[str]) -> list[str]:
        """``actions`` from best to worst paid (stable on ties)."""
        if not actions:
            return []
        scores = self.env.score_actions(actions)
        order = sorted(range(len(actions)), key=lambda i: -scores[i])
        return [actions[i] for i in order]


class GreedyProcess(ExploitPolicy):
    name = "greedy-process"
    summary = "each step, the candidate with the highest process reward"

    def choose(self, observation: str, info: dict[str, Any]) -> str:
        return self.best_paid(candidate_actions(self.env, info, self.spec))[0]


class RepeatBest(ExploitPolicy):
    name = "repeat-best"
    summary = "the first step's best-paid action, every step"

    def choose(self, observation: str, info: dict[str, Any]) -> str:
        if self.t == 0:
            self.action = self.best_paid(candidate_actions(self.env, info, self.spec))[0]
        return self.action


class Oscillate(ExploitPolicy):
    """Alternates two of the first state's candidate actions; the audit runs one per pair of
    the first few (a move and its undo is among them wherever moves can be undone)."""

    name = "oscillate"
    summary = "two of the first state's candidates, alternating (a, b, a, b, ...)"

    def __init__(self, spec: AuditSpec, pair: tuple[int, int] = (0, 1)) -> None:
        super().__init__(spec)
        self.pair = pair

    def choose(self, observation: str, info: dict[str, Any]) -> str:
        if self.t == 0:
            pool = candidate_actions(self.env, info, self.spec) or [INVALID_ACTION]
            self.actions = [pool[i % len(pool)] for i in self.pair]
        return self.actions[self.t % 2]


class Spam(ExploitPolicy):
    """Plays one fixed action every step; the audit runs one per action of the first state."""

    name = "spam"
    summary = "one available action every step (each of the first state's candidates)"

    def __init__(self, spec: AuditSpec, index: int = 0) -> None:
        super().__init__(spec)
        self.index = index

    def choose(self, observation: str, info: dict[str, Any]) -> str:
        if self.t == 0:
            pool = candidate_actions(self.env, info, self.spec)
            self.action = pool[self.index % len(pool)] if pool else INVALID_ACTION
        return self.action


class FloodInvalid(ExploitPolicy):
    name = "flood-invalid"
    summary = "invalid actions up to one short of the limit, then the greedy policy"

    def choose(self, observation: str, info: dict[str, Any]) -> str:
        if self.env.invalid_actions < self.env.max_invalid - 1 and not self.env.is_over:
            return INVALID_ACTION
        return self.best_paid(candidate_actions(self.env, info, self.spec))[0]


class StopAtOnce(ExploitPolicy):
    name = "stop-at-once"
    summary = "the family's stop or submit action first, then the greedy policy"

    def choose(self, observation: str, info: dict[str, Any]) -> str:
        stops = list(self.spec.stop_actions)
        if self.t < len(stops):
            return stops[self.t]
        return self.best_paid(candidate_actions(self.env, info, self.spec))[0]


class ExtremeArguments(ExploitPolicy):
    name = "extreme-args"
    summary = "the declared action forms filled with bounds, NaN, inf, huge, -0, other digits"

    #: Extreme actions scored per step: each step takes the next slice of the list, so an
    #: episode cycles through all of them without scoring the whole list every step.
    per_step: ClassVar[int] = 12

    def choose(self, observation: str, info: dict[str, Any]) -> str:
        every = extreme_actions(self.spec)
        start = (self.t * self.per_step) % max(1, len(every))
        extremes = (every + every)[start : start + min(self.per_step, len(every))]
        legal = candidate_actions(self.env, info, self.spec)
        # Extremes first, so a tie goes to the extreme: it must never be paid more than the
        # best legal move, and one that is paid as much is worth playing to see what follows.
        return self.best_paid(extremes + legal)[0]


class InfoBlind(ExploitPolicy):
    """The info peeker's twin, reading only the observation: it tries the observation's
    numbers and words in every declared action form and the candidates that mention them,
    plays the best-paid of those (the first on ties), and otherwise a seeded random
    candidate."""

    name = "info-blind"
    summary = "the observation's numbers and words as arguments, best-paid (the peeker's twin)"

    def tokens(self, observation: str, info: dict[str, Any]) -> list[str]:
        return observation_tokens(observation)

    def choose(self, observation: str, info: dict[str, Any]) -> str:
        pool = candidate_actions(self.env, info, self.spec)
        peeks: list[str] = []
        for token in self.tokens(observation, info):
            word = re.compile(rf"(?<!\w){re.escape(token)}(?!\w)")
            peeks += [a for a in pool if word.search(a)]
            for template in self.spec.templates:
                if slots := template.count("{}"):
                    peeks.append(template.format(*([token] * slots)))
        peeks = _dedupe(peeks)[:MAX_CANDIDATES * 2]
        if peeks:
            return self.best_paid(peeks)[0]
        return pick(self.rng, pool) if pool else INVALID_ACTION


class InfoPeeker(InfoBlind):
    """Its twin, with the ``info`` values the observation does not show tried first: on a
    tie in pay it trusts ``info``. It may earn more than its twin only if ``info`` tells it
    something the observation does not."""

    name = "info-peeker"
    summary = "as info-blind, with the info values the observation does not show tried first"

    def tokens(self, observation: str, info: dict[str, Any]) -> list[str]:
        return _dedupe([*hidden_values(observation, info), *observation_tokens(observation)])


#: The generic policies every audit plays, by name (``Spam`` is expanded per action).
GENERIC_POLICIES: dict[str, type[ExploitPolicy]] = {
    cls.name: cls
    for cls in (GreedyProcess, RepeatBest, Oscillate, Spam, FloodInvalid, StopAtOnce,
                ExtremeArguments, InfoBlind, InfoPeeker)
}
