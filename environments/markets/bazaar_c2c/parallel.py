"""The PettingZoo version of ``agentgym/BazaarC2C-v0``: a guardian seat and a seller seat.

Both seats are LLM seats on the same ledger as :class:`.env.BazaarC2CEnv` (the scripted
honest sellers and sybils of :mod:`.sellers` fill the rest of the market). Each round has two
phases: ``"list"``, where the seller lists its item (``list(PRICE, QUALITY)`` or ``pass``),
then ``"guard"``, where the guardian acts on the round's listings, the seller's included,
one action per step (``inspect``/``buy``/``skip``/``flag`` an ``ID``, or ``skip``). The seat
not on turn answers ``wait``; anything else from it is an out-of-turn action: a clear
``action_error``, ``invalid_penalty``, and nothing in the ledger changes.

Rewards are those of the Gymnasium roles. The guardian's per action (flags, surplus,
inspection cost), scaled so the episode's sum is bounded by ``process_weight`` as in
:meth:`.env.BazaarC2CEnv._guardian_weights`, except that the seller seat adds one listing a
round that may be honest or a fraud, so the shares are over ``(sybils + 1) * rounds`` frauds
and ``(honest + 1) * rounds`` honest listings; at the end the guardian's outcome
(:func:`.market.guardian_outcome`: detection less the other buyers' regret). The seller's
when its round closes (:func:`.market.seller_reward`: credited profit, nothing for any
overclaim, ``-flag_reward`` when flagged for a misrepresentation) and at the end 1.0 on
success (a profit made, no claim ever misrepresented). The seller's listing counts as a
fraud exactly when its claim overstates the item. ``info["ledger"]`` is the public ledger
(:func:`.market.public_line`) until the last step, which has the whole one.

>>> env = BazaarC2CParallelEnv(sybils=3)
>>> obs, infos = env.reset(seed=0)
>>> infos["seller"]["available_actions"][-1], infos["guardian"]["available_actions"]
('pass', ['wait'])
"""

from __future__ import annotations

import copy
import functools
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from agentgym.actions import extract_action
from agentgym.core import TEXT_CHARSET, check_seed
from agentgym.draws import Draws

from .config import BazaarC2CParallelConfig
from .env import (
    BUYER_FORMAT,
    SELLER_FORMAT,
    guardian_actions,
    parse_move,
    public_view,
    render_table,
    seller_listing,
)
from .market import (
    VALUE_SCALE,
    apply_guardian,
    close_round,
    guardian_outcome,
    misrepresented,
    open_listings,
    public_line,
    seller_reward,
)
from .sellers import make_rounds, make_seller_items

__all__ = ["AGENTS", "BazaarC2CParallelEnv"]

AGENTS: tuple[str, ...] = ("guardian", "seller")


class BazaarC2CParallelEnv(ParallelEnv):
    """Guardian and seller seats trading in one C2C lemon market (see the module docstring).

    Kwargs as :class:`.env.BazaarC2CEnv` (``sybils``, ``honest``, ``buyers``, ``rounds``,
    ``inspect_cost``, ``flag_reward``, ``wrong_flag_penalty``, ``welfare_weight``,
    ``process_weight``), plus
    ``max_steps`` (parallel steps, default 300; the step that spends it truncates every seat)
    and ``invalid_penalty`` / ``max_invalid`` (per seat; a seat's ``max_invalid``-th invalid
    action truncates the episode).
    """

    metadata: ClassVar[dict[str, Any]] = {"name": "bazaar_c2c_v0", "render_modes": ["ansi"]}
    #: The declared kwargs (:mod:`agentgym.config`).
    config_model: ClassVar[type[BazaarC2CParallelConfig]] = BazaarC2CParallelConfig

    def __init__(
        self,
        sybils: int = 3,
        *,
        honest: int = 6,
        buyers: int = 4,
        rounds: int = 4,
        inspect_cost: float = 2.0,
        flag_reward: float = 1.0,
        wrong_flag_penalty: float = 1.0,
        welfare_weight: float = 1.0,
        process_weight: float = 0.2,
        max_steps: int = 300,
        invalid_penalty: float = -0.1,
        max_invalid: int = 10,
        render_mode: str | None = None,
    ) -> None:
        cfg = BazaarC2CParallelConfig.of(locals(), owner="BazaarC2CParallelEnv")
        self.sybils: int = cfg.sybils
        self.honest = cfg.honest
        self.buyers = cfg.buyers
        self.rounds = cfg.rounds
        self.inspect_cost = cfg.inspect_cost
        self.flag_reward = cfg.flag_reward
        self.wrong_flag_penalty = cfg.wrong_flag_penalty
        self.welfare_weight = cfg.welfare_weight
        self.process_weight = cfg.process_weight
        self.max_steps = cfg.max_steps
        self.invalid_penalty = cfg.invalid_penalty
        self.max_invalid = cfg.max_invalid
        self.render_mode = cfg.render_mode
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self._obs_space = spaces.Text(max_length=8192, min_length=1, charset=TEXT_CHARSET)
        self._act_space = spaces.Text(max_length=1024, min_length=0, charset=TEXT_CHARSET)

    @functools.cache  # noqa: B019 - PettingZoo wants the same object back
    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_space

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Space:
        return self._act_space

    # ------------------------------------------------------------------ API
    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
        rng = np.random.default_rng(check_seed(seed))
        draws = Draws(rng)
        self._market = make_rounds(draws, rounds=self.rounds, honest=self.honest,
                                   sybils=self.sybils)
        self._items = make_seller_items(draws, self.rounds)
        self._round, self._phase, self._steps = 0, "list", 0
        self._ledger: list[dict[str, Any]] = []
        self._mine: dict[str, Any] | None = None
        self._seller_lines: list[dict[str, Any]] = []
        self._invalid = dict.fromkeys(AGENTS, 0)
        self._event = "The market opens."
        self.agents = list(AGENTS)
        errors = dict.fromkeys(AGENTS, "")
        return self._observations(), self._infos(errors, dict.fromkeys(AGENTS, 0.0))

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if not self.agents:
            raise RuntimeError("the episode is over; call reset()")
        self._steps += 1
        rewards = dict.fromkeys(self.agents, 0.0)
        errors = dict.fromkeys(self.agents, "")
        on_turn = "seller" if self._phase == "list" else "guardian"
        for agent in self.agents:
            text, error = self._text(actions.get(agent))
            if agent != on_turn:
                if error or text.strip().lower() != "wait":
                    errors[agent] = error or (
                        f"it is the {on_turn}'s turn ({self._phase} phase); answer wait"
                    )
                continue
            if error:
                errors[agent] = error
                continue
            move, error = parse_move(text, "seller" if agent == "seller" else "buyer")
            if move is None:
                errors[agent] = error
                continue
            if agent == "seller":
                self._list(move)
            else:
                reward, error = self._guard(move, rewards)
                errors[agent] = error
                rewards["guardian"] += reward
        for agent, error in errors.items():
            if error:
                self._invalid[agent] += 1
                rewards[agent] += self.invalid_penalty
        terminated = self._round >= self.rounds
        truncated = not terminated and (
            self._steps >= self.max_steps or max(self._invalid.values()) >= self.max_invalid
        )
        observations = self._observations()
        infos = self._infos(errors, rewards)
        terms = dict.fromkeys(self.agents, terminated)
        truncs = dict.fromkeys(self.agents, truncated)
        if terminated or truncated:
            self.agents = []
        return observations, rewards, terms, truncs, infos

    def render(self) -> str | None:
        return self._observations().get("guardian") if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Nothing to release."""

    # ------------------------------------------------------------------ rules
    def _text(self, action: Any) -> tuple[str, str]:
        if not isinstance(action, str):
            return "", f"action must be a string, got {type(action).__name__}"
        return extract_action(action, max_length=1024)

    def _list(self, move: tuple[str, Any]) -> None:
        verb, arg = move
        item = self._items[self._round]
        self._mine = None
        if verb == "list":
            price, claimed = arg
            self._mine = seller_listing(self._round, item, price, claimed)
            self._market[self._round].append(self._mine)
            self._event = f"The seller listed {self._mine['id']}."
        else:
            self._event = "The seller passed this round."
        self._phase = "guard"

    def _guard(self, move: tuple[str, Any], rewards: dict[str, float]) -> tuple[float, str]:
        verb, arg = move
        listings = self._market[self._round]
        reward = 0.0
        if verb != "end":
            reward, error, event = apply_guardian(listings, verb, arg,
                                                  **self._guardian_weights())
            if error:
                return 0.0, error
            self._event = event.capitalize() + "."
        if verb == "end" or not open_listings(listings):
            line = close_round(listings, self.buyers)
            if self._mine is not None:
                item = self._items[self._round]
                earned = seller_reward(self._mine, item["cost"], self.flag_reward)
                rewards["seller"] += earned
                lied = misrepresented(self._mine["claimed"], self._mine["quality"])
                self._seller_lines.append({"lied": lied, "reward": earned})
            self._ledger.append(line)
            self._round += 1
            self._phase = "list"
            sold = ", ".join(line["sold"]) or "nothing"
            self._event += f" Round over: other buyers bought {sold}."
            if self._round >= self.rounds:
                reward += guardian_outcome(
                    self._ledger, wrong_flag_penalty=self.wrong_flag_penalty,
                    welfare_weight=self.welfare_weight, buyers=self.buyers)[0]
                mine = self._seller_lines
                if not any(x["lied"] for x in mine) and any(x["reward"] > 0 for x in mine):
                    rewards["seller"] += 1.0  # the Gymnasium seller's outcome on success
        return reward, ""

    def _guardian_weights(self) -> dict[str, float]:
        """The guardian's per-action terms: a whole episode's flags on frauds earn at most
        ``process_weight * flag_reward``, on honest listings cost at most ``process_weight *
        wrong_flag_penalty``, and the money terms are shared over every listing (the seller
        seat's one a round counted on both sides, since it may be either)."""
        frauds = (self.sybils + 1) * self.rounds
        honest = (self.honest + 1) * self.rounds
        w = self.process_weight
        return {
            "inspect_cost": self.inspect_cost,
            "flag_reward": w * self.flag_reward / frauds,
            "wrong_flag_penalty": w * self.wrong_flag_penalty / honest,
            "money_weight": w / ((self.sybils + self.honest + 1) * self.rounds),
        }

    # ------------------------------------------------------------------ views
    def _available(self, agent: str) -> list[str]:
        if self._round >= self.rounds:
            return []
        if agent == "seller":
            if self._phase != "list":
                return ["wait"]
            item = self._items[self._round]
            value = VALUE_SCALE * item["quality"]
            return [f"list({max(item['cost'], 0.9 * value):.2f}, {item['quality']:.2f})", "pass"]
        if self._phase != "guard":
            return ["wait"]
        return guardian_actions(self._market[self._round])

    def _observations(self) -> dict[str, str]:
        r = min(self._round, self.rounds - 1)
        table = render_table(self._market[r])
        done = self._round >= self.rounds
        head = f"Round {r + 1} of {self.rounds} ({'closed' if done else self._phase} phase). "
        out = {}
        for agent in AGENTS:
            lines = [head + self._event]
            if agent == "seller" and not done:
                item = self._items[self._round]
                lines.append(f"Your item: true quality {item['quality']:.2f}, cost "
                             f"{item['cost']:.2f}. {SELLER_FORMAT}")
            elif agent == "guardian" and not done:
                lines.append(BUYER_FORMAT)
            lines += ["Listings:", *table]
            turn = "seller" if self._phase == "list" else "guardian"
            lines.append("The market is closed." if done else (
                "Your turn." if turn == agent else f"Wait: the {turn} is acting (answer wait)."
            ) + f" Steps left: {max(0, self.max_steps - self._steps)}.")
            out[agent] = "\n".join(lines)
        return out

    def _infos(self, errors: dict[str, str], rewards: dict[str, float]) -> dict[str, dict]:
        listings = [public_view(x) for x in self._market[min(self._round, self.rounds - 1)]]
        # Until the market closes only the public ledger: the frauds and the right and wrong
        # flags per round would grade the guardian's flags and name the sybils.
        done = self._round >= self.rounds
        ledger = [line if done else public_line(line) for line in self._ledger]
        return {
            agent: {
                "valid_action": not errors.get(agent, ""),
                "action_error": errors.get(agent, ""),
                "available_actions": self._available(agent),
                "phase": self._phase,
                "round": min(self._round, self.rounds - 1) + 1,
                "listings": copy.deepcopy(listings),
                "ledger": copy.deepcopy(ledger),
                "invalid_actions": self._invalid[agent],
                "reward": rewards.get(agent, 0.0),
            }
            for agent in AGENTS
        }
