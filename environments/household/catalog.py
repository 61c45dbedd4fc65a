"""The family's tables: which receptacles a room has, and which objects fit where.

Everything the generator and the rules know about kinds of things is here, as data:

* :data:`RECEPTACLES`: each receptacle kind, whether it opens and closes, and the word the
  text uses for putting something there ("in" a drawer, "on" a shelf);
* :data:`OBJECTS`: each object kind, what can be done to it (clean, heat, cool, switch on)
  and the receptacle kinds it fits, both where it may start and where it may be put
  (ALFWorld's PDDL domain uses one ``canContain`` relation for both; so does this table);
* :data:`ROOMS`: the four room kinds and, per kind, how many receptacles of each kind a
  layout may have.

The names are ALFWorld's (lower-case, one word: ``sinkbasin``, ``countertop``), so a task
reads the same here as there. The table is this family's own choice of which pairs fit.

>>> RECEPTACLES["fridge"].openable, RECEPTACLES["countertop"].preposition
(True, 'on')
>>> "fridge" in OBJECTS["apple"].fits, OBJECTS["apple"].heatable
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "APPLIANCE",
    "LAMP",
    "OBJECTS",
    "RECEPTACLES",
    "ROOMS",
    "ObjectKind",
    "ReceptacleKind",
    "RoomKind",
    "fits",
]


@dataclass(frozen=True)
class ReceptacleKind:
    """A kind of receptacle: ``openable`` ones start closed and hide what is inside."""

    name: str
    openable: bool
    preposition: str  # "in" or "on": how the text says an object is put there


@dataclass(frozen=True)
class ObjectKind:
    """A kind of object and the receptacle kinds it fits (``fits``)."""

    name: str
    fits: frozenset[str]
    cleanable: bool = False
    heatable: bool = False
    coolable: bool = False
    #: Switchable, never picked up (the desk lamp of "look at X under the desklamp").
    lamp: bool = False


@dataclass(frozen=True)
class RoomKind:
    """A room kind: ``receptacles`` maps a receptacle kind to its (min, max) count."""

    name: str
    receptacles: dict[str, tuple[int, int]]
    #: Object kinds that may appear in the room (placed where they fit and the room has).
    objects: tuple[str, ...]


def _r(name: str, openable: bool = False) -> ReceptacleKind:
    return ReceptacleKind(name, openable, "in" if openable else "on")


RECEPTACLES: dict[str, ReceptacleKind] = {
    r.name: r
    for r in (
        _r("cabinet", True), _r("drawer", True), _r("fridge", True), _r("microwave", True),
        _r("safe", True), _r("countertop"), _r("diningtable"), _r("shelf"), _r("sidetable"),
        _r("desk"), _r("dresser"), _r("stoveburner"), _r("coffeemachine"), _r("toaster"),
        _r("garbagecan"), _r("sinkbasin"), _r("bed"), _r("sofa"), _r("armchair"),
        _r("coffeetable"), _r("tvstand"), _r("ottoman"), _r("toilet"), _r("bathtubbasin"),
        _r("towelholder"), _r("handtowelholder"), _r("toiletpaperhanger"),
    )
}
RECEPTACLES["sinkbasin"] = ReceptacleKind("sinkbasin", False, "in")
RECEPTACLES["garbagecan"] = ReceptacleKind("garbagecan", False, "in")
RECEPTACLES["bathtubbasin"] = ReceptacleKind("bathtubbasin", False, "in")

#: The receptacle kind that performs each transformation (ALFWorld's domain: a sink basin
#: cleans, a microwave heats, a fridge cools; none of them needs to be open for it).
APPLIANCE: dict[str, str] = {"clean": "sinkbasin", "heat": "microwave", "cool": "fridge"}
#: The lamp kind of the look-at tasks.
LAMP = "desklamp"

_KITCHEN_SURFACES = frozenset({"countertop", "diningtable", "cabinet", "drawer", "shelf"})
_FOOD = _KITCHEN_SURFACES | {"fridge", "microwave", "garbagecan", "sinkbasin"}
_DISH = _KITCHEN_SURFACES | {"fridge", "microwave", "sinkbasin", "coffeemachine"}
_UTENSIL = frozenset({"countertop", "diningtable", "drawer", "sinkbasin", "cabinet"})
_DESK_ITEM = frozenset({"desk", "sidetable", "dresser", "shelf", "drawer", "coffeetable",
                        "diningtable", "bed", "sofa", "armchair", "ottoman", "tvstand", "safe"})
_SMALL = frozenset({"desk", "sidetable", "dresser", "shelf", "drawer", "coffeetable",
                    "diningtable", "tvstand", "safe", "cabinet"})
_BATH = frozenset({"countertop", "cabinet", "shelf", "toilet", "sinkbasin", "bathtubbasin",
                   "garbagecan", "drawer", "dresser"})


def _o(name: str, fits: frozenset[str], **flags: bool) -> ObjectKind:
    return ObjectKind(name, frozenset(fits), **flags)


OBJECTS: dict[str, ObjectKind] = {
    o.name: o
    for o in (
        _o("apple", _FOOD, cleanable=True, heatable=True, coolable=True),
        _o("bread", _FOOD - {"sinkbasin"}, heatable=True, coolable=True),
        _o("egg", _FOOD, cleanable=True, heatable=True, coolable=True),
        _o("potato", _FOOD, cleanable=True, heatable=True, coolable=True),
        _o("tomato", _FOOD, cleanable=True, heatable=True, coolable=True),
        _o("lettuce", _FOOD - {"microwave"}, cleanable=True, coolable=True),
        _o("mug", _DISH, cleanable=True, heatable=True, coolable=True),
        _o("cup", _DISH, cleanable=True, heatable=True, coolable=True),
        _o("plate", _DISH - {"coffeemachine"}, cleanable=True, heatable=True, coolable=True),
        _o("bowl", _DISH - {"coffeemachine"}, cleanable=True, coolable=True),
        _o("pan", _KITCHEN_SURFACES | {"stoveburner", "sinkbasin", "fridge"},
           cleanable=True, coolable=True),
        _o("pot", _KITCHEN_SURFACES | {"stoveburner", "sinkbasin", "fridge"},
           cleanable=True, coolable=True),
        _o("winebottle", _KITCHEN_SURFACES | {"fridge", "garbagecan"}, coolable=True),
        _o("knife", _UTENSIL, cleanable=True),
        _o("fork", _UTENSIL, cleanable=True),
        _o("spoon", _UTENSIL, cleanable=True),
        _o("spatula", _UTENSIL, cleanable=True),
        _o("ladle", _UTENSIL, cleanable=True),
        _o("dishsponge", _UTENSIL | {"garbagecan"}, cleanable=True),
        _o("saltshaker", _KITCHEN_SURFACES),
        _o("peppershaker", _KITCHEN_SURFACES),
        _o("book", _DESK_ITEM),
        _o("cellphone", _DESK_ITEM),
        _o("creditcard", _DESK_ITEM),
        _o("keychain", _DESK_ITEM),
        _o("pen", _SMALL | {"garbagecan"}),
        _o("pencil", _SMALL | {"garbagecan"}),
        _o("alarmclock", _SMALL),
        _o("cd", _SMALL | {"garbagecan"}),
        _o("remotecontrol", _DESK_ITEM),
        _o("pillow", frozenset({"bed", "sofa", "armchair", "ottoman"})),
        _o("laptop", frozenset({"desk", "bed", "sofa", "diningtable", "coffeetable",
                                "dresser", "ottoman"})),
        _o("statue", _SMALL - {"drawer"}),
        _o("vase", _SMALL - {"drawer"}),
        _o("watch", _DESK_ITEM),
        _o("soapbar", _BATH, cleanable=True),
        _o("cloth", _BATH, cleanable=True),
        _o("handtowel", _BATH | {"handtowelholder"}, cleanable=True),
        _o("towel", frozenset({"towelholder", "cabinet", "shelf", "countertop"})),
        _o("toiletpaper", frozenset({"toiletpaperhanger", "cabinet", "countertop", "toilet",
                                     "shelf", "garbagecan", "drawer"})),
        _o("spraybottle", frozenset({"cabinet", "countertop", "toilet", "shelf",
                                     "garbagecan", "drawer"})),
        _o("soapbottle", frozenset({"cabinet", "countertop", "toilet", "shelf",
                                    "garbagecan", "bathtubbasin"})),
        _o("candle", frozenset({"cabinet", "countertop", "toilet", "shelf",
                                "bathtubbasin", "drawer"})),
        _o(LAMP, frozenset({"desk", "sidetable", "dresser"}), lamp=True),
    )
}


def fits(obj: str, receptacle: str) -> bool:
    """Whether an object of kind ``obj`` may be put in / on a receptacle of kind ``receptacle``.

    >>> fits("mug", "coffeemachine"), fits("pillow", "fridge")
    (True, False)
    """
    return receptacle in OBJECTS[obj].fits


ROOMS: dict[str, RoomKind] = {
    "kitchen": RoomKind(
        "kitchen",
        {"cabinet": (3, 8), "drawer": (2, 6), "countertop": (1, 3), "fridge": (1, 1),
         "microwave": (1, 1), "sinkbasin": (1, 2), "stoveburner": (2, 4), "diningtable": (0, 1),
         "shelf": (0, 3), "coffeemachine": (1, 1), "toaster": (0, 1), "garbagecan": (1, 1)},
        ("apple", "bread", "egg", "potato", "tomato", "lettuce", "mug", "cup", "plate", "bowl",
         "pan", "pot", "winebottle", "knife", "fork", "spoon", "spatula", "ladle", "dishsponge",
         "saltshaker", "peppershaker"),
    ),
    "livingroom": RoomKind(
        "livingroom",
        {"sofa": (1, 2), "armchair": (0, 2), "coffeetable": (1, 2), "tvstand": (0, 1),
         "sidetable": (1, 3), "shelf": (0, 4), "drawer": (0, 4), "cabinet": (0, 4),
         "diningtable": (0, 1), "ottoman": (0, 1), "garbagecan": (1, 1), "safe": (0, 1),
         "desk": (0, 1)},
        ("book", "cellphone", "creditcard", "keychain", "remotecontrol", "pillow", "laptop",
         "statue", "vase", "watch", "cd", LAMP),
    ),
    "bedroom": RoomKind(
        "bedroom",
        {"bed": (1, 1), "desk": (1, 2), "sidetable": (0, 2), "dresser": (0, 1),
         "drawer": (2, 6), "shelf": (0, 4), "garbagecan": (1, 1), "safe": (0, 1),
         "armchair": (0, 1)},
        ("book", "cellphone", "creditcard", "keychain", "pen", "pencil", "alarmclock", "cd",
         "pillow", "laptop", "watch", "statue", "vase", "remotecontrol", LAMP),
    ),
    "bathroom": RoomKind(
        "bathroom",
        {"countertop": (1, 1), "sinkbasin": (1, 2), "cabinet": (2, 4), "drawer": (0, 4),
         "toilet": (1, 1), "bathtubbasin": (0, 1), "towelholder": (0, 1),
         "handtowelholder": (0, 1), "toiletpaperhanger": (1, 1), "shelf": (0, 2),
         "garbagecan": (1, 1), "dresser": (0, 1)},
        ("soapbar", "cloth", "handtowel", "towel", "toiletpaper", "spraybottle", "soapbottle",
         "candle"),
    ),
}
