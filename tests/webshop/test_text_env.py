"""The text env: observation, actions, kwargs, goals and splits, rewards, oracle, snapshots."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

from agentgym.agents import make_agent
from agentgym.environments.webshop.env import WebShopEnv
from agentgym.environments.webshop.goals import NUM_GOALS, SPLITS, GoalBank

N = 2000
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def make(**kw) -> WebShopEnv:
    return WebShopEnv(num_products=N, **kw)


def play(env: WebShopEnv, policy, seed: int = 0, options=None, limit: int = 100):
    """Run one episode; returns the list of (action, reward, info)."""
    obs, info = env.reset(seed=seed, options=options)
    out = []
    for _ in range(limit):
        action = policy(env, obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        out.append((action, reward, info))
        if terminated or truncated:
            break
    return out


def oracle(env, obs, info):
    return env.oracle_actions()[0]


def randomly(seed: int):
    rng = np.random.default_rng(seed)

    def policy(env, obs, info):
        acts = info["available_actions"]
        return acts[int(rng.integers(len(acts)))]

    return policy


def test_first_observation_and_info():
    env = make(goal_index=4)
    obs, info = env.reset(seed=0)
    goal = env.goal
    assert obs.startswith(f"WebShop [SEP] Instruction: [SEP] {goal.instruction} [SEP] Search")
    assert "Steps left: 15." in obs and "search[<your query>]" in obs
    assert info["available_actions"] == [f"search[{goal.search_query}]"]
    assert "price lower than" not in goal.search_query
    assert info["webshop_actions"] == {"has_search_bar": True, "clickables": []}
    assert info["goal_index"] == 4 and info["split"] == "test" and info["page"] == "search"
    assert goal.index == 4
    json.dumps(info)


def test_results_observation_lists_clickables_and_steps_left():
    env = make(goal_index=0)
    env.reset(seed=0)
    obs, reward, terminated, _, info = env.step("search[quality]")
    assert not terminated and info["valid_action"]
    clickables = info["webshop_actions"]["clickables"]
    assert clickables[:2] == ["Back to Search", "Next >"] and len(clickables) == 12
    assert info["available_actions"] == [f"click[{c}]" for c in clickables]
    assert "Steps left: 14." in obs
    assert obs.splitlines()[-1] == "Action: click[<label>]. Clickable: " + " | ".join(clickables)
    assert "Page 1 (Total results: 50)" in obs and " [SEP] " in obs


def test_action_formats_are_lenient_with_form_strict_with_meaning():
    env = make(goal_index=0)
    env.reset(seed=0)
    for ok in ("SEARCH [ quality ]", "<action>search[quality]</action>", "search quality",
               "search: quality", "search(quality)"):
        env.reset(seed=0)
        *_, info = env.step(ok)
        assert info["valid_action"], ok
        *_, info = env.step("click [back to search]")
        assert info["valid_action"]
        *_, info = env.step("search[quality]")
        first = info["webshop_actions"]["clickables"][2]
        for variant in (f"click[{first.lower()}]", f"click({first})", f"click {first}"):
            env.step(variant)
            *_, info = env.step("click[< Prev]")
            assert info["valid_action"], variant
    env.reset(seed=0)
    for bad, why in (
        ("buy the red one", "could not read"),
        ("search[]", "empty"),
        ("click[Buy Now]", "only on a product's page"),
        ("search[caf\u00e9]", "printable ASCII"),
        ("click[Next >]", "not clickable"),
        ("x" * 100_000, "limit"),
        ("", "empty"),
    ):
        _, reward, terminated, _, info = env.step(bad)
        assert not info["valid_action"] and why in info["action_error"], (bad, info)
        assert reward == 0.0 and not terminated
    *_, info = env.step("search[quality]")
    *_, info = env.step("search[quality]")
    assert "no search box" in info["action_error"]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"split": "dev"},
        {"goal_index": 500},
        {"goal_index": -1},
        {"split": "eval", "goal_index": 1000},
        {"num_products": 50},
        {"num_products": 2_000_000},
        {"max_steps": 0},
        {"gamma": 0.0},
        {"gamma": 1.5},
        {"gamma": True},
        {"gamma": "1"},
        {"mode": "pixels"},
        {"render_mode": "human"},
    ],
)
def test_bad_kwargs_are_refused(kwargs):
    kwargs = {"num_products": N, **kwargs}
    with pytest.raises(ValueError):
        WebShopEnv(**kwargs)


def test_browser_mode_is_delegated_or_refused_clearly():
    try:
        import agentgym.environments.webshop.browser_env as browser_env
    except ImportError:
        with pytest.raises(ValueError, match="browser"):
            WebShopEnv(mode="browser", num_products=N)
        return
    # The browser env exists: the text class must hand construction over to it.
    assert issubclass(browser_env.BrowserWebShopEnv, WebShopEnv)
    assert WebShopEnv.__new__(WebShopEnv, mode="browser").__class__.__name__ == (
        "BrowserWebShopEnv")


def test_splits_are_fixed_and_goal_index_is_within_the_split():
    assert SPLITS == {"test": (0, 500), "eval": (500, 1500), "train": (1500, NUM_GOALS)}
    assert [GoalBank.split_size(s) for s in ("test", "eval", "train")] == [500, 1000, 10_500]
    env = make(split="eval", goal_index=7)
    env.reset(seed=0)
    assert env.goal.index == 507
    env.reset(seed=0, options={"goal_index": 0})
    assert env.goal.index == 500
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"goal_index": 5000})
    drawn = make(split="train")
    indices = {drawn.reset(seed=s)[1]["goal_index"] for s in range(20)}
    assert len(indices) > 15 and all(0 <= i < 10_500 for i in indices)
    assert drawn.reset(seed=3)[0] == drawn.reset(seed=3)[0]


def goals_digest(n: int) -> str:
    env = WebShopEnv(num_products=N)
    blob = json.dumps([env.shop.goals.goal(i).to_dict() for i in range(n)], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def test_goals_are_identical_in_another_process():
    here = goals_digest(25)
    script = (
        "import sys; sys.path.insert(0, 'tests/webshop'); "
        "from test_text_env import goals_digest; print(goals_digest(25))"
    )
    for seed in ("0", "99"):
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             check=True, cwd=ROOT, env={**os.environ, "PYTHONHASHSEED": seed})
        assert out.stdout.strip() == here


def test_goal_fields_and_instruction():
    bank = make().shop.goals
    for i in range(40):
        g = bank.goal(i)
        p = bank.search.catalog.product(g.pid)
        assert g.asin == p.asin and g.category == p.category and g.query == p.query
        assert g.nouns == p.nouns and g.product_type == p.product_type
        assert 1 <= len(g.attributes) <= 4 and set(g.attributes) <= set(p.attributes)
        assert set(g.options) == {grp.name for grp in p.options}
        assert all(v in p.option_values() for v in g.options.values())
        assert g.price_ceiling_cents % 1000 == 0
        assert g.instruction.endswith(f"and price lower than {g.price_ceiling:.2f} dollars")
        assert g.instruction.isascii() and p.product_type in g.instruction


def test_oracle_buys_a_perfect_product_on_test_goals():
    env = make()
    for i in range(0, 500, 10):
        steps = play(env, oracle, seed=i, options={"goal_index": i})
        action, reward, info = steps[-1]
        assert action == "click[Buy Now]" and info["success"], (i, steps)
        assert info["reward_components"]["outcome"] == 1.0
        assert {k: info["reward_components"][k] for k in ("r_type", "r_att", "r_option",
                                                            "r_price")} == dict.fromkeys(
            ("r_type", "r_att", "r_option", "r_price"), 1.0)
        assert len(steps) <= 10


@pytest.mark.parametrize("gamma", [1.0, 0.9])
def test_process_rewards_telescope(gamma):
    env = make(gamma=gamma, reward_mode="process")
    for seed in range(12):
        policy = oracle if seed % 3 == 0 else randomly(seed)
        steps = play(env, policy, seed=seed)
        last = steps[-1][2]
        final_phi = last["reward_components"]["outcome"]  # R after Buy Now, 0 on time-out
        total = sum(gamma**t * info["reward_components"]["process"]
                    for t, (_, _, info) in enumerate(steps))
        assert total == pytest.approx(gamma ** len(steps) * final_phi - 0.0, abs=1e-12)
        if gamma == 1.0:  # the process rewards add up to the outcome
            assert sum(r for _, r, _ in steps) == pytest.approx(final_phi, abs=1e-12)


def test_reward_modes_and_timeout():
    env = make(max_steps=3, goal_index=2, reward_mode="both")
    env.reset(seed=0)
    _, r1, *_ = env.step(f"search[{env.goal.search_query}]")
    phi = env.engine.potential()
    assert r1 == pytest.approx(phi) and phi > 0
    _, r2, terminated, _, info = env.step("click[Next >]")
    assert not terminated
    _, r3, terminated, _, info = env.step("click[Next >]")  # the third step: time is up
    assert terminated and not info["success"] and info["purchase"] is None
    assert info["reward_components"]["outcome"] == 0.0
    assert r1 + r2 + r3 == pytest.approx(0.0)  # the potential falls back to 0


def test_score_actions_matches_step_including_the_last_step():
    env = make(max_steps=4, gamma=0.8, goal_index=9)
    env.reset(seed=0)
    env.step(f"search[{env.goal.search_query}]")
    for _ in range(3):
        legal = env.unwrapped._legal_actions()
        candidates = [*legal, "nonsense", "click[Buy Now]"]
        snap = env.get_state()
        scores = env.score_actions(candidates)
        assert env.get_state() == snap
        for action, score in zip(candidates, scores, strict=True):
            env.set_state(snap)
            *_, info = env.step(action)
            assert info["reward_components"]["process"] == pytest.approx(score), action
        env.set_state(snap)
        *_, terminated, _, _ = env.step(env.oracle_actions()[0])
        if terminated:
            break


def test_oracle_action_is_always_top_scored_along_random_walks():
    env = make(gamma=0.95)
    rng = np.random.default_rng(0)
    for seed in range(6):
        _, info = env.reset(seed=seed)
        for _ in range(10):
            legal = info["available_actions"]
            best = env.oracle_actions()
            scores = env.score_actions(legal)
            assert best and set(best) <= set(legal)
            assert env.score_actions(best[:1])[0] == pytest.approx(max(scores))
            *_, terminated, _, info = env.step(legal[int(rng.integers(len(legal)))])
            if terminated:
                break


def test_snapshot_is_json_and_replays_into_a_fresh_env():
    env = make()
    env.reset(seed=5)
    policy = randomly(1)
    obs, info = env.reset(seed=5)
    for _ in range(3):
        obs, _, _, _, info = env.step(policy(env, obs, info))
    snap = env.get_state()
    state = json.loads(snap)["state"]
    assert set(state) == {"num_products", "split", "goal", "engine"}
    assert "rng" not in json.dumps(state)
    actions = [policy(env, obs, info) for _ in range(1)]
    first = [env.step(a) for a in actions]
    fresh = make()
    fresh.set_state(snap)
    again = [fresh.step(a) for a in actions]
    assert json.dumps(first, sort_keys=True) == json.dumps(again, sort_keys=True)
    with pytest.raises(ValueError):
        WebShopEnv(num_products=300).set_state(snap)


def test_rule_and_random_agents_run():
    env = make()
    rule = make_agent("webshop-rule")
    for i in range(5):
        obs, info = env.reset(seed=i, options={"goal_index": i})
        rule.reset(env, seed=i)
        done = False
        while not done:
            obs, _, done, _, info = env.step(rule.act(obs, info))
            assert info["valid_action"]
        assert "purchase" in info


@pytest.mark.slow
def test_default_catalog():
    # Builds the 50,000-product index on the first run on a machine (cached afterwards).
    env = (gym.make("agentgym/WebShop-v0") if "agentgym/WebShop-v0" in gym.registry
           else WebShopEnv())
    obs, info = env.reset(seed=0)
    assert env.unwrapped.num_products == 50_000 and obs.startswith("WebShop [SEP]")
    while True:
        obs, _, terminated, truncated, info = env.step(env.unwrapped.oracle_actions()[0])
        if terminated or truncated:
            break
    assert info["success"]
