"""WebShop's purchase reward as the original's ``get_reward`` computes it, plus a shaping potential.

Outcome reward when Buy Now is clicked (all pure functions of the product, the chosen options
and the goal)::

    R = r_type * (N_att + N_opt + r_price) / (|U_att| + |U_opt| + 1)

* ``N_att``: goal attributes matched by some product attribute (:func:`.matching.fuzzy_match`)
  or found as a substring of the lower-cased title, bullet points or description
  (:func:`attribute_matches`).
* ``N_opt``: goal options matched by one of the options the agent chose, both sides colour
  normalised first (:func:`.matching.normalize_color`; :func:`option_matches`).
* ``r_price``: 1 if the price paid is at most the goal's ceiling (:func:`price_reward`).
* ``r_type`` (:func:`type_reward`): with ``title_score`` = |purchased title nouns ∩ goal
  title nouns| / |goal title nouns| (0.2 when the goal has no nouns), ``match`` = same query,
  or >= 2 shared category levels (as sets, order ignored), or ``title_score > 0.2``:
  ``r_type = 1.0``; ``0.5`` if not ``match``; then ``0.1`` if ``title_score < 0.1``; then
  ``0.0`` if ``title_score == 0`` (later rules override earlier ones, as in the original).

``r_att = N_att / |U_att|``, ``r_option = N_opt / |U_opt|`` (1.0 when the goal has no
options) and ``r_price`` are reported next to ``R``; success means ``R == 1``.

What is exact and what is not, against the original (princeton-nlp/WebShop,
``web_agent_site/engine/goal.py``):

* Exact: the formula; the thresholds (fuzzy score > 85; title score > 0.2, < 0.1, == 0; two
  shared category levels); the override order of the ``r_type`` rules; the attribute rule
  (fuzzy match first, then substring of title, bullets, description); the option rule
  (the original's ``COLOR_SET`` in its order, first hit wins, then the fuzzy rule); the price
  rule; and the fuzzy score itself, which is ``thefuzz``'s: ASCII forcing, lower-casing and
  punctuation to spaces, ``rapidfuzz``'s token-set ratio, rounded half to even to an integer
  before the comparison (checked against ``thefuzz`` 0.22 on 200,000 random string pairs).
* Approximated: the title nouns. The original tags both titles with spaCy's
  ``en_core_web_sm`` and keeps NOUN and PROPN tokens; here they come from how the catalog
  built the title (:func:`.catalog.title_nouns`: the product type's words, the material the
  title shows, the brand), without a tagger. Every such noun is a word of the title, but a
  tagger may also tag words this leaves out (a descriptor or attribute word) or leave out
  words this keeps, so ``title_score``, and through it ``r_type``, can differ from the
  original's on some purchases.

Measured: running the original's ``get_reward`` (with ``thefuzz``) with its tagger replaced by
these nouns, on 3,500 purchases over the 500 test goals (the oracle's, a rule-style top-hit
purchase and five random ones per goal), every ``R`` equals :func:`purchase_reward`'s.

Shaping potential (the process reward is ``gamma * phi(s') - phi(s)``):

* :func:`best_purchase` gives ``R*(p)``, the highest ``R`` buying product ``p`` can earn with
  the best choice of its options (each group set to one of its values or left unchosen),
  found by exact enumeration.
* ``phi(s)`` = max of ``R*(p)`` over the products ``p`` listed on any results page so far in
  the episode (0 before the first search); at the end of an episode ``phi`` is the reward
  actually earned (``R`` after Buy Now, 0 when the step budget runs out). Hence
  ``sum_t gamma^t F_t = gamma^T phi(s_T) - phi(s_0)``: with ``gamma = 1`` the process rewards
  of an episode add up to its outcome ``R``, and no loop can farm them.

>>> type_reward("shampoo", ("beauty", "hair"), ("shampoo",), "shampoo", ("beauty", "hair"),
...             ("shampoo",))[0]
1.0
>>> option_matches(["navy", "m"], ["m", "black"])
1
>>> reward_total(1.0, 1, 1, 1.0, 2, 2)
0.6
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .catalog import Product, price_cents
from .matching import fuzzy_match, normalize_color

__all__ = [
    "RewardBreakdown",
    "attribute_matches",
    "best_purchase",
    "option_matches",
    "price_reward",
    "purchase_reward",
    "reward_total",
    "title_noun_score",
    "type_reward",
]


@dataclass(frozen=True)
class RewardBreakdown:
    """The purchase reward and its parts (``total`` is ``R``)."""

    r_type: float
    r_att: float
    r_option: float
    r_price: float
    total: float
    n_att: int
    n_opt: int
    num_goal_attributes: int
    num_goal_options: int
    query_match: bool
    category_match: bool
    title_score: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def success(self) -> bool:
        return self.total == 1.0


def title_noun_score(purchased_nouns: Iterable[str], goal_nouns: Sequence[str]) -> float:
    """Share of the goal title's nouns found in the purchased title's nouns (0.2 if none).

    >>> title_noun_score(["shampoo", "velora"], ["shampoo", "argan", "oil", "kinora"])
    0.25
    """
    if len(goal_nouns) == 0:
        return 0.2
    return len(set(purchased_nouns) & set(goal_nouns)) / len(goal_nouns)


def type_reward(
    purchased_query: str,
    purchased_category: Sequence[str],
    purchased_nouns: Iterable[str],
    goal_query: str,
    goal_category: Sequence[str],
    goal_nouns: Sequence[str],
) -> tuple[float, bool, bool, float]:
    """``(r_type, query_match, category_match, title_score)``; see the module docstring."""
    query_match = purchased_query == goal_query
    category_match = len(set(purchased_category) & set(goal_category)) >= 2
    title_score = title_noun_score(purchased_nouns, goal_nouns)
    r_type = 1.0
    if not (query_match or category_match or title_score > 0.2):
        r_type = 0.5
    if title_score < 0.1:
        r_type = 0.1
    if title_score == 0.0:
        r_type = 0.0
    return r_type, query_match, category_match, title_score


def attribute_matches(
    goal_attributes: Sequence[str],
    product_attributes: Sequence[str],
    title: str,
    bullets: Sequence[str],
    description: str,
) -> int:
    """How many goal attributes the product has (fuzzy attribute match, else text substring).

    >>> attribute_matches(["sulfate free", "vegan"], ["Sulfate-Free"], "X Shampoo", [], "")
    1
    >>> attribute_matches(["vegan"], [], "X Vegan Shampoo", [], "")
    1
    """
    title_l = title.lower()
    bullets_l = " ".join(bullets).lower()
    description_l = description.lower()
    n = 0
    for g in goal_attributes:
        if any(fuzzy_match(p, g) for p in product_attributes) or (
            g in title_l or g in bullets_l or g in description_l
        ):
            n += 1
    return n


def option_matches(goal_options: Iterable[str], chosen_options: Iterable[str]) -> int:
    """How many goal options some chosen option matches (fuzzy, colours normalised).

    >>> option_matches(["dark green"], ["dark green"]), option_matches(["xl"], ["xxl"])
    (1, 0)
    """
    chosen = [normalize_color(o) for o in chosen_options]
    n = 0
    for g in goal_options:
        g = normalize_color(g)
        if any(fuzzy_match(p, g) for p in chosen):
            n += 1
    return n


def price_reward(price_cents_paid: int, ceiling_cents: int) -> float:
    """1.0 when the price paid is within the goal's ceiling, else 0.0.

    >>> price_reward(2999, 3000), price_reward(3001, 3000)
    (1.0, 0.0)
    """
    return 1.0 if price_cents_paid <= ceiling_cents else 0.0


def reward_total(
    r_type: float, n_att: int, n_opt: int, r_price: float, num_att: int, num_opt: int
) -> float:
    """``r_type * (N_att + N_opt + r_price) / (|U_att| + |U_opt| + 1)``."""
    return r_type * (n_att + n_opt + r_price) / (num_att + num_opt + 1)


def _static_parts(product: Product, goal: Any) -> tuple[tuple[float, bool, bool, float], int]:
    kind = type_reward(product.query, product.category, product.nouns, goal.query,
                       goal.category, goal.nouns)
    n_att = attribute_matches(goal.attributes, product.attributes, product.title,
                              product.bullets, product.description)
    return kind, n_att


def purchase_reward(product: Product, chosen: Mapping[str, str], goal: Any) -> RewardBreakdown:
    """Score buying ``product`` with the ``chosen`` options (group -> value) against ``goal``.

    ``goal`` needs ``query``, ``category``, ``nouns``, ``attributes``, ``options`` (group ->
    value) and ``price_ceiling_cents`` (see :class:`~.goals.Goal`).
    """
    (r_type, query_match, category_match, title_score), n_att = _static_parts(product, goal)
    goal_options = list(goal.options.values())
    n_opt = option_matches(goal_options, chosen.values())
    r_price = price_reward(price_cents(product, dict(chosen)), goal.price_ceiling_cents)
    num_att, num_opt = len(goal.attributes), len(goal_options)
    return RewardBreakdown(
        r_type=r_type,
        r_att=n_att / num_att if num_att else 1.0,
        r_option=n_opt / num_opt if num_opt else 1.0,
        r_price=r_price,
        total=reward_total(r_type, n_att, n_opt, r_price, num_att, num_opt),
        n_att=n_att,
        n_opt=n_opt,
        num_goal_attributes=num_att,
        num_goal_options=num_opt,
        query_match=query_match,
        category_match=category_match,
        title_score=title_score,
    )


def best_purchase(
    product: Product, goal: Any, chosen: Mapping[str, str] | None = None
) -> tuple[float, dict[str, str]]:
    """``(R*, options)``: the best reward buying ``product`` can still earn, and how.

    Exact enumeration: each group keeps its current choice or switches to any value that
    matches a goal option (any value at all for the price-driving first group); a group not yet
    chosen may also stay unchosen. The first best assignment in enumeration order wins
    (unchosen first, then the product's value order), so the plan needs the fewest clicks.
    """
    chosen = dict(chosen or {})
    (r_type, *_), n_att = _static_parts(product, goal)
    goal_options = [normalize_color(v) for v in goal.options.values()]
    num_att, num_opt = len(goal.attributes), len(goal_options)
    ranged = len(product.prices) > 1
    per_group: list[list[str | None]] = []
    for gi, group in enumerate(product.options):
        candidates: list[str | None] = [] if group.name in chosen else [None]
        for value in group.values:
            relevant = (ranged and gi == 0) or value == chosen.get(group.name)
            if relevant or any(fuzzy_match(normalize_color(value), g) for g in goal_options):
                candidates.append(value)
        per_group.append(candidates)
    best_score, best_assignment = -1.0, {}
    for combo in itertools.product(*per_group):
        assignment = {g.name: v for g, v in zip(product.options, combo, strict=True) if v}
        n_opt = option_matches(goal.options.values(), assignment.values())
        r_price = price_reward(price_cents(product, assignment), goal.price_ceiling_cents)
        score = reward_total(r_type, n_att, n_opt, r_price, num_att, num_opt)
        if score > best_score:
            best_score, best_assignment = score, assignment
    return best_score, best_assignment
