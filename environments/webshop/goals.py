"""Shopping goals: an instruction made from a target product, with fixed splits.

Goal ``i`` (``0 <= i < NUM_GOALS``) is drawn from its own generator seeded
``[GOAL_SEED, i, attempt]`` and read only through :mod:`agentgym.draws` (the bit generator's
raw words, whose stream numpy keeps across versions), so a goal, its price ceiling included,
is identical on every machine, with any numpy, and in every run. The generator picks a target
product, 1-4 of its attributes (mean 2.4), one value of each of its option groups, and a price
ceiling (two of the next four multiples of $10 above the target's price with those options,
keeping the larger, as in the original), then writes the instruction from templates, e.g.
``"i need a long-lasting lipstick, in ruby color, and price lower than 20.00 dollars"``.
Like the crowd-written originals, instructions often word things differently from the catalog:
about half the attributes are paraphrased (``"sulfate free"`` -> ``"without sulfate"``) and
most sizes and quantities too (``"m"`` -> ``"medium"``, ``"12oz"`` -> ``"12 fl oz"``); the
reward always checks the canonical attribute and option value.

A goal is kept only if its target can be found from the instruction alone: among the top 50
hits of :attr:`Goal.search_query` (the instruction without its price clause, which is what
``search[...]`` in ``available_actions`` offers) some product can earn ``R = 1``. Otherwise
the next attempt is drawn (at most :data:`MAX_ATTEMPTS`; then the last one is kept). So the
oracle reaches ``R = 1`` on every kept goal, and goals depend on the catalog size.

Splits (global goal indices): test ``0-499``, eval ``500-1499``, train ``1500-11999``.

>>> from agentgym.environments.webshop.goals import GoalBank, SPLITS
>>> from agentgym.environments.webshop.search import load_index
>>> bank = GoalBank(load_index(2000))
>>> goal = bank.goal(0)
>>> goal.instruction.endswith("dollars") and goal.index == 0
True
>>> SPLITS["test"]
(0, 500)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agentgym.draws import Draws

from .catalog import LEAVES, Product, price_cents
from .reward import best_purchase
from .search import SearchIndex

__all__ = [
    "GOAL_SEED",
    "MAX_ATTEMPTS",
    "NUM_GOALS",
    "SPLITS",
    "Goal",
    "GoalBank",
    "instruction_query",
    "make_goal",
]

GOAL_SEED = 771_203
NUM_GOALS = 12_000
SPLITS: dict[str, tuple[int, int]] = {
    "test": (0, 500),
    "eval": (500, 1500),
    "train": (1500, NUM_GOALS),
}
MAX_ATTEMPTS = 8
_PRICE_POINTS = tuple(range(10, 5010, 10))
_ARTICLES = {leaf.product_type: leaf.article for leaf in LEAVES}
_OPENERS = (
    "i need", "i am looking for", "i want", "find me", "i would like", "i am searching for",
    "please get me", "looking for",
)
# How people say an attribute (the reward still checks the canonical attribute). Rules in
# :func:`say_attribute` cover "X free", "non X", "X resistant", "X proof" and "with X".
_ATTRIBUTE_SAYINGS: dict[str, tuple[str, ...]] = {
    "long lasting": ("long-lasting", "that lasts all day"),
    "machine washable": ("machine wash", "washable in the machine"),
    "easy assembly": ("easy to assemble", "simple to put together"),
    "easy to clean": ("easy-to-clean", "simple to clean"),
    "lightweight": ("light weight", "light"),
    "waterproof": ("water proof", "fully waterproof"),
    "noise cancelling": ("noise canceling", "with noise cancellation"),
    "wireless": ("cordless", "without wires"),
    "long battery life": ("long-lasting battery", "with a battery that lasts"),
    "fast charging": ("quick charging", "fast-charge"),
    "high protein": ("protein-rich", "high in protein"),
    "low sugar": ("low in sugar", "with little sugar"),
    "low sodium": ("low in sodium", "low salt"),
    "high fiber": ("high in fiber", "fiber-rich"),
    "keto friendly": ("keto", "keto-friendly"),
    "plant based": ("plant-based", "made from plants"),
    "vegan": ("100% vegan", "animal free"),
    "organic": ("certified organic", "organically grown"),
    "kosher": ("certified kosher",),
    "gluten free": ("gluten-free", "without gluten"),
    "cruelty free": ("cruelty-free", "not tested on animals"),
    "natural ingredients": ("made with all-natural ingredients", "made with natural ingredients"),
    "for sensitive skin": ("for my sensitive skin", "gentle on sensitive skin"),
    "for dry skin": ("for my dry skin", "good for dry skin"),
    "for dry hair": ("for my dry hair", "that helps dry hair"),
    "anti aging": ("anti-aging", "that fights wrinkles"),
    "anti tip kit": ("with an anti-tip kit", "that comes with wall anchors"),
    "moisture wicking": ("moisture-wicking", "sweat wicking"),
    "short sleeve": ("short-sleeved", "with short sleeves"),
    "long sleeve": ("long-sleeved", "with long sleeves"),
    "high waist": ("high-waisted", "high rise"),
    "slim fit": ("slim-fit", "slim cut"),
    "relaxed fit": ("loose fit", "relaxed-fit"),
    "solid wood": ("made of real wood", "all wood"),
    "dishwasher safe": ("dishwasher-safe", "safe in the dishwasher"),
    "hypoallergenic": ("hypo-allergenic", "allergy friendly"),
    "individually wrapped": ("individually-wrapped", "wrapped one by one"),
    "resealable bag": ("in a resealable pouch", "resealable"),
    "travel size": ("travel-size", "travel sized"),
    "ergonomic design": ("ergonomic", "ergonomically designed"),
    "rechargeable battery": ("rechargeable", "with a rechargeable battery"),
    "with storage": ("with storage space", "that has storage"),
    "with pockets": ("that has pockets", "with side pockets"),
    "quick dry": ("quick-drying", "dries quickly"),
    "highly absorbent": ("super absorbent", "very absorbent"),
    "nonstick": ("non-stick", "non stick"),
    "oven safe": ("oven-safe", "safe in the oven"),
    "backlit": ("back-lit", "with backlighting"),
    "dimmable": ("with a dimmer",),
    "extra virgin": ("extra-virgin",),
    "cold pressed": ("cold-pressed",),
    "fair trade": ("fair-trade", "fairly traded"),
    "whole grain": ("whole-grain", "made with whole grains"),
    "breathable": ("breathable fabric", "airy"),
    "scratch resistant": ("scratch-resistant", "scratch proof"),
    "rfid blocking": ("rfid-blocking", "with rfid protection"),
    "genuine leather": ("real leather", "made of genuine leather"),
    "steel toe": ("steel-toe", "steel toed"),
    "arch support": ("with arch support", "good arch support"),
    "memory foam": ("memory-foam", "with memory foam"),
    "deep pocket": ("deep-pocket", "deep pockets"),
    "all season": ("all-season", "for all seasons"),
    "thermal insulated": ("thermal", "thermally insulated"),
    "room darkening": ("room-darkening", "that darkens the room"),
    "energy efficient": ("energy-efficient", "that saves energy"),
    "heart rate monitor": ("heart rate tracking", "that monitors heart rate"),
    "sleep tracking": ("sleep tracker", "that tracks sleep"),
    "spf 50": ("spf50", "sun protection factor 50"),
    "full coverage": ("full-coverage",),
    "matte finish": ("matte", "with a matte finish"),
    "high speed": ("high-speed", "fast"),
    "stain resistant": ("stain-resistant", "that resists stains"),
    "pet friendly": ("pet-friendly", "safe with pets"),
    "space saving": ("space-saving", "compact"),
}
_OPTION_PHRASES: dict[str, tuple[str, ...]] = {
    "color": ("in {v}", "in {v} color", "color: {v}"),
    "size": ("in size {v}", "size: {v}", "in the {v} size"),
    "count": ("in a {v}", "{v}", "count: {v}"),
}
# A paraphrase that starts like this goes after the product type ("a shampoo without
# sulfates"); others go before it ("a sulfate-free shampoo").
_POSTFIX_STARTS = (
    "for ", "with ", "that ", "made ", "without ", "free of ", "not ", "gentle ", "good ",
    "safe ", "wrapped ", "high in ", "low in ", "resistant to ", "simple to ", "washable in ",
    "in a ",
)
# "a shampoo that is X and Y" only reads well when X and Y are adjectives.
_ADJECTIVE_ENDINGS = (
    "free", "proof", "resistant", "friendly", "safe", "based", "able", "ible", "lasting",
    "tested", "ic", "ed", "ing", "less", "weight", "ant", "ent", "an", "al",
)
_GENERIC_OPTION_PHRASES = ("with {g}: {v}", "{g}: {v}", "in {v} {g}")
_PRICE_CLAUSE = re.compile(r",?\s*and price lower than [0-9]+\.[0-9]{2} dollars\s*$")


_CLOTH_SIZES = {
    "xs": ("x-small", "extra small"),
    "s": ("small",),
    "m": ("medium",),
    "l": ("large",),
    "xl": ("x-large", "extra large"),
    "xxl": ("xx-large", "2x-large"),
    "3xl": ("3x-large", "xxx-large"),
}
_BED_SIZES = {"twin": ("twin size",), "full": ("full size", "double"),
              "queen": ("queen size", "queen-size"), "king": ("king size", "king-size")}
_UNIT_SAYINGS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (re.compile(p), says)
    for p, says in (
        (r"([0-9.]+)oz", ("{0} fl oz", "{0} ounce", "{0} fl. oz.")),
        (r"([0-9.]+) oz", ("{0} ounce", "{0}oz", "{0} ounces")),
        (r"([0-9]+) lb", ("{0} pound", "{0} lbs", "{0}-pound")),
        (r"([0-9]+) pack", ("pack of {0}", "{0}-pack", "{0} count")),
        (r"single", ("single pack", "one pack", "pack of one")),
        (r"([0-9]+) bars", ("{0} count", "box of {0}", "{0}-count box")),
        (r"([0-9]+) bags", ("{0} tea bags", "{0} count", "box of {0} bags")),
        (r"([0-9]+) pcs", ("{0} piece set", "set of {0}", "{0}-piece")),
        (r"([0-9]+) in", ("{0} inch", "{0}-inch", "{0} inches")),
        (r"([0-9]+)x([0-9]+) ft", ("{0} x {1} feet", "{0} by {1} ft", "{0}x{1} feet")),
        (r"([0-9]+)gb", ("{0} gb", "{0}gb storage")),
        (r"([0-9]+) ft", ("{0} feet", "{0}-foot", "{0} foot")),
        (r"([0-9]+)w", ("{0} watt", "{0}-watt", "{0} watts")),
        (r"([0-9]+) ml", ("{0}ml", "{0} milliliters")),
        (r"([0-9]+) liters?", ("{0} l", "{0} litre")),
    )
)


def say_attribute(attribute: str, draws: Draws) -> str:
    """How the instruction words ``attribute``: as is (about half the time) or a paraphrase.

    >>> say_attribute("sulfate free", Draws(np.random.default_rng(1)))
    'without sulfate'
    """
    sayings = list(_ATTRIBUTE_SAYINGS.get(attribute, ()))
    words = attribute.split()
    if not sayings:
        if words[-1] == "free" and len(words) > 1:
            x = " ".join(words[:-1])
            sayings = [f"{x}-free", f"free of {x}", f"without {x}"]
        elif words[0] == "non" and len(words) > 1:
            sayings = ["non-" + " ".join(words[1:])]
        elif words[-1] in ("resistant", "proof") and len(words) > 1:
            x = " ".join(words[:-1])
            sayings = [f"{x}-{words[-1]}"] + ([f"resistant to {x}"] if words[-1] == "resistant"
                                              else [])
        elif words[0] == "with" and len(words) > 1:
            sayings = ["that has " + " ".join(words[1:]), "that comes with " + " ".join(words[1:])]
    if not sayings or draws.random() < 0.45:
        return attribute
    return draws.pick(sayings)


def say_option(group: str, value: str, product_type: str, draws: Draws) -> str:
    """How the instruction words an option value (sizes and quantities are often reworded).

    >>> say_option("size", "m", "t-shirt", Draws(np.random.default_rng(0)))
    'medium'
    """
    sayings: tuple[str, ...] = ()
    if group == "size" and value in _CLOTH_SIZES:
        sayings = _CLOTH_SIZES[value]
    elif value in _BED_SIZES:
        sayings = _BED_SIZES[value]
    elif product_type == "jeans" and "x" in value:
        w, length = value.split("x")
        sayings = (f"{w}w x {length}l", f"waist {w} length {length}", f"{w} x {length}")
    elif product_type == "blackout curtains" and "x" in value:
        w, length = value.split("x")
        sayings = (f"{w} x {length} inches", f"{w}w x {length}l")
    elif value == "gray":
        sayings = ("grey",)
    else:
        for pattern, says in _UNIT_SAYINGS:
            m = pattern.fullmatch(value)
            if m:
                sayings = tuple(s.format(*m.groups()) for s in says)
                break
    if not sayings or (draws.random() < 0.25 and value != "single"):
        return value
    return draws.pick(sayings)


def instruction_query(instruction: str) -> str:
    """The instruction without its price clause: the search ``available_actions`` offers.

    >>> instruction_query("i need a vegan lipstick, and price lower than 20.00 dollars")
    'i need a vegan lipstick'
    """
    return _PRICE_CLAUSE.sub("", instruction).strip()


@dataclass(frozen=True)
class Goal:
    """One instruction and everything the reward needs to score a purchase against it."""

    index: int
    pid: int
    asin: str
    query: str
    category: tuple[str, ...]
    product_type: str
    nouns: tuple[str, ...]
    title: str
    attributes: tuple[str, ...]
    options: dict[str, str] = field(hash=False)
    price_ceiling_cents: int
    instruction: str

    @property
    def price_ceiling(self) -> float:
        """The ceiling in dollars."""
        return self.price_ceiling_cents / 100

    @property
    def search_query(self) -> str:
        """The instruction without its price clause (see :func:`instruction_query`)."""
        return instruction_query(self.instruction)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "pid": self.pid,
            "asin": self.asin,
            "query": self.query,
            "category": list(self.category),
            "product_type": self.product_type,
            "nouns": list(self.nouns),
            "title": self.title,
            "attributes": list(self.attributes),
            "options": dict(self.options),
            "price_ceiling": self.price_ceiling,
            "instruction": self.instruction,
        }


def _instruction(
    draws: Draws,
    product: Product,
    attributes: list[str],
    options: dict[str, str],
    ceiling_cents: int,
) -> str:
    ptype = product.product_type
    plural = _ARTICLES.get(ptype, "a") == ""
    said = [say_attribute(a, draws) for a in attributes]
    post = [a for a in said if a.startswith(_POSTFIX_STARTS)]
    pre = [a for a in said if a not in post]
    opener = draws.pick(_OPENERS)
    adjectives = all(a.endswith(_ADJECTIVE_ENDINGS) for a in pre)
    if pre and draws.random() < 0.35 and adjectives:
        body = f"{ptype} that {'are' if plural else 'is'} {' and '.join(pre)}"
    else:
        body = f"{', '.join(pre)} {ptype}".strip()
    article = "" if plural else ("an" if body[0] in "aeio" else "a")
    phrase = " ".join(w for w in (opener, article, body, " and ".join(post)) if w)
    parts = []
    for group, value in options.items():
        templates = _OPTION_PHRASES.get(group, _GENERIC_OPTION_PHRASES)
        said = say_option(group, value, ptype, draws)
        parts.append(draws.pick(templates).format(g=group, v=said))
    if parts:
        phrase += ", " + " and ".join(parts)
    return f"{phrase}, and price lower than {ceiling_cents / 100:.2f} dollars"


def make_goal(index: int, search: SearchIndex, attempt: int) -> Goal:
    """Goal ``index`` as drawn on ``attempt`` (no validation; see :meth:`GoalBank.goal`)."""
    # Raw generator words only (agentgym.draws): their stream is the same with any numpy.
    draws = Draws(np.random.default_rng([GOAL_SEED, int(index), int(attempt)]))
    catalog = search.catalog
    product = catalog.product(draws.below(len(catalog)))
    k = 1 + (draws.random() < 0.75) + (draws.random() < 0.5) + (draws.random() < 0.15)
    picks = draws.sample(range(len(product.attributes)), k)
    attributes = [product.attributes[i] for i in sorted(picks)]
    options = {g.name: draws.pick(g.values) for g in product.options}
    price = price_cents(product, options)
    above = [p * 100 for p in _PRICE_POINTS if p * 100 > price][:4]
    # The larger of two of the next four price points; past the table's end, the next but one
    # multiple of $10.
    ceiling = max(draws.sample(above, 2)) if len(above) >= 2 else (price // 1000 + 2) * 1000
    instruction = _instruction(draws, product, attributes, options, ceiling)
    return Goal(
        index=int(index),
        pid=product.pid,
        asin=product.asin,
        query=product.query,
        category=product.category,
        product_type=product.product_type,
        nouns=product.nouns,
        title=product.title,
        attributes=tuple(attributes),
        options=options,
        price_ceiling_cents=ceiling,
        instruction=instruction,
    )


def _findable(goal: Goal, search: SearchIndex) -> bool:
    catalog = search.catalog
    return any(
        best_purchase(catalog.product(pid), goal)[0] == 1.0
        for pid in search.search(goal.search_query)
    )


class GoalBank:
    """Goals of one catalog, computed on first use and memoised."""

    def __init__(self, search: SearchIndex) -> None:
        self.search = search
        self._goals: dict[int, Goal] = {}

    def goal(self, index: int) -> Goal:
        """Global goal ``index``: the first findable attempt (or the last attempt)."""
        if not 0 <= index < NUM_GOALS:
            raise IndexError(f"goal index {index} outside [0, {NUM_GOALS})")
        found = self._goals.get(index)
        if found is None:
            for attempt in range(MAX_ATTEMPTS):
                found = make_goal(index, self.search, attempt)
                if _findable(found, self.search):
                    break
            assert found is not None
            self._goals[index] = found
        return found

    def split_goal(self, split: str, i: int) -> Goal:
        """The ``i``-th goal of ``split``."""
        start, stop = SPLITS[split]
        if not 0 <= i < stop - start:
            raise IndexError(f"{split} has goals 0-{stop - start - 1}, got {i}")
        return self.goal(start + i)

    @staticmethod
    def split_size(split: str) -> int:
        """Number of goals in ``split``."""
        start, stop = SPLITS[split]
        return stop - start
