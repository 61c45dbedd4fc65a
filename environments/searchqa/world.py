"""A seeded fictional encyclopedia: entities, their relations, and articles cut into passages.

The world is made up from a seed, so no model can answer its questions from memory. It holds
countries, cities, people, organisations and works, linked by relations (a person's
birthplace, a work's creator, an organisation's founder ...) and carrying literal facts
(years, occupations, genres, rivers, currencies). Each entity has a two-passage article: the
facts of each section stated once, in the subject's own article only (a person's article
never lists their works), mixed with distractor sentences that mention unrelated entities.

With ``namesakes`` some people and works share their name with another of a different
occupation or medium; titles then carry the disambiguator ("Ilsa Varnholm (painter)").

>>> world = build_world(0)
>>> len(world.entities), len(world.passages)
(188, 376)
>>> p = world.passages[0]
>>> p.id, p.title == world.entities[0].name
('country-0-0', True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from agentgym.draws import Draws

from .corpus import Passage

__all__ = [
    "KINDS",
    "MAX_SCALE",
    "RELATIONS",
    "Entity",
    "Relation",
    "World",
    "build_world",
]

#: Entity kinds and how many of each a world of scale 1 has.
KINDS: dict[str, int] = {"country": 8, "city": 32, "person": 64, "organisation": 24,
                         "work": 60}
_WORLD_STREAM = 0x5EA7C4


@dataclass(frozen=True, slots=True)
class Relation:
    """A fact type: its subject kind, object kind (None for a literal) and article section."""

    name: str
    subject: str
    target: str | None
    section: int


RELATIONS: dict[str, Relation] = {
    r.name: r
    for r in (
        Relation("occupation", "person", None, 0),
        Relation("birthplace", "person", "city", 0),
        Relation("birth_year", "person", None, 0),
        Relation("employer", "person", "organisation", 1),
        Relation("industry", "organisation", None, 0),
        Relation("headquarters", "organisation", "city", 0),
        Relation("founded", "organisation", None, 0),
        Relation("founder", "organisation", "person", 1),
        Relation("genre", "work", None, 0),
        Relation("creator", "work", "person", 0),
        Relation("released", "work", None, 0),
        Relation("publisher", "work", "organisation", 1),
        Relation("country", "city", "country", 0),
        Relation("city_founded", "city", None, 0),
        Relation("river", "city", None, 1),
        Relation("capital", "country", "city", 0),
        Relation("independence", "country", None, 0),
        Relation("currency", "country", None, 1),
    )
}
SECTIONS: dict[str, tuple[str, str]] = {
    "country": ("overview", "economy"),
    "city": ("overview", "geography"),
    "person": ("early life", "career"),
    "organisation": ("overview", "history"),
    "work": ("overview", "reception"),
}

_ONSETS = ("b", "br", "d", "dr", "f", "g", "h", "k", "kr", "l", "m", "n", "p", "r", "s", "st",
           "t", "th", "v", "z", "sh", "gr", "ch", "j")
_VOWELS = ("a", "e", "i", "o", "u", "ae", "ei", "ou", "ia")
_CODAS = ("", "", "n", "r", "l", "s", "th", "m", "nd", "rk", "sk", "v")
_PLACE_ENDS = ("ia", "and", "ora", "esh", "ovar", "istan", "ay", "elle")
_CITY_ENDS = ("ford", "holm", "grad", "port", "wick", "burg", "mere", "stad", "ton", "vale")
OCCUPATIONS = ("novelist", "painter", "composer", "architect", "physicist", "director",
               "singer", "engineer", "poet", "chemist")
INDUSTRIES = ("shipping", "publishing", "banking", "mining", "aviation", "textile",
              "brewing", "railway")
WORK_TYPES = {"novel": ("written", "novelist", "published"),
              "film": ("directed", "director", "produced"),
              "album": ("recorded", "singer", "released"),
              "opera": ("composed", "composer", "staged")}
GENRES = ("comedy", "tragedy", "mystery", "romance", "satire", "fantasy", "thriller", "epic")
CURRENCIES = ("crown", "mark", "florin", "ducat", "thaler", "lira", "real", "guilder")

#: Distinct city names (one syllable and an ending: 24 x 9 x 11 x 10); every city needs its own.
CITY_NAMES = len(_ONSETS) * len(_VOWELS) * len(set(_CODAS)) * len(_CITY_ENDS)
#: The largest ``scale`` a world can be built at: cities are the scarcest names (32 a scale),
#: and a scale past this one would draw forever for a name that does not exist.
MAX_SCALE = CITY_NAMES // KINDS["city"]
#: Draws of one name before giving up (a bound, not a budget: at ``MAX_SCALE`` the last city
#: name is found in about 1,500 draws on average).
_NAME_TRIES = 1_000_000
#: Draws of one distractor mention before giving up (every pool holds dozens of candidates).
_MENTION_TRIES = 100_000


@dataclass(slots=True)
class Entity:
    """One thing the encyclopedia has an article about."""

    key: str
    kind: str
    name: str
    #: What tells namesakes apart and heads a description: an occupation, a work's medium,
    #: an industry, or the kind itself.
    label: str
    facts: dict[str, str] = field(default_factory=dict)
    has_namesake: bool = False

    @property
    def title(self) -> str:
        """The article title; namesakes carry their label, as Wikipedia disambiguates."""
        return f"{self.name} ({self.label})" if self.has_namesake else self.name

    @property
    def mention(self) -> str:
        """How other articles and questions refer to it."""
        if self.kind == "person":
            return f"the {self.label} {self.name}"
        if self.kind == "work" and self.has_namesake:
            return f"the {self.label} {self.name}"
        return self.name

    @property
    def query(self) -> str:
        """The search a reader who saw it mentioned would type."""
        return f"{self.name} {self.label}" if self.has_namesake else self.name


@dataclass
class World:
    """Entities (by key), their passages in order, and per passage what it states."""

    seed: int
    entities: list[Entity]
    passages: list[Passage]
    #: passage position -> entity keys it mentions (its subject first)
    mentions: list[tuple[str, ...]]
    #: passage position -> literal values it states
    values: list[tuple[str, ...]]
    by_key: dict[str, Entity] = field(default_factory=dict)
    positions: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_key = {e.key: e for e in self.entities}
        self.positions = {p.id: i for i, p in enumerate(self.passages)}

    def passage_id(self, entity: Entity, relation: str) -> str:
        """The id of the passage of ``entity``'s article that states ``relation``."""
        return f"{entity.key}-{RELATIONS[relation].section}"

    def fact_text(self, entity: Entity, relation: str) -> str:
        """A fact's value as the text says it (an entity's name, or the literal)."""
        value = entity.facts[relation]
        return self.by_key[value].name if RELATIONS[relation].target else value

    def of_kind(self, kind: str) -> list[Entity]:
        """Every entity of ``kind``, in key order."""
        return [e for e in self.entities if e.kind == kind]

    def passage(self, passage_id: str) -> Passage:
        """The passage with this id."""
        return self.passages[self.positions[passage_id]]


# ---------------------------------------------------------------------------- names
def _word(d: Draws, syllables: int) -> str:
    parts = [d.pick(_ONSETS) + d.pick(_VOWELS) + d.pick(_CODAS) for _ in range(syllables)]
    return "".join(parts)


class _Names:
    """Draws names no other entity has (namesakes are made on purpose, later)."""

    def __init__(self, d: Draws) -> None:
        self.d = d
        self.used: set[str] = set()
        self.tokens: set[str] = set()

    def _fresh(self, make, suffix: str = "") -> str:
        for _ in range(_NAME_TRIES):
            stem = make()
            name = f"{stem}{suffix}"
            words = stem.lower().split()
            # Each word is unused too: a shared surname would make searches collide by chance.
            if name not in self.used and not self.tokens.intersection(words):
                self.used.add(name)
                self.tokens.update(words)
                return name
        raise ValueError(f"no unused name left after {_NAME_TRIES:,} draws ({len(self.used):,} "
                         f"names taken); a world of scale <= {MAX_SCALE} has enough")

    def country(self) -> str:
        return self._fresh(lambda: (_word(self.d, 1 + self.d.below(2))
                                    + self.d.pick(_PLACE_ENDS)).capitalize())

    def city(self) -> str:
        return self._fresh(lambda: (_word(self.d, 1) + self.d.pick(_CITY_ENDS)).capitalize())

    def person(self) -> str:
        return self._fresh(lambda: f"{_word(self.d, 2).capitalize()} "
                                   f"{_word(self.d, 2).capitalize()}")

    def plain(self, suffix: str = "") -> str:
        return self._fresh(lambda: _word(self.d, 2).capitalize(), suffix)


# ---------------------------------------------------------------------------- the world
def _entities(d: Draws, scale: int) -> list[Entity]:
    names = _Names(d)
    count = {kind: n * scale for kind, n in KINDS.items()}
    countries = [Entity(f"country-{i}", "country", names.country(), "country")
                 for i in range(count["country"])]
    cities = [Entity(f"city-{i}", "city", names.city(), "city") for i in range(count["city"])]
    people = [Entity(f"person-{i}", "person", names.person(), d.pick(OCCUPATIONS))
              for i in range(count["person"])]
    orgs = []
    for i in range(count["organisation"]):
        industry = d.pick(INDUSTRIES)
        suffix = d.pick((" Company", " Group", " Works", " Brothers", " Holdings"))
        orgs.append(Entity(f"organisation-{i}", "organisation", names.plain(suffix), industry))
    works = [Entity(f"work-{i}", "work", names.plain(), d.pick(tuple(WORK_TYPES)))
             for i in range(count["work"])]
    rivers = [names.plain() for _ in range(max(4, count["city"] // 3))]
    # Each country gets its share of cities; its capital is one of them.
    for i, city in enumerate(cities):
        city.facts["country"] = countries[i % len(countries)].key
        city.facts["city_founded"] = str(800 + d.below(1100))
        city.facts["river"] = d.pick(rivers)
    # Each country's cities and each occupation's people, in key order, grouped once: a
    # scan of every city per country (and of every person per work) made a world of scale
    # 742 take minutes. The lists and the draws are the same as the scans gave.
    cities_of: dict[str, list[Entity]] = {}
    for city in cities:
        cities_of.setdefault(city.facts["country"], []).append(city)
    for i, country in enumerate(countries):
        own = cities_of.get(country.key, [])
        country.facts["capital"] = own[d.below(len(own))].key if own else cities[i].key
        country.facts["independence"] = str(1700 + d.below(290))
        country.facts["currency"] = f"{country.name.lower()[:4]}{d.pick(('an', 'ese', 'ic'))} " \
                                    f"{d.pick(CURRENCIES)}"
    for person in people:
        person.facts["occupation"] = person.label
        person.facts["birthplace"] = d.pick(cities).key
        person.facts["birth_year"] = str(1850 + d.below(140))
        person.facts["employer"] = d.pick(orgs).key
    for org in orgs:
        org.facts["industry"] = org.label
        org.facts["headquarters"] = d.pick(cities).key
        org.facts["founded"] = str(1800 + d.below(200))
        org.facts["founder"] = d.pick(people).key
    people_as: dict[str, list[Entity]] = {}
    for person in people:
        people_as.setdefault(person.label, []).append(person)
    for work in works:
        kind_of_creator = WORK_TYPES[work.label][1]
        fitting = people_as.get(kind_of_creator) or people
        creator = d.pick(fitting)
        work.facts["genre"] = d.pick(GENRES)
        work.facts["creator"] = creator.key
        work.facts["released"] = str(int(creator.facts["birth_year"]) + 20 + d.below(40))
        work.facts["publisher"] = d.pick(orgs).key
    return [*countries, *cities, *people, *orgs, *works]


def _make_namesakes(d: Draws, entities: list[Entity]) -> None:
    """Give about a third of the people and works the name of another one of a different
    occupation or medium (a pair with the same label would be indistinguishable)."""
    for kind in ("person", "work"):
        group = [e for e in entities if e.kind == kind]
        order = list(range(len(group)))
        d.shuffle(order)
        pairs = 0
        for a, b in zip(order[0::2], order[1::2], strict=False):
            if pairs >= len(group) // 6:
                break
            first, second = group[a], group[b]
            if first.label == second.label:
                continue
            second.name = first.name
            first.has_namesake = second.has_namesake = True
            pairs += 1


def _a(word: str) -> str:
    """``word`` with its indefinite article."""
    return f"{'an' if word[0] in 'aeiou' else 'a'} {word}"


def _fact_sentences(world_of: dict[str, Entity], e: Entity, section: int) -> list[str]:
    """The sentences stating ``e``'s facts of one article section."""
    f, n = e.facts, e.name

    def ref(key: str) -> str:
        return world_of[key].mention

    if e.kind == "country":
        if section == 0:
            return [f"{n} is a country whose capital is {ref(f['capital'])}.",
                    f"{n} became independent in {f['independence']}."]
        return [f"The currency of {n} is the {f['currency']}."]
    if e.kind == "city":
        if section == 0:
            return [f"{n} is a city in {ref(f['country'])}.",
                    f"{n} was founded in {f['city_founded']}."]
        return [f"The {f['river']} river flows through {n}."]
    if e.kind == "person":
        if section == 0:
            return [f"{n} is {_a(e.label)} born in {ref(f['birthplace'])} in {f['birth_year']}."]
        return [f"As {_a(e.label)}, {n} worked for {ref(f['employer'])} for many years."]
    if e.kind == "organisation":
        if section == 0:
            return [f"{n} is {_a(e.label)} company headquartered in {ref(f['headquarters'])}.",
                    f"{n} was founded in {f['founded']}."]
        return [f"{n} was established by {ref(f['founder'])}."]
    verb, _, outlet = WORK_TYPES[e.label]
    if section == 0:
        return [f"{n} is {_a(f['genre'])} {e.label} {verb} by {ref(f['creator'])}.",
                f"{n} was first released in {f['released']}."]
    return [f"{n} was {outlet} by {ref(f['publisher'])}."]


#: Distractor sentences per kind; ``{o}`` mentions an unrelated entity of the kinds given.
_FILLERS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "country": (("{n} is known for its mountain passes and long winters.", ()),
                ("The national library of {n} keeps a copy of {o}.", ("work",)),
                ("Travellers describe the coast of {n} as rugged.", ()),
                ("Football is the most popular sport in {n}.", ())),
    "city": (("Tourists often visit the old market of {n}.", ()),
             ("A portrait of {o} hangs in the town hall of {n}.", ("person",)),
             ("{n} hosts a lantern festival every spring.", ()),
             ("Trains connect {n} with {o}.", ("city",))),
    "person": (("{n} often spoke about admiring {o}.", ("person", "work")),
               ("Late in life {n} moved to a house by the sea.", ()),
               ("Letters from {n} to {o} were published after their death.", ("person",)),
               ("{n} was a keen gardener.", ())),
    "organisation": (("{n} sponsors a rowing club.", ()),
                     ("{n} once bought a warehouse near {o}.", ("city",)),
                     ("Its logo, a blue anchor, was redrawn several times.", ()),
                     ("{n} publishes an annual report on its charity work.", ())),
    "work": (("Critics compared {n} with {o}.", ("work",)),
             ("A sequel to {n} was planned but never made.", ()),
             ("{n} was restored for its anniversary.", ()),
             ("Reviewers praised the opening of {n}.", ())),
}


def _neighbours(entities: Sequence[Entity]) -> dict[str, set[str]]:
    """Entity keys linked to each entity by a relation, in either direction."""
    near: dict[str, set[str]] = {e.key: {e.key} for e in entities}
    for e in entities:
        for rel, value in e.facts.items():
            if RELATIONS[rel].target:
                near[e.key].add(value)
                near[value].add(e.key)
    return near


def build_world(seed: int, *, scale: int = 1, namesakes: bool = False) -> World:
    """The world of ``seed``: the same entities, passages and ids on every machine.

    ``scale`` multiplies every entity count (a scale-1 world has 188 entities and 376
    passages; 270 gives about 100,000 passages), up to :data:`MAX_SCALE` (742: there are
    23,760 distinct city names, 32 a scale); a larger one is refused before any draw.

    >>> a, b = build_world(3), build_world(3)
    >>> a.passages[5] == b.passages[5], a.passages[5] == build_world(4).passages[5]
    (True, False)
    """
    if not 1 <= scale <= MAX_SCALE:
        raise ValueError(f"scale must be in [1, {MAX_SCALE}] (a world needs 32 distinct city "
                         f"names a scale, and there are {CITY_NAMES:,}), got {scale}")
    d = Draws(np.random.default_rng([seed, _WORLD_STREAM]))
    entities = _entities(d, scale)
    if namesakes:
        _make_namesakes(d, entities)
    by_key = {e.key: e for e in entities}
    near = _neighbours(entities)
    of_kind = {kind: [e for e in entities if e.kind == kind] for kind in KINDS}
    # The distractor pool of each filler's kinds, built once (not once per passage).
    pools = {kinds: [x for kind in kinds for x in of_kind[kind]]
             for fillers in _FILLERS.values() for _, kinds in fillers if kinds}
    passages, mentions, values = [], [], []
    for e in entities:
        for section in (0, 1):
            sentences = _fact_sentences(by_key, e, section)
            said = [e.key]
            for rel, value in e.facts.items():
                if RELATIONS[rel].section == section and RELATIONS[rel].target:
                    said.append(value)
            for template, kinds in d.sample(_FILLERS[e.kind], 2):
                other = None
                if kinds:
                    # A mention of an unrelated entity: a distractor for searches of its name,
                    # never a link of a question's chain.
                    pool = pools[kinds]
                    for _ in range(_MENTION_TRIES):
                        other = pool[d.below(len(pool))]
                        if other.key not in near[e.key]:
                            break
                    else:
                        raise ValueError(f"no entity unrelated to {e.key} among {len(pool)}")
                    said.append(other.key)
                sentences.append(template.format(n=e.name, o=other.mention if other else ""))
            d.shuffle(sentences)
            passages.append(Passage(f"{e.key}-{section}", e.title, " ".join(sentences)))
            mentions.append(tuple(dict.fromkeys(said)))
            values.append(tuple(
                value for rel, value in e.facts.items()
                if RELATIONS[rel].section == section and not RELATIONS[rel].target
            ))
    return World(seed, entities, passages, mentions, values)
