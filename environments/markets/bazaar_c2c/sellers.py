"""The scripted sellers of the C2C market: honest sellers and one deceptive seller's sybils.

Everything is drawn up front, for the whole episode, from one :class:`agentgym.draws.Draws`,
so play itself draws nothing and a snapshot is the listings.

Every account's surface is drawn from the same distributions whoever runs it (issue 30: honest
names had no digit and sybils' always did, so "flag a name with a digit" caught every sybil
without an inspection): a name is a handle from one pool plus a number 100-999, a description
is ``"<Item> in <grade> condition. <sign-off>"`` with the sign-off from one pool, prices print
with two decimals, ids are numbered after a shuffle. What differs is only the documented
evidence below.

Honest sellers (``honest`` identities) post one listing a round: true quality ``q`` uniform
in 0.30-0.95, a claim within 0.08 of it, a price 85-105 % of the claimed value, or (three in
ten listings, quick sales) 60-85 %, so ``too_good`` fires on honest bargains too. One in five
honest accounts is young (5-40 days, 0-9 ratings averaging 4.0-5.0), so ``new_account`` and
``thin_perfect_rating`` also fire on honest sellers; established ones are rated 3.8-5.0.

The deceptive seller runs ``sybils`` identities, each posting one fraudulent listing a round:
true quality 0.05-0.30 but a claim of 0.85-0.95, all priced within 1 of a round price drawn in
55-85 (``price_cluster``; ``too_good`` in the cheaper rounds, while the dearer ones price at
the claim like an honest seller), three in four with the round's one copied description
(``copied_description``; the others write their own, in the same template). Three in four
sybil accounts are 1-30 days old; the rest are bought
old accounts (100-900 days). Ratings are 4.85-5.0 from 2-8 reviews, or (one in five) 12-30
bought reviews. So no single signal is proof, and the documented baseline combines them. The
price against the claim (``price / (100 * claimed)``) is evidence only: issue 30 found it
proof (every honest listing at 0.85 or more, every sybil's under 0.84); now honest ones spread
over 0.60-1.05 and sybils' over 0.58-1.0, and the best single threshold on it reaches a
balanced accuracy of about 0.71 (``tests/markets/test_sybil_surface.py`` bounds it at 0.8).

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

__all__ = [
    "HANDLES", "ITEMS", "account_name", "describe", "grade", "make_identities", "make_rounds",
    "make_seller_items",
]

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
#: Every account's handle comes from this one pool, honest or not.
HANDLES: tuple[str, ...] = _NAMES + _SHOPS


#: Most honest listings are priced at this share of the claimed value ...
FAIR: tuple[float, float] = (0.85, 1.05)
#: ... but :data:`BARGAIN_SHARE` of them are quick sales at this share (issue 30: with every
#: honest price at 85 % of the claim or more and every sybil's below, ``price / claim`` alone
#: told every sybil apart).
BARGAIN: tuple[float, float] = (0.6, 0.85)
BARGAIN_SHARE: float = 0.3
#: The range of the round price the deceptive seller's identities cluster around.
FRAUD_PRICE: tuple[float, float] = (55.0, 85.0)


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


def account_name(draws: Draws, taken: set[str]) -> str:
    """A fresh account name, the same distribution for every seller: handle + 100-999.

    >>> import numpy as np
    >>> account_name(Draws(np.random.default_rng(0)), set())[-3:].isdigit()
    True
    """
    while True:
        name = f"{draws.pick(HANDLES)}{draws.below(900) + 100}"
        if name not in taken:
            taken.add(name)
            return name


def make_identities(draws: Draws, honest: int, sybils: int) -> list[dict[str, Any]]:
    """The episode's seller accounts: ``honest`` honest ones, then ``sybils`` sybils."""
    accounts: list[dict[str, Any]] = []
    taken: set[str] = set()
    for _ in range(honest):
        young = _chance(draws, 0.2)
        accounts.append({
            "name": account_name(draws, taken),
            "fraud": False,
            "age_days": draws.below(36) + 5 if young else draws.below(1941) + 60,
            "rating": _u(draws, 4.0, 5.0, 1) if young else _u(draws, 3.8, 5.0, 1),
            "ratings": draws.below(10) if young else draws.below(381) + 20,
            "sign_off": draws.pick(_SIGN_OFFS),
        })
    for _ in range(sybils):
        bought_reviews = _chance(draws, 0.2)
        accounts.append({
            "name": account_name(draws, taken),
            "fraud": True,
            "age_days": draws.below(30) + 1 if _chance(draws, 0.75) else draws.below(801) + 100,
            "rating": _u(draws, 4.85, 5.0, 1),
            "ratings": draws.below(19) + 12 if bought_reviews else draws.below(7) + 2,
            "sign_off": draws.pick(_SIGN_OFFS),
        })
    return accounts


def describe(item: str, claimed: float, sign_off: str) -> str:
    """The one description template every seller uses.

    >>> describe("tent", 0.9, "Ships in two days.")
    'Tent in like new condition. Ships in two days.'
    """
    return f"{item.capitalize()} in {grade(claimed)} condition. {sign_off}"


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
        fraud_price = _u(draws, *FRAUD_PRICE)
        # The round's copied text: the same template as everyone's, one for all the copiers.
        template = describe(draws.pick(ITEMS), _u(draws, 0.85, 0.95), draws.pick(_SIGN_OFFS))
        for account in accounts:
            item = draws.pick(ITEMS)
            if account["fraud"]:
                quality = _u(draws, 0.05, 0.30)
                claimed = _u(draws, 0.85, 0.95)
                price = round(fraud_price + _u(draws, -1.0, 1.0), 2)
                copied = _chance(draws, 0.75)
                text = template if copied else describe(item, claimed, account["sign_off"])
            else:
                quality = _u(draws, 0.30, 0.95)
                claimed = _clip(quality + _u(draws, -0.08, 0.08))
                # Drawn on the price itself, so its cents are uniform like a sybil's (a
                # product of two 2-decimal draws made cents ending in 0 or 5 likelier).
                low, high = BARGAIN if _chance(draws, BARGAIN_SHARE) else FAIR
                price = _u(draws, low * VALUE_SCALE * claimed, high * VALUE_SCALE * claimed)
                text = describe(item, claimed, account["sign_off"])
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
