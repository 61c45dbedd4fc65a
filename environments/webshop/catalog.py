"""An offline, seeded product catalog in the shape of WebShop's Amazon scrape.

Every product is a pure function of ``(CATALOG_SEED, product id)``: product ``i`` is generated
from its own :class:`numpy.random.Generator` seeded with ``[CATALOG_SEED, i]``, read only
through :class:`agentgym.draws.Draws` (raw 64-bit words, stable across NumPy versions), so it
is the same on every machine and in every process, and the catalog of ``n`` products is the
first ``n`` products of any larger one. Nothing comes from real brand or product data: brands
are invented from syllables, and the text comes from the hand-written vocabulary in
:mod:`.catalog_data`.

A product has a category path (3-4 levels, e.g. ``beauty & personal care > hair care >
shampoo & conditioner > shampoo``), the search term it was "collected under" (``query``), a
product type (the noun of its title, e.g. ``shampoo``), the title's nouns, a title, bullet
points, a description, attributes (``sulfate free``, ``machine washable``, ...), option groups
(size, color, flavor, ...) and a price.

The title is built from the brand, one or two descriptors, at most one material, the product
type and one or two attributes. Its nouns (``Product.nouns``, what ``r_type`` compares; the
original tags them with spaCy) are known from that construction: the product type's words,
the words of the material shown in the title, and the brand, all lower-cased. Every noun is a
word of the lower-cased title.

Prices are in cents. A product either has one price, or a price range driven by its first
option group when that group is a quantity (size, pack count, ...): value ``k`` of ``m`` costs
``low + (high - low) * k // (m - 1)`` cents. When that group is left unchosen at purchase the
product costs its highest price. See :func:`price_cents`.

Within one product no two option values (across all groups) match each other by the reward's
fuzzy rule after colour normalisation (:mod:`.matching`), so each goal option is matched by
exactly one value of its target product.

>>> from agentgym.environments.webshop.catalog import Catalog
>>> catalog = Catalog(2000)
>>> p = catalog.product(7)
>>> p == Catalog(50_000).product(7)  # the small catalog is a prefix of the large one
True
>>> catalog.pid_of(p.asin) == 7
True
>>> set(p.nouns) <= set(p.title.lower().split())
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from agentgym.draws import Draws

from .catalog_data import (
    BRANDS,
    BULLET_BODIES,
    DESCRIPTION_MIDDLES,
    DESCRIPTION_OPENERS,
    EXCLUSIVE_ATTRIBUTES,
    GENERIC_BULLETS,
    LEAVES,
    MATERIAL_BODIES,
    POOLS,
    PRICE_ENDINGS,
    QUANTITY_POOLS,
    REVIEW_TEXTS,
    Leaf,
)
from .matching import fuzzy_match, normalize_color

__all__ = [
    "CATALOG_SEED",
    "CATALOG_VERSION",
    "DEFAULT_NUM_PRODUCTS",
    "LEAF_BRANDS",
    "LEAVES",
    "POOLS",
    "Catalog",
    "Leaf",
    "OptionGroup",
    "Product",
    "Review",
    "asin_of",
    "generate_product",
    "price_cents",
    "title_nouns",
]

CATALOG_SEED = 20240611
#: Bump when the generator's output changes (the search index's cache key includes it).
CATALOG_VERSION = "2"
DEFAULT_NUM_PRODUCTS = 50_000


@dataclass(frozen=True)
class OptionGroup:
    """One radio group on the item page: its name and the values this product offers."""

    name: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class Review:
    """One customer review shown on the Reviews tab."""

    rating: int
    text: str


@dataclass(frozen=True)
class Product:
    """One catalog entry; ``prices`` are cents (one value, or one per value of ``options[0]``).

    >>> p = Catalog(100).product(0)
    >>> p.asin.startswith("B0") and len(p.asin) == 10
    True
    """

    pid: int
    asin: str
    title: str
    brand: str
    category: tuple[str, ...]
    product_type: str
    query: str
    nouns: tuple[str, ...]
    attributes: tuple[str, ...]
    bullets: tuple[str, ...]
    description: str
    options: tuple[OptionGroup, ...]
    prices: tuple[int, ...]
    rating: float
    reviews: tuple[Review, ...]

    @property
    def price_range(self) -> tuple[float, float]:
        """Lowest and highest price in dollars."""
        return min(self.prices) / 100, max(self.prices) / 100

    def price_text(self) -> str:
        """``"$12.99"`` or ``"$12.99 - $18.99"`` for a price range."""
        low, high = self.price_range
        return f"${low:.2f}" if low == high else f"${low:.2f} - ${high:.2f}"

    def option_values(self) -> list[str]:
        """Every option value, group by group."""
        return [v for g in self.options for v in g.values]

    def group_of(self, value: str) -> str | None:
        """The group offering ``value`` (values are unique within a product), else ``None``."""
        for g in self.options:
            if value in g.values:
                return g.name
        return None

    def search_text(self) -> str:
        """What the search index reads: title, description, bullets and option values."""
        return " ".join([self.title, self.description, *self.bullets, *self.option_values()])

    def to_dict(self) -> dict:
        """A JSON-able view (for renderers and inspection)."""
        return {
            "pid": self.pid,
            "asin": self.asin,
            "title": self.title,
            "brand": self.brand,
            "category": list(self.category),
            "product_type": self.product_type,
            "query": self.query,
            "nouns": list(self.nouns),
            "attributes": list(self.attributes),
            "bullets": list(self.bullets),
            "description": self.description,
            "options": {g.name: list(g.values) for g in self.options},
            "prices": list(self.prices),
            "rating": self.rating,
            "reviews": [{"rating": r.rating, "text": r.text} for r in self.reviews],
        }


def price_cents(product: Product, chosen: dict[str, str]) -> int:
    """The price of ``product`` with the ``chosen`` options, in cents.

    A ranged product's price follows the value chosen in its first group; left unchosen, it
    costs its highest price.

    >>> p = next(p for p in map(Catalog(300).product, range(300)) if len(p.prices) > 1)
    >>> price_cents(p, {}) == max(p.prices)
    True
    >>> price_cents(p, {p.options[0].name: p.options[0].values[0]}) == p.prices[0]
    True
    """
    if len(product.prices) == 1:
        return product.prices[0]
    group = product.options[0]
    value = chosen.get(group.name)
    if value in group.values:
        return product.prices[group.values.index(value)]
    return max(product.prices)




# --------------------------------------------------------------------------- option collisions
@lru_cache(maxsize=4096)
def _options_collide(a: str, b: str) -> bool:
    return fuzzy_match(normalize_color(a), normalize_color(b))


@lru_cache(maxsize=1024)
def _collisions(value: str) -> frozenset[str]:
    """Every pool value that ``value`` would be confused with by the option reward."""
    return frozenset(
        v for pool in POOLS.values() for v in pool if v != value and _options_collide(value, v)
    )


# --------------------------------------------------------------------------- ASINs
_ASIN_MOD = 36**8
_ASIN_MUL = 2_357_947_691  # odd and not a multiple of 3: a bijection modulo 36**8
_ASIN_ADD = 1_234_567_890
_ASIN_INV = pow(_ASIN_MUL, -1, _ASIN_MOD)
_B36 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def asin_of(pid: int) -> str:
    """The product's ASIN-like id: ``"B0"`` plus 8 base-36 characters, unique per id.

    >>> asin_of(0), asin_of(1)
    ('B000KF12OI', 'B001NEW2RH')
    """
    x = (pid * _ASIN_MUL + _ASIN_ADD) % _ASIN_MOD
    chars = []
    for _ in range(8):
        x, r = divmod(x, 36)
        chars.append(_B36[r])
    return "B0" + "".join(reversed(chars))


def _pid_of_asin(asin: str) -> int | None:
    text = asin.strip().upper()
    if len(text) != 10 or not text.startswith("B0") or any(c not in _B36 for c in text[2:]):
        return None
    x = 0
    for c in text[2:]:
        x = x * 36 + _B36.index(c)
    return ((x - _ASIN_ADD) * _ASIN_INV) % _ASIN_MOD


# --------------------------------------------------------------------------- the generator
_BRANDS_PER_DEPARTMENT = 160
_BRANDS_PER_LEAF = 40


def _leaf_brands() -> tuple[tuple[str, ...], ...]:
    # Leaves of one department draw from a shared pool, so a brand spans several product types
    # (as on Amazon), which is what makes the brand noun matter for r_type.
    departments = sorted({leaf.path[0] for leaf in LEAVES})
    pools = {
        dept: Draws(np.random.default_rng([CATALOG_SEED, 1, d])).sample(
            range(len(BRANDS)), _BRANDS_PER_DEPARTMENT)
        for d, dept in enumerate(departments)
    }
    return tuple(
        tuple(BRANDS[b] for b in Draws(np.random.default_rng([CATALOG_SEED, 2, i])).sample(
            pools[leaf.path[0]], _BRANDS_PER_LEAF))
        for i, leaf in enumerate(LEAVES)
    )


#: The brands each leaf (product type) draws from, by leaf index.
LEAF_BRANDS: tuple[tuple[str, ...], ...] = _leaf_brands()

_RIVALS: dict[str, frozenset[str]] = {a: ex - {a} for ex in EXCLUSIVE_ATTRIBUTES for a in ex}


def _compatible(attr: str, chosen: list[str]) -> bool:
    rivals = _RIVALS.get(attr)
    return rivals is None or not any(c in rivals for c in chosen)


def _between(draws: Draws, low: int, high: int) -> int:
    """An int in ``[low, high]``."""
    return low + draws.below(high - low + 1)


def _cents(draws: Draws, low_dollars: int, high_dollars: int) -> int:
    dollars = _between(draws, low_dollars, high_dollars)
    ending = draws.pick(PRICE_ENDINGS)
    return max(dollars * 100 + ending - (100 if ending else 0), 99)


def _titlecase(text: str) -> str:
    # Title words never contain apostrophes, where str.title() would go wrong.
    return text.title()


def title_nouns(brand: str, shown_material: str | None, product_type: str) -> tuple[str, ...]:
    """A title's nouns from how the title was built: type words, shown material, brand.

    This stands in for the original's spaCy noun tags without a tagger: the product type is a
    noun phrase ("shampoo", "hair dryer"), a material shown in the title is one ("argan oil",
    "cast iron", taken whole even where a tagger might call "cast" an adjective), and the brand
    is a proper noun. Descriptors ("moisturizing") and attributes are left out. Materials a
    product has but its title does not show are not nouns of the title.

    >>> title_nouns("Velora", "argan oil", "shampoo")
    ('shampoo', 'argan', 'oil', 'velora')
    >>> title_nouns("Velora", None, "hair dryer")
    ('hair', 'dryer', 'velora')
    """
    words = [*product_type.split(), *(shown_material.split() if shown_material else ()),
             brand.lower()]
    return tuple(dict.fromkeys(words))


@lru_cache(maxsize=4096)  # ~15 MB; a product takes ~0.05 ms to regenerate
def generate_product(pid: int) -> Product:
    """Product ``pid``, generated from its own generator seeded ``[CATALOG_SEED, pid]``.

    >>> generate_product(3).pid
    3
    """
    d = Draws(np.random.default_rng([CATALOG_SEED, int(pid)]))
    leaf_index = d.below(len(LEAVES))
    leaf = LEAVES[leaf_index]
    brand = d.pick(LEAF_BRANDS[leaf_index])
    ptype = leaf.product_type
    n_attributes = _between(d, 3, 6)
    attributes: list[str] = []
    for attr in d.sample(leaf.attributes, len(leaf.attributes)):
        if len(attributes) == n_attributes:
            break
        if _compatible(attr, attributes):
            attributes.append(attr)
    descs = d.sample(leaf.descriptors, 1 + (d.random() < 0.35))
    materials: list[str] = []
    if leaf.materials and d.random() < 0.85:
        materials = d.sample(leaf.materials, 1 + (d.random() < 0.2))

    # Options: each group with some probability, values in pool order, no two values of one
    # product alike by the reward's fuzzy rule.
    groups: list[OptionGroup] = []
    kept: list[str] = []
    for gi, (name, pool_name) in enumerate(leaf.options):
        if d.random() >= (0.92 if gi == 0 else 0.75):
            continue
        pool = POOLS[pool_name]
        idx = sorted(d.sample(range(len(pool)), _between(d, 2, min(6, len(pool)))))
        values = []
        for i in idx:
            if pool[i] not in kept and _collisions(pool[i]).isdisjoint(kept):
                values.append(pool[i])
                kept.append(pool[i])
        if values:
            groups.append(OptionGroup(name, tuple(values)))

    low = _cents(d, *leaf.price)
    prices = [low]
    ranged = d.random() < 0.6
    if (
        ranged
        and groups
        and groups[0].name == leaf.options[0][0]
        and leaf.options[0][1] in QUANTITY_POOLS
        and len(groups[0].values) >= 2
    ):
        high = low + low * _between(d, 20, 120) // 100
        m = len(groups[0].values)
        prices = [low + (high - low) * k // (m - 1) for k in range(m)]
        prices = [p - p % 100 + 99 if k else p for k, p in enumerate(prices)]

    # Title: brand, descriptors, the first material, type, then one or two attributes.
    title_attrs = d.sample(tuple(attributes), 1 + (d.random() < 0.45))
    shown_material = materials[0] if materials else None
    words = [brand, *descs, *materials[:1], ptype]
    suffix = [a for a in title_attrs if a.startswith(("for ", "with "))]
    rest = [a for a in title_attrs if a not in suffix]
    title = " ".join(_titlecase(w) for w in words)
    if suffix:
        title += " " + _titlecase(suffix[0])
    if rest:
        title += " - " + ", ".join(_titlecase(a) for a in rest)

    fill = {"brand": brand, "ptype": ptype, "desc": descs[0],
            "material": materials[0] if materials else ""}
    bodies = BULLET_BODIES + (MATERIAL_BODIES if materials else ())
    bullets = [f"{attr.upper()}: {d.pick(bodies).format(**fill)}" for attr in attributes]
    for _ in range(_between(d, 0, 2)):
        bullets.append(d.pick(GENERIC_BULLETS).format(**fill))
    bullets = list(dict.fromkeys(bullets))

    middles = DESCRIPTION_MIDDLES if materials else DESCRIPTION_MIDDLES[2:]
    mentioned = d.sample(tuple(attributes), 1 + (d.random() < 0.5))
    description = " ".join([
        d.pick(DESCRIPTION_OPENERS).format(**fill),
        d.pick(middles).format(**fill),
        f"Highlights: {' and '.join(mentioned)}.",
        d.pick(middles).format(**fill),
    ])

    reviews = []
    for _ in range(_between(d, 1, 3)):
        stars = (5, 5, 5, 4, 4, 4, 3, 2, 1)[d.below(9)]
        reviews.append(Review(stars, d.pick(REVIEW_TEXTS[stars]).format(**fill)))
    rating = round(sum(r.rating for r in reviews) / len(reviews), 1)

    return Product(
        pid=int(pid),
        asin=asin_of(int(pid)),
        title=title,
        brand=brand,
        category=leaf.path,
        product_type=ptype,
        query=d.pick(leaf.queries),
        nouns=title_nouns(brand, shown_material, ptype),
        attributes=tuple(attributes),
        bullets=tuple(bullets),
        description=description,
        options=tuple(groups),
        prices=tuple(prices),
        rating=rating,
        reviews=tuple(reviews),
    )


# --------------------------------------------------------------------------- the catalog
class Catalog:
    """The first ``num_products`` products (generated on demand, memoised).

    >>> catalog = Catalog(500)
    >>> len(catalog), catalog.product(499).pid
    (500, 499)
    >>> catalog.pid_of("not an asin") is None
    True
    """

    def __init__(self, num_products: int = DEFAULT_NUM_PRODUCTS) -> None:
        if isinstance(num_products, bool) or not isinstance(num_products, (int, np.integer)):
            raise ValueError(f"num_products must be an int, got {num_products!r}")
        if num_products < 1:
            raise ValueError(f"num_products must be positive, got {num_products}")
        self.num_products = int(num_products)

    def __len__(self) -> int:
        return self.num_products

    def product(self, pid: int) -> Product:
        """Product ``pid`` (``0 <= pid < len(self)``)."""
        if not 0 <= pid < self.num_products:
            raise IndexError(f"product id {pid} outside [0, {self.num_products})")
        return generate_product(int(pid))

    def pid_of(self, asin: str) -> int | None:
        """The id of ``asin`` in this catalog, or ``None``."""
        pid = _pid_of_asin(asin) if isinstance(asin, str) else None
        return pid if pid is not None and pid < self.num_products else None
