"""The browser mode of WebShop: observations, actions, bad input, snapshots, resources.

Chromium tests skip only when Chromium is missing and ``CI`` is unset (CI installs it with
scripts/install_browser.sh, so there they always run).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
import time

import gymnasium as gym
import numpy as np
import pytest
from browser_support import keep_browser, needs_browser  # noqa: F401 (autouse fixture)

import agentgym
from agentgym.agents import make_agent
from agentgym.browser import browser_pids, new_context, runtime_stats
from agentgym.core import TEXT_CHARSET
from agentgym.environments.webshop import make_webshop
from agentgym.environments.webshop.base import WebShopBase
from agentgym.environments.webshop.browser_env import BrowserWebShopEnv
from agentgym.environments.webshop.env import WebShopEnv

N = 2000
ENV_ID = "agentgym/WebShop-v0"

pytestmark = needs_browser


def make(**kw) -> BrowserWebShopEnv:
    kw.setdefault("num_products", N)
    return make_webshop(mode="browser", **kw)


def ids_by_name(obs: str) -> dict[str, str]:
    """``name -> id`` for every ``[id] role "name"`` line, as an agent would read them."""
    out = {}
    for line in obs.splitlines():
        line = line.strip()
        if line.startswith("[") and '"' in line:
            agid = line[1 : line.index("]")]
            name = line.split('"', 2)[1]
            out.setdefault(name, agid)
    return out


def test_mode_browser_gives_the_browser_env_with_the_same_goal():
    env = make(goal_index=3)
    text = WebShopEnv(num_products=N, goal_index=3)
    try:
        assert type(env) is BrowserWebShopEnv
        # Siblings over the shared base, not a subclass of the text env.
        assert not issubclass(BrowserWebShopEnv, WebShopEnv)
        assert issubclass(BrowserWebShopEnv, WebShopBase)
        obs, info = env.reset(seed=5)
        text.reset(seed=5)
        lines = obs.splitlines()
        assert lines[0] == f"Instruction: {text.goal.instruction}"
        assert '    [1] searchbox "Search" value=""' in lines
        assert '    [2] button "Search"' in lines
        # The action format is in the system prompt only.
        assert lines[-1] == "Steps left: 15."
        assert "fill(" not in obs and "click(" not in obs
        assert 'fill(ID, "text")' in env.system_prompt()
        assert set(obs) <= set(TEXT_CHARSET) and len(obs) <= env.max_observation_length
        assert info["mode"] == "browser" and info["page"] == "search"
        assert info["available_actions"] == [
            f'fill(1, "{text.goal.search_query}")',
            "click(2)",
        ]
        assert info["reward_components"] == {"process": 0.0, "outcome": 0.0}
    finally:
        env.close()


def test_same_seed_same_episode_without_goal_index():
    a, b = make(), make()
    try:
        assert a.reset(seed=11)[0] == b.reset(seed=11)[0]
        assert a.reset(seed=12)[0] != a.reset(seed=13)[0]
    finally:
        a.close()
        b.close()


def test_gym_make_and_rgb_array_render(tmp_path):
    env = gym.make(ENV_ID, mode="browser", num_products=N, render_mode="rgb_array")
    try:
        assert type(env.unwrapped) is BrowserWebShopEnv
        assert env.unwrapped.metadata["render_modes"] == ["ansi", "rgb_array"]
        env.reset(seed=0)
        frame = env.render()
        assert frame.shape == (768, 1024, 3) and frame.dtype == np.uint8
        # The shop's header bar (#1f3a5f) across the top, white-ish page below it.
        assert frame[5, 5].tolist() == [31, 58, 95]
        assert frame[400, 900].tolist() == [238, 241, 245]
        # PNG bytes to save as they are, in any render mode, with no image library.
        png = env.unwrapped.screenshot_png()
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        (tmp_path / "shop.png").write_bytes(png)
    finally:
        env.close()
    assert agentgym.__version__


def test_without_playwright_gym_make_fails_in_one_line_naming_the_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "playwright", None)  # import playwright now fails
    monkeypatch.setitem(sys.modules, "playwright.async_api", None)
    with pytest.raises(Exception) as err:
        gym.make(ENV_ID, mode="browser", num_products=N)
    message = str(err.value)
    assert "\n" not in message and "Playwright is not installed" in message
    assert "pip install 'agentgym[browser]'" in message
    assert "bash scripts/install_browser.sh" in message


def test_kwargs_are_validated():
    for bad in (
        {"viewport_width": 10},
        {"viewport_height": 99999},
        {"timeout_ms": 5},
        {"full_navigation": "yes"},
        {"max_steps": 0},
        {"num_products": 5},
    ):
        with pytest.raises(ValueError):
            make(**bad)
    with pytest.raises(TypeError):
        BrowserWebShopEnv(mode="text")
    with pytest.raises(ValueError):
        make(render_mode="human")


BAD_ACTIONS = [
    "",
    "   ",
    "x" * 100_000,
    'fill(1, "' + "a" * 100_000 + '")',
    'fill(1, "' + "a" * 600 + '")',
    "click(999)",
    "click(-1)",
    "click(1; DROP)",
    'fill(2, "a button is no text box")',
    "press(Control+W)",
    "scroll(sideways)",
    "goto(http://example.com/)",
    "search[socks]",
    "click[Buy Now]",
    "点击(1)",
    "<action>click(</action>",
    "back()",  # nothing to go back to from the search page
]


def test_bad_actions_never_raise_and_change_nothing():
    env = make(goal_index=0, max_steps=50, max_invalid=50)
    try:
        obs0, _ = env.reset(seed=0)
        state0 = json.loads(env.get_state())["state"]
        for i, action in enumerate(BAD_ACTIONS, start=1):
            obs, reward, terminated, truncated, info = env.step(action)
            assert info["valid_action"] is False, action[:40]
            assert info["action_error"], action[:40]
            assert reward == env.invalid_penalty and not terminated and not truncated
            assert info["invalid_actions"] == i
            assert json.loads(env.get_state())["state"] == state0
        assert obs.replace("Steps left: -2", "") != ""  # observation still renders
        assert "there is no element [999]" in env.step("click(999)")[4]["action_error"]
    finally:
        env.close()


def test_non_action_steps_are_valid_and_score_zero():
    env = make(goal_index=0, max_steps=50)
    try:
        env.reset(seed=0)
        for action in ['fill(1, "red shoes")', "scroll(down)", "scroll(up)", "press(Tab)"]:
            obs, reward, term, _, info = env.step(action)
            assert info["valid_action"], (action, info["action_error"])
            assert reward == 0.0 and not term
            assert info["reward_components"] == {"process": 0.0, "outcome": 0.0}
        assert '[1] searchbox "Search" value="red shoes"' in obs
        # An empty search reaches the engine, which refuses it exactly as in text mode.
        env.step('fill(1, "   ")')
        obs, reward, _, _, info = env.step("press(Enter)")
        assert not info["valid_action"] and "empty" in info["action_error"]
        assert info["page"] == "search"
    finally:
        env.close()


def test_keyboard_focus_is_state_and_keys_score_like_clicks():
    env = make(goal_index=0, max_steps=50)
    try:
        env.reset(seed=0)
        obs, *_ = env.step(f'fill(1, "{env.goal.search_query}")')
        assert f'[1] searchbox "Search" value="{env.goal.search_query}" focused' in obs
        obs, *_ = env.step("press(Tab)")  # focus moves on to the Search button
        assert '[2] button "Search" focused' in obs
        snap = env.get_state()
        scores = env.score_actions(["press(Space)", "press(Enter)", "press(Tab)", "click(2)"])
        assert scores[0] == scores[1] == scores[3] > 0.0 and scores[2] == 0.0
        _, reward, _, _, info = env.step("press(Space)")  # Space activates a real button
        assert info["page"] == "results" and reward == pytest.approx(scores[0])
        env.set_state(snap)  # focus and typed text come back with the snapshot
        assert '[2] button "Search" focused' in env._observe()
        _, reward, _, _, info = env.step("press(Enter)")
        assert info["page"] == "results" and reward == pytest.approx(scores[1])
    finally:
        env.close()


def test_back_is_the_shops_back_button():
    env = make(goal_index=0, max_steps=50)
    try:
        obs, _ = env.reset(seed=0)
        env.step(f'fill(1, "{env.goal.search_query}")')
        obs, *_, info = env.step("press(Enter)")
        assert info["page"] == "results"
        first = env.engine.page().clickables()[-10]
        obs, *_, info = env.step(f"click({ids_by_name(obs)[first]})")
        assert info["page"] == "item"
        obs, *_, info = env.step("back()")
        assert info["page"] == "results" and info["valid_action"]
        obs, *_, info = env.step("back()")  # results page 1 has no < Prev
        assert info["page"] == "search" and info["valid_action"]
        assert env.step("back()")[4]["valid_action"] is False
    finally:
        env.close()


def test_oracle_buys_the_goal_product_in_both_navigation_modes():
    for full in (False, True):
        env = make(goal_index=2, full_navigation=full)
        try:
            env.reset(seed=0)
            total = 0.0
            for _ in range(15):
                action = env.oracle_actions()[0]
                _, reward, terminated, _, info = env.step(action)
                assert info["valid_action"], (action, info["action_error"])
                total += reward
                if terminated:
                    break
            assert terminated and info["success"]
            assert info["reward_components"]["outcome"] == 1.0
            assert total == pytest.approx(2.0)  # process sums to the outcome with gamma = 1
            assert "The purchase is complete" in env.step("click(1)")[0]
        finally:
            env.close()


def test_score_actions_match_step_and_leave_state_alone():
    env = make(goal_index=1, max_steps=40)
    try:
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(12):
            actions = [*env._legal_actions(), "scroll(down)", "click(999)", "back()"]
            before = env.get_state()
            scores = env.score_actions(actions)
            assert env.get_state() == before
            pick = int(rng.integers(len(actions)))
            if actions[pick] == env._legal_actions()[-1] and env.engine.page().kind == "item":
                pick = 0  # keep the episode going: the last item clickable is Buy Now
            _, reward, terminated, _, info = env.step(actions[pick])
            assert info["reward_components"]["process"] == pytest.approx(scores[pick])
            if terminated:
                break
        assert env.oracle_actions() == [] or env.oracle_actions()[0] in env._legal_actions()
    finally:
        env.close()


def test_snapshots_replay_identically_including_typed_text():
    env = make(goal_index=0, max_steps=40)
    try:
        env.reset(seed=0)
        env.step(f'fill(1, "{env.goal.search_query}")')
        snap = env.get_state()
        json.loads(snap)  # JSON bytes
        script = ["press(Enter)", "click(3)", "click(4)", "back()", "click(5)"]

        def run():
            outs = []
            for a in script:
                obs, r, term, _, info = env.step(a)
                outs.append((obs, r, term, info["reward_components"], info["page"]))
            return outs

        first = run()
        env.set_state(snap)
        assert '[1] searchbox "Search" value="' + env.goal.search_query + '"' in env._observe()
        assert run() == first
        # A snapshot restores into another env too.
        other = make(goal_index=0, max_steps=40)
        try:
            other.reset(seed=99)
            other.set_state(snap)
            assert other._observe() == (env.set_state(snap), env._observe())[1]
        finally:
            other.close()
    finally:
        env.close()


def test_stepping_after_the_end_and_closing_twice():
    env = make(goal_index=0, max_steps=1)
    obs, *_ = env.reset(seed=0)
    obs, _, terminated, truncated, info = env.step("scroll(down)")
    assert truncated and not terminated and info["truncated_by"] == "max_steps"
    assert not info["success"] and info["purchase"] is None
    assert obs.splitlines()[-1] == "No steps left; the episode is over, nothing was bought."
    _, reward, terminated, truncated, info = env.step("click(1)")
    assert truncated and reward == 0.0 and "episode is over" in info["action_error"]
    env.close()
    env.close()
    with pytest.raises(RuntimeError):
        env.reset(seed=0)


def test_runs_inside_a_running_asyncio_loop():
    async def rollout() -> float:
        env = make(goal_index=2)
        try:
            env.reset(seed=0)
            total = 0.0
            while True:
                _, reward, terminated, _, _ = env.step(env.oracle_actions()[0])
                total += reward
                await asyncio.sleep(0)
                if terminated:
                    return total
        finally:
            env.close()

    assert asyncio.run(rollout()) == pytest.approx(2.0)


def test_two_envs_in_one_process_are_isolated():
    a, b = make(goal_index=0), make(goal_index=0)
    try:
        a.reset(seed=0)
        b.reset(seed=0)
        a.step(f'fill(1, "{a.goal.search_query}")')
        a.step("press(Enter)")
        assert a.engine.state.page == "results" and b.engine.state.page == "search"
        assert a._site is not b._site and a._ctx is not b._ctx
        assert b._observe().count('value=""') == 1
    finally:
        a.close()
        b.close()


def test_a_dead_page_or_browser_is_replaced_without_losing_the_episode():
    env = make(goal_index=0, max_steps=50)
    try:
        env.reset(seed=0)
        env.step(f'fill(1, "{env.goal.search_query}")')
        env.step("press(Enter)")
        before = env.engine.state.to_dict()
        obs_before = env._observe()
        nxt = ids_by_name(obs_before)["Next >"]
        env._ctx.run(lambda page: page.context.close())  # the page dies under the env
        obs, reward, _, _, info = env.step(f"click({nxt})")
        assert not info["valid_action"] and "restarted" in info["action_error"]
        # The action did not happen: an invalid step (the uniform penalty), state unchanged.
        assert reward == env.invalid_penalty and env.engine.state.to_dict() == before
        assert obs.replace("Steps left: 47", "Steps left: 48") == obs_before
        _, _, _, _, info = env.step(f"click({nxt})")  # and the episode goes on
        assert info["valid_action"] and env.engine.state.results_page == 2
        # Killing Chromium itself: the next reset brings up a new one.
        for pid in browser_pids():
            os.kill(pid, 9)
        obs, _ = env.reset(seed=1)
        assert '[1] searchbox "Search"' in obs
        assert env.step("scroll(down)")[4]["valid_action"]
    finally:
        env.close()


def test_a_forgotten_env_frees_its_context_when_collected():
    probe = new_context()
    try:
        before = runtime_stats()["contexts"]
        env = make(goal_index=0)
        env.reset(seed=0)
        assert runtime_stats()["contexts"] == before + 1
        del env
        gc.collect()
        probe.url()  # the finalizer queues the close; this call runs after it
        assert runtime_stats()["contexts"] == before
    finally:
        probe.close()


def test_closing_the_last_env_closes_the_browser():
    code = (
        "from agentgym.environments.webshop.browser_env import BrowserWebShopEnv\n"
        "from agentgym.browser import runtime_stats, browser_pids\n"
        f"a = BrowserWebShopEnv(num_products={N}); b = BrowserWebShopEnv(num_products={N})\n"
        "a.reset(seed=0); b.reset(seed=1)\n"
        "n = len(browser_pids()); s1 = runtime_stats()\n"
        "a.close(); s2 = runtime_stats(); b.close(); s3 = runtime_stats()\n"
        "print(n, s1['contexts'], s2['contexts'], s2['browser_running'], s3['contexts'],"
        " s3['browser_running'], len(browser_pids()), s3['launches'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    n, c1, c2, run2, c3, run3, left, launches = map(int, out.stdout.split())
    assert n > 0
    assert (c1, c2, run2, c3, run3, left, launches) == (2, 1, 1, 0, 0, 0, 1)


def _memory_kb(pids: list[int]) -> int:
    """Private dirty memory of ``pids`` (heap, JS heap, caches written to), in KiB.

    Neither PSS nor USS: both count the Chromium binary's clean file pages, which are private
    while our browser is the only Chromium and shared while another one runs (a second test
    worker's), so they jump by ~70 MiB when another browser starts or exits. A leak is
    memory that was written to, and that stays private to our processes.
    """
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as fh:
                total += sum(
                    int(line.split()[1]) for line in fh if line.startswith("Private_Dirty:")
                )
        except OSError:
            pass
    return total


def test_500_resets_leak_no_processes_or_memory():
    env = make(max_steps=15)
    try:
        for i in range(30):  # warm up: caches, renderer, first-time allocations
            env.reset(seed=i)
        # Measure after a full GC at both ends: V8 otherwise lets the renderer's heap grow to
        # ~130 MiB before it bothers collecting, which is garbage, not a leak.
        env._ctx.collect_garbage()
        pids0 = browser_pids()
        rss0 = _memory_kb(pids0)
        start = time.perf_counter()
        for i in range(500):
            env.reset(seed=1000 + i)
            if i % 50 == 0:  # some real work too, so the page is not always the same one
                env.step(f'fill(1, "{env.goal.search_query}")')
                env.step("press(Enter)")
        elapsed = time.perf_counter() - start
        env._ctx.collect_garbage()
        pids1 = browser_pids()
        rss1 = _memory_kb(pids1)
        print(
            f"500 resets: {elapsed:.1f} s; browser processes {len(pids0)} -> {len(pids1)}; "
            f"private dirty memory {rss0 // 1024} -> {rss1 // 1024} MiB"
        )
        assert len(pids1) <= len(pids0)
        assert rss1 - rss0 < 32 * 1024, (rss0, rss1)
        assert runtime_stats()["contexts"] == 2  # this env and the module's keep-alive
    finally:
        env.close()


def test_the_rule_agent_plays_browser_mode_as_it_plays_text_mode():
    """Same decisions in both modes: a search becomes fill + click(Search), so only the
    step count differs; the purchase and its score are the same."""
    rule = make_agent("webshop-rule")
    for goal_index in range(3):
        outcomes = []
        for env in (WebShopEnv(num_products=N, goal_index=goal_index),
                    make(goal_index=goal_index)):
            try:
                obs, info = env.reset(seed=0)
                rule.reset(env, seed=0)
                actions = []
                for _ in range(env.max_steps):
                    actions.append(rule.act(obs, info))
                    obs, _, terminated, truncated, info = env.step(actions[-1])
                    assert info["valid_action"], (actions[-1], info["action_error"])
                    if terminated or truncated:
                        break
                assert terminated, actions  # it bought something
                outcomes.append((info["purchase"], info["reward_components"]))
            finally:
                env.close()
        assert outcomes[0] == outcomes[1]
        assert actions[0].startswith("fill(1, ") and actions[1] == "click(2)"


def test_a_text_snapshot_does_not_load_into_browser_mode():
    text = WebShopEnv(num_products=N, goal_index=0)
    text.reset(seed=0)
    env = make(goal_index=0)
    try:
        with pytest.raises(ValueError, match="BrowserWebShopEnv"):
            env.set_state(text.get_state())
    finally:
        env.close()


def test_scoring_actions_does_not_drive_the_browser():
    env = make(goal_index=0, max_steps=40)
    try:
        env.reset(seed=0)
        env.step(f'fill(1, "{env.goal.search_query}")')
        env.step("press(Enter)")
        taken, version = env._site.actions, env._site.version
        url = env._ctx.url()
        scores = env.score_actions([*env._legal_actions(), "scroll(down)", "nonsense"])
        assert max(scores) >= 0.0 and scores[-1] == env.invalid_penalty
        env.oracle_actions()
        # Nothing reached the site (no action, no reload bumping the version), same page.
        assert (env._site.actions, env._site.version) == (taken, version)
        assert env._ctx.url() == url
    finally:
        env.close()
