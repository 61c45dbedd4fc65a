"""Text mode and browser mode score the same episodes identically.

Each scripted episode is played with ``search[...]``/``click[...]`` in text mode and with the
equivalent browser actions, found the way an agent would find them: ``fill`` the search box
and submit it (``press(Enter)`` or a click on the Search button), and ``click`` the id that
the accessibility tree shows next to a label. Every text step must give the same reward,
reward components, validity, termination, success, page and purchase as its browser
counterpart; the extra ``fill`` steps must score exactly like a text action that changes
nothing.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from browser_support import keep_browser, needs_browser  # noqa: F401 (autouse fixture)

from agentgym.browser import to_ascii
from agentgym.environments.webshop import make_webshop
from agentgym.environments.webshop.env import WebShopEnv

N = 2000

pytestmark = needs_browser

_LINE = re.compile(r'^\s*\[(?P<id>[^\]]+)\] (?P<role>\w+) "(?P<name>(?:[^"\\]|\\.)*)"')



def element_ids(obs: str) -> dict[tuple[str, str], str]:
    """``(role, name) -> id`` read off the observation."""
    out = {}
    for line in obs.splitlines():
        m = _LINE.match(line)
        if m:
            name = m.group("name").replace('\\"', '"').replace("\\\\", "\\")
            out.setdefault((m.group("role"), name), m.group("id"))
    return out


def to_browser(text_action: str, obs: str, submit_with_enter: bool) -> list[str]:
    """The browser actions an agent would take for one text action."""
    ids = element_ids(obs)
    verb, _, rest = text_action.partition("[")
    arg = rest[:-1]
    if verb == "search":
        box = ids[("searchbox", "Search")]
        submit = "press(Enter)" if submit_with_enter else f"click({ids[('button', 'Search')]})"
        return [f'fill({box}, "{arg}")', submit]
    for (_role, name), agid in ids.items():
        if name == arg:
            return [f"click({agid})"]
    return ["click(999)"]  # a label the page does not have: an invalid action in both modes


def play_pair(script, *, seed, goal_index, gamma=1.0, reward_mode="both", max_steps=100):
    text = WebShopEnv(
        num_products=N,
        goal_index=goal_index,
        max_steps=max_steps,
        gamma=gamma,
        reward_mode=reward_mode,
    )
    browser = make_webshop(
        mode="browser",
        num_products=N,
        goal_index=goal_index,
        max_steps=max_steps,
        gamma=gamma,
        reward_mode=reward_mode,
    )
    try:
        text.reset(seed=seed)
        obs, _ = browser.reset(seed=seed)
        assert obs.splitlines()[0] == f"Instruction: {text.goal.instruction}"
        steps = 0
        for i, action in enumerate(script):
            assert_same_strings(text, obs)
            phi = text.engine.potential()
            t_obs, t_rew, t_term, t_trunc, t_info = text.step(action)
            actions = to_browser(action, obs, submit_with_enter=i % 2 == 0)
            for extra in actions[:-1]:  # fill: reaches no engine, scores like a no-op
                obs, rew, term, _, info = browser.step(extra)
                steps += 1
                assert info["valid_action"] and not term
                noop = (gamma - 1.0) * phi if reward_mode != "outcome" else 0.0
                assert rew == pytest.approx(noop)
            obs, rew, term, trunc, info = browser.step(actions[-1])
            steps += 1
            where = f"step {i}: {action} -> {actions}"
            assert rew == t_rew, where
            assert info["reward_components"] == t_info["reward_components"], where
            assert info["valid_action"] == t_info["valid_action"], where
            assert (term, trunc) == (t_term, t_trunc), where
            assert info.get("truncated_by") == t_info.get("truncated_by"), where
            assert info["success"] == t_info["success"], where
            assert info["page"] == t_info["page"], where
            assert info.get("purchase") == t_info.get("purchase"), where
            assert browser.engine.state.to_dict() == text.engine.state.to_dict(), where
            if t_term or t_trunc:
                break
        return steps
    finally:
        text.close()
        browser.close()


def assert_same_strings(text: WebShopEnv, obs: str) -> None:
    """Every visible string of the text page is on the browser page too.

    (Text mode marks a chosen option ``"<value> (selected)"``; the browser shows the radio
    button ``checked``.)
    """
    quoted = set(re.findall(r'"((?:[^"\\]|\\.)*)"', obs))
    for el in text.engine.page().elements:
        assert to_ascii(el.text).replace('"', '\\"') in quoted, el.text
        if el.selected:
            assert any(
                line.strip().endswith(f'radio "{el.text}" checked') for line in obs.splitlines()
            ), el.text


def oracle_script(goal_index: int, seed: int) -> list[str]:
    env = WebShopEnv(num_products=N, goal_index=goal_index, max_steps=100)
    env.reset(seed=seed)
    out = []
    while True:
        action = env.oracle_actions()[0]
        out.append(action)
        if env.step(action)[2]:
            return out


def random_script(goal_index: int, seed: int, length: int = 18) -> list[str]:
    """A seeded walk over the available actions, with an invalid click now and then."""
    env = WebShopEnv(num_products=N, goal_index=goal_index, max_steps=100)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(length):
        acts = env._legal_actions()
        if rng.random() < 0.15:
            action = "click[No Such Button]"
        else:
            action = acts[int(rng.integers(len(acts)))]
            if action == "click[Buy Now]" and rng.random() < 0.7:
                action = acts[0]  # buy late, so the walk sees more pages
        out.append(action)
        if env.step(action)[2]:
            break
    return out


TOUR = [
    "SEARCH",
    "click[Next >]",
    "click[Next >]",
    "click[< Prev]",
    "FIRST",
    "click[Features]",
    "click[< Prev]",
    "click[Reviews]",
    "click[< Prev]",
    "OPTION",
    "click[Back to Search]",
    "SEARCH",
    "FIRST",
    "click[Description]",
    "click[< Prev]",
    "click[Buy Now]",
]


def tour_script(goal_index: int, seed: int) -> list[str]:
    env = WebShopEnv(num_products=N, goal_index=goal_index, max_steps=100)
    env.reset(seed=seed)
    out = []
    for step in TOUR:
        page = env.engine.page()
        if step == "SEARCH":
            action = f"search[{env.goal.search_query}]"
        elif step == "FIRST":
            first = next(e for e in page.elements if e.kind == "product_link")
            action = f"click[{first.label}]"
        elif step == "OPTION":
            options = [e.label for e in page.elements if e.kind == "option"]
            action = f"click[{options[-1]}]" if options else "click[Description]"
        else:
            action = step
        out.append(action)
        if env.step(action)[2]:
            break
    return out


@pytest.mark.parametrize("goal_index", [0, 7])
def test_oracle_episodes_match(goal_index):
    script = oracle_script(goal_index, seed=0)
    assert script[-1] == "click[Buy Now]"
    play_pair(script, seed=0, goal_index=goal_index)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_walks_match(seed):
    play_pair(random_script(goal_index=seed * 11, seed=seed), seed=seed, goal_index=seed * 11)


def test_tour_of_every_page_kind_matches():
    script = tour_script(goal_index=5, seed=0)
    assert "click[Features]" in script and script[-1] == "click[Buy Now]"
    play_pair(script, seed=0, goal_index=5)


@pytest.mark.parametrize(("gamma", "mode"), [(0.9, "both"), (1.0, "process"), (1.0, "outcome")])
def test_discount_and_reward_modes_match(gamma, mode):
    script = tour_script(goal_index=9, seed=4)
    play_pair(script, seed=4, goal_index=9, gamma=gamma, reward_mode=mode)


def test_process_rewards_telescope_when_time_runs_out_in_both_modes():
    for mode in ("text", "browser"):
        env = make_webshop(mode=mode, num_products=N, goal_index=3, max_steps=4)
        try:
            obs, _ = env.reset(seed=0)
            total, truncated = 0.0, False
            if mode == "text":
                script = [f"search[{env.goal.search_query}]", "click[Next >]", "click[< Prev]"]
            else:
                script = [f'fill(1, "{env.goal.search_query}")', "press(Enter)", "click(4)"]
            for action in [*script, "click[Back to Search]" if mode == "text" else "back()"]:
                _, reward, terminated, truncated, info = env.step(action)
                total += reward
            assert truncated and not terminated and info["truncated_by"] == "max_steps"
            assert info["purchase"] is None and not info["success"]
            assert total == pytest.approx(0.0), mode  # phi(end) = 0 when time runs out
        finally:
            env.close()
