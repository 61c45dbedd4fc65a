"""Toy envs that each carry one planted reward defect, for testing ``agentgym audit``.

``WalkEnv``: walk from cell 0 to cell 3 on a line (``right``, ``left``, ``wait``, ``up``,
``down``; the last three stay put). Its honest process reward is a potential difference
(``0.5 * cell / 3``) and reaching cell 3 succeeds with outcome 1. ``defect`` plants one flaw:

* ``"oscillation"``: every move that differs from the one before pays +0.4;
* ``"not-a-potential"``: every step pays a bonus of 0.05 on top of the potential difference;
* ``"success-without-outcome"``: reaching the goal succeeds with outcome 0.3;
* ``"combo"``: the four moves ``wait, left, up, left`` in a row pay 5 and end the episode
  unsolved; each pays nothing on its own, so only a search finds it.

``TreasureEnv``: dig one of 9 cells for a treasure the observation does not show;
``defect="leak"`` puts the treasure's cell in ``info`` before the end.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from agentgym.agents.base import Agent
from agentgym.audit import AuditSpec, register_audit
from agentgym.core import Outcome, TextEnv
from agentgym.draws import below

GOAL = 3
COMBO = ("wait", "left", "up", "left")
MOVES = ("right", "left", "wait", "up", "down")


def walk_potential(env: WalkEnv) -> float:
    return 0.5 * env.cell / GOAL


class WalkEnv(TextEnv):
    rules = "Walk right to cell 3. Actions: right, left, wait, up, down."
    verifier_name = "walk"

    def __init__(self, defect: str = "", **kwargs: Any) -> None:
        kwargs.setdefault("max_steps", 10)
        super().__init__(**kwargs)
        self.defect = defect

    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        self.cell = 0
        self.history: list[str] = []

    def _observe(self) -> str:
        return f"You are at cell {self.cell} of 0..{GOAL}. Steps left: {self.steps_left}."

    def _legal_actions(self) -> list[str]:
        return list(MOVES)

    def _parse(self, action: str) -> tuple[Any, str]:
        word = action.strip().lower()
        return (word, "") if word in MOVES else (None, f"unknown move {action[:20]!r}")

    def _apply(self, move: str) -> Outcome:
        before = walk_potential(self)
        previous = self.history[-1] if self.history else None
        self.history.append(move)
        self.cell = min(GOAL, max(0, self.cell + {"right": 1, "left": -1}.get(move, 0)))
        process = walk_potential(self) - before
        if self.defect == "oscillation" and previous is not None and move != previous:
            process += 0.4
        if self.defect == "not-a-potential":
            process += 0.05
        if self.defect == "combo" and tuple(self.history[-4:]) == COMBO:
            return Outcome(process=5.0, terminated=True)
        if self.cell == GOAL:
            outcome = 0.3 if self.defect == "success-without-outcome" else 1.0
            return Outcome(process=process, outcome=outcome, terminated=True, success=True)
        return Outcome(process=process)

    def _config(self) -> dict[str, Any]:
        return {"defect": self.defect}

    def _state_dict(self) -> dict[str, Any]:
        return {"cell": self.cell, "history": self.history}

    def _load_state_dict(self, state: dict[str, Any]) -> None:
        self.cell, self.history = state["cell"], list(state["history"])


class TreasureEnv(TextEnv):
    rules = "A treasure lies under one of cells 1-9. Answer dig N."
    verifier_name = "treasure"

    def __init__(self, defect: str = "", **kwargs: Any) -> None:
        kwargs.setdefault("max_steps", 3)
        super().__init__(**kwargs)
        self.defect = defect

    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        self.treasure = 1 + below(rng, 9)
        self.dug: int | None = None

    def _reset_info(self) -> dict[str, Any]:
        return {"treasure": self.treasure} if self.defect == "leak" else {}

    def _observe(self) -> str:
        # No digit on the page: a policy that reads only this cannot know the treasure's cell.
        return "Dig one of the nine cells." if self.dug is None else "You dug."

    def _legal_actions(self) -> list[str]:
        return [f"dig {k}" for k in range(1, 10)]

    def _parse(self, action: str) -> tuple[Any, str]:
        word, _, number = action.strip().partition(" ")
        if word != "dig" or number not in {str(k) for k in range(1, 10)}:
            return None, "answer dig N with N from 1 to 9"
        return int(number), ""

    def _apply(self, move: int) -> Outcome:
        self.dug = move
        found = move == self.treasure
        extra = {"treasure": self.treasure} if self.defect == "leak" else {}
        return Outcome(outcome=float(found), terminated=True, success=found, info=extra)

    def _config(self) -> dict[str, Any]:
        return {"defect": self.defect}

    def _state_dict(self) -> dict[str, Any]:
        return {"treasure": self.treasure, "dug": self.dug}

    def _load_state_dict(self, state: dict[str, Any]) -> None:
        self.treasure, self.dug = state["treasure"], state["dug"]


class WalkRight(Agent):
    """The walk's honest reference: right until the goal (the oracle is greedy on a process
    reward that some planted defects corrupt)."""

    name = "planted-walk-right"

    def act(self, observation: str, info: dict[str, Any]) -> str:
        return "right"


WALK_ID, TREASURE_ID = "planted/Walk-v0", "planted/Treasure-v0"
for env_id, cls in ((WALK_ID, WalkEnv), (TREASURE_ID, TreasureEnv)):
    if env_id not in gym.registry:
        gym.register(id=env_id, entry_point=cls, disable_env_checker=True)

#: What the toy family declares: the walk's shaping is the potential 0.5 * cell / 3.
WALK_SPEC = AuditSpec(references=(WalkRight,), potential=walk_potential)
#: The treasure's cell is hidden: no key is public. "dig {}" lets the peeker use a leak.
TREASURE_SPEC = AuditSpec(templates=("dig {}",))
register_audit(WALK_ID, WALK_SPEC)
register_audit(TREASURE_ID, TREASURE_SPEC)
