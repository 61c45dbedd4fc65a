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
from agentgym.environments.webshop import make_webshop
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
    assert obs.splitlines()[-1] == "Steps left: 15."
    assert info["available_actions"] == [f"search[{goal.search_query}]"]
    assert "price lower than" not in goal.search_query
    assert info["webshop_actions"] == {"has_search_bar": True, "clickables": []}
    assert info["goal_index"] == 4 and info["split"] == "test" and info["page"] == "search"
    assert info["mode"] == "text" and info["steps_left"] == 15
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
    assert obs.splitlines()[-1] == "Steps left: 14. Clickable: " + " | ".join(clickables)
    assert "Page 1 (Total results: 50)" in obs and " [SEP] " in obs


def test_action_formats_are_lenient_with_form_strict_with_meaning():
    env = make(goal_index=0, max_invalid=100)
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
        ("search[<query>]", "< or >"),
    ):
        _, reward, terminated, _, info = env.step(bad)
        assert not info["valid_action"] and why in info["action_error"], (bad, info)
        assert reward == env.invalid_penalty == -0.1 and not terminated
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
        {"render_mode": "rgb_array"},  # text mode has no pixels
        {"invalid_penalty": 0.5},
        {"max_invalid": 0},
        {"viewport_width": 800},  # a browser-mode kwarg
        {"timeout_ms": 5000},
    ],
)
def test_bad_kwargs_are_refused(kwargs):
    kwargs = {"num_products": N, **kwargs}
    with pytest.raises(ValueError):
        make_webshop(**kwargs)


def test_gym_make_gives_the_text_class_itself():
    env = gym.make("agentgym/WebShop-v0", num_products=N)
    assert type(env.unwrapped) is WebShopEnv
    assert env.unwrapped.metadata["render_modes"] == ["ansi"]
    assert type(make_webshop(mode="text", num_products=N)) is WebShopEnv


def test_modes_are_siblings_not_a_cycle():
    """Text and browser mode share base.py; neither module imports the other, the text class
    does not build the browser class in __new__, and the rule agent does not import the agent
    registry (which names it lazily)."""
    import ast

    from agentgym.environments.webshop.base import WebShopBase

    here = os.path.join(ROOT, "environments", "webshop")

    def imports(name: str) -> set[str]:
        with open(os.path.join(here, name)) as fh:
            tree = ast.parse(fh.read())
        return {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}

    assert not {"env", "browser_env"} & imports("env.py") - {"base"}
    assert "env" not in imports("browser_env.py") and "base" in imports("browser_env.py")
    assert "agentgym.agents" not in imports("agents.py")
    assert "__new__" not in vars(WebShopEnv) and issubclass(WebShopEnv, WebShopBase)
    code = ("import sys, agentgym.agents as a; "
            "print(any(m.startswith('agentgym.environments.webshop') for m in sys.modules)); "
            "print(type(a.make_agent('webshop-rule')).__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout.split()
    assert out == ["False", "RuleAgent"]


def webshop_imports() -> dict[str, set[str]]:
    """Each webshop module's imports of its siblings, function-local ones included."""
    import ast

    here = os.path.join(ROOT, "environments", "webshop")
    names = {f[:-3] for f in os.listdir(here) if f.endswith(".py")}
    graph = {}
    for name in names:
        with open(os.path.join(here, f"{name}.py")) as fh:
            tree = ast.parse(fh.read())
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                deps |= {node.module.split(".")[0]} if node.module else {
                    a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "agentgym.environments.webshop."):
                deps.add(node.module.split(".")[3])
        graph[name] = deps & names
    return graph


def import_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph`` (the modules in order, the first repeated), or []."""
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> list[str]:
        for dep in sorted(graph[name]):
            if dep in path:
                return [*path[path.index(dep):], dep]
            if dep not in done:
                found = visit(dep, [*path, dep])
                if found:
                    return found
        done.add(name)
        return []

    for name in sorted(graph):
        found = visit(name, [name])
        if found:
            return found
    return []


def test_webshop_modules_import_no_cycle():
    """make_webshop lives in factory.py: base.py imported both modes to build them, and both
    import base.py (the base <-> env and base <-> browser_env cycles of issue 38)."""
    graph = webshop_imports()
    assert import_cycle(graph) == []
    assert graph["factory"] >= {"env", "browser_env"} and "base" in graph["env"]
    assert not graph["base"] & {"env", "browser_env", "factory"}
    # the checker itself finds the cycle that was there
    assert import_cycle({**graph, "base": graph["base"] | {"env"}}) == ["base", "env", "base"]


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
    _, r2, terminated, truncated, info = env.step("click[Next >]")
    assert not terminated and not truncated and info["steps_left"] == 1
    obs, r3, terminated, truncated, info = env.step("click[Next >]")  # the third step
    # Running out of steps is a truncation (Gymnasium's meaning), never a termination.
    assert truncated and not terminated and info["truncated_by"] == "max_steps"
    assert not info["success"] and info["purchase"] is None and info["steps_left"] == 0
    assert info["reward_components"]["outcome"] == 0.0
    assert r3 == pytest.approx(-phi)  # the potential falls back to 0
    assert r1 + r2 + r3 == pytest.approx(0.0)
    assert obs.splitlines()[-1] == "No steps left; the episode is over, nothing was bought."
    assert env.oracle_actions() == []


def test_invalid_actions_pay_the_penalty_and_end_the_episode_at_the_limit():
    env = make(goal_index=2, gamma=0.9)
    assert (env.invalid_penalty, env.max_invalid, env.max_steps) == (-0.1, 5, 15)
    env.reset(seed=0)
    _, r0, *_ = env.step(f"search[{env.goal.search_query}]")
    phi = env.engine.potential()
    rewards = []
    for i in range(1, 6):
        obs, reward, terminated, truncated, info = env.step("click[nothing like this]")
        assert not info["valid_action"] and info["invalid_actions"] == i
        assert info["page"] == "results" and not terminated
        rewards.append(reward)
        if i < 5:
            assert not truncated and reward == pytest.approx((0.9 - 1) * phi - 0.1)
    assert truncated and info["truncated_by"] == "max_invalid" and info["purchase"] is None
    assert rewards[-1] == pytest.approx(-phi - 0.1)  # the potential ends at 0, plus the penalty
    # The shaping still telescopes: discounted sum minus the penalties is gamma**T * 0 - phi0.
    total = r0 + sum(0.9 ** (t + 1) * (r + 0.1) for t, r in enumerate(rewards))
    assert total == pytest.approx(0.0, abs=1e-12)
    assert obs.splitlines()[-1].startswith("Too many invalid actions; the episode is over")


def test_truncation_is_scored_the_same_by_score_actions():
    env = make(max_steps=2, goal_index=5)
    env.reset(seed=0)
    env.step(f"search[{env.goal.search_query}]")
    legal = env._legal_actions()
    candidates = [*legal, "nonsense"]
    snap = env.get_state()
    scores = env.score_actions(candidates)
    phi = env.engine.potential()
    assert scores[:-1] == [pytest.approx(-phi)] * len(legal)  # the last step: phi drops to 0
    assert scores[-1] == pytest.approx(-phi - 0.1)
    for action, score in zip(candidates, scores, strict=True):
        env.set_state(snap)
        _, _, terminated, truncated, info = env.step(action)
        assert truncated and not terminated
        assert info["reward_components"]["process"] == pytest.approx(score)


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
    assert set(state) == {"goal", "engine", "stopped"}
    assert json.loads(snap)["config"] == {
        "mode": "text", "split": "test", "goal_index": None, "num_products": N, "gamma": 1.0,
        "max_steps": 15, "invalid_penalty": -0.1, "max_invalid": 5}
    assert "rng" not in json.dumps(state)
    actions = [policy(env, obs, info) for _ in range(1)]
    first = [env.step(a) for a in actions]
    fresh = make()
    fresh.set_state(snap)
    again = [fresh.step(a) for a in actions]
    assert json.dumps(first, sort_keys=True) == json.dumps(again, sort_keys=True)
    with pytest.raises(ValueError, match="num_products"):
        WebShopEnv(num_products=300).set_state(snap)


def test_a_snapshot_from_another_split_is_refused_and_the_seed_comes_back():
    train = make(split="train")
    train.reset(seed=3)
    snap = train.get_state()
    test = make(split="test")
    test.reset(seed=0)
    before = test.get_state()
    with pytest.raises(ValueError, match="split"):  # it used to report goal 1503
        test.set_state(snap)
    assert test.get_state() == before  # a refused snapshot changes nothing
    fresh = make(split="train")
    fresh.set_state(snap)
    assert fresh.episode_seed == 3 and fresh.goal.index == train.goal.index == 1503
    # A crafted snapshot naming a goal outside the split is refused too.
    crafted = json.loads(snap)
    crafted["state"]["goal"] = 7
    with pytest.raises(ValueError, match="outside the train split"):
        fresh.set_state(json.dumps(crafted).encode())


def test_observations_leave_the_rules_to_the_system_prompt():
    env = make(goal_index=1)
    obs, info = env.reset(seed=0)
    prompt = env.system_prompt()
    assert "search[<query>]" in prompt and "click[<label>]" in prompt and "<action>" in prompt
    seen = [obs]
    for _ in range(3):
        obs, *_ = env.step(env.oracle_actions()[0])
        seen.append(obs)
    for text in seen:
        assert "search[" not in text and "click[" not in text and "Action" not in text
        assert env.rules.splitlines()[0][:40] not in text


def test_copying_the_rules_examples_earns_nothing():
    import re

    env = make(goal_index=1)
    examples = re.findall(r"\b(?:search|click)\[[^\]]*\]", env.rules)
    assert {"search[<query>]", "click[<label>]"} <= set(examples)
    for example in examples:
        for before in ([], ["search[quality]"]):
            env.reset(seed=0)
            for action in before:
                env.step(action)
            _, reward, _, _, info = env.step(example)
            assert reward <= 0.0 and not info["valid_action"], example


def test_rule_and_random_agents_run():
    env = make()
    rule = make_agent("webshop-rule")
    for i in range(5):
        obs, info = env.reset(seed=i, options={"goal_index": i})
        rule.reset(env, seed=i)
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(rule.act(obs, info))
            assert info["valid_action"]
            done = terminated or truncated
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
