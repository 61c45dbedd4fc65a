"""ALFWorld's six task types: the goal, the sentence that states it, and its milestones.

Goals are over kinds, as in ALFWorld ("put a clean mug in cabinet": any mug, any cabinet):

============================================  =============================================
task type                                     goal
============================================  =============================================
``pick_and_place_simple``                     an X in / on a Y
``look_at_obj_in_light``                      holding an X where a desklamp is switched on
``pick_clean_then_place_in_recep``            a clean X in / on a Y
``pick_heat_then_place_in_recep``             a hot X in / on a Y
``pick_cool_then_place_in_recep``             a cool X in / on a Y
``pick_two_obj_and_place``                    two Xs in / on the same Y
============================================  =============================================

:func:`progress` counts the goal's milestones a state satisfies: *found* (an X has been
seen), *held* (it is in hand, or already placed), *transformed* (clean / hot / cool, or, for
a look-at task, looked at under the lit lamp) and *placed*; for two objects, the first one's
three, then the second one's. It is the potential of the process reward.

>>> from agentgym.environments.household.world import Scene, start_state, apply
>>> scene = Scene("kitchen", ("countertop 1", "cabinet 1"), ("countertop", "cabinet"),
...               ("mug 1",), ("mug",))
>>> task = Task("pick_and_place_simple", "mug", "cabinet")
>>> task.sentence
'put a mug in cabinet.'
>>> state = start_state(scene, (0,))
>>> progress(scene, state, task)
(0, 3)
>>> state, _ = apply(scene, state, ("go", 0))
>>> progress(scene, state, task), goal_holds(scene, state, task)
((1, 3), False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from .catalog import LAMP, RECEPTACLES
from .world import NOWHERE, Scene, State

__all__ = ["TASK_TYPES", "TRANSFORM", "Task", "TaskType", "goal_holds", "progress"]

#: ALFWorld's task types (the config's ``task_type`` adds ``"any"``).
TaskType = Literal[
    "pick_and_place_simple",
    "look_at_obj_in_light",
    "pick_clean_then_place_in_recep",
    "pick_heat_then_place_in_recep",
    "pick_cool_then_place_in_recep",
    "pick_two_obj_and_place",
]
#: ALFWorld's names, in its order.
TASK_TYPES: tuple[str, ...] = get_args(TaskType)
#: The transformation each task type asks for before placing ("" for none).
TRANSFORM: dict[str, str] = {
    "pick_clean_then_place_in_recep": "clean",
    "pick_heat_then_place_in_recep": "heat",
    "pick_cool_then_place_in_recep": "cool",
}
_ADJECTIVE = {"clean": "clean", "heat": "hot", "cool": "cool"}


@dataclass(frozen=True)
class Task:
    """One goal: ``obj`` and ``target`` are kinds (``target`` is ``LAMP`` for look-at)."""

    type: str
    obj: str
    target: str

    @property
    def transform(self) -> str:
        return TRANSFORM.get(self.type, "")

    @property
    def count(self) -> int:
        return 2 if self.type == "pick_two_obj_and_place" else 1

    @property
    def sentence(self) -> str:
        """The task as the agent reads it, after "Your task is to: "."""
        if self.type == "look_at_obj_in_light":
            return f"look at {self.obj} under the {self.target}."
        prep = RECEPTACLES[self.target].preposition
        if self.count == 2:
            return f"put two {self.obj} {prep} {self.target}."
        if self.transform:
            return f"put a {_ADJECTIVE[self.transform]} {self.obj} {prep} {self.target}."
        return f"put a {self.obj} {prep} {self.target}."


def _flag(task: Task, state: State, o: int) -> bool:
    mask = {"clean": state.clean, "heat": state.hot, "cool": state.cool}.get(task.transform)
    return True if mask is None else bool(mask >> o & 1)


def _candidates(scene: Scene, task: Task) -> list[int]:
    return [o for o, k in enumerate(scene.object_kinds) if k == task.obj]


def _lit_here(scene: Scene, state: State) -> bool:
    return state.loc != NOWHERE and any(
        k == LAMP and state.where[o] == state.loc and state.on >> o & 1
        for o, k in enumerate(scene.object_kinds)
    )


def _placed(scene: Scene, state: State, task: Task, o: int) -> bool:
    w = state.where[o]
    return w != NOWHERE and scene.receptacle_kinds[w] == task.target and _flag(task, state, o)


def goal_holds(scene: Scene, state: State, task: Task) -> bool:
    """Whether the task's goal holds in ``state``."""
    if task.type == "look_at_obj_in_light":
        held = state.held
        return held != NOWHERE and scene.object_kinds[held] == task.obj and _lit_here(scene, state)
    if task.count == 2:
        return _most_in_one_target(scene, state, task)[1] >= 2
    return any(_placed(scene, state, task, o) for o in _candidates(scene, task))


def _most_in_one_target(scene: Scene, state: State, task: Task) -> tuple[int, int]:
    """(receptacle, count): the target-kind receptacle holding the most Xs (lowest on ties)."""
    counts: dict[int, int] = {}
    for o in _candidates(scene, task):
        w = state.where[o]
        if w != NOWHERE and scene.receptacle_kinds[w] == task.target:
            counts[w] = counts.get(w, 0) + 1
    if not counts:
        return NOWHERE, 0
    best = min(counts, key=lambda r: (-counts[r], r))
    return best, counts[best]


def progress(scene: Scene, state: State, task: Task) -> tuple[int, int]:
    """(milestones satisfied, milestones in all); the goal holds exactly when they are equal.

    The best object counts (a maximum, not a sum): seeing a second mug earns nothing while
    one is in hand, so the milestones never reward a detour.
    """
    seen, held = state.seen, state.held
    candidates = _candidates(scene, task)

    def found(o: int) -> int:
        return seen >> o & 1

    if task.type == "look_at_obj_in_light":
        if goal_holds(scene, state, task):
            return 3, 3
        return max((found(o) + (held == o) for o in candidates), default=0), 3
    if task.count == 2:
        target, placed = _most_in_one_target(scene, state, task)
        if placed >= 2:
            return 6, 6
        if placed == 1:
            rest = [o for o in candidates if state.where[o] != target]
            return 3 + max((found(o) + (held == o) for o in rest), default=0), 6
        return max((found(o) + (held == o) for o in candidates), default=0), 6
    total = 4 if task.transform else 3
    best = 0
    for o in candidates:
        placed = _placed(scene, state, task, o)
        score = found(o) + (held == o or placed) + placed
        if task.transform:
            score += _flag(task, state, o)
        best = max(best, score)
    return best, total
