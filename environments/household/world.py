"""The rules of a household room: its things, the state, the commands and what they do.

A :class:`Scene` is what never changes in an episode (the receptacles and objects, by name
and kind); a :class:`State` is everything that does (where the agent is, what it holds,
what is open, where each object is, which are clean / hot / cool / switched on, which it
has seen), as a tuple of ints and bitmasks so a planner can hash and copy it cheaply.

Actions are tuples (``("go", r)``, ``("take", o, r)``, ...) over receptacle and object
indices; :func:`command` writes the text an agent types and :func:`apply` runs one. The
action model follows ALFWorld's PDDL domain (``alfred.pddl``): one step to go to any
receptacle; a closed receptacle must be opened before taking from or putting into it;
one object in hand; cleaning needs a sink basin, heating a microwave, cooling a fridge,
none of them open; a lamp is switched where it stands.

>>> scene = Scene("kitchen", ("countertop 1", "fridge 1"), ("countertop", "fridge"),
...               ("apple 1",), ("apple",))
>>> state = start_state(scene, (0,))
>>> state, text = apply(scene, state, ("go", 0))
>>> text
'You arrive at countertop 1. On the countertop 1 there is an apple 1.'
>>> [command(scene, a) for a in legal_actions(scene, state)][:3]
['take apple 1 from countertop 1', 'examine countertop 1', 'look']
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import NamedTuple

from .catalog import APPLIANCE, OBJECTS, RECEPTACLES

__all__ = [
    "Action",
    "Scene",
    "State",
    "apply",
    "command",
    "describe_receptacle",
    "legal_actions",
    "opening_view",
    "start_state",
    "state_key",
    "visible",
]

Action = tuple  # ("go", r) | ("open", r) | ("close", r) | ("take", o, r) | ("move", o, r)
#                | ("heat" | "cool" | "clean", o, r) | ("use", o) | ("examine", r)
#                | ("inspect", o) | ("look",) | ("inventory",)

NOWHERE = -1  # State.loc in the middle of the room; State.where of the object in hand


@dataclass(frozen=True)
class Scene:
    """The fixed part of an episode: receptacle and object names (``"drawer 2"``) and kinds."""

    room: str
    receptacles: tuple[str, ...]
    receptacle_kinds: tuple[str, ...]
    objects: tuple[str, ...]
    object_kinds: tuple[str, ...]

    @property
    def openable(self) -> int:
        """Bitmask of the receptacles that open and close."""
        return sum(1 << r for r, k in enumerate(self.receptacle_kinds) if RECEPTACLES[k].openable)

    def digest(self) -> str:
        """A short fingerprint of the scene (for state keys across episodes)."""
        blob = "|".join((self.room, *self.receptacles, "#", *self.objects))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


class State(NamedTuple):
    """Everything that changes; bitmasks index receptacles (``opened``) or objects."""

    loc: int  # receptacle the agent is at, NOWHERE at the start
    held: int  # object in hand, NOWHERE if none
    opened: int
    where: tuple[int, ...]  # receptacle of each object, NOWHERE for the one in hand
    hot: int
    cool: int
    clean: int
    on: int
    seen: int


def start_state(scene: Scene, where: tuple[int, ...]) -> State:
    """The agent in the middle of the room, hands empty, everything closed and unseen."""
    return State(NOWHERE, NOWHERE, 0, tuple(where), 0, 0, 0, 0, 0)


def _bit(mask: int, i: int) -> bool:
    return bool(mask >> i & 1)


def is_open(scene: Scene, state: State, r: int) -> bool:
    """Whether the inside of receptacle ``r`` can be seen and reached."""
    return not RECEPTACLES[scene.receptacle_kinds[r]].openable or _bit(state.opened, r)


def visible(scene: Scene, state: State, r: int) -> list[int]:
    """The objects in receptacle ``r`` that can be seen (none while it is closed)."""
    if not is_open(scene, state, r):
        return []
    return [o for o, w in enumerate(state.where) if w == r]


def _a(name: str) -> str:
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _listing(names: list[str]) -> str:
    if not names:
        return "nothing"
    items = [_a(n) for n in names]
    if len(items) == 1:
        return items[0]
    if len(items) == 2:
        return f"{items[0]} and {items[1]}"
    return ", ".join(items[:-1]) + f", and {items[-1]}"


def describe_receptacle(scene: Scene, state: State, r: int) -> str:
    """What the agent sees at receptacle ``r`` (closed, or its contents)."""
    name, kind = scene.receptacles[r], RECEPTACLES[scene.receptacle_kinds[r]]
    if kind.openable and not _bit(state.opened, r):
        return f"The {name} is closed."
    contents = _listing([scene.objects[o] for o in visible(scene, state, r)])
    if kind.openable:
        return f"The {name} is open; inside there is {contents}."
    return f"{kind.preposition.capitalize()} the {name} there is {contents}."


def opening_view(scene: Scene) -> str:
    """The first thing an episode says: the room and its receptacles."""
    return (
        f"You stand in the middle of a {scene.room}. Around you are "
        f"{_listing(list(scene.receptacles))}."
    )


def command(scene: Scene, action: Action) -> str:
    """The text an agent types for ``action``.

    >>> scene = Scene("kitchen", ("sinkbasin 1",), ("sinkbasin",), ("mug 1",), ("mug",))
    >>> command(scene, ("clean", 0, 0)), command(scene, ("move", 0, 0))
    ('clean mug 1 with sinkbasin 1', 'move mug 1 to sinkbasin 1')
    """
    verb = action[0]
    if verb in ("look", "inventory"):
        return verb
    if verb in ("go", "open", "close", "examine"):
        target = scene.receptacles[action[1]]
        return f"go to {target}" if verb == "go" else f"{verb} {target}"
    if verb == "use":
        return f"use {scene.objects[action[1]]}"
    if verb == "inspect":
        return f"examine {scene.objects[action[1]]}"
    obj, rec = scene.objects[action[1]], scene.receptacles[action[2]]
    if verb == "take":
        return f"take {obj} from {rec}"
    if verb == "move":
        return f"move {obj} to {rec}"
    return f"{verb} {obj} with {rec}"


def legal_actions(scene: Scene, state: State) -> list[Action]:
    """The admissible actions, in a fixed order: what can be done here, then the go-tos."""
    out: list[Action] = []
    loc, held = state.loc, state.held
    if loc != NOWHERE:
        kind = scene.receptacle_kinds[loc]
        openable = RECEPTACLES[kind].openable
        if openable:
            out.append(("close", loc) if _bit(state.opened, loc) else ("open", loc))
        if is_open(scene, state, loc):
            for o in visible(scene, state, loc):
                if held == NOWHERE and not OBJECTS[scene.object_kinds[o]].lamp:
                    out.append(("take", o, loc))
            if held != NOWHERE and kind in OBJECTS[scene.object_kinds[held]].fits:
                out.append(("move", held, loc))
        if held != NOWHERE:
            props = OBJECTS[scene.object_kinds[held]]
            for verb, can in (("clean", props.cleanable), ("heat", props.heatable),
                              ("cool", props.coolable)):
                if can and kind == APPLIANCE[verb]:
                    out.append((verb, held, loc))
        for o, w in enumerate(state.where):
            if w == loc and OBJECTS[scene.object_kinds[o]].lamp:
                out.append(("use", o))
        out.append(("examine", loc))
    if held != NOWHERE:
        out.append(("inspect", held))
    out.append(("look",))
    out.append(("inventory",))
    out.extend(("go", r) for r in range(len(scene.receptacles)) if r != loc)
    return out


def _see(scene: Scene, state: State, r: int) -> int:
    seen = state.seen
    for o in visible(scene, state, r):
        seen |= 1 << o
    return seen


def apply(scene: Scene, state: State, action: Action) -> tuple[State, str]:
    """Run a legal ``action``: the new state and what the agent is told.

    The caller guarantees legality (:func:`legal_actions`); the env refuses anything else
    before it gets here.
    """
    verb = action[0]
    if verb == "go":
        r = action[1]
        moved = state._replace(loc=r)
        moved = moved._replace(seen=_see(scene, moved, r))
        seen_there = describe_receptacle(scene, moved, r)
        return moved, f"You arrive at {scene.receptacles[r]}. {seen_there}"
    if verb == "open":
        r = action[1]
        opened = state._replace(opened=state.opened | 1 << r)
        opened = opened._replace(seen=_see(scene, opened, r))
        contents = _listing([scene.objects[o] for o in visible(scene, opened, r)])
        return opened, f"You open the {scene.receptacles[r]}. Inside there is {contents}."
    if verb == "close":
        r = action[1]
        closed = state._replace(opened=state.opened & ~(1 << r))
        return closed, f"You close the {scene.receptacles[r]}."
    if verb == "take":
        o, r = action[1], action[2]
        where = list(state.where)
        where[o] = NOWHERE
        text = f"You pick up the {scene.objects[o]} from the {scene.receptacles[r]}."
        return state._replace(held=o, where=tuple(where)), text
    if verb == "move":
        o, r = action[1], action[2]
        where = list(state.where)
        where[o] = r
        prep = RECEPTACLES[scene.receptacle_kinds[r]].preposition
        text = f"You put the {scene.objects[o]} {prep} the {scene.receptacles[r]}."
        return state._replace(held=NOWHERE, where=tuple(where)), text
    if verb in ("clean", "heat", "cool"):
        o, r = action[1], action[2]
        bit = 1 << o
        if verb == "clean":
            new = state._replace(clean=state.clean | bit)
        elif verb == "heat":  # heating undoes cooling and the other way round, as in ALFWorld
            new = state._replace(hot=state.hot | bit, cool=state.cool & ~bit)
        else:
            new = state._replace(cool=state.cool | bit, hot=state.hot & ~bit)
        return new, f"You {verb} the {scene.objects[o]} in the {scene.receptacles[r]}."
    if verb == "use":
        o = action[1]
        on = state.on ^ 1 << o
        word = "on" if _bit(on, o) else "off"
        return state._replace(on=on), f"You switch {word} the {scene.objects[o]}."
    if verb == "examine":
        return state, describe_receptacle(scene, state, action[1])
    if verb == "inspect":
        return state, f"You look closely: {_describe_object(scene, state, action[1])}."
    if verb == "look":
        if state.loc == NOWHERE:
            return state, opening_view(scene)
        here = scene.receptacles[state.loc]
        return state, f"You are at {here}. {describe_receptacle(scene, state, state.loc)}"
    if verb == "inventory":
        if state.held == NOWHERE:
            return state, "Your hands are empty."
        return state, f"In your hands: {_describe_object(scene, state, state.held)}."
    raise ValueError(f"unknown action {action!r}")


def _describe_object(scene: Scene, state: State, o: int) -> str:
    words = [w for w, mask in (("clean", state.clean), ("hot", state.hot), ("cool", state.cool))
             if _bit(mask, o)]
    name = " ".join([*words, scene.objects[o]])
    if OBJECTS[scene.object_kinds[o]].lamp:
        return f"{_a(name)}, switched {'on' if _bit(state.on, o) else 'off'}"
    return _a(name)


def state_key(scene: Scene, task: str, state: State) -> str:
    """A canonical key of what the agent knows of ``state``: within one episode (one scene
    and task) it is equal exactly when the two states are the same.

    It covers the room, its receptacles, the task sentence, where the agent is, what it
    holds, what is open, where each object it has *seen* is (by name), and which objects its
    commands made clean, hot, cool or switched on. Objects not seen yet are left out: the
    agent cannot know them, and nothing moves an object before it is seen, so within an
    episode leaving them out never merges two different states. (A key over every object
    was a fingerprint of hidden state, shown in ``info`` while the episode ran: a different
    key for every hidden layout behind the same view.) Feedback text is not part of it
    either, so GiGPO-style grouping sees two visits of a state as one even when they were
    reached by different commands.

    >>> scene = Scene("kitchen", ("countertop 1", "drawer 1"), ("countertop", "drawer"),
    ...               ("apple 1", "mug 1"), ("apple", "mug"))
    >>> state_key(scene, "t", start_state(scene, (1, 0))) == state_key(
    ...     scene, "t", start_state(scene, (0, 1)))  # unseen objects: nothing to tell apart
    True
    """
    seen = sorted((scene.objects[o], scene.receptacles[w] if w != NOWHERE else "hand")
                  for o, w in enumerate(state.where) if _bit(state.seen, o))
    # Only the agent's own commands set these, each naming its object: all known to it.
    flags = [sorted(scene.objects[o] for o in range(len(scene.objects)) if _bit(mask, o))
             for mask in (state.clean, state.hot, state.cool, state.on)]
    held = scene.objects[state.held] if state.held != NOWHERE else ""
    loc = scene.receptacles[state.loc] if state.loc != NOWHERE else ""
    blob = "|".join((scene.room, *scene.receptacles, "#", task, loc, held, str(state.opened),
                     repr(seen), repr(flags)))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]
