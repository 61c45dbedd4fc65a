"""Seeded rooms and tasks, with ALFWorld's three splits.

* A *layout* is a room kind and how many receptacles of each kind it has. Layouts fall in
  two disjoint pools by a hash of their contents (:func:`layout_pool`): ``train`` layouts
  (which the ``train`` and ``seen`` splits use) and ``unseen`` ones, so an unseen layout is
  never one a policy trained on, by construction, not by luck.
* An *episode* is a layout from the split's pool, objects placed where the catalog says
  they fit, and a task of the requested type. ``train`` and ``seen`` episodes are told
  apart by a hash of the whole episode, so a ``seen`` task is never a ``train`` task
  (ALFWorld's "valid seen": known rooms, new tasks).
* No target-kind receptacle starts with an object of the goal's kind and lamps start off,
  so a generated goal never already holds.

All draws go through :class:`agentgym.draws.Draws`, so a seed means one episode everywhere.

>>> import numpy as np
>>> episode = generate(np.random.default_rng(0), split="train", task_type="any")
>>> episode.task.type in TASK_TYPES, episode.scene.receptacles[0]
(True, 'cabinet 1')
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from agentgym.draws import Draws

from .catalog import APPLIANCE, LAMP, OBJECTS, ROOMS
from .tasks import TASK_TYPES, TRANSFORM, Task
from .world import Scene

__all__ = [
    "SPLITS",
    "TRAIN_LAYOUTS",
    "UNSEEN_LAYOUTS",
    "Episode",
    "Layout",
    "generate",
    "layout_pool",
    "layouts",
]

SPLITS: tuple[str, ...] = ("train", "seen", "unseen")
TRAIN_LAYOUTS = 120  # ALFWorld trains on 108 scenes of 4 room kinds: the same order
UNSEEN_LAYOUTS = 24
#: Where each task type can happen (ALFWorld's task types keep to such rooms too).
ROOMS_FOR: dict[str, tuple[str, ...]] = {
    "pick_and_place_simple": ("kitchen", "livingroom", "bedroom", "bathroom"),
    "look_at_obj_in_light": ("livingroom", "bedroom"),
    "pick_clean_then_place_in_recep": ("kitchen", "bathroom"),
    "pick_heat_then_place_in_recep": ("kitchen",),
    "pick_cool_then_place_in_recep": ("kitchen",),
    "pick_two_obj_and_place": ("kitchen", "livingroom", "bedroom", "bathroom"),
}
_ROOM_ORDER = ("kitchen", "livingroom", "bedroom", "bathroom")
_MAX_TRIES = 200  # placements tried per episode; the tests show a handful suffice


@dataclass(frozen=True)
class Layout:
    """A room kind and its receptacles, as ``(kind, count)`` pairs in alphabetical order."""

    room: str
    counts: tuple[tuple[str, int], ...]

    def signature(self) -> str:
        return self.room + ":" + ",".join(f"{k}={n}" for k, n in self.counts)

    def receptacles(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(names, kinds) of its receptacles: ``cabinet 1``, ``cabinet 2``, ..."""
        names, kinds = [], []
        for kind, n in self.counts:
            for i in range(1, n + 1):
                names.append(f"{kind} {i}")
                kinds.append(kind)
        return tuple(names), tuple(kinds)


def layout_pool(layout: Layout) -> str:
    """``"unseen"`` for about one layout in five (by a hash of its contents), else ``"train"``.

    >>> layout_pool(Layout("kitchen", (("cabinet", 3), ("fridge", 1))))
    'train'
    """
    digest = hashlib.sha256(layout.signature().encode()).digest()
    return "unseen" if digest[0] % 5 == 0 else "train"


def _draw_layout(draws: Draws, room: str) -> Layout:
    spec = ROOMS[room].receptacles
    counts = []
    for kind in sorted(spec):
        low, high = spec[kind]
        n = low + draws.below(high - low + 1)
        if n:
            counts.append((kind, n))
    return Layout(room, tuple(counts))


@lru_cache(maxsize=4)
def layouts(pool: str) -> tuple[Layout, ...]:
    """The fixed, ordered layouts of a pool (``train``: 120, ``unseen``: 24), distinct."""
    size = TRAIN_LAYOUTS if pool == "train" else UNSEEN_LAYOUTS
    out: list[Layout] = []
    known: set[str] = set()
    # One fixed stream per pool: the pools never change with the episode seed.
    draws = Draws(np.random.default_rng(20_190 if pool == "train" else 20_191))
    while len(out) < size:
        layout = _draw_layout(draws, _ROOM_ORDER[len(out) % len(_ROOM_ORDER)])
        if layout_pool(layout) == pool and layout.signature() not in known:
            known.add(layout.signature())
            out.append(layout)
    return tuple(out)


@dataclass(frozen=True)
class Episode:
    """A generated episode: the scene, the starting receptacle of each object and the task."""

    scene: Scene
    where: tuple[int, ...]
    task: Task
    layout_index: int

    def signature(self) -> str:
        return "|".join((self.scene.room, *self.scene.receptacles, "#", *self.scene.objects,
                         "#", *map(str, self.where), "#", self.task.type, self.task.obj,
                         self.task.target))


def _episode_part(episode: Episode) -> str:
    """Which of ``train`` / ``seen`` an episode on a train layout belongs to (one in five)."""
    digest = hashlib.sha256(episode.signature().encode()).digest()
    return "seen" if digest[0] % 5 == 0 else "train"


def _place(draws: Draws, layout: Layout, task_type: str) -> tuple[list[str], list[int]]:
    """Object kinds (one entry per instance) and the receptacle index each starts in."""
    names, kinds = layout.receptacles()
    pool = [k for k in ROOMS[layout.room].objects if k != LAMP]
    chosen = draws.sample(pool, min(len(pool), 4 + draws.below(5)))
    objects: list[str] = []
    for kind in chosen:
        objects.extend([kind] * (1 + draws.below(3)))
    if task_type == "look_at_obj_in_light" or (LAMP in ROOMS[layout.room].objects
                                               and draws.below(2)):
        objects.append(LAMP)
    where = []
    for kind in objects:
        spots = [r for r, k in enumerate(kinds) if k in OBJECTS[kind].fits]
        where.append(draws.pick(spots) if spots else -1)
    keep = [i for i, w in enumerate(where) if w >= 0]
    return [objects[i] for i in keep], [where[i] for i in keep]


def _tasks(task_type: str, layout: Layout, objects: list[str], where: list[int]) -> list[Task]:
    """Every task of ``task_type`` this placement allows whose goal does not hold yet."""
    _, kinds = layout.receptacles()
    present = set(kinds)
    out = []
    for obj in sorted(set(objects)):
        props = OBJECTS[obj]
        if props.lamp:
            continue
        if task_type == "look_at_obj_in_light":
            if LAMP in objects:
                out.append(Task(task_type, obj, LAMP))
            continue
        transform = TRANSFORM.get(task_type, "")
        if transform:
            can = {"clean": props.cleanable, "heat": props.heatable, "cool": props.coolable}
            if not can[transform] or APPLIANCE[transform] not in present:
                continue
        if task_type == "pick_two_obj_and_place" and objects.count(obj) < 2:
            continue
        starts = {kinds[w] for k, w in zip(objects, where, strict=True) if k == obj}
        for target in sorted(present & props.fits):
            if target in starts or target == APPLIANCE.get(transform):
                continue
            out.append(Task(task_type, obj, target))
    return out


def generate(rng: np.random.Generator, *, split: str, task_type: str) -> Episode:
    """One episode of ``split`` (train | seen | unseen); ``task_type`` a type or ``"any"``."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    if task_type != "any" and task_type not in TASK_TYPES:
        raise ValueError(f"task_type must be 'any' or one of {TASK_TYPES}, got {task_type!r}")
    draws = Draws(rng)
    kind = draws.pick(TASK_TYPES) if task_type == "any" else task_type
    pool = layouts("unseen" if split == "unseen" else "train")
    usable = [i for i, lay in enumerate(pool) if lay.room in ROOMS_FOR[kind]]
    for _ in range(_MAX_TRIES):
        index = draws.pick(usable)
        layout = pool[index]
        objects, where = _place(draws, layout, kind)
        options = _tasks(kind, layout, objects, where)
        if not options:
            continue
        task = draws.pick(options)
        # Objects named per kind in alphabetical order, so "mug 2" reads like ALFWorld's.
        order = sorted(range(len(objects)), key=lambda i: (objects[i], i))
        numbered: dict[str, int] = {}
        names = []
        for i in order:
            numbered[objects[i]] = numbered.get(objects[i], 0) + 1
            names.append(f"{objects[i]} {numbered[objects[i]]}")
        rec_names, rec_kinds = layout.receptacles()
        scene = Scene(layout.room, rec_names, rec_kinds, tuple(names),
                      tuple(objects[i] for i in order))
        episode = Episode(scene, tuple(where[i] for i in order), task, index)
        if split == "unseen" or _episode_part(episode) == split:
            return episode
    raise RuntimeError(f"no {kind} episode after {_MAX_TRIES} tries")  # not reached in tests
