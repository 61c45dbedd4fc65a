"""BazaarC2C-v0 (issue 30): no surface feature of a listing gives a sybil away, while the
documented evidence still does.

A logistic regression (numpy, batch gradient descent) is trained on the surface of listings
from many generated markets and scored on markets it never saw. Surface means everything a
listing shows that the README does *not* document as evidence: the seller name's handle and
each digit of its number, the description's words and format (length, punctuation; the
condition word is left out, see below), the price's cents digits and print length, the id's
number, and the listing's position in its round. Held-out **balanced accuracy** (the mean of
the hit rates on sybils and on honest listings: 0.5 for any rule that ignores the listing,
whatever the share of sybils) must stay under :data:`CHANCE_BOUND`.

One model per K (3, 6, 9 sybils among 6 honest sellers): a round's size is public and tells
K, hence the share of sybils, which says nothing about *which* listings they are. Why 0.55:
each held-out set has 5,400-9,000 listings (1,800-3,600 of them sybils), so a model with no
signal scores 0.5 +- 0.007 (one standard error; fitting under 200 weights on 10,800-18,000
rows overfits by well under 0.01). Anything above 0.55 is a real tell. The old names (a
digit in every sybil's name, none in honest ones) scored 1.0; this test also found the
honest prices' cents (a product of two 2-decimal draws, so cents ending in 0 or 5 were
likelier) at 0.63, fixed in :mod:`.sellers`; and the planted-leak check below shows the
model finds a tell carried by one token in 30% of sybil listings (0.63, where 0.65 is the
most it can give).

The condition word ("like new", ...) is the claimed quality printed in words, and a claim too
good for its price is documented evidence (``too_good``), so it is scored with the evidence,
not the surface. The evidence model (account age, rating and its count, copied text, price
clustering, the claim against the price, and the inspected signal) must reach 0.9: the test
fails if the fix made sybils undetectable rather than only unnamed.

The price against the claim is evidence too, and no more than evidence: a red-teamer found
``price / (100 * claimed)`` at 0.85 or more for every honest listing and at most 0.835 for
every sybil (seeds 0-1999), so one threshold flagged every sybil with no inspection and beat
the baseline. :func:`test_no_single_threshold_on_the_price_to_claim_ratio_separates_sybils`
bounds the best threshold on it (and on the claimed surplus, the price relative to the claim)
at :data:`RATIO_BOUND` balanced accuracy, in-sample over 300 markets per K (measured after the
fix: about 0.71 at every K; before: 1.0).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

import numpy as np
import pytest

from agentgym.draws import Draws
from agentgym.environments.markets.bazaar_c2c.market import (
    CLUSTER_WIDTH,
    claimed_surplus,
)
from agentgym.environments.markets.bazaar_c2c.sellers import make_rounds

#: The most held-out balanced accuracy a surface model may reach (chance is 0.5).
CHANCE_BOUND = 0.55
#: The least the documented evidence must reach.
EVIDENCE_FLOOR = 0.9
#: The most the best single threshold on price / claimed value may reach (evidence, not proof).
RATIO_BOUND = 0.8


def markets(seeds: range, k: int) -> list[list[dict[str, Any]]]:
    """Every round of a default market (6 honest sellers, ``k`` sybils, 4 rounds) per seed."""
    return [batch for seed in seeds
            for batch in make_rounds(Draws(np.random.default_rng(seed)), rounds=4, honest=6,
                                     sybils=k)]


def surface(x: dict[str, Any], position: int) -> list[str]:
    """The surface tokens of one listing (no documented evidence among them)."""
    name = re.fullmatch(r"([a-z]+)(\d+)", x["seller"])
    handle, number = (name.group(1), name.group(2)) if name else (x["seller"], "")
    # The condition word is the claim (evidence, see above): left out of words and lengths.
    text = x["description"].lower()
    for grade_word in ("like new", "very good", "good", "worn"):
        text = text.replace(f" in {grade_word} condition", " in condition")
    words = re.findall(r"[a-z]+", text)
    price = f"{x['price']:.2f}"
    lid = int(x["id"][1:])
    tokens = [
        f"handle={handle}", f"name_len={len(x['seller'])}", f"name_digits={len(number)}",
        *(f"name_d{i}={d}" for i, d in enumerate(number)),
        *(f"word={w}" for w in words),
        f"desc_words={len(words)}", f"desc_chars={len(text) // 5}",
        *(f"punct={c}" for c in sorted(set(re.sub(r"[\w\s]", "", text)))),
        f"cents1={price[-2]}", f"cents2={price[-1]}", f"price_len={len(price)}",
        f"id_mod={lid % 10}", f"id_mod2={lid % 2}", f"position={position}",
    ]
    return tokens


def evidence(x: dict[str, Any], batch: list[dict[str, Any]]) -> list[float]:
    """The documented evidence, as numbers."""
    others = [y for y in batch if y["seller"] != x["seller"]]
    near = sum(abs(y["price"] - x["price"]) <= CLUSTER_WIDTH for y in others)
    return [
        math.log1p(x["age_days"]), x["rating"], math.log1p(x["ratings"]),
        float(any(y["description"] == x["description"] for y in others)), float(near),
        claimed_surplus(x) / 100, x["claimed"] - x["signal"],
    ]


def fit_predict(train: np.ndarray, y: np.ndarray, test: np.ndarray) -> np.ndarray:
    """Class-balanced L2 logistic regression by gradient descent; predictions on ``test``."""
    mu, sd = train.mean(0), train.std(0) + 1e-9
    a, b = (train - mu) / sd, (test - mu) / sd
    a, b = np.hstack([a, np.ones((len(a), 1))]), np.hstack([b, np.ones((len(b), 1))])
    weight = np.where(y == 1, 0.5 / y.mean(), 0.5 / (1 - y.mean())) / len(y)
    w = np.zeros(a.shape[1])
    for _ in range(300):
        p = 1 / (1 + np.exp(-np.clip(a @ w, -30, 30)))
        w -= 1.0 * (a.T @ (weight * (p - y)) + 1e-4 * w)
    return (b @ w) > 0


def balanced_accuracy(pred: np.ndarray, y: np.ndarray) -> float:
    return float((pred[y == 1].mean() + (~pred[y == 0]).mean()) / 2)


def token_matrix(rows: list[list[str]], vocab: dict[str, int]) -> np.ndarray:
    m = np.zeros((len(rows), len(vocab)))
    for i, tokens in enumerate(rows):
        for t in tokens:
            if t in vocab:
                m[i, vocab[t]] = 1.0
    return m


def dataset(seeds: range, k: int) -> tuple[list[list[str]], np.ndarray, np.ndarray]:
    rows, ev, ys = [], [], []
    for batch in markets(seeds, k):
        for position, x in enumerate(batch):
            rows.append(surface(x, position))
            ev.append(evidence(x, batch))
            ys.append(float(x["fraud"]))
    return rows, np.array(ev), np.array(ys)


@pytest.fixture(scope="module", params=[3, 6, 9], ids=lambda k: f"K={k}")
def data(request):
    # One model per K: a round's size (public) tells K, and so the share of sybils, which
    # is no tell about which listings they are.
    k = request.param
    train, test = dataset(range(0, 300), k), dataset(range(10_000, 10_150), k)
    counts = Counter(t for tokens in train[0] for t in tokens)
    vocab = {t: i for i, t in enumerate(sorted(t for t, c in counts.items() if c >= 20))}
    return ((token_matrix(train[0], vocab), train[1], train[2]),
            (token_matrix(test[0], vocab), test[1], test[2]), list(vocab))


def _surface_accuracy(data, keep=lambda t: True, plant: float = 0.0) -> float:
    (m, _, y), (m_t, _, y_t), vocab = data
    cols = [i for i, t in enumerate(vocab) if keep(t)]
    m, m_t = m[:, cols], m_t[:, cols]
    if plant:  # a tell carried by one token in a share of the sybil listings
        gen = np.random.default_rng(0)
        m = np.hstack([m, ((y == 1) & (gen.random(len(y)) < plant))[:, None] * 1.0])
        m_t = np.hstack([m_t, ((y_t == 1) & (gen.random(len(y_t)) < plant))[:, None] * 1.0])
    return balanced_accuracy(fit_predict(m, y, m_t), y_t)


def test_no_surface_feature_separates_sybils(data):
    # All surface tokens together, then each family alone ("no single surface feature").
    assert _surface_accuracy(data) < CHANCE_BOUND
    families = ("handle", "name_", "word", "desc_", "punct", "cents", "price_len", "id_",
                "position")
    for family in families:
        score = _surface_accuracy(data, keep=lambda t, f=family: t.startswith(f))
        assert score < CHANCE_BOUND, (family, score)


def test_the_surface_model_would_find_a_tell(data):
    # The check can fail: one planted token on 30% of sybil listings is found at once.
    assert _surface_accuracy(data, plant=0.3) > 0.6


def test_the_documented_evidence_still_separates_sybils(data):
    (_, ev, y), (_, ev_t, y_t), _ = data
    pred = fit_predict(ev, y, ev_t)
    assert balanced_accuracy(pred, y_t) >= EVIDENCE_FLOOR
    # Without the inspection, the free evidence alone still beats chance by far.
    pred = fit_predict(ev[:, :-1], y, ev_t[:, :-1])
    assert balanced_accuracy(pred, y_t) >= 0.8


def best_threshold_accuracy(score: np.ndarray, y: np.ndarray) -> float:
    """The best balanced accuracy of "sybil iff ``score`` < t" over every threshold ``t``
    (either direction, in-sample: an upper bound on what one cut can do)."""
    order = np.argsort(score, kind="stable")
    s, yy = score[order], y[order]
    syb, hon = np.cumsum(yy == 1), np.cumsum(yy == 0)
    last = np.r_[s[1:] != s[:-1], True]  # cut after each distinct value
    tpr = np.r_[0.0, syb[last] / syb[-1]]
    fpr = np.r_[0.0, hon[last] / hon[-1]]
    ba = (tpr + 1 - fpr) / 2
    return float(max(ba.max(), (1 - ba).max()))


@pytest.mark.parametrize("k", [3, 6, 9])
def test_no_single_threshold_on_the_price_to_claim_ratio_separates_sybils(k):
    listings = [x for batch in markets(range(0, 300), k) for x in batch]
    y = np.array([float(x["fraud"]) for x in listings])
    ratio = np.array([x["price"] / (100 * x["claimed"]) for x in listings])
    assert best_threshold_accuracy(ratio, y) <= RATIO_BOUND
    # The claimed surplus (claimed value less price) is the same evidence on another scale.
    claimed = np.array([claimed_surplus(x) for x in listings])
    assert best_threshold_accuracy(claimed, y) <= RATIO_BOUND
    # The check can fail: before the fix (honest at 85-105 % of the claim, sybils priced at
    # 55-70 for a claim of 0.85-0.95) one cut was perfect.
    assert best_threshold_accuracy(np.r_[np.full(5, 0.9), np.full(5, 0.7)],
                                   np.r_[np.zeros(5), np.ones(5)]) == 1.0
