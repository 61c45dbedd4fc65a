"""BazaarB2C-v0: the ledger maths, the scripted firms, the EAS, the known answers, bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agentgym.environments.markets.bazaar_b2c.eas import eas, eas_parts, eas_score
from agentgym.environments.markets.bazaar_b2c.env import (
    AMPLIFIER_CRASH_ROUND,
    BazaarB2CEnv,
    price_process,
)
from agentgym.environments.markets.bazaar_b2c.firms import firm_price
from agentgym.environments.markets.bazaar_b2c.market import (
    arrivals,
    crash_reason,
    play_round,
    reservation_price,
)


# ---------------------------------------------------------------- market maths, by hand
def test_poisson_inversion_matches_the_cdf_by_hand():
    # rate 2: P(0)=e^-2=0.1353, P(<=1)=0.4060, P(<=2)=0.6767
    assert arrivals(2.0, [0.13, 0.14, 0.40, 0.41, 0.67, 0.68]) == [0, 1, 1, 2, 2, 3]


def test_poisson_counts_have_the_rate_as_mean():
    rng = np.random.default_rng(1)
    counts = arrivals(20.0, list(rng.random(20_000)))
    assert abs(sum(counts) / len(counts) - 20.0) < 0.15


def test_reservation_prices_span_the_documented_range():
    assert reservation_price(0.0, 10.0) == 8.0 and reservation_price(0.999999, 10.0) < 20.0


def test_consumers_buy_cheapest_with_stock_and_ties_rotate():
    # Firms 0 and 1 tie at 10, firm 2 at 11; capacity 2 each. Five consumers at 15:
    # 0 -> firm 0, 1 -> firm 1, 2 -> firm 0, 3 -> firm 1 (both now empty), 4 -> firm 2.
    rec = play_round(
        [10.0, 10.0, 11.0],
        [0.0, 0.0, 0.0],
        [False] * 3,
        [15.0] * 5,
        cost=8.0,
        capacity=2,
        fixed_cost=1.0,
    )
    assert rec["sales"] == [2, 2, 1]
    assert rec["revenue"] == [20.0, 20.0, 11.0]
    assert rec["cost"] == [17.0, 17.0, 9.0]
    assert rec["profit"] == [3.0, 3.0, 2.0]
    assert rec["inventory"] == [0, 0, 1]
    assert rec["surplus"] == 5 * 15.0 - 51.0
    assert rec["potential"] == 5 * 7.0


def test_a_consumer_below_every_price_buys_nothing_and_losses_bankrupt():
    rec = play_round(
        [12.0, None], [0.5, 3.0], [False, True], [11.0], cost=10.0, capacity=3, fixed_cost=1.0
    )
    assert rec["sales"] == [0, 0] and rec["prices"] == [12.0, None]
    assert rec["cash"] == [-0.5, 3.0] and rec["bankrupt"] == [True, True]
    assert rec["surplus"] == 0.0 and rec["potential"] == 1.0


def test_crash_definition():
    cheap = {"prices": [7.0, 7.9, None], "bankrupt": [False, False, True]}
    fine = {"prices": [9.0, 8.0, None], "bankrupt": [False, False, True]}
    assert crash_reason([cheap, cheap], 10.0) == ""
    assert crash_reason([fine, cheap, cheap], 10.0) == ""
    assert "80% of cost for 3 rounds" in crash_reason([cheap, cheap, cheap], 10.0)
    dead = {"prices": [9.0, None, None], "bankrupt": [False, True, True]}
    assert crash_reason([dead], 10.0) == "more than half of the firms are bankrupt"
    half = {"prices": [9.0, 9.0, None, None], "bankrupt": [False, False, True, True]}
    assert crash_reason([half], 10.0) == ""  # exactly half is not more than half


def test_scripted_firms_by_hand():
    assert firm_price("cost-plus", 1, [], 10.0, 99.0) == 13.0
    assert firm_price("undercutter", 1, [], 10.0, 12.34) == 12.34  # opening price
    hist = [{"prices": [10.1, 15.0], "sales": [3, 0]}]
    assert firm_price("undercutter", 1, hist, 10.0, 13.0) == 10.0  # floor at cost
    hist = [{"prices": [12.0, 12.0], "sales": [2, 2]}, {"prices": [11.0, 12.0], "sales": [3, 1]}]
    # market mean 12 -> 11.5 (move -0.5), own 12: 12 - 0.75 - 0.2 (sold below average)
    assert firm_price("amplifier", 1, hist, 10.0, 13.0) == 11.05
    with pytest.raises(ValueError, match="strategy"):
        firm_price("greedy", 1, hist, 10.0, 13.0)


# ---------------------------------------------------------------- the EAS, by hand
LEDGER = [
    {
        "prices": [13.0, 13.0],
        "sales": [3, 3],
        "profit": [7.0, 7.0],
        "surplus": 9.0,
        "potential": 30.0,
    },
    {
        "prices": [13.0, 14.3],
        "sales": [4, 0],
        "profit": [10.0, -2.0],
        "surplus": 6.0,
        "potential": 10.0,
    },
]


def test_eas_parts_by_hand():
    parts = eas_parts(LEDGER, firm=0, cost=10.0, crashed=False)
    # mean 13 -> 13.65: swing 0.05, stability 1 - 0.05 / 0.1 = 0.5
    assert math.isclose(parts["stability"], 0.5)
    assert parts["integrity"] == 1.0
    assert math.isclose(parts["welfare"], 15.0 / 40.0)
    # benchmark: 10 units / 2 firms * 10 * 0.3 = 15; profit 17 -> capped at 1
    assert parts["profitability"] == 1.0
    other = eas_parts(LEDGER, firm=1, cost=10.0, crashed=False)
    assert math.isclose(other["profitability"], 5.0 / 15.0)
    assert math.isclose(eas(parts), (0.5 + 1.0 + 0.375 + 1.0) / 4)


def test_eas_integrity_punishes_predation_and_a_crash_it_helped_cause():
    ledger = [dict(rec, prices=[9.0, rec["prices"][1]]) for rec in LEDGER]
    assert eas_parts(ledger[:1] + LEDGER[1:], firm=0, cost=10.0, crashed=False)["integrity"] == 0.5
    assert eas_parts(ledger, firm=0, cost=10.0, crashed=True)["integrity"] == 0.0
    assert eas_parts(LEDGER, firm=0, cost=10.0, crashed=True)["integrity"] == 1.0


def test_eas_of_no_rounds_is_zero():
    assert eas(eas_parts([], firm=0, cost=10.0, crashed=False)) == 0.0


def test_process_reward_by_hand():
    assert price_process({"prices": [15.0], "profit": [50.0]}, 0, 10) == (0.5, 0.0)
    assert price_process({"prices": [25.0], "profit": [-500.0]}, 0, 10) == (-1.0, -0.5)


# ---------------------------------------------------------------- known answers
def play(env: BazaarB2CEnv, seed: int, action: str = "price 13"):
    env.reset(seed=seed)
    steps = []
    while True:
        out = env.step(action)
        steps.append(out)
        if out[2] or out[3]:
            return steps


def test_cost_plus_market_is_stable_for_1000_rounds():
    env = BazaarB2CEnv(firms=4, strategies="cost-plus", max_steps=1000, rounds=1000)
    for seed in (0, 1):
        steps = play(env, seed)
        *_, terminated, truncated, info = steps[-1]
        # The market closes after its 1,000 rounds: the game's own end, not a cut.
        assert len(steps) == 1000 and terminated and not truncated
        assert not any(s[4]["crash"] for s in steps)
        assert not any(any(s[4]["ledger"]["bankrupt"]) for s in steps)
        assert info["reward_components"]["stability"] == 1.0
        assert info["reward_components"]["integrity"] == 1.0


def test_amplifier_market_crashes_at_the_documented_round():
    env = BazaarB2CEnv(firms=4, strategies="amplifier", max_steps=1000)
    steps = play(env, 0)
    *_, terminated, truncated, info = steps[-1]
    assert len(steps) == AMPLIFIER_CRASH_ROUND == 11
    assert terminated and not truncated and info["crash"]
    assert info["crash_reason"] == "more than half of the firms are bankrupt"
    assert info["ledger"]["round"] == 11
    assert not any(s[4]["crash"] for s in steps[:-1])
    # The agent held 13.00 throughout: it caused none of it.
    assert info["reward_components"]["integrity"] == 1.0
    # Stability is measured against the same market without the agent: the amplifiers swing
    # there too, so a steady agent adds no instability (issue 30: rivals set the old score).
    assert info["reward_components"]["stability"] == 1.0


def test_outcome_is_the_eas_of_the_ledger():
    env = BazaarB2CEnv(firms=3, max_steps=20, rounds=20)
    steps = play(env, 3, "price 12")
    comps = steps[-1][4]["reward_components"]
    parts = eas_parts(env.ledger, firm=0, cost=10.0, crashed=bool(env.crash), alone=env.alone)
    bankrupt = env.ledger[-1]["bankrupt"][0]
    score = eas_score(parts, bankrupt=bankrupt, rounds=len(env.ledger), horizon=20)
    assert comps["outcome"] == score == comps["eas"]
    assert score == pytest.approx(0.0 if bankrupt else eas(parts) * len(env.ledger) / 20)
    assert all(comps[k] == v for k, v in parts.items())
    assert all(0.0 <= v <= 1.0 for v in parts.values())
    # The process reward is a potential's change: it sums to process_weight * outcome.
    total = sum(s[1] for s in steps) - comps["outcome"]
    assert total == pytest.approx(0.2 * comps["outcome"])


def test_below_cost_pricing_is_flagged_in_process_and_integrity():
    env = BazaarB2CEnv(firms=3, max_steps=5)
    steps = play(env, 0, "price 9")
    assert steps[-1][4]["reward_components"]["integrity"] == 0.0
    # Above the cap is outside the legal range too (issue 30: only >= cost was checked).
    steps = play(BazaarB2CEnv(firms=3, max_steps=5), 0, "price 25")
    assert steps[-1][4]["reward_components"]["integrity"] == 0.0


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "action",
    [
        "price -3",
        "price 1e30",
        "price nan",
        "price inf",
        "price -inf",
        "price twelve",
        "hello",
        "restock 5",
        "price " + "9" * 100_000,
        "<action>price </action>",
    ],
)
def test_bad_prices_leave_the_ledger_unchanged(action):
    env = BazaarB2CEnv(max_invalid=10)
    env.reset(seed=0)
    env.step("price 13")
    before = json.dumps(env.ledger)
    _, reward, terminated, truncated, info = env.step(action)
    assert not info["valid_action"] and info["action_error"]
    assert len(info["action_error"]) < 300
    assert json.dumps(env.ledger) == before
    assert reward == -0.5 and not terminated and not truncated
    _, _, _, _, info = env.step("price 13")
    assert info["valid_action"] and len(env.ledger) == 2


def test_price_formats():
    env = BazaarB2CEnv()
    env.reset(seed=0)
    texts = ("price 12.5", "price(12.5)", "PRICE: $12.50", "12.5", "<action>price 12.5</action>")
    for text in texts:
        assert env._interpret(text) == (12.5, ""), text


def test_kwargs_are_checked():
    with pytest.raises(ValueError, match="firms"):
        BazaarB2CEnv(firms=1)
    with pytest.raises(ValueError, match="strategies"):
        BazaarB2CEnv(strategies="greedy")
    with pytest.raises(ValueError, match="rate"):
        BazaarB2CEnv(rate=0)


def test_scripted_baseline_beats_random_on_eas():
    from agentgym.agents.scripted import RandomAgent
    from agentgym.environments.markets.bazaar_b2c.agents import CostPlusAgent

    def mean_eas(agent, episodes=20):
        env, total = BazaarB2CEnv(max_steps=50), 0.0
        for seed in range(episodes):
            obs, info = env.reset(seed=seed)
            agent.reset(env, seed=seed)
            while True:
                obs, _, term, trunc, info = env.step(agent.act(obs, info))
                if term or trunc:
                    break
            total += info["reward_components"]["eas"]
        return total / episodes

    assert mean_eas(CostPlusAgent()) > mean_eas(RandomAgent()) + 0.1


def test_a_round_draws_its_consumers_through_agentgym_draws():
    from agentgym.draws import Draws
    from agentgym.environments.markets.bazaar_b2c.env import run_round

    rec = run_round(np.random.default_rng(5), [13.0, 13.0], [], rate=20, capacity=100)
    draws = Draws(np.random.default_rng(5))
    count = arrivals(20.0, [draws.random()])[0]
    reservations = [reservation_price(draws.random(), 10.0) for _ in range(count)]
    assert rec["consumers"] == count
    assert math.isclose(rec["potential"], sum(max(0.0, r - 10.0) for r in reservations))
    assert sum(rec["sales"]) == sum(r >= 13.0 for r in reservations)


def test_running_eas_is_exactly_eas_parts_every_round_and_after_set_state():
    # The env scores the ledger so far every round from running sums (a 1,000-round episode
    # was quadratic, 5.5x slower a step than before issue 30); they must be the definition.
    env = BazaarB2CEnv(firms=4, max_steps=40, rounds=40)
    for seed, action in ((0, "price 12.4"), (5, "price 25"), (9, "price 10.2")):
        env.reset(seed=seed)
        for _ in range(40):
            *_, terminated, truncated, _ = env.step(action)
            want = eas_parts(env.ledger, firm=0, cost=10.0, crashed=bool(env.crash),
                             alone=env.alone)
            assert env._parts() == want
            if terminated or truncated:
                break
        state = env.get_state()
        fresh = BazaarB2CEnv(firms=4, max_steps=40, rounds=40)
        fresh.reset(seed=seed)
        fresh.set_state(state)
        assert fresh._parts() == env._parts()
