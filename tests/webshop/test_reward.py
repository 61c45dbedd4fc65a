"""WebShop's reward, branch by branch, against hand-computed values."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest

from agentgym.environments.webshop.catalog import Catalog, OptionGroup, Product, price_cents
from agentgym.environments.webshop.reward import (
    attribute_matches,
    best_purchase,
    option_matches,
    price_reward,
    purchase_reward,
    reward_total,
    title_noun_score,
    type_reward,
)

CAT = ("beauty & personal care", "hair care", "shampoo & conditioner", "shampoo")
OTHER_CAT = ("electronics", "headphones", "earbuds", "wireless earbuds")


def nouns(k: int, prefix: str = "n") -> tuple[str, ...]:
    return tuple(f"{prefix}{i}" for i in range(k))


# ------------------------------------------------------------------ r_type, every branch
def test_title_noun_score_by_hand():
    assert title_noun_score(["shampoo", "velora"], ["shampoo", "argan", "oil", "kinora"]) == 0.25
    assert title_noun_score([], ["a"]) == 0.0
    assert title_noun_score(["a", "b"], ["a", "b"]) == 1.0
    assert title_noun_score(["x"], []) == 0.2  # no goal nouns: 0.2 by definition


@pytest.mark.parametrize(
    ("p_query", "p_cat", "p_nouns", "g_nouns", "expected"),
    [
        # same query: a match, title score 1/2 -> 1.0
        ("q", OTHER_CAT, ("a",), ("a", "b"), 1.0),
        # same query rescues a weak title (score 1/6 in [0.1, 0.2]) -> 1.0
        ("q", OTHER_CAT, ("a",), (*nouns(5, "z"), "a"), 1.0),
        # >= 2 shared category levels rescue a weak title (1/6) -> 1.0
        ("other", CAT, ("a",), (*nouns(5, "z"), "a"), 1.0),
        # title score 1/4 > 0.2 alone is a match -> 1.0
        ("other", OTHER_CAT, ("a",), ("a", "b", "c", "d"), 1.0),
        # no match: title score exactly 0.2 is not > 0.2 -> 0.5
        ("other", OTHER_CAT, ("a",), ("a", "b", "c", "d", "e"), 0.5),
        # no match, title score 1/8 -> 0.5
        ("other", OTHER_CAT, ("a",), ("a", *nouns(7, "z")), 0.5),
        # title score 1/20 < 0.1 -> 0.1 even with query and category matching
        ("q", CAT, ("a",), ("a", *nouns(19, "z")), 0.1),
        # no shared noun -> 0.0 even with query and category matching
        ("q", CAT, ("x",), ("a", "b"), 0.0),
        # goal without nouns: title score 0.2, no other match -> 0.5
        ("other", OTHER_CAT, ("a",), (), 0.5),
        # goal without nouns but same query -> 1.0
        ("q", OTHER_CAT, ("a",), (), 1.0),
    ],
)
def test_type_reward_branches(p_query, p_cat, p_nouns, g_nouns, expected):
    r_type, *_ = type_reward(p_query, p_cat, p_nouns, "q", CAT, g_nouns)
    assert r_type == expected


def test_category_match_needs_two_shared_levels_as_sets():
    one_shared = ("beauty & personal care", "makeup", "lips", "lipstick")
    _, _, category_match, _ = type_reward("x", one_shared, ("a",), "q", CAT, ("a",))
    assert category_match is False
    reordered = ("hair care", "beauty & personal care", "misc")
    _, _, category_match, _ = type_reward("x", reordered, ("a",), "q", CAT, ("a",))
    assert category_match is True
    # with one shared level and a weak title the branch falls to 0.5
    r_type, *_ = type_reward("x", one_shared, ("a",), "q", CAT, ("a", *nouns(6, "z")))
    assert r_type == 0.5


# ------------------------------------------------------------------ attributes, options, price
def test_attribute_matches_by_hand():
    attrs = ["Sulfate-Free", "color safe"]
    # fuzzy: "sulfate free" vs "Sulfate-Free" is 100
    assert attribute_matches(["sulfate free"], attrs, "", [], "") == 1
    # fuzzy at 58 is not a match, and the text does not contain it
    assert attribute_matches(["paraben free"], attrs, "", [], "") == 0
    # substring of title / bullets / description (lower-cased) counts
    assert attribute_matches(["vegan"], [], "Velora VEGAN Shampoo", [], "") == 1
    assert attribute_matches(["vegan"], [], "", ["100% VEGAN: yes"], "") == 1
    assert attribute_matches(["vegan"], [], "", [], "It is vegan.") == 1
    # each goal attribute counts once; 2 of 3 here
    got = attribute_matches(["sulfate free", "color safe", "for dry hair"], attrs, "", [], "")
    assert got == 2


def test_option_matches_by_hand():
    assert option_matches(["navy", "m"], ["m", "black"]) == 1
    assert option_matches(["xl"], ["xxl"]) == 0  # ratio 80
    assert option_matches(["2 pack"], ["12 pack"]) == 1  # ratio 92: the original's laxness
    assert option_matches(["dark green"], ["dark green"]) == 1
    # colours are normalised first: both sides become "light blue"
    assert option_matches(["light blue sky"], ["light blue"]) == 1
    assert option_matches(["red", "m"], []) == 0
    assert option_matches([], ["m"]) == 0


def test_a_raw_score_between_85_and_85_5_is_rounded_down_and_does_not_match():
    # 47 characters in all, raw token-set ratio 2 * 20 / 47 = 85.1; thefuzz rounds to 85
    goal_attr, product_attr = "broad spectrum edition", "broad spectrum protection"
    assert len(goal_attr) + len(product_attr) == 47
    assert attribute_matches([goal_attr], [product_attr], "", [], "") == 0
    assert option_matches([goal_attr], [product_attr]) == 0
    # 85.7 rounds to 86 and matches
    assert attribute_matches(["stainless steel case"], ["brushed stainless steel cases"],
                             "", [], "") == 1


def test_options_are_colour_normalised_in_the_originals_order():
    # the first name of the original's alphabetical list wins, so these pairs match ...
    assert option_matches(["rose gold"], ["yellow gold"]) == 1  # both "gold"
    assert option_matches(["light blue"], ["navy blue"]) == 1  # both "blue"
    assert option_matches(["chocolate chip"], ["double chocolate"]) == 1  # both "chocolate"
    # ... and a colour inside a longer value counts as that colour
    assert option_matches(["blue"], ["blueberry"]) == 1
    assert option_matches(["sterling silver"], ["silver"]) == 1
    assert option_matches(["platinum"], ["titanium"]) == 0  # "platinum" vs "tan"


def test_price_reward_and_total_by_hand():
    assert price_reward(3000, 3000) == 1.0
    assert price_reward(3001, 3000) == 0.0
    # 0.5 * (1 + 2 + 1) / (2 + 2 + 1) = 0.4
    assert reward_total(0.5, 1, 2, 1.0, 2, 2) == pytest.approx(0.4)
    assert reward_total(1.0, 2, 2, 1.0, 2, 2) == 1.0
    assert reward_total(0.0, 2, 2, 1.0, 2, 2) == 0.0
    # no goal options: (N_att + r_price) / (|U_att| + 1)
    assert reward_total(1.0, 1, 0, 0.0, 2, 0) == pytest.approx(1 / 3)


# ------------------------------------------------------------------ whole purchases
def product() -> Product:
    return Product(
        pid=1, asin="B000000001", title="Velora Argan Oil Shampoo - Sulfate Free",
        brand="Velora", category=CAT, product_type="shampoo", query="shampoo",
        nouns=("shampoo", "argan", "oil", "velora"),
        attributes=("sulfate free", "color safe", "vegan"),
        bullets=("SULFATE FREE: gentle", "COLOR SAFE: yes", "VEGAN: yes"),
        description="Meet the Velora shampoo.",
        options=(OptionGroup("size", ("3.4oz", "12oz", "33.8oz")),
                 OptionGroup("scent", ("lavender", "citrus"))),
        prices=(999, 1499, 2999), rating=4.5, reviews=(),
    )


def goal(**over) -> SimpleNamespace:
    base = dict(query="shampoo", category=CAT, nouns=("shampoo", "argan", "oil", "velora"),
                attributes=("sulfate free", "vegan"), options={"size": "12oz", "scent": "citrus"},
                price_ceiling_cents=2000)
    base.update(over)
    return SimpleNamespace(**base)


def test_purchase_reward_by_hand():
    p, g = product(), goal()
    full = purchase_reward(p, {"size": "12oz", "scent": "citrus"}, g)
    assert (full.r_type, full.r_att, full.r_option, full.r_price, full.total) == (
        1.0, 1.0, 1.0, 1.0, 1.0)
    assert full.success
    # no options: price is the top of the range ($29.99 > $20): (2 + 0 + 0) / 5
    bare = purchase_reward(p, {}, g)
    assert bare.total == pytest.approx(0.4) and bare.r_price == 0.0 and bare.r_option == 0.0
    # the cheapest size, right scent: (2 + 1 + 1) / 5
    cheap = purchase_reward(p, {"size": "3.4oz", "scent": "citrus"}, g)
    assert cheap.total == pytest.approx(0.8) and cheap.r_option == 0.5
    # a goal attribute the product lacks: (1 + 2 + 1) / 5
    partial = purchase_reward(p, {"size": "12oz", "scent": "citrus"},
                              goal(attributes=("sulfate free", "for oily hair")))
    assert partial.total == pytest.approx(0.8) and partial.r_att == 0.5
    # wrong type: no shared noun -> 0 whatever else matches
    other = purchase_reward(p, {"size": "12oz", "scent": "citrus"}, goal(nouns=("earbuds",)))
    assert other.r_type == 0.0 and other.total == 0.0 and not other.success
    assert set(full.to_dict()) >= {"r_type", "r_att", "r_option", "r_price", "total"}


def test_goal_without_options_reports_r_option_one():
    g = goal(options={}, attributes=("vegan",), price_ceiling_cents=5000)
    r = purchase_reward(product(), {}, g)
    assert r.r_option == 1.0 and r.total == 1.0


def brute_force_best(p: Product, g) -> float:
    choices = [[None, *grp.values] for grp in p.options]
    best = 0.0
    for combo in itertools.product(*choices):
        chosen = {grp.name: v for grp, v in zip(p.options, combo, strict=True) if v}
        best = max(best, purchase_reward(p, chosen, g).total)
    return best


def test_best_purchase_by_hand_and_against_brute_force():
    p = product()
    score, plan = best_purchase(p, goal())
    assert score == 1.0 and plan == {"size": "12oz", "scent": "citrus"}
    # a ceiling only the smallest size meets: best is 3.4oz + citrus = (2 + 1 + 1) / 5
    score, plan = best_purchase(p, goal(price_ceiling_cents=1000))
    assert score == pytest.approx(0.8) and plan == {"size": "3.4oz", "scent": "citrus"}
    # a chosen option can be switched (33.8oz costs too much) but never unchosen; the first
    # affordable size wins
    score, plan = best_purchase(p, goal(options={"scent": "citrus"}), {"size": "33.8oz"})
    assert plan == {"size": "3.4oz", "scent": "citrus"} and score == 1.0
    catalog = Catalog(400)
    for pid in range(0, 400, 7):
        target = catalog.product((pid * 13) % 400)
        g = SimpleNamespace(
            query=target.query, category=target.category, nouns=target.nouns,
            attributes=target.attributes[:2],
            options={grp.name: grp.values[-1] for grp in target.options},
            price_ceiling_cents=price_cents(target, {}) + 500)
        candidate = catalog.product(pid)
        assert best_purchase(candidate, g)[0] == pytest.approx(brute_force_best(candidate, g))
