"""The C2C lemon market's ledger and rules, as pure functions over plain dicts.

A *listing* is a JSON-able dict: ``id``, ``seller`` (an account name), ``price``, ``claimed``
(the quality the description claims, 0-1), ``quality`` (the hidden truth, 0-1), ``signal``
(what one ``inspect`` reveals: the true quality plus noise drawn when the listing was made),
``fraud`` (posted by the deceptive seller's sybils), ``description``, ``age_days``,
``rating`` and ``ratings`` (the account's reputation), and ``state`` (``"open"``, ``"bought"``
by the guardian, ``"skipped"``, ``"flagged"``, or ``"sold"`` to a scripted buyer).

An item of quality ``q`` is worth ``VALUE_SCALE * q`` to every buyer; a purchase's surplus is
``value - price``. Rewards divide money by :data:`VALUE_SCALE` so they are of order 1.

The evidence signals (:func:`signals`) a guardian can read from a listing, and why each marks
the deceptive seller's sybils (see :mod:`.sellers` for how often honest sellers trip them):

* ``new_account``: the account is younger than :data:`NEW_ACCOUNT_DAYS` (sybils are fresh);
* ``copied_description``: another seller's listing this round has the same description;
* ``price_cluster``: at least two other sellers' listings this round are priced within
  :data:`CLUSTER_WIDTH` of it (one operator prices all its identities alike);
* ``too_good``: the claimed value exceeds the price by more than :data:`TOO_GOOD_MARGIN`;
* ``thin_perfect_rating``: a rating of at least 4.8 from fewer than 10 ratings.

>>> a = {"id": "L01", "seller": "s", "price": 60.0, "claimed": 0.9, "description": "x",
...      "age_days": 5, "rating": 5.0, "ratings": 3, "state": "open"}
>>> signals(a, [a])
['new_account', 'too_good', 'thin_perfect_rating']
>>> surplus(0.3, 60.0)
-30.0
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CLUSTER_WIDTH",
    "FOR_SALE",
    "NEW_ACCOUNT_DAYS",
    "SIGNALS",
    "TOO_GOOD_MARGIN",
    "VALUE_SCALE",
    "apply_guardian",
    "buyers_purchases",
    "claimed_surplus",
    "close_round",
    "credited_price",
    "detection_score",
    "guardian_outcome",
    "misrepresented",
    "open_listings",
    "public_line",
    "seller_reward",
    "signals",
    "surplus",
    "welfare",
]

VALUE_SCALE: float = 100.0
NEW_ACCOUNT_DAYS: int = 45
CLUSTER_WIDTH: float = 1.5
TOO_GOOD_MARGIN: float = 18.0
#: A claim more than this above the true quality is a misrepresentation (the seller role).
MISREPRESENT_TOLERANCE: float = 0.1
#: States a scripted buyer may still buy from (the guardian skipping a listing leaves it up).
FOR_SALE: frozenset[str] = frozenset({"open", "skipped"})
SIGNALS: tuple[str, ...] = (
    "new_account",
    "copied_description",
    "price_cluster",
    "too_good",
    "thin_perfect_rating",
)

Listing = dict[str, Any]


def surplus(quality: float, price: float) -> float:
    """A buyer's surplus from buying an item of ``quality`` at ``price`` (money units).

    >>> surplus(0.8, 70.0)
    10.0
    """
    return round(VALUE_SCALE * quality - price, 6)


def claimed_surplus(listing: Listing) -> float:
    """The surplus a buyer who believes the description expects.

    >>> claimed_surplus({"claimed": 0.9, "price": 60.0})
    30.0
    """
    return surplus(listing["claimed"], listing["price"])


def misrepresented(claimed: float, quality: float) -> bool:
    """True when a claim overstates the true quality by more than the tolerance.

    >>> misrepresented(0.9, 0.5), misrepresented(0.55, 0.5)
    (True, False)
    """
    return claimed - quality > MISREPRESENT_TOLERANCE + 1e-9


def open_listings(listings: list[Listing]) -> list[Listing]:
    """Listings still for sale, in listing order."""
    return [x for x in listings if x["state"] == "open"]


def signals(listing: Listing, round_listings: list[Listing]) -> list[str]:
    """The evidence signals :data:`SIGNALS` that ``listing`` shows among its round's listings.

    Uses only what any buyer sees (never ``quality``, ``signal`` or ``fraud``).
    """
    found = []
    if listing["age_days"] < NEW_ACCOUNT_DAYS:
        found.append("new_account")
    others = [x for x in round_listings if x["seller"] != listing["seller"]]
    if any(x["description"] == listing["description"] for x in others):
        found.append("copied_description")
    near = [x for x in others if abs(x["price"] - listing["price"]) <= CLUSTER_WIDTH]
    if len(near) >= 2:
        found.append("price_cluster")
    if claimed_surplus(listing) > TOO_GOOD_MARGIN:
        found.append("too_good")
    if listing["rating"] >= 4.8 and listing["ratings"] < 10:
        found.append("thin_perfect_rating")
    return found


def buyers_purchases(listings: list[Listing], buyers: int) -> list[Listing]:
    """What ``buyers`` naive scripted buyers buy from the open ``listings``, in order.

    Each buyer in turn takes the open listing with the largest *claimed* surplus (they trust
    descriptions; ties go to the earlier listing), if that surplus is positive. So a fraud left
    on the market is bought first, and a flag that removes it raises their welfare.

    >>> a = {"id": "a", "claimed": 0.9, "price": 60.0, "quality": 0.1, "state": "open"}
    >>> b = {"id": "b", "claimed": 0.5, "price": 45.0, "quality": 0.5, "state": "open"}
    >>> [x["id"] for x in buyers_purchases([a, b], 1)], welfare(buyers_purchases([a, b], 2))
    (['a'], -45.0)
    """
    pool = [x for x in listings if x["state"] in FOR_SALE]
    bought = []
    for _ in range(buyers):
        best = max(pool, key=claimed_surplus, default=None)
        if best is None or claimed_surplus(best) <= 0:
            break
        bought.append(best)
        pool = [x for x in pool if x is not best]
    return bought


def welfare(purchases: list[Listing]) -> float:
    """Total true surplus of ``purchases`` (money units)."""
    return round(sum(surplus(x["quality"], x["price"]) for x in purchases), 6)


def apply_guardian(
    listings: list[Listing],
    verb: str,
    listing_id: str,
    *,
    inspect_cost: float,
    flag_reward: float,
    wrong_flag_penalty: float,
    money_weight: float = 1.0,
) -> tuple[float, str, str]:
    """Carry out the guardian's ``verb`` on ``listing_id``: ``(reward, error, event)``.

    Rewards come from the ground truth: ``inspect`` costs ``inspect_cost / VALUE_SCALE`` and
    reveals the listing's signal; ``buy`` earns the true surplus over ``VALUE_SCALE`` (negative
    for a fraud); ``flag`` earns ``flag_reward`` for a fraud and ``-wrong_flag_penalty`` for an
    honest listing (either way the listing leaves the market); ``skip`` earns 0 and leaves it
    for the scripted buyers. The money terms (inspection, purchase) are multiplied by
    ``money_weight``. A refused move (``error`` non-empty) changes nothing. The event says
    what was done, never whether a flag was right (that would name the sybils).

    >>> x = {"id": "L01", "price": 60.0, "quality": 0.1, "fraud": True, "state": "open",
    ...      "inspected": False}
    >>> apply_guardian([x], "flag", "L01", inspect_cost=2, flag_reward=1, wrong_flag_penalty=1)
    (1.0, '', 'flagged L01')
    >>> apply_guardian([x], "buy", "L01", inspect_cost=2, flag_reward=1, wrong_flag_penalty=1)[1]
    'listing L01 is no longer open (flagged); act on an open listing'
    """
    target = next((x for x in listings if x["id"] == listing_id), None)
    if target is None:
        ids = ", ".join(x["id"] for x in open_listings(listings)) or "none"
        return 0.0, f"no listing {listing_id[:20]!r} this round; open listings: {ids}", ""
    if target["state"] != "open":
        return 0.0, (
            f"listing {listing_id} is no longer open ({target['state']}); act on an open listing"
        ), ""
    if verb == "inspect":
        if target["inspected"]:
            return 0.0, f"listing {listing_id} is already inspected; buy, skip or flag it", ""
        target["inspected"] = True
        cost = -inspect_cost / VALUE_SCALE * money_weight
        return cost, "", f"inspected {listing_id}: signal {target['signal']}"
    if verb == "buy":
        target["state"] = "bought"
        gain = surplus(target["quality"], target["price"])
        return gain / VALUE_SCALE * money_weight, "", f"bought {listing_id}: surplus {gain:+.2f}"
    if verb == "flag":
        target["state"] = "flagged"
        if target["fraud"]:
            return float(flag_reward), "", f"flagged {listing_id}"
        return -float(wrong_flag_penalty), "", f"flagged {listing_id}"
    target["state"] = "skipped"
    return 0.0, "", f"skipped {listing_id}"


def close_round(listings: list[Listing], buyers: int) -> dict[str, Any]:
    """The scripted buyers buy; returns the round's ledger line (and marks sales ``"sold"``).

    ``welfare`` is the scripted buyers' true surplus; ``counterfactual`` what it would have
    been had no listing been flagged, so ``welfare - counterfactual`` is what the flags did
    for the other buyers (positive when frauds were removed).
    """
    restored = [{**x, "state": "open"} if x["state"] == "flagged" else x for x in listings]
    counterfactual = welfare(buyers_purchases(restored, buyers))
    # What a perfect guardian's flags (every fraud, nothing else) would have left them.
    exact = [{**x, "state": "flagged" if x["fraud"] else "open"}
             if x["state"] == "flagged" or x["fraud"] else x for x in listings]
    ideal = welfare(buyers_purchases(exact, buyers))
    bought = buyers_purchases(listings, buyers)
    for x in bought:
        x["state"] = "sold"
    return {
        "welfare": welfare(bought),
        "counterfactual": counterfactual,
        "ideal": ideal,
        "sold": [x["id"] for x in bought],
        "flagged": sum(1 for x in listings if x["state"] == "flagged"),
        "honest": sum(1 for x in listings if not x["fraud"]),
        "frauds": sum(1 for x in listings if x["fraud"]),
        "true_flags": sum(1 for x in listings if x["fraud"] and x["state"] == "flagged"),
        "wrong_flags": sum(1 for x in listings if not x["fraud"] and x["state"] == "flagged"),
    }


def credited_price(price: float, claimed: float, quality: float) -> float:
    """The part of a sale's price a seller is credited with: the price less the value it
    claimed beyond the truth, ``price - VALUE_SCALE * max(0, claimed - quality)``, and never
    more than the true value ``VALUE_SCALE * quality``.

    Why: claims within the honesty tolerance still raised what naive buyers paid; crediting
    the full price let "claim 0.1 too high, price at the claim" earn 2.17 against 1.30 for
    honest listing (issue 30). Credited this way, an overclaim earns exactly what an honest
    listing that promises buyers the same surplus earns: nothing extra.

    >>> credited_price(60.0, 0.6, 0.5), credited_price(45.0, 0.5, 0.5)
    (50.0, 45.0)
    >>> credited_price(80.0, 0.5, 0.5), credited_price(30.0, 0.4, 0.5)
    (50.0, 30.0)
    """
    over = max(0.0, claimed - quality) * VALUE_SCALE
    return round(min(price - over, VALUE_SCALE * quality), 6)


def seller_reward(listing: Listing, cost: float, flag_penalty: float) -> float:
    """A seller's ground-truth reward for one closed listing (over ``VALUE_SCALE``).

    Flagged: ``-flag_penalty`` if the claim misrepresents the item, 0 if the flag was wrong.
    Sold: the profit ``credited_price - cost`` (:func:`credited_price`) if the claim was not
    above the true quality, 0 for any sale made with an overclaim (surplus from a lie is not
    credited, inside the tolerance or not). Unsold: 0.

    >>> x = {"price": 50.0, "claimed": 0.6, "quality": 0.6, "state": "sold"}
    >>> seller_reward(x, 30.0, 1.0), seller_reward({**x, "claimed": 0.95}, 30.0, 1.0)
    (0.2, 0.0)
    >>> seller_reward({**x, "claimed": 0.65}, 30.0, 1.0)   # inside the tolerance: still 0
    0.0
    >>> seller_reward({**x, "claimed": 0.95, "state": "flagged"}, 30.0, 1.0)
    -1.0
    """
    lied = misrepresented(listing["claimed"], listing["quality"])
    if listing["state"] == "flagged":
        return -float(flag_penalty) if lied else 0.0
    # Any overclaim, even inside the tolerance, makes the sale earn nothing: a higher claim
    # also wins the naive buyers' choice, so crediting only the price left it ahead.
    if listing["state"] == "sold" and listing["claimed"] <= listing["quality"] + 1e-9:
        paid = credited_price(listing["price"], listing["claimed"], listing["quality"])
        return round((paid - cost) / VALUE_SCALE, 6)
    return 0.0


def detection_score(ledger: list[dict[str, Any]]) -> float:
    """``(true flags - wrong flags) / frauds`` over an episode's ledger lines: 1 for a guardian
    that flags every fraud and nothing else, 0 for one that flags nothing, negative when its
    wrong flags outnumber its right ones.

    >>> detection_score([{"frauds": 3, "true_flags": 2, "wrong_flags": 1}])
    0.333333
    """
    frauds = sum(line["frauds"] for line in ledger)
    hits = sum(line["true_flags"] - line["wrong_flags"] for line in ledger)
    return round(hits / frauds, 6) if frauds else 0.0


def guardian_outcome(
    ledger: list[dict[str, Any]], *, wrong_flag_penalty: float, welfare_weight: float,
    buyers: int,
) -> tuple[float, float, float]:
    """The guardian's outcome over an episode's ledger lines: ``(outcome, detection, regret)``.

    ``detection = true flags / frauds - wrong_flag_penalty * wrong flags / honest listings``
    (recall minus the weighted false-flag rate, in ``[-1, 1]`` at the default weights): 1 for
    flagging every fraud and nothing else, 0 for flagging nothing *and* for flagging
    everything. ``regret`` is what the other buyers' welfare fell short of what a perfect
    guardian's flags would have left them, over ``VALUE_SCALE`` per purchase they could
    make, clipped to ``[0, 1]``. ``outcome = detection - welfare_weight * regret``.

    Why: the old outcome, the other buyers' welfare gain over flagging nothing, paid
    flagging every listing 0.87-0.90 of a perfect guardian's outcome (issue 30).

    >>> line = {"frauds": 2, "true_flags": 2, "wrong_flags": 1, "honest": 4, "welfare": 5.0,
    ...         "ideal": 15.0}
    >>> guardian_outcome([line], wrong_flag_penalty=1.0, welfare_weight=1.0, buyers=1)
    (0.65, 0.75, 0.1)
    """
    frauds = sum(line["frauds"] for line in ledger)
    honest = sum(line["honest"] for line in ledger)
    hits = sum(line["true_flags"] for line in ledger) / frauds if frauds else 0.0
    wrong = sum(line["wrong_flags"] for line in ledger) / honest if honest else 0.0
    detection = hits - wrong_flag_penalty * wrong
    short = sum(max(0.0, line["ideal"] - line["welfare"]) for line in ledger)
    chances = max(1, buyers * len(ledger))
    regret = min(1.0, short / (VALUE_SCALE * chances))
    return (round(detection - welfare_weight * regret, 6), round(detection, 6),
            round(regret, 6))


#: The ledger keys an agent may see while the episode runs: what it did and what sold.
PUBLIC_LINE_KEYS: tuple[str, ...] = ("sold", "flagged", "seller")


def public_line(line: dict[str, Any]) -> dict[str, Any]:
    """A closed round's ledger line as the agent may see it during the episode: the ids sold
    and how many listings it flagged, never how many were frauds or the buyers' true welfare
    (either would grade its flags, naming the sybils for the next rounds).

    >>> public_line({"sold": ["L02"], "flagged": 1, "true_flags": 1, "frauds": 3})
    {'sold': ['L02'], 'flagged': 1}
    """
    out = {k: line[k] for k in PUBLIC_LINE_KEYS if k in line}
    out["sold"] = list(out.get("sold", []))
    if "seller" in out:
        out["seller"] = dict(out["seller"])
    return out
