"""A bounded A* planner over the family's own action model: the oracle of the process reward.

It searches the symbolic :class:`.world.State` (what the agent has seen is ignored: it does
not change what can be done) with unit-cost actions, exactly the commands
:func:`.world.legal_actions` admits, restricted to the ones that can matter for the goal:
going to and opening receptacles that hold a goal object, a target, the needed appliance or
a lamp; taking goal objects; putting them on targets; the task's transformation; switching
a lamp on. (Putting down anything else is kept for a non-goal object in hand.) Closing,
looking and going elsewhere never shorten a plan, so the pruned search keeps the optimum.

The heuristic is admissible (each action it counts is a distinct action every plan needs),
so plans are shortest. Every search expands at most ``max_nodes`` states
(:data:`PLANNER_MAX_NODES` by default); one that runs out answers ``None`` and the env falls
back to the milestone scores. Generated tasks need a few hundred at most (the tests check
every task type and split over many seeds).

>>> import numpy as np
>>> from agentgym.environments.household.generator import generate
>>> from agentgym.environments.household.world import start_state, command
>>> episode = generate(np.random.default_rng(0), split="train", task_type="pick_and_place_simple")
>>> planner = Planner(episode.scene, episode.task)
>>> plan = planner.plan(start_state(episode.scene, episode.where))
>>> len(plan), command(episode.scene, plan[0]).startswith("go to")
(5, True)
"""

from __future__ import annotations

import heapq
import itertools

from .catalog import APPLIANCE, LAMP, OBJECTS, RECEPTACLES
from .tasks import Task, goal_holds
from .world import NOWHERE, Action, Scene, State, apply, is_open, legal_actions

__all__ = ["PLANNER_MAX_NODES", "Planner"]

#: States one search may expand (the bound the docs and the env's docstring quote).
PLANNER_MAX_NODES = 20_000


def _key(state: State) -> State:
    return state._replace(seen=0)


class Planner:
    """Shortest plans for one (scene, task); distances are cached across calls."""

    def __init__(self, scene: Scene, task: Task, *, max_nodes: int = PLANNER_MAX_NODES) -> None:
        self.scene, self.task, self.max_nodes = scene, task, max_nodes
        kinds = scene.receptacle_kinds
        self._candidates = [o for o, k in enumerate(scene.object_kinds) if k == task.obj]
        self._cand_mask = sum(1 << o for o in self._candidates)
        self._targets = [r for r, k in enumerate(kinds) if k == task.target]
        appliance = APPLIANCE.get(task.transform, "")
        self._appliances = [r for r, k in enumerate(kinds) if k == appliance]
        self._lamps = [o for o, k in enumerate(scene.object_kinds) if k == LAMP]
        self._openable = [RECEPTACLES[k].openable for k in kinds]
        self._look = task.type == "look_at_obj_in_light"
        self._cache: dict[State, int | None] = {}
        self.expanded = 0  # states expanded by the last search (for the docs' figures)

    # ------------------------------------------------------------------ the pruned moves
    def relevant(self, state: State) -> list[Action]:
        """The legal actions that can lie on a shortest plan."""
        where, held = state.where, state.held
        places = set(self._targets) | set(self._appliances)
        places.update(where[o] for o in self._candidates if where[o] != NOWHERE)
        places.update(where[o] for o in self._lamps)
        stray = held != NOWHERE and not self._cand_mask >> held & 1
        if stray:  # a non-goal object in hand must be put down somewhere it fits
            fits = OBJECTS[self.scene.object_kinds[held]].fits
            places.update(r for r, k in enumerate(self.scene.receptacle_kinds) if k in fits)
        out = []
        for action in legal_actions(self.scene, state):
            verb = action[0]
            if verb in ("go", "open"):
                if action[1] in places:
                    out.append(action)
            elif verb == "take":
                if self._cand_mask >> action[1] & 1:
                    out.append(action)
            elif verb == "move":
                if stray or (not self._look and action[2] in self._targets):
                    out.append(action)
            elif verb in ("clean", "heat", "cool"):
                if verb == self.task.transform and self._cand_mask >> action[1] & 1:
                    out.append(action)
            elif verb == "use" and self._look and not state.on >> action[1] & 1:
                out.append(action)
        return out

    # ------------------------------------------------------------------ the heuristic
    def _flag(self, state: State, o: int) -> bool:
        masks = {"clean": state.clean, "heat": state.hot, "cool": state.cool}
        mask = masks.get(self.task.transform)
        return True if mask is None else bool(mask >> o & 1)

    def _to_hand(self, state: State, o: int) -> tuple[int, int]:
        """(actions to get ``o`` in hand, where the agent then is), a lower bound."""
        if state.held == o:
            return 0, state.loc
        w = state.where[o]
        cost = 1 + (state.loc != w) + (not is_open(self.scene, state, w))
        if state.held != NOWHERE:
            cost += 1  # something else must be put down first
        return cost, w

    def heuristic(self, state: State) -> int:
        """A lower bound on the actions left (0 exactly when the goal holds)."""
        if goal_holds(self.scene, state, self.task):
            return 0
        kinds = self.scene.receptacle_kinds
        if self._look:
            lit_somewhere = any(state.on >> lamp & 1 for lamp in self._lamps)
            lamp_places = {state.where[lamp] for lamp in self._lamps}
            best = None
            for o in self._candidates:
                cost, at = self._to_hand(state, o)
                cost += (at not in lamp_places) + (not lit_somewhere)
                best = cost if best is None else min(best, cost)
            return max(best or 1, 1)
        if self.task.count == 2:
            return self._two_heuristic(state)
        targets_closed = all(self._openable[r] and not state.opened >> r & 1
                             for r in self._targets)
        best = None
        for o in self._candidates:
            cost, at = self._to_hand(state, o)
            from_target = state.held != o and kinds[state.where[o]] == self.task.target
            if self.task.transform and not self._flag(state, o):
                cost += 1 + (at == NOWHERE or kinds[at] != APPLIANCE[self.task.transform])
                at = NOWHERE
            cost += 1 + (at == NOWHERE or kinds[at] != self.task.target)
            if targets_closed and not from_target:
                cost += 1
            best = cost if best is None else min(best, cost)
        return max(best or 1, 1)

    def _two_heuristic(self, state: State) -> int:
        held, loc = state.held, state.loc
        stray = held != NOWHERE and not self._cand_mask >> held & 1
        best = None
        for r in self._targets:
            inside = [o for o in self._candidates if state.where[o] == r]
            missing = 2 - len(inside)
            costs = sorted(
                (0 if held == o else 1 + (loc != state.where[o])) + 1
                + (0 if held == o and loc == r else 1)
                for o in self._candidates if state.where[o] != r
            )
            if len(costs) < missing:
                continue
            cost = sum(costs[:missing]) + (self._openable[r] and not state.opened >> r & 1)
            best = cost if best is None else min(best, cost)
        return max((best if best is not None else 1) + stray, 1)

    # ------------------------------------------------------------------ search
    def distance(self, state: State) -> int | None:
        """Length of a shortest plan from ``state``; None if the budget ran out first."""
        key = _key(state)
        if key not in self._cache:
            self._search(state)
        return self._cache.get(key)

    def plan(self, state: State) -> list[Action] | None:
        """A shortest plan from ``state`` (``[]`` if the goal holds), or None."""
        return self._search(state)

    def best_first_actions(self, state: State) -> list[Action] | None:
        """Every relevant action that starts some shortest plan (None: budget ran out)."""
        d = self.distance(state)
        if d is None:
            return None
        out = []
        for action in self.relevant(state):
            after, _ = apply(self.scene, state, action)
            rest = self.distance(after)
            if rest is not None and rest + 1 == d:
                out.append(action)
        return out

    def _search(self, start: State) -> list[Action] | None:
        start = _key(start)
        scene, task = self.scene, self.task
        counter = itertools.count()
        frontier = [(self.heuristic(start), 0, next(counter), start)]
        parent: dict[State, tuple[State, Action] | None] = {start: None}
        cost = {start: 0}
        self.expanded = 0
        while frontier and self.expanded < self.max_nodes:
            _, g, _, state = heapq.heappop(frontier)
            if g > cost[state]:
                continue
            if goal_holds(scene, state, task):
                plan, node = [], state
                while parent[node] is not None:
                    prev, action = parent[node]  # type: ignore[misc]
                    plan.append(action)
                    node = prev
                plan.reverse()
                # Every state on a shortest plan knows its distance now.
                node = start
                for i, action in enumerate(plan):
                    self._cache[node] = len(plan) - i
                    node = _key(apply(scene, node, action)[0])
                self._cache[node] = 0
                return plan
            self.expanded += 1
            for action in self.relevant(state):
                nxt = _key(apply(scene, state, action)[0])
                ng = g + 1
                if ng < cost.get(nxt, ng + 1):
                    cost[nxt] = ng
                    parent[nxt] = (state, action)
                    h = self.heuristic(nxt)
                    heapq.heappush(frontier, (ng + h, ng, next(counter), nxt))
        if not frontier:
            self._cache[start] = None  # unsolvable: no plan at any length
        return None
