"""BazaarC2C-v0: the ledger's maths by hand, the sellers' draws, the env's rewards and bad
input, and the known answer: the baseline guardian beats random flagging at every K."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agentgym.agents import make_agent
from agentgym.draws import Draws
from agentgym.environments.markets.bazaar_c2c.agents import BaselineAgent, guardian_move
from agentgym.environments.markets.bazaar_c2c.env import BazaarC2CEnv, parse_move
from agentgym.environments.markets.bazaar_c2c.market import (
    apply_guardian,
    buyers_purchases,
    claimed_surplus,
    close_round,
    detection_score,
    misrepresented,
    seller_reward,
    signals,
    surplus,
    welfare,
)
from agentgym.environments.markets.bazaar_c2c.sellers import make_rounds

REWARDS = {"inspect_cost": 2.0, "flag_reward": 1.0, "wrong_flag_penalty": 1.0}


def listing(lid: str, **fields) -> dict:
    base = {"id": lid, "seller": lid.lower(), "price": 50.0, "claimed": 0.6, "quality": 0.6,
            "signal": 0.6, "fraud": False, "description": f"text {lid}", "age_days": 400,
            "rating": 4.3, "ratings": 80, "state": "open", "inspected": False}
    return {**base, **fields}


# ---------------------------------------------------------------- market maths, by hand
def test_surplus_and_claimed_surplus_by_hand():
    assert surplus(0.8, 70.0) == 10.0
    assert surplus(0.2, 60.0) == -40.0
    assert claimed_surplus(listing("A", claimed=0.9, price=62.5)) == 27.5


def test_each_signal_fires_on_its_evidence_only():
    plain = listing("A")
    assert signals(plain, [plain]) == []
    assert signals(listing("A", age_days=44), [plain]) == ["new_account"]
    twin = listing("B", description="text A")
    assert signals(plain, [plain, twin]) == ["copied_description"]
    near = [listing("B", price=51.5), listing("C", price=48.5)]
    assert signals(plain, [plain, *near]) == ["price_cluster"]
    assert signals(plain, [plain, near[0]]) == []  # one neighbour is no cluster
    assert signals(listing("A", claimed=0.69, price=50.0), [plain]) == ["too_good"]
    assert signals(listing("A", claimed=0.68, price=50.0), [plain]) == []  # 18 is not > 18
    assert signals(listing("A", rating=4.8, ratings=9), [plain]) == ["thin_perfect_rating"]
    assert signals(listing("A", rating=4.8, ratings=10), [plain]) == []


def test_scripted_buyers_take_the_best_claimed_surplus_and_lose_on_frauds():
    fraud = listing("F", claimed=0.9, price=60.0, quality=0.1, fraud=True)  # claims +30
    good = listing("G", claimed=0.7, price=60.0, quality=0.7)  # claims +10, true +10
    bad_deal = listing("H", claimed=0.5, price=60.0)  # claims -10: nobody buys
    bought = buyers_purchases([good, fraud, bad_deal], 3)
    assert [x["id"] for x in bought] == ["F", "G"]
    assert welfare(bought) == -50.0 + 10.0


def test_close_round_counts_the_welfare_the_flags_saved():
    fraud = listing("F", claimed=0.9, price=60.0, quality=0.1, fraud=True, state="flagged")
    good = listing("G", claimed=0.7, price=60.0, quality=0.7)
    line = close_round([fraud, good], buyers=1)
    # With the flag the one buyer gets G (+10); without it F (-50).
    assert (line["welfare"], line["counterfactual"], line["sold"]) == (10.0, -50.0, ["G"])
    assert (line["frauds"], line["true_flags"], line["wrong_flags"]) == (1, 1, 0)
    assert good["state"] == "sold" and fraud["state"] == "flagged"


def test_guardian_rewards_come_from_the_ground_truth():
    fraud = listing("F", price=60.0, quality=0.1, fraud=True)
    honest = listing("H", price=40.0, quality=0.6)
    both = [fraud, honest]
    assert apply_guardian(both, "inspect", "F", **REWARDS)[0] == -0.02
    assert apply_guardian(both, "inspect", "F", **REWARDS)[1]  # twice is refused
    assert apply_guardian([dict(fraud)], "buy", "F", **REWARDS)[0] == -0.5
    assert apply_guardian([dict(honest)], "buy", "H", **REWARDS)[0] == 0.2
    assert apply_guardian([dict(honest)], "flag", "H", **REWARDS)[0] == -1.0
    assert apply_guardian(both, "flag", "F", **REWARDS)[0] == 1.0
    reward, error, _ = apply_guardian(both, "buy", "F", **REWARDS)
    assert (reward, fraud["state"]) == (0.0, "flagged") and "no longer open" in error
    assert "no listing" in apply_guardian(both, "buy", "L99", **REWARDS)[1]


def test_seller_reward_and_detection_score_by_hand():
    sold = listing("Y", price=50.0, claimed=0.62, quality=0.6, state="sold")
    # Claimed 0.02 above the truth: inside the tolerance, but overclaiming earns nothing.
    assert seller_reward(sold, 30.0, 1.0) == 0.0
    assert seller_reward({**sold, "claimed": 0.6}, 30.0, 1.0) == 0.2
    assert seller_reward({**sold, "claimed": 0.9}, 30.0, 1.0) == 0.0
    assert seller_reward({**sold, "claimed": 0.9, "state": "flagged"}, 30.0, 1.0) == -1.0
    assert seller_reward({**sold, "state": "flagged"}, 30.0, 1.0) == 0.0
    assert misrepresented(0.71, 0.6) and not misrepresented(0.7, 0.6)
    ledger = [{"frauds": 3, "true_flags": 3, "wrong_flags": 0},
              {"frauds": 3, "true_flags": 1, "wrong_flags": 2}]
    assert detection_score(ledger) == round(2 / 6, 6)


# ---------------------------------------------------------------- sellers
@pytest.mark.parametrize("k", [3, 6, 9])
def test_sellers_draw_frauds_that_lie_and_honest_claims_that_do_not(k):
    rounds = make_rounds(Draws(np.random.default_rng(5)), rounds=5, honest=6, sybils=k)
    for batch in rounds:
        frauds = [x for x in batch if x["fraud"]]
        assert len(frauds) == k and len(batch) == 6 + k
        for x in batch:
            assert abs(x["signal"] - x["quality"]) <= 0.15 + 1e-9
            if x["fraud"]:
                assert x["claimed"] >= 0.85 and x["quality"] <= 0.3 and x["price"] >= 54
                assert surplus(x["quality"], x["price"]) < 0
            else:
                assert abs(x["claimed"] - x["quality"]) <= 0.08 + 1e-9
        prices = [x["price"] for x in frauds]
        assert max(prices) - min(prices) <= 2.0  # one operator, one price
    ids = [x["id"] for batch in rounds for x in batch]
    assert len(set(ids)) == len(ids)
    again = make_rounds(Draws(np.random.default_rng(5)), rounds=5, honest=6, sybils=k)
    assert again == rounds


# ---------------------------------------------------------------- the env
def test_parse_move_reads_the_documented_forms_and_refuses_bad_prices():
    assert parse_move(" Flag ( l07 ) ", "buyer") == (("flag", "L07"), "")
    assert parse_move("inspect L12", "buyer") == (("inspect", "L12"), "")
    for bad in ("list(-5, 0.5)", "list(1e9, 0.5)", "list(nan, 0.5)", "list(inf, 0.5)",
                "list(cheap, 0.5)", "list(50, 1.5)", "list(0, 0.5)"):
        move, error = parse_move(bad, "seller")
        assert move is None and error, bad


def test_process_rewards_per_action_match_score_actions():
    env = BazaarC2CEnv(sybils=6)
    _, info = env.reset(seed=0)
    truth = {x["id"]: x for x in env._current}
    fraud = next(k for k, x in truth.items() if x["fraud"])
    honest = next(k for k, x in truth.items() if not x["fraud"])
    actions = [f"flag({fraud})", f"flag({honest})", f"buy({fraud})", f"inspect({honest})"]
    # Scaled so the episode's sum is bounded: 0.2 over 24 frauds, 24 honest, 48 listings.
    money = 0.2 / 48
    expected = [0.2 / 24, -0.2 / 24,
                surplus(truth[fraud]["quality"], truth[fraud]["price"]) / 100 * money,
                -0.02 * money]
    assert env.score_actions(actions) == pytest.approx(expected)
    assert expected[2] < 0
    _, reward, _, _, info = env.step(f"flag({fraud})")
    assert reward == info["reward_components"]["flags"] == pytest.approx(0.2 / 24)
    assert env.oracle_actions()[0].startswith("flag(")


def test_bad_input_is_refused_with_the_ledger_unchanged():
    env = BazaarC2CEnv(role="buyer")
    env.reset(seed=1)
    env.step(f"skip({env._current[0]['id']})")
    for bad in ("buy(L99)", f"buy({env._current[0]['id']})", "x" * 100_000, "offer(10)",
                "flag()", "<action>buy(L01</action>"):
        before = json.loads(env.get_state())["state"]
        _, reward, terminated, truncated, info = env.step(bad)
        assert not info["valid_action"] and info["action_error"], bad
        assert json.loads(env.get_state())["state"] == before
        assert reward == pytest.approx(-0.1) and not (terminated or truncated)
    seller = BazaarC2CEnv(role="seller")
    seller.reset(seed=1)
    for bad in ("list(-1, 0.5)", "list(1e308, 0.5)", "list(NaN, 0.5)", "list(inf, 0.5)",
                "list(ten, 0.5)", "buy(L01)"):
        before = json.loads(seller.get_state())["state"]
        *_, terminated, truncated, info = seller.step(bad)
        assert not info["valid_action"] and info["action_error"], bad
        assert json.loads(seller.get_state())["state"] == before
        assert not (terminated or truncated)
    assert seller.invalid_actions == 6 and seller.max_invalid == 10


def test_flags_raise_the_other_buyers_welfare():
    env = BazaarC2CEnv(sybils=3, rounds=1)
    _, info = env.reset(seed=2)
    for x in list(env._current):
        if x["fraud"]:
            env.step(f"flag({x['id']})")
    *_, terminated, _, info = env.step("skip")
    line = info["ledger"][0]
    assert terminated and info["success"]
    assert line["welfare"] > line["counterfactual"] and line["welfare"] == line["ideal"]
    # Every fraud flagged, nothing else, buyers as well off as a perfect guardian leaves them.
    assert info["reward_components"]["outcome"] == 1.0
    assert info["reward_components"]["welfare_gain"] == pytest.approx(
        (line["welfare"] - line["counterfactual"]) / 100
    )


def test_seller_role_pays_honest_sales_and_penalises_flagged_lies():
    env = BazaarC2CEnv(role="seller", rounds=2)
    # A seed whose second item is poor (quality < 0.45), so a 0.95 claim is a lie the
    # guardian's inspection (noise at most 0.15) must catch: 0.95 - 0.6 > 0.3.
    # Also one whose honest first listing goes to the scripted buyers (the guardian buying it
    # is another state, covered by the seller's ledger tests).
    def honest_first(seed):
        _, info = env.reset(seed=seed)
        honest, _, lie, _ = info["available_actions"]
        return (honest, lie, *env.step(honest))

    seed = next(s for s in range(100) if env.reset(seed=s) and env._items[1]["quality"] < 0.45
                and honest_first(s)[-1]["ledger"][0]["seller"]["state"] == "sold")
    honest, lie, _, reward, _, _, info = honest_first(seed)
    mine = info["ledger"][0]["seller"]
    assert mine == {"state": "sold", "lied": False, "reward": reward} and reward > 0
    _, reward, terminated, _, info = env.step(lie)
    assert info["ledger"][1]["seller"]["state"] == "flagged" and reward == -1.0
    assert terminated and not info["success"]


def test_guardian_move_follows_the_documented_rule():
    x = listing("A", signal=None)
    assert guardian_move(x, [x]) == "inspect(A)"
    assert guardian_move({**x, "signal": 0.25}, [x]) == "flag(A)"  # 0.6 - 0.25 > 0.3
    assert guardian_move({**x, "signal": 0.6}, [x]) == "buy(A)"  # 60 - 50 > 5
    assert guardian_move({**x, "signal": 0.52}, [x]) == "skip(A)"
    loud = listing("A", age_days=3, rating=5.0, ratings=2, claimed=0.9, price=60.0,
                   signal=None)
    # Three signals (new, too good, thin perfect rating): an honest quick sale can show them.
    assert guardian_move(loud, [loud]) == "inspect(A)"
    copy = listing("B", description=loud["description"])
    assert guardian_move(loud, [loud, copy]) == "flag(A)"  # four: no inspection needed


# ---------------------------------------------------------------- the known answer
def play(agent, k: int, seed: int) -> tuple[float, float]:
    env = BazaarC2CEnv(sybils=k)
    obs, info = env.reset(seed=seed)
    agent.reset(env, seed=seed)
    total = 0.0
    while True:
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        total += reward
        if terminated or truncated:
            return detection_score(info["ledger"]), total


@pytest.mark.parametrize("k", [3, 6, 9])
def test_baseline_beats_random_flagging_by_the_documented_margin(k):
    # Seeds 0-29, measured (also in the README's BazaarC2C notes): detection (true - wrong
    # flags) / frauds, baseline vs random: K=3 0.994 vs -0.233, K=6 0.997 vs -0.025, K=9
    # 0.996 vs 0.103; return 1.197 vs -0.145, 1.197 vs -0.364, 1.194 vs -0.395 (the outcome
    # is the detection score less regret, the process at most 0.2). The test asks for a
    # detection margin of 0.8 and a return margin of 1 at every K, and the baseline's worst
    # seed above random's best.
    seeds = range(30)
    base = np.array([play(BaselineAgent(), k, s) for s in seeds])
    rand = np.array([play(make_agent("random"), k, s) for s in seeds])
    assert base[:, 0].mean() - rand[:, 0].mean() >= 0.8
    assert base[:, 1].mean() - rand[:, 1].mean() >= 1.0
    assert base[:, 0].min() > rand[:, 0].max()
