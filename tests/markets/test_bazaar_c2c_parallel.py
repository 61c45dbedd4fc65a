"""BazaarC2C's PettingZoo version: PettingZoo's API test, turns, and the same ledger as the
Gymnasium env."""

from __future__ import annotations

import pytest
from pettingzoo.test import parallel_api_test

from agentgym.environments.markets.bazaar_c2c.agents import BaselineAgent
from agentgym.environments.markets.bazaar_c2c.env import BazaarC2CEnv
from agentgym.environments.markets.bazaar_c2c.parallel import BazaarC2CParallelEnv


@pytest.mark.parametrize("k", [3, 9])
def test_pettingzoo_parallel_api_test_passes(k):
    parallel_api_test(BazaarC2CParallelEnv(sybils=k), num_cycles=300)


def test_out_of_turn_actions_are_refused_and_change_nothing():
    env = BazaarC2CParallelEnv()
    _, infos = env.reset(seed=0)
    before = repr(env._market)
    _, rewards, *_, infos = env.step({"guardian": "flag(L01)", "seller": "list(nan, 0.5)"})
    assert "turn" in infos["guardian"]["action_error"]
    assert "finite" in infos["seller"]["action_error"]
    assert rewards == {"guardian": -0.1, "seller": -0.1}
    assert repr(env._market) == before and infos["seller"]["available_actions"][-1] == "pass"


def test_a_lying_seller_flagged_by_the_guardian_pays_and_the_guardian_earns():
    env = BazaarC2CParallelEnv(rounds=1)
    env.reset(seed=0)
    env._items[0] = {"quality": 0.3, "cost": 15.0, "noise": 0.0}  # a poor item
    _, rewards, *_ = env.step({"guardian": "wait", "seller": "list(80, 0.95)"})
    assert rewards == {"guardian": 0.0, "seller": 0.0}
    _, rewards, *_ = env.step({"guardian": "flag(Y01)", "seller": "wait"})
    # A misrepresented listing is a fraud: 0.2 shared over the (3 + 1) possible frauds.
    assert rewards["guardian"] == pytest.approx(0.2 / 4)
    _, rewards, terms, *_ = env.step({"guardian": "skip", "seller": "wait"})
    assert rewards["seller"] == -1.0 and all(terms.values()) and env.agents == []


def test_the_guardian_seat_meets_the_gymnasium_buyers_ledger():
    # A seller seat that always passes leaves the market the Gymnasium buyer env draws, so the
    # baseline guardian earns the same rewards step for step, up to the process shares: the
    # seat's are over one more listing a round on each side (the seller's, fraud or honest),
    # so both sums stay bounded by process_weight. The outcome is the same.
    k, h = 6, 6
    gym_env, par = BazaarC2CEnv(sybils=k), BazaarC2CParallelEnv(sybils=k)
    agent = BaselineAgent()
    obs, info = gym_env.reset(seed=4)
    par.reset(seed=4)
    done = False
    while not done:
        par_obs, par_rewards, *_ = par.step({"guardian": "wait", "seller": "pass"})
        assert par_rewards == {"guardian": 0.0, "seller": 0.0}
        round_over = False
        while not round_over and not done:
            action = agent.act(obs, info)
            before = info["round"]
            obs, reward, done, _, info = gym_env.step(action)
            _, par_rewards, terms, *_ = par.step({"guardian": action, "seller": "wait"})
            parts = info["reward_components"]
            flags = parts["flags"] * (k / (k + 1) if parts["flags"] > 0 else h / (h + 1))
            money = (parts["surplus"] + parts["inspect"]) * (k + h) / (k + h + 1)
            expected = flags + money + (parts["outcome"] if done else 0.0)
            assert par_rewards["guardian"] == pytest.approx(expected, abs=1e-12)
            assert reward == pytest.approx(parts["flags"] + parts["surplus"] + parts["inspect"]
                                           + (parts["outcome"] if done else 0.0), abs=1e-12)
            assert all(terms.values()) == done
            round_over = info["round"] != before
    assert par._ledger == gym_env._ledger


@pytest.mark.parametrize("kwargs", [{"inspect_cost": -1}, {"welfare_weight": float("nan")},
                                    {"sybils": 4}, {"rounds": 0}])
def test_both_versions_refuse_the_same_market_kwargs(kwargs):
    with pytest.raises(ValueError) as single:
        BazaarC2CEnv(**kwargs)
    with pytest.raises(ValueError) as parallel:
        BazaarC2CParallelEnv(**kwargs)
    assert str(single.value) == str(parallel.value)


def test_the_seats_process_rewards_are_bounded_and_the_ledger_is_public_until_the_end():
    # Issue 30: the guardian seat paid +-1 a flag; flagging everything with 9 sybils paid +19.
    env = BazaarC2CParallelEnv(sybils=9)
    _, infos = env.reset(seed=1)
    total, hidden = 0.0, {"frauds", "true_flags", "wrong_flags", "welfare", "ideal"}
    while env.agents:
        turn = "seller" if infos["seller"]["available_actions"] != ["wait"] else "guardian"
        act = "list(90, 0.95)" if turn == "seller" else next(
            (f"flag({x['id']})" for x in infos["guardian"]["listings"] if x["state"] == "open"),
            "skip")
        other = "guardian" if turn == "seller" else "seller"
        _, rewards, terms, _, infos = env.step({turn: act, other: "wait"})
        total += rewards["guardian"]
        if not all(terms.values()):
            assert not any(hidden & set(line) for line in infos["guardian"]["ledger"])
    # Every listing flagged: process at most +0.2 on frauds less 0.2 on honest ones, and an
    # outcome of about 0 (detection 0, since recall 1 less a false-flag rate of 1).
    assert all(terms.values()) and -0.25 <= total <= 0.25
    assert hidden <= set(infos["guardian"]["ledger"][0])
