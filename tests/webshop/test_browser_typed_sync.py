"""The env's search-box state is the page's: keys that edit the box (Backspace, Delete, Escape,
Space) must not leave score_actions, the oracle or get_state/set_state believing old text."""

from __future__ import annotations

import json

import pytest
from browser_support import keep_browser, needs_browser  # noqa: F401 (autouse fixture)

from agentgym.environments.webshop import make_webshop
from agentgym.environments.webshop.browser_env import BrowserWebShopEnv

pytestmark = needs_browser

#: (what is typed, the keys pressed after it): each edits the box behind the env's back.
EDITS = {
    "Backspace empties it": ("x", ["press(Backspace)"]),
    "Delete empties it": ("x", ["press(Home)", "press(Delete)"]),
    "Escape clears a search box": ("x", ["press(Escape)"]),
    "Space appends": ("x", ["press(Space)"]),
    "Backspace trims a real query": (None, ["press(Backspace)"] * 12),
}


def make(**kw) -> BrowserWebShopEnv:
    return make_webshop(mode="browser", num_products=2000, goal_index=1, max_steps=40, **kw)


def box_value(env: BrowserWebShopEnv) -> str:
    """The search box's value, read from the page itself."""
    return env._ctx.run(lambda page: page.evaluate(
        "document.querySelector('[data-agid=\"1\"]').value"))


@pytest.fixture(scope="module")
def envs():
    pair = (make(), make())
    yield pair
    for env in pair:
        env.close()


@pytest.mark.parametrize("name", list(EDITS))
def test_the_box_state_follows_the_page_after_keys(envs, name):
    env, other = envs
    text, keys = EDITS[name]
    env.reset(seed=0)
    env.step(f'fill(1, "{text or env.goal.search_query}")')
    for key in keys:
        env.step(key)
    # The state's typed text is what the box holds.
    typed = json.loads(env.get_state())["state"]["typed"].get("1", "")
    assert typed == box_value(env)
    snap = env.get_state()
    predicted = env.score_actions(["click(2)"])[0]
    oracle = env.oracle_actions()[:1]
    _, reward, *_ = env.step("click(2)")
    assert predicted == pytest.approx(reward)
    after = env.engine.to_dict()
    # The oracle's first move, from the same state, is one the engine takes.
    env.set_state(snap)
    if oracle:
        _, _, _, _, info = env.step(oracle[0])
        assert info["valid_action"], (oracle, info["action_error"])
    # A snapshot round trip, here and in another env, then the same action: the same state.
    for target in (env, other):
        target.reset(seed=5)
        target.set_state(snap)
        _, again, *_ = target.step("click(2)")
        assert again == pytest.approx(reward)
        assert target.engine.to_dict() == after


def test_an_emptied_box_scores_as_the_empty_search_it_sends(envs):
    env, _ = envs
    env.reset(seed=0)
    env.step('fill(1, "x")')
    env.step("press(Backspace)")
    assert json.loads(env.get_state())["state"]["typed"] == {}
    predicted = env.score_actions(["click(2)"])[0]
    _, reward, _, _, info = env.step("click(2)")
    assert not info["valid_action"] and predicted == pytest.approx(reward)
