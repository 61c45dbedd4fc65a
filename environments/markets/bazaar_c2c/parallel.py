"""The PettingZoo version of ``agentgym/BazaarC2C-v0``: a guardian seat and a seller seat.

Both seats are LLM seats on the same ledger as :class:`.env.BazaarC2CEnv` (the scripted
honest sellers and sybils of :mod:`.sellers` fill the rest of the market). Each round has two
phases: ``"list"``, where the seller lists its item (``list(PRICE, QUALITY)`` or ``pass``),
then ``"guard"``, where the guardian acts on the round's listings, the seller's included,
one action per step (``inspect``/``buy``/``skip``/``flag`` an ``ID``, or ``skip``). The seat
not on turn answers ``wait``; anything else from it is an out-of-turn action: a clear
``action_error``, ``invalid_penalty``, and nothing in the ledger changes.

Rewards are those of the Gymnasium roles: the guardian's per action (flags, surplus,
inspection cost; the welfare gain of the other buyers at the end), the seller's when its
round closes (honest profit, or ``-flag_reward`` when flagged for a misrepresentation). The
seller's listing counts as a fraud exactly when its claim overstates the item.

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
from agentgym.core import TEXT_CHARSET, check_penalty, check_range, check_seed
from agentgym.draws import Draws

from .env import (
    BUYER_FORMAT,
    SELLER_FORMAT,
    check_market_kwargs,
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
    open_listings,
    seller_reward,
)
from .sellers import make_rounds, make_seller_items

__all__ = ["AGENTS", "BazaarC2CParallelEnv"]

AGENTS: tuple[str, ...] = ("guardian", "seller")


class BazaarC2CParallelEnv(ParallelEnv):
    """Guardian and seller seats trading in one C2C lemon market (see the module docstring).

    Kwargs as :class:`.env.BazaarC2CEnv` (``sybils``, ``honest``, ``buyers``, ``rounds``,
    ``inspect_cost``, ``flag_reward``, ``wrong_flag_penalty``, ``welfare_weight``), plus
    ``max_steps`` (parallel steps, default 300; the step that spends it truncates every seat)
    and ``invalid_penalty`` / ``max_invalid`` (per seat; a seat's ``max_invalid``-th invalid
    action truncates the episode).
    """

    metadata: ClassVar[dict[str, Any]] = {"name": "bazaar_c2c_v0", "render_modes": ["ansi"]}

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
        max_steps: int = 300,
        invalid_penalty: float = -0.1,
        max_invalid: int = 10,
        render_mode: str | None = None,
    ) -> None:
        (self.sybils, self.honest, self.buyers, self.rounds, self.inspect_cost,
         self.flag_reward, self.wrong_flag_penalty, self.welfare_weight) = check_market_kwargs(
            sybils, honest, buyers, rounds, inspect_cost, flag_reward, wrong_flag_penalty,
            welfare_weight)
        self.max_steps = check_range("max_steps", max_steps, 1, 100_000)
        self.invalid_penalty = check_penalty("invalid_penalty", invalid_penalty)
        self.max_invalid = check_range("max_invalid", max_invalid, 1, 100_000)
        self.render_mode = render_mode
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
            reward, error, event = apply_guardian(
                listings, verb, arg, inspect_cost=self.inspect_cost,
                flag_reward=self.flag_reward, wrong_flag_penalty=self.wrong_flag_penalty,
            )
            if error:
                return 0.0, error
            self._event = event.capitalize() + "."
        if verb == "end" or not open_listings(listings):
            line = close_round(listings, self.buyers)
            if self._mine is not None:
                item = self._items[self._round]
                rewards["seller"] += seller_reward(self._mine, item["cost"], self.flag_reward)
            self._ledger.append(line)
            self._round += 1
            self._phase = "list"
            sold = ", ".join(line["sold"]) or "nothing"
            self._event += f" Round over: other buyers bought {sold}."
            if self._round >= self.rounds:
                gain = sum(x["welfare"] - x["counterfactual"] for x in self._ledger)
                reward += self.welfare_weight * gain / VALUE_SCALE
        return reward, ""

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
        return {
            agent: {
                "valid_action": not errors.get(agent, ""),
                "action_error": errors.get(agent, ""),
                "available_actions": self._available(agent),
                "phase": self._phase,
                "round": min(self._round, self.rounds - 1) + 1,
                "listings": copy.deepcopy(listings),
                "ledger": copy.deepcopy(self._ledger),
                "invalid_actions": self._invalid[agent],
                "reward": rewards.get(agent, 0.0),
            }
            for agent in AGENTS
        }
