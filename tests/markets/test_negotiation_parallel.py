"""Tests for the two-seat PettingZoo Negotiation: PettingZoo's API test, turns, the shared
ledger and rules, and bad input."""

from __future__ import annotations

import pytest
from pettingzoo.test import parallel_api_test

from agentgym.environments.markets.negotiation.logic import draw_values, has_zopa
from agentgym.environments.markets.negotiation.parallel import NegotiationParallelEnv


def zopa_env(**kwargs) -> NegotiationParallelEnv:
    env = NegotiationParallelEnv(**kwargs)
    for seed in range(100):
        env.reset(seed=seed)
        if has_zopa(env.budget, env.cost):
            return env
    raise AssertionError("no seed in 0-99 has a ZOPA")


def test_pettingzoo_parallel_api_test_passes():
    parallel_api_test(NegotiationParallelEnv(), num_cycles=300)
    parallel_api_test(NegotiationParallelEnv(first="seller", max_rounds=2), num_cycles=50)


def test_values_come_from_the_seed_like_the_gymnasium_env():
    import numpy as np

    env = NegotiationParallelEnv()
    obs, infos = env.reset(seed=7)
    budget, cost = draw_values(np.random.default_rng(7))
    assert (infos["buyer"]["value"], infos["seller"]["value"]) == (budget, cost)
    assert f"Your private budget: {budget}." in obs["buyer"]
    assert f"Your private cost: {cost}." in obs["seller"]
    assert str(cost) not in obs["buyer"].split("\n")[0]  # each seat sees only its own value


def test_a_deal_pays_each_seat_its_surplus_share():
    env = zopa_env()
    budget, cost = env.budget, env.cost
    mid = (budget + cost) / 2
    _, rewards, _, _, infos = env.step({"buyer": f"offer({mid})", "seller": "say(hello)"})
    assert infos["buyer"]["checks"] == {"rational": True, "consistent": True}
    # The buyer's first scored move, perfect: its whole potential, 0.2 x the mean 1.
    assert rewards == {"buyer": pytest.approx(0.2), "seller": 0.0}
    assert env.transcript == ["seller: hello"] and env.turn == "seller"
    _, rewards, terms, truncs, infos = env.step({"buyer": "wait", "seller": "accept"})
    assert all(terms.values()) and not any(truncs.values()) and env.agents == []
    assert infos["buyer"]["price"] == mid and infos["seller"]["surplus_share"] == 0.5
    # The seller's accept is checked too (rational: its first move, 0.2) + 0.5 outcome.
    assert rewards["seller"] == pytest.approx(0.7) and rewards["buyer"] == pytest.approx(0.5)


def test_a_deal_past_a_seats_budget_is_its_violation():
    env = zopa_env()
    over = env.budget + 5
    env.step({"buyer": f"offer({over})", "seller": "wait"})
    _, rewards, _, _, infos = env.step({"buyer": "wait", "seller": "accept"})
    assert infos["buyer"]["violation"] and infos["buyer"]["surplus_share"] == 0.0
    assert not infos["seller"]["violation"] and infos["seller"]["surplus_share"] == 1.0
    # A violation scores -1, below walking away; the seller's rational accept 0.2 + 1.0.
    assert rewards == {"buyer": -1.0, "seller": pytest.approx(1.2)}


def test_a_seats_process_reward_is_the_change_of_its_mean_check_potential():
    # More offers earn nothing: the buyer's three perfect offers pay 0.2, 0, 0; a backward
    # step then pays 0.2 x 3/4 - 0.2. The seller's far asks (rational, no retreat) likewise.
    env = zopa_env()
    paid = {"buyer": [], "seller": []}
    for buyer, seller in (("offer(1)", "offer(9000)"), ("offer(2)", "offer(8000)"),
                          ("offer(3)", "offer(7000)"), ("offer(2)", "offer(8000)")):
        for seat, action in (("buyer", buyer), ("seller", seller)):
            other = "seller" if seat == "buyer" else "buyer"
            _, rewards, _, _, _ = env.step({seat: action, other: "wait"})
            paid[seat].append(rewards[seat])
    assert paid["buyer"] == pytest.approx([0.2, 0.0, 0.0, -0.05])
    assert paid["seller"] == pytest.approx([0.2, 0.0, 0.0, -0.05])
    assert env.tally == {"buyer": (3.0, 4), "seller": (3.0, 4)}


@pytest.mark.parametrize(
    ("actions", "seat", "fragment"),
    [
        ({"buyer": "wait", "seller": "offer(50)"}, "seller", "not your turn"),
        ({"buyer": "accept", "seller": "wait"}, "buyer", "no offer"),
        ({"buyer": "offer(-3)", "seller": "wait"}, "buyer", "negative"),
        ({"buyer": "offer(nan)", "seller": "wait"}, "buyer", "finite"),
        ({"buyer": "say(" + "x" * 100_000 + ")", "seller": "wait"}, "buyer", "limit"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(actions, seat, fragment):
    env = zopa_env(invalid_penalty=-0.5)
    _, rewards, terms, truncs, infos = env.step(actions)
    assert not infos[seat]["valid_action"] and fragment in infos[seat]["action_error"]
    assert rewards[seat] == -0.5 and not any(terms.values()) and not any(truncs.values())
    assert env.ledger == [] and env.transcript == [] and env.turn == "buyer"


def test_rounds_run_out_without_a_deal():
    env = zopa_env(max_rounds=1)
    env.step({"buyer": "offer(1)", "seller": "wait"})
    _, rewards, terms, _, infos = env.step({"buyer": "wait", "seller": "offer(9000)"})
    assert all(terms.values()) and not infos["buyer"]["deal"]


def test_max_invalid_and_max_steps_truncate():
    env = zopa_env(max_invalid=2)
    env.step({"buyer": "???", "seller": "wait"})
    _, _, terms, truncs, _ = env.step({"buyer": "???", "seller": "wait"})
    assert all(truncs.values()) and not any(terms.values())
    env = zopa_env(max_steps=2)
    env.step({"buyer": "say(a)", "seller": "wait"})
    _, _, terms, truncs, _ = env.step({"buyer": "say(b)", "seller": "wait"})
    assert all(truncs.values())
