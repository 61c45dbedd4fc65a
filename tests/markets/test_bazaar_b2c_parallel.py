"""BazaarB2C's PettingZoo version: the API test, the shared ledger, bad input."""

from __future__ import annotations

import pytest
from pettingzoo.test import parallel_api_test

from agentgym.environments.markets.bazaar_b2c.eas import eas_parts, eas_score
from agentgym.environments.markets.bazaar_b2c.parallel import BazaarB2CParallelEnv


def test_pettingzoo_parallel_api_test_passes():
    parallel_api_test(BazaarB2CParallelEnv(), num_cycles=300)
    parallel_api_test(BazaarB2CParallelEnv(firms=2, max_steps=5), num_cycles=50)


def test_seats_share_one_ledger_and_the_cheapest_sells():
    env = BazaarB2CParallelEnv(firms=3, max_steps=3)
    env.reset(seed=1)
    prices = {"firm_0": "price 13", "firm_1": "<action>price 12</action>", "firm_2": "price 14"}
    _, rewards, _, _, infos = env.step(prices)
    rec = infos["firm_0"]["ledger"]
    assert rec["prices"] == infos["firm_2"]["ledger"]["prices"] == [13.0, 12.0, 14.0]
    assert rec["sales"][1] == max(rec["sales"])
    # Each seat sees its own books only, never a rival's cash (issue 30).
    assert rec["cash"] == env.ledger[0]["cash"][0]
    assert infos["firm_2"]["ledger"]["cash"] == env.ledger[0]["cash"][2]
    total = dict(rewards)
    for _ in range(2):
        _, rewards, terms, truncs, infos = env.step(prices)
        total = {a: total[a] + rewards[a] for a in total}
    assert all(truncs.values()) and not env.agents
    parts = eas_parts(env.ledger, firm=1, cost=10.0, crashed=False)
    score = eas_score(parts, bankrupt=False, rounds=3, horizon=100)
    assert infos["firm_1"]["eas_1"]["eas"] == score
    # The same definitions as the Gymnasium env: the process sums to process_weight x EAS.
    assert total["firm_1"] == pytest.approx(1.2 * score)


def test_same_seed_same_market():
    def run():
        env = BazaarB2CParallelEnv(firms=2, max_steps=4)
        env.reset(seed=7)
        for _ in range(4):
            env.step({"firm_0": "price 12", "firm_1": "price 12.5"})
        return env.ledger

    assert run() == run()


def test_an_invalid_seat_holds_the_round():
    env = BazaarB2CParallelEnv(firms=2, max_invalid=3)
    env.reset(seed=0)
    _, rewards, terms, truncs, infos = env.step({"firm_0": "price nan", "firm_1": "price 12"})
    assert env.ledger == [] and rewards == {"firm_0": -0.5, "firm_1": 0.0}
    assert not infos["firm_0"]["valid_action"] and infos["firm_1"]["valid_action"]
    assert not any(terms.values()) and not any(truncs.values())
    env.step({"firm_0": "price 1e99", "firm_1": "price 12"})
    _, _, _, truncs, _ = env.step({"firm_0": "x" * 100_000, "firm_1": "price 12"})
    assert all(truncs.values()) and env.ledger == []


def test_same_ledger_as_the_gymnasium_env_for_the_same_prices():
    from agentgym.environments.markets.bazaar_b2c.env import BazaarB2CEnv

    gym_env = BazaarB2CEnv(firms=3, strategies="cost-plus", max_steps=30)
    gym_env.reset(seed=11)
    par = BazaarB2CParallelEnv(firms=3, max_steps=30)
    par.reset(seed=11)
    for _ in range(30):
        gym_env.step("price 12.5")
        par.step({"firm_0": "price 12.5", "firm_1": "price 13", "firm_2": "price 13"})
    assert par.ledger == gym_env.ledger and len(par.ledger) == 30


def test_rules_name_the_action_format():
    assert "<action>price P</action>" in BazaarB2CParallelEnv().rules


def test_a_bankrupt_seat_scores_zero_and_the_market_closes_after_its_rounds():
    env = BazaarB2CParallelEnv(firms=2, rounds=5, max_steps=100)
    env.reset(seed=0)
    for _ in range(5):
        _, rewards, terms, truncs, infos = env.step({"firm_0": "price 13", "firm_1": "price 12"})
    assert all(terms.values()) and not any(truncs.values())
    assert 0.0 < infos["firm_0"]["eas_0"]["eas"] <= 1.0
    env = BazaarB2CParallelEnv(firms=2)
    env.reset(seed=0)
    total = {"firm_0": 0.0, "firm_1": 0.0}
    while env.agents:  # firm_0 prices far above the cap, sells nothing, goes bankrupt
        _, rewards, *_, infos = env.step({"firm_0": "price 100", "firm_1": "price 13"})
        total = {a: total[a] + rewards[a] for a in total}
    assert env.ledger[-1]["bankrupt"][0] and infos["firm_0"]["eas_0"]["eas"] == 0.0
    assert total["firm_0"] == pytest.approx(0.0, abs=1e-9)
