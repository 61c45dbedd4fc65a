"""The two-seat PettingZoo version of ``agentgym/Negotiation-v0``: buyer and seller are both
agents (LLMs), trading under the same values, checks and surplus ledger as the Gymnasium env.

Turns alternate (the ``first`` seat opens). The seat to move sends ``offer(PRICE)``,
``accept`` (the other seat's offer on the table), ``reject`` (walk away: no deal) or
``say(TEXT)`` (talk: binds nothing, keeps the turn). The other seat sends ``wait`` (or
nothing, or ``say(TEXT)``); a binding action out of turn is invalid: ``invalid_penalty``, the
ledger unchanged. Talks end with a deal, a walk-away, after ``max_rounds`` offers per seat (no
deal), or truncated after ``max_steps`` steps or a seat's ``max_invalid``-th invalid action.

Rewards per seat, as in the Gymnasium env: the process reward of its offers and accepts,
potential-based shaping on their checks (:func:`.logic.offer_checks` against its own value):
each pays the change of ``process_weight`` times the mean check score of the seat's scored
moves so far (:func:`.logic.shaped_process`), so a seat's process return is that mean times
``process_weight`` however many offers it makes; and at the end its outcome
(:func:`.logic.deal_outcome`): its surplus share, 0 for no deal, and
``logic.VIOLATION_OUTCOME`` (-1) for a deal past its own value (a violation, flagged in
``infos[seat]``, whose ``surplus_share`` is then 0).

>>> env = NegotiationParallelEnv()
>>> obs, infos = env.reset(seed=1)
>>> obs, rewards, term, trunc, infos = env.step({"buyer": "offer(40)", "seller": "wait"})
>>> obs, rewards, term, trunc, infos = env.step({"buyer": "wait", "seller": "accept"})
>>> infos["buyer"]["deal"], infos["buyer"]["price"]
(True, 40.0)
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from agentgym.actions import extract_action
from agentgym.core import TEXT_CHARSET, check_seed

from .config import NegotiationParallelConfig
from .env import MAX_SAY, parse_move
from .logic import (
    ROLES,
    check_score,
    deal_outcome,
    draw_values,
    has_zopa,
    is_violation,
    offer_checks,
    other_role,
    shaped_process,
    surplus_share,
)

__all__ = ["NegotiationParallelEnv"]

_MAX_OBS = 8192
_MAX_ACTION = 1024
_SHOWN = 12


class NegotiationParallelEnv(ParallelEnv):
    """Buyer and seller seats, both played by agents; see the module docstring."""

    metadata = {"name": "agentgym_negotiation_v0", "render_modes": []}  # noqa: RUF012
    #: The declared kwargs (:mod:`agentgym.config`).
    config_model: ClassVar[type[NegotiationParallelConfig]] = NegotiationParallelConfig

    def __init__(
        self,
        *,
        first: str = "buyer",
        max_rounds: int = 8,
        process_weight: float = 0.2,
        max_steps: int = 60,
        invalid_penalty: float = -0.1,
        max_invalid: int = 10,
        render_mode: str | None = None,
    ) -> None:
        cfg = NegotiationParallelConfig.of(locals(), owner="NegotiationParallelEnv")
        self.first: str = cfg.first
        self.max_rounds = cfg.max_rounds
        self.process_weight = cfg.process_weight
        self.max_steps = cfg.max_steps
        self.invalid_penalty = cfg.invalid_penalty
        self.max_invalid = cfg.max_invalid
        self.render_mode = cfg.render_mode
        self.possible_agents = list(ROLES)
        self._observation_space = spaces.Text(
            max_length=_MAX_OBS, min_length=1, charset=TEXT_CHARSET
        )
        self._action_space = spaces.Text(max_length=_MAX_ACTION, min_length=0, charset=TEXT_CHARSET)
        self.agents: list[str] = []
        self.budget, self.cost = 0, 0
        self.turn = first
        self.ledger: list[dict[str, Any]] = []
        self.transcript: list[str] = []
        self.price: float | None = None
        self.steps = 0
        self.invalid = dict.fromkeys(ROLES, 0)
        # Per seat: the check scores of its scored moves, summed, and how many they are.
        self.tally: dict[str, tuple[float, int]] = dict.fromkeys(ROLES, (0.0, 0))
        self.status = ""

    def observation_space(self, agent: str) -> spaces.Text:
        """The same text space for both seats (one object, as PettingZoo expects)."""
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Text:
        """The same text space for both seats."""
        return self._action_space

    def value(self, seat: str) -> int:
        """The seat's private value: the budget for the buyer, the cost for the seller."""
        return self.budget if seat == "buyer" else self.cost

    # ------------------------------------------------------------------ API
    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
        rng = np.random.default_rng(check_seed(seed))
        self.budget, self.cost = draw_values(rng)
        self.agents = list(self.possible_agents)
        self.turn = self.first
        self.ledger, self.transcript = [], []
        self.price = None
        self.steps = 0
        self.invalid = dict.fromkeys(ROLES, 0)
        self.tally = dict.fromkeys(ROLES, (0.0, 0))
        self.status = f"The {self.first} opens."
        empty = {seat: {"valid_action": True, "action_error": "", "checks": {}} for seat in ROLES}
        return self._observations(), self._infos(empty)

    def step(self, actions: dict[str, str]) -> tuple[dict, dict, dict, dict, dict]:
        if not self.agents:
            raise RuntimeError("the negotiation is over; call reset()")
        self.steps += 1
        rewards = dict.fromkeys(self.agents, 0.0)
        verdicts: dict[str, dict[str, Any]] = {}
        ended = False
        mover = self.turn
        # The waiting seat first: its talk lands before the mover's move in the transcript.
        for seat in (other_role(mover), mover):
            error, checks, end = self._act(seat, actions.get(seat, ""), seat == mover)
            if error:
                self.invalid[seat] += 1
                rewards[seat] += self.invalid_penalty
            elif checks:
                rewards[seat] += self._shape(seat, checks)
            verdicts[seat] = {"valid_action": not error, "action_error": error, "checks": checks}
            ended = ended or end
        offers = sum(1 for e in self.ledger if e["kind"] == "offer")
        if not ended and offers >= 2 * self.max_rounds:
            self.status = "Both seats used all their rounds: no deal."
            ended = True
        truncated = not ended and (
            self.steps >= self.max_steps or max(self.invalid.values()) >= self.max_invalid
        )
        if ended:
            for seat in ROLES:
                rewards[seat] += self._outcome(seat)
        if truncated:
            self.status = "Talks stopped (out of steps or too many invalid actions): no deal."
        obs, infos = self._observations(), self._infos(verdicts, final=ended or truncated)
        terms = dict.fromkeys(self.agents, ended)
        truncs = dict.fromkeys(self.agents, truncated)
        if ended or truncated:
            self.agents = []
        return obs, rewards, terms, truncs, infos

    def close(self) -> None:
        """Nothing to release."""

    # ------------------------------------------------------------------ rules
    def _act(self, seat: str, action: Any, moving: bool) -> tuple[str, dict[str, bool], bool]:
        """Carry out one seat's action: ``(error, checks, ended)``; an error changes nothing."""
        if not isinstance(action, str):
            return f"action must be a string, got {type(action).__name__}", {}, False
        text, error = extract_action(action, max_length=_MAX_ACTION)
        if error:
            return error, {}, False
        if not moving and text.strip().lower() in ("", "wait", "wait()"):
            return "", {}, False
        move, error = parse_move(text)
        if move is None:
            return error, {}, False
        kind, arg = move
        if kind == "say":
            self.transcript.append(f"{seat}: {arg[:MAX_SAY]}")
            return "", {}, False
        if not moving:
            return f"not your turn: the {other_role(seat)} moves; send wait or say(TEXT)", {}, False
        value = (self.budget, self.cost)
        if kind == "reject":
            self.status = f"The {seat} walked away: no deal."
            return "", {}, True
        standing = self._standing(seat)
        if kind == "accept":
            if standing is None:
                return "there is no offer from the other seat to accept", {}, False
            checks = offer_checks(seat, *value, standing, [])
            checks.pop("consistent")
            self.ledger.append({"by": seat, "kind": "accepted", "price": standing})
            self.price = standing
            self.status = f"The {seat} accepted {standing:g}: deal."
            return "", checks, True
        previous = [e["price"] for e in self.ledger if e["by"] == seat and e["kind"] == "offer"]
        checks = offer_checks(seat, *value, float(arg), previous)
        self.ledger.append({"by": seat, "kind": "offer", "price": float(arg)})
        self.turn = other_role(seat)
        self.status = f"The {seat} offers {float(arg):g}."
        return "", checks, False

    def _shape(self, seat: str, checks: dict[str, bool]) -> float:
        """Tally one scored move of ``seat`` and return its process reward (the change of the
        seat's potential, :func:`.logic.shaped_process`)."""
        total, count = self.tally[seat]
        score = check_score(checks)
        self.tally[seat] = (total + score, count + 1)
        return shaped_process(total, count, score, self.process_weight)

    def _standing(self, seat: str) -> float | None:
        """The other seat's latest offer if it is the newest entry (an offer answered by a
        counter-offer is off the table)."""
        if self.ledger and self.ledger[-1]["kind"] == "offer" and self.ledger[-1]["by"] != seat:
            return float(self.ledger[-1]["price"])
        return None

    def _outcome(self, seat: str) -> float:
        return deal_outcome(seat, self.budget, self.cost, self.price)

    def _share(self, seat: str) -> float:
        if self.price is None:
            return 0.0
        return surplus_share(seat, self.budget, self.cost, self.price)

    # ------------------------------------------------------------------ views
    def _observations(self) -> dict[str, str]:
        return {seat: self._observe(seat) for seat in self.agents}

    def _observe(self, seat: str) -> str:
        name = "budget" if seat == "buyer" else "cost"
        lines = [
            f"You are the {seat}. Your private {name}: {self.value(seat)}.",
            f"Offers per seat: at most {self.max_rounds}.",
            self.status,
        ]
        if self.ledger:
            lines.append("Offers so far (newest last):")
            for entry in self.ledger[-_SHOWN:]:
                who = "you" if entry["by"] == seat else entry["by"]
                lines.append(f"  {who} {entry['kind']} {entry['price']:g}")
        if self.transcript:
            lines.append("Messages (newest last):")
            lines += [f"  {line}" for line in self.transcript[-6:]]
        if self.agents:
            if self.turn == seat:
                standing = self._standing(seat)
                table = "none" if standing is None else f"{standing:g}"
                lines.append(
                    f"Your turn. Offer on the table: {table}. Send offer(PRICE), reject, "
                    "say(TEXT)" + (", accept." if standing is not None else ".")
                )
            else:
                lines.append(f"The {self.turn}'s turn: send wait or say(TEXT).")
            lines.append(f"Steps left: {self.max_steps - self.steps}.")
        return "\n".join(lines)

    def _infos(
        self, verdicts: dict[str, dict[str, Any]], final: bool = False
    ) -> dict[str, dict[str, Any]]:
        # Whether a ZOPA exists is hidden state (it tells each seat about the other's value):
        # only the step that ends the talks reports it.
        deal = self.price is not None
        infos = {}
        for seat in self.agents:
            infos[seat] = {
                **verdicts.get(seat, {"valid_action": True, "action_error": "", "checks": {}}),
                "role": seat,
                "value": self.value(seat),
                "turn": self.turn,
                "deal": deal,
                "price": self.price,
                "surplus_share": self._share(seat),
                "violation": deal and is_violation(seat, self.budget, self.cost, self.price),
                "invalid_actions": self.invalid[seat],
            }
            if final:
                infos[seat]["zopa"] = has_zopa(self.budget, self.cost)
        return infos
