"""The offline catalog: deterministic, realistic in shape, and internally consistent."""

from __future__ import annotations

import hashlib
import json
import os
import string
import subprocess
import sys

import pytest

from agentgym.environments.webshop import catalog as cat
from agentgym.environments.webshop.catalog import (
    DEFAULT_NUM_PRODUCTS,
    LEAVES,
    POOLS,
    Catalog,
    asin_of,
    generate_product,
    price_cents,
    title_nouns,
)
from agentgym.environments.webshop.matching import (
    COLOR_SET,
    fuzzy_match,
    normalize_color,
    token_set_score,
)

N = 2000
PRINTABLE = set(string.printable)


@pytest.fixture(scope="module")
def products():
    catalog = Catalog(N)
    return [catalog.product(i) for i in range(N)]


def digest(pids) -> str:
    blob = json.dumps([generate_product(i).to_dict() for i in pids], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def test_same_products_in_another_process_with_other_hash_seeds():
    here = digest(range(60))
    script = (
        "import sys; sys.path.insert(0, 'tests/webshop'); from test_catalog import digest; "
        "print(digest(range(60)))"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for seed in ("0", "123"):
        out = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True,
            cwd=root, env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout.strip()
        assert out == here


def test_small_catalog_is_a_prefix_of_the_default_one():
    small, big = Catalog(N), Catalog(50_000)
    for pid in (0, 1, 777, N - 1):
        assert small.product(pid) == big.product(pid)
    with pytest.raises(IndexError):
        small.product(N)
    assert big.product(N).pid == N


def test_bad_catalog_sizes_are_refused():
    for bad in (0, -5, 2.5, "10", True):
        with pytest.raises(ValueError):
            Catalog(bad)


def test_category_trees_are_at_least_three_levels_and_all_departments_appear(products):
    assert all(len(leaf.path) >= 3 for leaf in LEAVES)
    assert len(LEAVES) >= 50
    departments = {p.category[0] for p in products}
    assert departments == {
        "beauty & personal care", "grocery & gourmet food", "clothing, shoes & jewelry",
        "home & kitchen", "electronics",
    }
    assert len({p.product_type for p in products}) == len(LEAVES)


def test_asins_are_unique_and_round_trip(products):
    asins = [p.asin for p in products]
    assert len(set(asins)) == N
    catalog = Catalog(N)
    for p in products[:200]:
        assert len(p.asin) == 10 and p.asin.startswith("B0")
        assert catalog.pid_of(p.asin) == p.pid
        assert catalog.pid_of(p.asin.lower()) == p.pid
    assert catalog.pid_of(asin_of(N + 5)) is None  # exists only in a bigger catalog
    for junk in ("", "B0", "X012345678", "B0!!!!!!!!", "b0" + "z" * 9):
        assert catalog.pid_of(junk) is None


def test_product_fields_are_consistent(products):
    leaves = {leaf.path: leaf for leaf in LEAVES}
    for p in products:
        leaf = leaves[p.category]
        assert p.product_type == leaf.product_type
        assert p.query in leaf.queries
        assert 3 <= len(p.attributes) <= 6 and set(p.attributes) <= set(leaf.attributes)
        # every attribute is visible on the Features tab, so an agent can check it
        bullets = " ".join(p.bullets).lower()
        assert all(a in bullets for a in p.attributes)
        # nouns: the type's words and the brand (the shown material: see the test below)
        assert set(p.product_type.split()) <= set(p.nouns) and p.brand.lower() in p.nouns
        assert p.product_type in p.title.lower() and p.title.startswith(p.brand)
        for text in (p.title, p.description, *p.bullets, *(r.text for r in p.reviews)):
            assert set(text) <= PRINTABLE, text
        assert 1 <= p.rating <= 5 and 1 <= len(p.reviews) <= 3


def test_option_values_are_unique_and_never_confusable_within_a_product(products):
    for p in products:
        values = p.option_values()
        assert len(values) == len(set(values))
        for i, a in enumerate(values):
            for b in values[i + 1 :]:
                assert not fuzzy_match(normalize_color(a), normalize_color(b)), (p.pid, a, b)
        for g in p.options:
            pool = dict(next(leaf.options for leaf in LEAVES if leaf.path == p.category))
            order = POOLS[pool[g.name]]
            assert list(g.values) == sorted(g.values, key=order.index)  # pool order
            assert p.group_of(g.values[0]) == g.name
    assert products[0].group_of("no such value") is None


def test_prices_follow_the_documented_rule(products):
    ranged = [p for p in products if len(p.prices) > 1]
    single = [p for p in products if len(p.prices) == 1]
    assert len(ranged) > 100 and len(single) > 100
    for p in ranged:
        group = p.options[0]
        assert len(p.prices) == len(group.values)
        assert list(p.prices) == sorted(p.prices)
        assert price_cents(p, {}) == max(p.prices)  # unchosen: the highest price
        for value, cents in zip(group.values, p.prices, strict=True):
            assert price_cents(p, {group.name: value}) == cents
        low, high = p.price_range
        assert p.price_text() == f"${low:.2f} - ${high:.2f}"
    for p in single:
        assert price_cents(p, {}) == p.prices[0]
        assert p.price_text() == f"${p.prices[0] / 100:.2f}"
    assert all(p.prices[0] >= 99 for p in products)


def test_price_rule_by_hand():
    p = cat.Product(
        pid=0, asin=asin_of(0), title="T", brand="B", category=("a", "b", "c"),
        product_type="t", query="t", nouns=("t",), attributes=("x",), bullets=("X: y",),
        description="d", prices=(1000, 1599, 2099), rating=5.0, reviews=(),
        options=(cat.OptionGroup("size", ("s", "m", "l")), cat.OptionGroup("color", ("red",))),
    )
    assert price_cents(p, {"size": "s"}) == 1000
    assert price_cents(p, {"size": "l", "color": "red"}) == 2099
    assert price_cents(p, {"color": "red"}) == 2099  # price group unchosen: highest price
    assert price_cents(p, {}) == 2099
    assert p.price_text() == "$10.00 - $20.99"


def title_words(title: str) -> set[str]:
    """The lower-cased title split into words, with the commas of its attribute list dropped."""
    return set(title.lower().replace(",", " ").split())


@pytest.mark.slow  # all 50,000 products
def test_title_nouns_are_words_of_the_title_for_every_default_product():
    # All 50,000 products (~3 s): the nouns r_type compares come only from the title itself.
    # (Before, every material counted, shown or not: 8,314 products had nouns like "shea",
    # "butter" for a "Vitamin E Lipstick".)
    outside = []
    for pid in range(DEFAULT_NUM_PRODUCTS):
        p = generate_product(pid)
        if not set(p.nouns) <= title_words(p.title):
            outside.append((pid, p.title, p.nouns))
    assert outside == []


def test_title_nouns_by_hand():
    assert title_nouns("Velora", "argan oil", "shampoo") == ("shampoo", "argan", "oil", "velora")
    assert title_nouns("Kinix", None, "hair dryer") == ("hair", "dryer", "kinix")
    assert title_nouns("Solwood", "wood", "wood") == ("wood", "solwood")  # each noun once


# The original WebShop's colour normalisation (web_agent_site/engine/normalize.py) of every
# option value the catalog can produce, worked out by hand from its COLOR_SET and its order:
# the first name of the list (alphabetical) contained in the value wins. Values not listed
# contain no name of the list and stay as they are.
ORIGINAL_COLOUR_NORMALISATION = {
    # the colour pool: each value is itself a name of the list, and no earlier name is in it
    **{c: c for c in POOLS["color"]},
    # metal: "gold" sorts before "rose" and "yellow"; "titanium" contains "tan"
    "sterling silver": "silver", "yellow gold": "gold", "rose gold": "gold",
    "titanium": "tan", "platinum": "platinum",
    "steel band": "steel",
    "lavender": "lavender", "sandalwood": "sand", "aquatic": "aqua",
    # shades: "beige" sorts before "ivory"
    "ivory beige": "beige", "natural": "natural", "caramel": "caramel",
    "espresso bean": "espresso",
    "nude": "nude", "mauve": "mauve", "coral pink": "coral",
    # flavours and roasts
    "sour cream and onion": "cream", "cookies and cream": "cream",
    "chocolate chip": "chocolate", "double chocolate": "chocolate", "blueberry": "blue",
    "lemon": "lemon", "chili lime": "lime", "light roast": "light", "dark roast": "dark",
    "espresso roast": "espresso", "mint": "mint", "peach": "peach", "earl grey": "grey",
    "lemon ginger": "lemon", "orange": "orange", "cranberry": "cranberry",
    "lemon pepper": "lemon",
}


def test_colour_normalisation_of_every_option_value_equals_the_originals():
    values = {v for pool in POOLS.values() for v in pool}
    assert len(values) == 231 and set(ORIGINAL_COLOUR_NORMALISATION) <= values
    for value in sorted(values):
        assert normalize_color(value) == ORIGINAL_COLOUR_NORMALISATION.get(value, value), value
    # every pool is one some product type offers, so these are all the values there are
    assert {pool for leaf in LEAVES for _, pool in leaf.options} == set(POOLS)


def test_colour_list_is_the_originals_in_its_order():
    assert len(COLOR_SET) == 102 and list(COLOR_SET) == sorted(COLOR_SET)
    assert COLOR_SET[:3] == ("alabaster", "apricot", "aqua") and COLOR_SET[-1] == "yellow"
    # the order decides: the first name found wins, not the longest
    assert normalize_color("light blue") == "blue"
    assert normalize_color("dark green") == "dark"
    assert normalize_color("navy blue") == "blue"
    assert normalize_color("xl") == "xl"


def test_fuzzy_rule_by_hand():
    # thefuzz's token-set ratio on lower-cased alphanumerics, rounded, strictly above 85
    assert fuzzy_match("Sulfate-Free", "sulfate free")  # 100
    assert fuzzy_match("blue", "navy blue")  # token subset: 100
    assert fuzzy_match("2 pack", "12 pack")  # 92: the original's laxness, kept on purpose
    assert not fuzzy_match("2 pack", "3 pack")  # 83
    assert not fuzzy_match("xl", "xxl")  # 80
    assert not fuzzy_match("paraben free", "sulfate free")
    # thefuzz drops the code points 128-255 before processing ("caf" + "e" with an accent)
    assert token_set_score("caf\u00e9", "caf") == 100
    assert token_set_score("caf\u0113", "caf") < 100  # outside 128-255: kept, as there


def test_score_is_rounded_before_the_threshold_as_thefuzz_does():
    a, b = "broad spectrum protection", "broad spectrum edition"
    assert len(a) + len(b) == 47
    # the raw rapidfuzz score is 2 * 20 / 47 = 85.106..., above 85 ...
    from rapidfuzz import fuzz
    from rapidfuzz.utils import default_process
    raw = fuzz.token_set_ratio(a, b, processor=default_process)
    assert 85 < raw < 85.5 and raw == pytest.approx(4000 / 47)
    # ... but thefuzz rounds it to 85 first, which is not above 85: no match
    assert token_set_score(a, b) == 85 and not fuzzy_match(a, b)
    # 85.71 rounds to 86: a match
    assert token_set_score("stainless steel case", "brushed stainless steel cases") == 86
    assert fuzzy_match("stainless steel case", "brushed stainless steel cases")


def test_golden_digest_pins_the_generator():
    # If this fails you changed what the generator produces: bump CATALOG_VERSION (cached
    # indexes are also keyed by a hash of the sources) and update the digest.
    assert digest(range(100)) == GOLDEN


GOLDEN = "ec00a885ad9fb475be02324596f44f42b9fcf329239791e97123d8a4a8799ea3"
