"""A tiny deterministic TextEnv the wrapper and vector tests share.

A counter starts at a seeded value and must reach ``start + goal``. ``inc``: process +1 (and
outcome +1, terminated, success on reaching the goal); ``dec``: process 0; anything else:
invalid (the base class's ``invalid_penalty``, -1 by default), the state unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agentgym.core import Outcome, TextEnv
from agentgym.draws import below

RULES = "Reach the goal number. Actions: inc (add 1) or dec (subtract 1)."


class CounterEnv(TextEnv):
    rules = RULES
    verifier_name = "counter"
    verifier_version = "1"

    def __init__(self, goal: int = 3, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.goal = goal

    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        self.start = below(rng, 100)
        self.value = self.start

    def _observe(self) -> str:
        return f"Counter: {self.value}. Goal: {self.start + self.goal}. Steps taken: {self.steps}."

    def _legal_actions(self) -> list[str]:
        return ["dec", "inc"]

    def _parse(self, action: str) -> tuple[Any, str]:
        word = action.strip().lower()
        if word in ("inc", "dec"):
            return word, ""
        return None, f"unknown action {action[:20]!r}; answer inc or dec"

    def _apply(self, move: str) -> Outcome:
        self.value += 1 if move == "inc" else -1
        done = self.value == self.start + self.goal
        return Outcome(
            process=1.0 if move == "inc" else 0.0,
            outcome=1.0 if done else 0.0,
            terminated=done,
            success=done,
        )

    def _config(self) -> dict[str, Any]:
        return {"goal": self.goal}

    def _state_dict(self) -> dict[str, Any]:
        return {"start": self.start, "value": self.value}

    def _load_state_dict(self, state: dict[str, Any]) -> None:
        self.start, self.value = state["start"], state["value"]
