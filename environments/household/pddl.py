"""A generated task as a PDDL problem for ALFWorld's own domain (``alfred.pddl``).

The cross-check (``tests/household/test_pddl_crosscheck.py``) loads the problem with
ALFWorld's domain and grammar into TextWorld's PDDL engine and replays the planner's plan
there, so the family's action model is checked against the real one. Names become PDDL
identifiers (``drawer 2`` -> ``drawer_2``, kinds -> ``drawertype``); PDDL is case-blind, so
``sinkbasintype`` is the domain's ``SinkBasinType``. The goal is written ground (a
disjunction over the goal objects and receptacles), which says what the type-level goal
says without quantifiers.

>>> from agentgym.environments.household.world import Scene
>>> from agentgym.environments.household.tasks import Task
>>> scene = Scene("kitchen", ("countertop 1", "fridge 1"), ("countertop", "fridge"),
...               ("apple 1",), ("apple",))
>>> text = problem(scene, (0,), Task("pick_cool_then_place_in_recep", "apple", "countertop"))
>>> "(inReceptacle apple_1 countertop_1)" in text, "(openable fridge_1)" in text
(True, True)
>>> pddl_command("go to fridge 1")
'go to fridge_1'
"""

from __future__ import annotations

import re

from .catalog import LAMP, OBJECTS, RECEPTACLES
from .tasks import Task
from .world import Scene

__all__ = ["pddl_command", "pddl_name", "problem"]

#: Type constants the domain's actions name; a problem must declare them even when unused.
_DOMAIN_RTYPES = ("sinkbasin", "microwave", "fridge")
_DOMAIN_OTYPES = ("knife", "butterknife", LAMP)


def pddl_name(name: str) -> str:
    """``"drawer 2"`` -> ``"drawer_2"``."""
    return name.replace(" ", "_")


def pddl_command(text: str) -> str:
    """Our command in the PDDL game's naming (``take mug 1 from drawer 2`` -> ``mug_1``...)."""
    return re.sub(r"([a-z]+) (\d+)", r"\1_\2", text)


def _goal(scene: Scene, task: Task) -> str:
    objs = [pddl_name(n) for n, k in zip(scene.objects, scene.object_kinds, strict=True)
            if k == task.obj]
    if task.type == "look_at_obj_in_light":
        parts = []
        for o in objs:
            for lamp, kind in zip(scene.objects, scene.object_kinds, strict=True):
                if kind != LAMP:
                    continue
                parts.append(f"(and (holds agent1 {o}) (isOn {pddl_name(lamp)}) "
                             f"(exists (?l - location) (and (atLocation agent1 ?l) "
                             f"(objectAtLocation {pddl_name(lamp)} ?l))))")
        return "(or " + " ".join(parts) + ")"
    targets = [pddl_name(n) for n, k in zip(scene.receptacles, scene.receptacle_kinds,
                                            strict=True) if k == task.target]
    flag = {"clean": "isClean", "heat": "isHot", "cool": "isCool"}.get(task.transform)
    parts = []
    for r in targets:
        if task.count == 2:
            for i, a in enumerate(objs):
                for b in objs[i + 1:]:
                    parts.append(f"(and (inReceptacle {a} {r}) (inReceptacle {b} {r}))")
        else:
            for o in objs:
                extra = f" ({flag} {o})" if flag else ""
                parts.append(f"(and (inReceptacle {o} {r}){extra})")
    return "(or " + " ".join(parts) + ")"


def problem(scene: Scene, where: tuple[int, ...], task: Task) -> str:
    """The PDDL problem text of a scene's start (everything closed, the agent in the middle)."""
    recs = [pddl_name(n) for n in scene.receptacles]
    objs = [pddl_name(n) for n in scene.objects]
    rtypes = sorted(set(scene.receptacle_kinds) | set(_DOMAIN_RTYPES))
    otypes = sorted(set(scene.object_kinds) | set(_DOMAIN_OTYPES))
    init = ["(atLocation agent1 loc_start)"]
    for r, kind in zip(recs, scene.receptacle_kinds, strict=True):
        init.append(f"(receptacleAtLocation {r} loc_{r})")
        init.append(f"(receptacleType {r} {kind}type)")
        if RECEPTACLES[kind].openable:
            init.append(f"(openable {r})")
    for o, kind, w in zip(objs, scene.object_kinds, where, strict=True):
        props = OBJECTS[kind]
        init.append(f"(objectType {o} {kind}type)")
        init.append(f"(inReceptacle {o} {recs[w]})")
        init.append(f"(objectAtLocation {o} loc_{recs[w]})")
        if props.lamp:
            init.append(f"(toggleable {o})")
            continue
        init.append(f"(pickupable {o})")
        init.extend(f"({flag} {o})" for flag, on in (("cleanable", props.cleanable),
                                                     ("heatable", props.heatable),
                                                     ("coolable", props.coolable)) if on)
    for okind in sorted(set(scene.object_kinds)):
        for rkind in sorted(set(scene.receptacle_kinds) & OBJECTS[okind].fits):
            init.append(f"(canContain {rkind}type {okind}type)")
    init.append("(= (total-cost) 0)")
    objects = (
        "agent1 - agent\n    loc_start " + " ".join(f"loc_{r}" for r in recs) + " - location\n"
        f"    {' '.join(recs)} - receptacle\n    {' '.join(objs)} - object\n"
        f"    {' '.join(t + 'type' for t in rtypes)} - rtype\n"
        f"    {' '.join(t + 'type' for t in otypes)} - otype"
    )
    inits = "\n    ".join(init)
    return (
        f"(define (problem household)\n  (:domain alfred)\n  (:objects\n    {objects}\n  )\n"
        f"  (:init\n    {inits}\n  )\n  (:goal {_goal(scene, task)})\n)\n"
    )
