"""The scripted baseline for ``agentgym/Household-v0`` (``make_agent("household-heuristic")``).

It reads only what an LLM sees: the task sentence and the feedback in the observation, and
the admissible commands. It searches receptacles where the object's kind is likely to be
(the kinds the catalog says it fits, then the rest), remembers what it has seen, takes the
first matching object, transforms it at the appliance the sentence implies, and puts it on
the first target receptacle (switching on the first desklamp it finds for a look-at task).
No planner, no hidden state: it wastes steps on closed, empty receptacles and can run out.

>>> import gymnasium as gym, agentgym
>>> env = gym.make("agentgym/Household-v0", task_type="pick_heat_then_place_in_recep")
>>> obs, info = env.reset(seed=3)
>>> agent = HeuristicAgent()
>>> agent.reset(env, seed=3)
>>> while True:
...     obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
...     if terminated or truncated:
...         break
>>> info["success"]
True
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import gymnasium as gym

from agentgym.agents.base import Agent

from .catalog import APPLIANCE, LAMP, OBJECTS

__all__ = ["HeuristicAgent", "parse_task"]

_TASK = re.compile(r"Your task is to: (.+)\.")
_SEEN = re.compile(r"(?:You arrive at|You open the) ([a-z]+ \d+)\..*?there is (.+?)\.(?:$| )")
_ITEM = re.compile(r"([a-z]+) (\d+)")


def parse_task(sentence: str) -> tuple[str, str, str, int]:
    """(object kind, target kind, transformation, count) of a task sentence.

    >>> parse_task("put a hot apple in garbagecan"), parse_task("look at book under the desklamp")
    (('apple', 'garbagecan', 'heat', 1), ('book', 'desklamp', 'look', 1))
    """
    words = sentence.rstrip(".").split()
    if words[:2] == ["look", "at"]:
        return words[2], words[-1], "look", 1
    count = 2 if words[1] == "two" else 1
    transform = {"clean": "clean", "hot": "heat", "cool": "cool"}.get(words[2], "")
    obj = words[3] if transform else words[2]
    return obj, words[-1], transform, count


class HeuristicAgent(Agent):
    """Explore likely receptacles, take the object, transform it, put it on a target."""

    name: ClassVar[str] = "household-heuristic"
    families: ClassVar[tuple[str, ...]] = ("household",)

    def reset(self, env: gym.Env, *, seed: int | None = None) -> None:
        self._visited: set[str] = set()
        self._contents: dict[str, list[str]] = {}
        self._held = ""
        self._placed: set[str] = set()
        self._done_transform = False
        self._target_used = ""

    def _remember(self, feedback: str) -> None:
        for match in _SEEN.finditer(feedback):
            where, listing = match.groups()
            self._visited.add(where)
            self._contents[where] = [" ".join(m) for m in _ITEM.findall(listing)
                                     if " ".join(m) != where]
        if feedback.startswith("You pick up the "):
            self._held = " ".join(feedback.split()[4:6])
            for items in self._contents.values():
                if self._held in items:
                    items.remove(self._held)
        if feedback.startswith("You put the "):
            self._placed.add(self._held)
            self._held = ""
            self._done_transform = False

    def act(self, observation: str, info: dict[str, Any]) -> str:
        legal = list(info["available_actions"])
        feedback = observation.split("\n\nYour task is to:")[0]
        self._remember(feedback)
        match = _TASK.search(observation)
        obj, target, transform, _count = parse_task(match.group(1) if match else "")
        here = next((a[8:] for a in legal if a.startswith("examine ") and a[8:] != self._held),
                    "")

        def go_or(command: str, place: str) -> str:
            return command if command in legal else f"go to {place}"

        if self._held:
            if transform in APPLIANCE and not self._done_transform:
                kind = APPLIANCE[transform]
                station = here if here.split(" ")[0] == kind else next(
                    (a[6:] for a in legal if a.startswith("go to ") and a[6:].split()[0] == kind),
                    here)
                verb = f"{transform} {self._held} with {station}"
                if verb in legal:
                    self._done_transform = True
                    return verb
                return f"go to {station}"
            if transform == "look":
                lamp = next((i for items in self._contents.values() for i in items
                             if i.startswith(LAMP)), "")
                if lamp and f"use {lamp}" in legal:
                    return f"use {lamp}"
                if lamp:
                    place = next(p for p, items in self._contents.items() if lamp in items)
                    return f"go to {place}"
                return self._explore(legal, LAMP)
            place = self._target_used or next(
                (a[6:] for a in legal if a.startswith("go to ") and a[6:].split()[0] == target),
                here)
            self._target_used = place
            if here == place and f"open {place}" in legal:
                return f"open {place}"
            return go_or(f"move {self._held} to {place}", place)
        # Hands empty: take a known object of the kind (not one already placed), else search.
        for place, items in self._contents.items():
            for item in items:
                if item.split()[0] == obj and item not in self._placed:
                    return go_or(f"take {item} from {place}", place)
        return self._explore(legal, obj)

    def _explore(self, legal: list[str], kind: str) -> str:
        opening = [a for a in legal if a.startswith("open ")]
        if opening:
            return opening[0]
        likely = OBJECTS[kind].fits if kind in OBJECTS else frozenset()
        places = [a[6:] for a in legal if a.startswith("go to ") and a[6:] not in self._visited]
        places.sort(key=lambda p: p.split()[0] not in likely)
        if places:
            return f"go to {places[0]}"
        return "look"
