"""Reward hacks that must earn nothing (text mode).

Known holes of the original site: a purchase URL that accepted any options, an Attributes tab
that showed the scored values, buying more than once. None of them may pay here. The hacks
live in :mod:`agentgym.environments.webshop.exploits` (``agentgym audit`` plays them as
policies); these tests check each one's mechanics step by step.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from agentgym.environments.webshop.env import WebShopEnv
from agentgym.environments.webshop.exploits import CRAFTED_PURCHASES, FOREIGN_OPTIONS, LOOP

N = 2000


@pytest.fixture
def env() -> WebShopEnv:
    e = WebShopEnv(num_products=N, goal_index=1, max_invalid=100)
    e.reset(seed=0)
    return e


def to_item_page(env: WebShopEnv) -> None:
    """Search the instruction and open the first hit."""
    env.step(f"search[{env.goal.search_query}]")
    first = env.engine.available_actions()["clickables"][2]
    _, _, _, _, info = env.step(f"click[{first}]")
    assert info["page"] == "item"


def test_options_the_product_does_not_have_cannot_be_chosen(env):
    to_item_page(env)
    product = env.shop.catalog.product(env.engine.state.product)
    offered = set(product.option_values())
    # every goal option value and every pool value the product lacks is refused
    foreign = [v for v in (*env.goal.options.values(), *FOREIGN_OPTIONS) if v not in offered]
    assert foreign
    for value in foreign:
        _, reward, terminated, _, info = env.step(f"click[{value}]")
        assert not info["valid_action"] and "not clickable" in info["action_error"]
        assert reward == env.invalid_penalty and not terminated
    assert env.engine.state.chosen == {}
    *_, info = env.step("click[Buy Now]")
    assert info["purchase"]["options"] == {}
    assert all(v in offered for v in info["purchase"]["options"].values())


def test_buying_twice_pays_once(env):
    to_item_page(env)
    _, r1, terminated, _, info = env.step("click[Buy Now]")
    assert terminated and info["valid_action"]
    outcome = info["reward_components"]["outcome"]
    _, r2, terminated, _, info = env.step("click[Buy Now]")
    assert terminated and r2 == 0.0 and not info["valid_action"]
    # the engine itself also refuses a second purchase
    result = env.engine.click("Buy Now")
    assert not result.ok and result.detail is None
    assert env.engine.state.purchased["reward"] == outcome


def test_buy_now_off_an_item_page_is_refused(env):
    pages = []
    for action in (None, f"search[{env.goal.search_query}]", "click[Next >]"):
        if action:
            env.step(action)
        _, reward, terminated, _, info = env.step("click[Buy Now]")
        pages.append(info["page"])
        assert not info["valid_action"] and reward == env.invalid_penalty and not terminated
        assert info["reward_components"]["outcome"] == 0.0
    to_sub = env.engine.available_actions()["clickables"][3]
    env.step(f"click[{to_sub}]")
    env.step("click[Features]")
    *_, info = env.step("click[Buy Now]")
    assert not info["valid_action"] and info["page"] == "item_sub"
    assert pages == ["search", "results", "results"]


def test_crafted_purchase_strings_do_nothing(env):
    to_item_page(env)
    for crafted in CRAFTED_PURCHASES:
        _, reward, terminated, _, info = env.step(crafted)
        assert not info["valid_action"] and reward == env.invalid_penalty, crafted
        assert not terminated, crafted


def test_goal_and_scores_never_appear_in_observations_or_info():
    env = WebShopEnv(num_products=N)
    rng = np.random.default_rng(0)
    for seed in range(10):
        obs, info = env.reset(seed=seed)
        goal = env.goal
        secret = [goal.asin, json.dumps(goal.options), "r_type", "r_att", "r_option",
                  "price_ceiling", "Attributes"]
        seen = [obs]
        infos = [info]
        done = False
        while not done:
            legal = info["available_actions"]
            action = env.oracle_actions()[0] if seed % 2 else legal[int(rng.integers(len(legal)))]
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            seen.append(obs)
            infos.append(info)
        for text in seen:
            assert "score" not in text.lower() and "reward" not in text.lower()
            for s in secret[1:]:
                assert s not in text
        # the target's ASIN shows up only where the results list it, never before a search
        assert goal.asin not in seen[0]
        for i in infos[:-1]:  # before the purchase, info carries nothing about the goal
            assert set(i["webshop_actions"]["clickables"]) <= set(
                re.findall(r"click\[(.*?)\]", json.dumps(i["available_actions"])))
            blob = json.dumps({k: v for k, v in i.items()
                               if k not in ("available_actions", "webshop_actions")})
            assert goal.asin not in blob and "attributes" not in blob
            assert not re.search(r'"r_(type|att|option|price)"', blob)


def test_process_reward_cannot_be_farmed_by_looping():
    env = WebShopEnv(num_products=N, goal_index=3, max_steps=40)
    env.reset(seed=0)
    total = 0.0
    _, r, *_ = env.step(f"search[{env.goal.search_query}]")
    total += r
    for _ in range(9):  # 37 steps, inside the budget of 40
        for action in (*LOOP, f"search[{env.goal.search_query}]"):
            _, r, terminated, _, info = env.step(action)
            total += r
    assert total == pytest.approx(env.engine.potential())  # never more than one potential
    assert total <= 1.0
