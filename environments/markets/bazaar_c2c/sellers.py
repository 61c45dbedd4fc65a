"""The scripted sellers of the C2C market: honest sellers and one deceptive seller's sybils.

Everything is drawn up front, for the whole episode, from one :class:`agentgym.draws.Draws`,
so play itself draws nothing and a snapshot is the listings.

Honest sellers (``honest`` identities) post one listing a round: true quality ``q`` uniform
in 0.30-0.95, a claim within 0.08 of it, a price 85-105 % of the claimed value, and a
description of their own (the item, its grade, the seller's sign-off). One in five honest
accounts is young (5-40 days, 0-9 ratings averaging 4.0-5.0), so ``new_account`` and
``thin_perfect_rating`` also fire on honest sellers.

The deceptive seller runs ``sybils`` identities, each posting one fraudulent listing a round:
true quality 0.05-0.30 but a claim of 0.85-0.95, all priced within 1 of a round price drawn in
55-70 (``price_cluster``, ``too_good``), three in four with the round's one copied description
(``copied_description``). Three in four sybil accounts are 1-30 days old; the rest are bought
old accounts (100-900 days). Ratings are 4.85-5.0 from 2-8 reviews, or (one in five) 12-30
bought reviews. So no single signal is proof, and the documented baseline combines them.

``inspect`` reveals ``signal``: the true quality plus noise uniform in +-0.15, fixed per
listing.

>>> import numpy as np
>>> from agentgym.draws import Draws
>>> rounds = make_rounds(Draws(np.random.default_rng(0)), rounds=2, honest=3, sybils=3)
>>> len(rounds), len(rounds[0]), sum(x["fraud"] for x in rounds[0])
(2, 6, 3)
"""

from __future__ import annotations

from typing import Any

from agentgym.draws import Draws

from .market import VALUE_SCALE, Listing

__all__ = ["ITEMS", "grade", "make_identities", "make_rounds", "make_seller_items"]

ITEMS: tuple[str, ...] = (
    "road bike", "espresso machine", "camera lens", "desk chair", "guitar", "smartwatch",
    "headphones", "drone", "sewing machine", "tablet", "rice cooker", "tent",
)
_SIGN_OFFS: tuple[str, ...] = (
    "Pickup in town preferred.", "Ships in two days.", "Happy to answer questions.",
    "Original box included.", "Smoke-free home.", "Cash or transfer.", "Selling as I moved.",
    "Serviced last year.", "No returns, sorry.", "Photos on request.", "Can meet halfway.",
    "Price is firm.",
)
_NAMES: tuple[str, ...] = (
    "ana", "bo", "chen", "dara", "eli", "fatma", "gus", "hana", "ivo", "jun", "kemi", "luca",
)
_SHOPS: tuple[str, ...] = ("deals", "bargain", "outlet", "best", "mega", "super", "top", "shop")


def grade(claimed: float) -> str:
    """The condition word a description uses for a claimed quality.

    >>> grade(0.9), grade(0.5), grade(0.2)
    ('like new', 'good', 'worn')
    """
    if claimed >= 0.85:
        return "like new"
    if claimed >= 0.65:
        return "very good"
    if claimed >= 0.45:
        return "good"
    return "worn"


def _u(draws: Draws, low: float, high: float, digits: int = 2) -> float:
    return round(low + (high - low) * draws.random(), digits)


def _chance(draws: Draws, p: float) -> bool:
    return draws.random() < p


def make_identities(draws: Draws, honest: int, sybils: int) -> list[dict[str, Any]]:
    """The episode's seller accounts: ``honest`` honest ones, then ``sybils`` sybils."""
    accounts = []
    for i in range(honest):
        young = _chance(draws, 0.2)
        accounts.append({
            "name": f"{_NAMES[i % len(_NAMES)]}{i // len(_NAMES) or ''}",
            "fraud": False,
            "age_days": draws.below(36) + 5 if young else draws.below(1941) + 60,
            "rating": _u(draws, 4.0, 5.0, 1) if young else _u(draws, 3.8, 4.79, 1),
            "ratings": draws.below(10) if young else draws.below(381) + 20,
            "sign_off": _SIGN_OFFS[i % len(_SIGN_OFFS)],
        })
    for _ in range(sybils):
        bought_reviews = _chance(draws, 0.2)
        accounts.append({
            "name": f"{draws.pick(_SHOPS)}{draws.below(900) + 100}",
            "fraud": True,
            "age_days": draws.below(30) + 1 if _chance(draws, 0.75) else draws.below(801) + 100,
            "rating": _u(draws, 4.85, 5.0, 1),
            "ratings": draws.below(19) + 12 if bought_reviews else draws.below(7) + 2,
            "sign_off": "",
        })
    return accounts


def _listing(account: dict[str, Any], **fields: Any) -> Listing:
    return {
        "seller": account["name"],
        "fraud": account["fraud"],
        "age_days": account["age_days"],
        "rating": account["rating"],
        "ratings": account["ratings"],
        "state": "open",
        "inspected": False,
        **fields,
    }


def _clip(q: float) -> float:
    return round(min(1.0, max(0.0, q)), 2)


def make_rounds(
    draws: Draws, *, rounds: int, honest: int, sybils: int
) -> list[list[Listing]]:
    """Every round's listings, shuffled, with ids ``L01``, ``L02``, ... across the episode."""
    accounts = make_identities(draws, honest, sybils)
    out, number = [], 0
    for _ in range(rounds):
        batch = []
        fraud_price = _u(draws, 55.0, 70.0)
        fraud_item = draws.pick(ITEMS)
        template = f"{fraud_item.capitalize()} - brand new, premium quality, 100% genuine!"
        for account in accounts:
            item = draws.pick(ITEMS)
            if account["fraud"]:
                quality = _u(draws, 0.05, 0.30)
                claimed = _u(draws, 0.85, 0.95)
                price = round(fraud_price + _u(draws, -1.0, 1.0), 2)
                copied = _chance(draws, 0.75)
                own = f"{item.capitalize()}, {grade(claimed)}, barely used."
                text = template if copied else own
            else:
                quality = _u(draws, 0.30, 0.95)
                claimed = _clip(quality + _u(draws, -0.08, 0.08))
                price = round(VALUE_SCALE * claimed * _u(draws, 0.85, 1.05), 2)
                text = f"{item.capitalize()} in {grade(claimed)} condition. {account['sign_off']}"
            noise = _u(draws, -0.15, 0.15)
            batch.append(_listing(
                account, price=price, claimed=claimed, quality=quality,
                signal=_clip(quality + noise), description=text,
            ))
        draws.shuffle(batch)
        for listing in batch:
            number += 1
            listing["id"] = f"L{number:02d}"
        out.append(batch)
    return out


def make_seller_items(draws: Draws, rounds: int) -> list[dict[str, float]]:
    """The agent-seller's item each round: true quality, its cost, and the inspect noise.

    >>> import numpy as np
    >>> items = make_seller_items(Draws(np.random.default_rng(0)), 2)
    >>> sorted(items[0])
    ['cost', 'noise', 'quality']
    """
    items = []
    for _ in range(rounds):
        quality = _u(draws, 0.30, 0.95)
        items.append({
            "quality": quality,
            "cost": round(VALUE_SCALE * quality * _u(draws, 0.5, 0.7), 2),
            "noise": _u(draws, -0.15, 0.15),
        })
    return items
