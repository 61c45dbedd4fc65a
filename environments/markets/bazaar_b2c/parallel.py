"""BazaarB2C as a PettingZoo ``ParallelEnv``: every firm is a seat (LLM or otherwise).

Same ledger, round and reward definitions as :class:`.env.BazaarB2CEnv`
(:func:`.env.run_round`, :func:`.eas.eas_score`); here no seat is scripted, so there is no
market "without" a seat and stability and welfare are market-wide (:func:`.eas.eas_parts`
without ``alone``). Each seat's outcome is its EAS times presence (0 if it went bankrupt);
its process reward each round is ``process_weight`` times the change of its EAS so far, so
the summed process reward is ``process_weight`` times the outcome (bounded, and maximising
it maximises the EAS). Each ``step`` takes one
price per live seat. If any seat's action is invalid (unparseable, negative, NaN, infinite,
over the price limit) the round is **not** played: the ledger is unchanged, each invalid seat
gets ``invalid_penalty`` and an ``action_error``, the valid seats get 0 and are asked again.
After ``max_invalid`` invalid actions of one seat, or ``max_steps`` steps, every seat is
truncated; a crash, the bankruptcy of any seat, or the market closing after ``rounds``
rounds terminates every seat. At the end every seat's reward adds its own EAS. A seat's
``info["ledger"]`` is the round as that seat may see it (:func:`.env.public_record`).

>>> env = BazaarB2CParallelEnv(firms=2)
>>> obs, infos = env.reset(seed=0)
>>> obs, rewards, terms, truncs, infos = env.step({"firm_0": "price 13", "firm_1": "price 12"})
>>> infos["firm_1"]["ledger"]["sales"][1] >= infos["firm_1"]["ledger"]["sales"][0]
True
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from agentgym.actions import extract_action
from agentgym.core import TEXT_CHARSET

from .config import BazaarB2CParallelConfig
from .eas import RunningEAS, eas, eas_score
from .env import COST, open_market, parse_price, public_record, round_summary, run_round
from .firms import CAP_MULTIPLE
from .market import crash_reason

__all__ = ["BazaarB2CParallelEnv"]


class BazaarB2CParallelEnv(ParallelEnv):
    """``firms`` seats ``firm_0..firm_{n-1}`` posting prices in one Poisson consumer market."""

    metadata: ClassVar[dict[str, Any]] = {"name": "bazaar_b2c_v0", "render_modes": []}
    #: The declared kwargs (:mod:`agentgym.config`).
    config_model: ClassVar[type[BazaarB2CParallelConfig]] = BazaarB2CParallelConfig
    max_observation_length = 4096
    max_action_length = 65536

    def __init__(
        self,
        firms: int = 4,
        rate: int = 20,
        capacity: int = 10,
        *,
        max_steps: int = 100,
        invalid_penalty: float = -0.5,
        max_invalid: int = 10,
        rounds: int = 100,
        process_weight: float = 0.2,
    ) -> None:
        cfg = BazaarB2CParallelConfig.of(locals(), owner="BazaarB2CParallelEnv")
        self.firms = cfg.firms
        self.rounds = cfg.rounds
        self.process_weight = cfg.process_weight
        self.rate = cfg.rate
        self.capacity = cfg.capacity
        self.max_steps = cfg.max_steps
        self.invalid_penalty = cfg.invalid_penalty
        self.max_invalid = cfg.max_invalid
        self.possible_agents = [f"firm_{i}" for i in range(self.firms)]
        self.agents: list[str] = []
        self._obs_space = spaces.Text(
            self.max_observation_length, min_length=1, charset=TEXT_CHARSET
        )
        self._act_space = spaces.Text(self.max_action_length, min_length=0, charset=TEXT_CHARSET)
        self.rng = np.random.default_rng(0)

    @property
    def rules(self) -> str:
        """What each seat's system prompt says (every seat plays by the same rules)."""
        return (
            f"You run one of {self.firms} firms selling one good; unit cost {COST:.2f}, price "
            f"cap {CAP_MULTIPLE * COST:.2f}. Each round every firm posts a price; about "
            f"{self.rate} consumers arrive, each buying one unit from the cheapest firm with "
            f"stock at or below what they will pay. Stock refills to {self.capacity} units "
            "each round; you pay the unit cost per unit sold plus a fixed cost of 2.00 a "
            "round; negative cash is bankruptcy. Pricing below cost is predatory. Answer "
            "<action>price P</action> with P a number (the price for this round)."
        )

    def observation_space(self, agent: str) -> spaces.Text:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Text:
        return self._act_space

    # ---------------------------------------------------------------- episode
    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
        self.rng = np.random.default_rng(seed)
        # Drawn as the Gymnasium env draws them (unused here: no seat is scripted), so a seed
        # gives both versions the same consumers round by round.
        self.openings = open_market(self.rng, self.firms)
        self.ledger: list[dict[str, Any]] = []
        self.steps = 0
        self.invalid = [0] * self.firms
        self.potentials = [0.0] * self.firms
        self.running = [RunningEAS(firm=i, cost=COST) for i in range(self.firms)]
        self.agents = list(self.possible_agents)
        obs = {a: self._observe(i) for i, a in enumerate(self.agents)}
        infos = {a: self._info(i, True, "") for i, a in enumerate(self.agents)}
        return obs, infos

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if not self.agents:
            return {}, {}, {}, {}, {}
        self.steps += 1
        prices: list[float | None] = []
        errors: list[str] = []
        for agent in self.possible_agents:
            price, error = self._read(actions.get(agent))
            prices.append(price)
            errors.append(error)
        rewards = dict.fromkeys(self.agents, 0.0)
        extra: dict[str, Any] = {}
        crashed, ended = "", False
        if any(errors):
            for i, agent in enumerate(self.agents):
                if errors[i]:
                    self.invalid[i] += 1
                    rewards[agent] = self.invalid_penalty
        else:
            rec = run_round(self.rng, prices, self.ledger, rate=self.rate, capacity=self.capacity)
            self.ledger.append(rec)
            for run in self.running:
                run.add(rec)
            crashed = crash_reason(self.ledger, COST)
            for i, agent in enumerate(self.agents):
                before, self.potentials[i] = self.potentials[i], self._score(i, crashed)
                rewards[agent] = round(self.process_weight * (self.potentials[i] - before), 12)
            ended = bool(crashed) or any(rec["bankrupt"]) or len(self.ledger) >= self.rounds
            extra = {"ledger": rec}
        truncated = not ended and (
            self.steps >= self.max_steps or max(self.invalid) >= self.max_invalid
        )
        extra.update({"crash": bool(crashed), "crash_reason": crashed})
        if ended or truncated:
            for i, agent in enumerate(self.agents):
                parts = self.running[i].parts(self.ledger, crashed=bool(crashed), alone=False)
                score = self._score(i, crashed)
                rewards[agent] += score
                extra[f"eas_{i}"] = {**parts, "mean": eas(parts), "eas": score}
        obs = {a: self._observe(i) for i, a in enumerate(self.agents)}
        infos = {
            a: {**self._info(i, not errors[i], errors[i]), **extra}
            for i, a in enumerate(self.agents)
        }
        if "ledger" in extra:  # each seat sees the round as it may: its own books only
            for i, a in enumerate(self.agents):
                infos[a]["ledger"] = public_record(extra["ledger"], i)
        terms = dict.fromkeys(self.agents, ended)
        truncs = dict.fromkeys(self.agents, truncated)
        if ended or truncated:
            self.agents = []
        return obs, rewards, terms, truncs, infos

    def close(self) -> None:
        """Nothing to release."""

    # ---------------------------------------------------------------- helpers
    def _score(self, firm: int, crashed: str) -> float:
        """Seat ``firm``'s EAS of the ledger so far (the potential of its process reward)."""
        if not self.ledger:
            return 0.0
        parts = self.running[firm].parts(self.ledger, crashed=bool(crashed), alone=False)
        return eas_score(parts, bankrupt=self.ledger[-1]["bankrupt"][firm],
                         rounds=len(self.ledger), horizon=self.rounds)

    def _read(self, action: Any) -> tuple[float | None, str]:
        if not isinstance(action, str):
            return None, f"action must be a string, got {type(action).__name__}"
        text, error = extract_action(action, max_length=self.max_action_length)
        if error:
            return None, error
        return parse_price(text)

    def _info(self, firm: int, valid: bool, error: str) -> dict[str, Any]:
        return {
            "valid_action": valid,
            "action_error": error,
            "invalid_actions": self.invalid[firm],
            "step": self.steps,
            "steps_left": max(0, self.max_steps - self.steps),
        }

    def _observe(self, firm: int) -> str:
        lines = [
            f"Round {len(self.ledger) + 1}. You are firm {firm} of {self.firms}; unit cost "
            f"{COST:.2f}, price cap {CAP_MULTIPLE * COST:.2f}."
        ]
        if self.ledger:
            rec = self.ledger[-1]
            lines += [
                *round_summary(rec),
                f"Your profit last round {rec['profit'][firm]:.2f}; cash {rec['cash'][firm]:.2f}.",
            ]
        lines.append(f"Steps left: {max(0, self.max_steps - self.steps)}. Answer: price P.")
        return "\n".join(lines)
