"""A stalled shop costs one browser env one invalid step, and no other env anything.

The stall is made for one env only: its site's ``answer`` (what its browser context calls for
every request of the page) awaits an event before answering, as a shop that hangs would.
Stall checks, not speed tests: each asserts that a step *returns* within a generous bound,
long before the stalled shop would have answered.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from browser_support import keep_browser, needs_browser  # noqa: F401 (autouse fixture)

from agentgym.environments.webshop.browser_env import BrowserWebShopEnv
from agentgym.environments.webshop.pages import SEARCH_BOX_ID, SEARCH_BUTTON_ID

pytestmark = needs_browser

N = 2000
#: The longest the stalled server holds an answer (the tests release it sooner).
STALL_S = 15.0


def _stall(env: BrowserWebShopEnv) -> tuple[threading.Event, threading.Event]:
    """Make ``env``'s shop answer a search or click only once the returned ``release`` is set.

    The wait is asynchronous (it polls the event on the browser's loop), as any slow answer
    of a served site must be: it holds up this env's page, never the loop.
    """
    site = env._site
    assert site is not None
    original = site.answer
    arrived, release = threading.Event(), threading.Event()

    def stalled(method: str, url: str) -> Any:
        if "/search" not in url and "/click" not in url:
            return original(method, url)

        async def later() -> Any:
            arrived.set()
            deadline = time.monotonic() + STALL_S
            while not release.is_set() and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            return original(method, url)

        return later()

    site.answer = stalled  # type: ignore[method-assign]
    return arrived, release


def _search(env: BrowserWebShopEnv) -> dict[str, Any]:
    env.step(f'fill({SEARCH_BOX_ID}, "{env.goal.search_query}")')
    return env.step(f"click({SEARCH_BUTTON_ID})")[4]


def test_a_stalled_step_is_invalid_and_the_env_recovers():
    env = BrowserWebShopEnv(num_products=N, goal_index=0, timeout_ms=2000)
    try:
        env.reset(seed=0)
        _, release = _stall(env)
        start = time.monotonic()
        info = _search(env)
        assert time.monotonic() - start < 2.0 + 3.0  # the fill is instant; the search stalls
        assert info["valid_action"] is False
        assert "timeout_ms=2000" in info["action_error"]
        assert env.engine.state.page == "search"  # nothing reached the engine
        release.set()  # the late request now finds the step closed: it changes nothing
        del env._site.answer  # the shop answers at once again
        info = env.step(f"click({SEARCH_BUTTON_ID})")[4]  # the page is reloaded first
        assert info["valid_action"] is True
        assert env.engine.state.page == "results"
    finally:
        env.close()


def test_a_stalled_env_does_not_hold_up_another_env():
    slow = BrowserWebShopEnv(num_products=N, goal_index=0, timeout_ms=8000)
    other = BrowserWebShopEnv(num_products=N, goal_index=1)
    try:
        slow.reset(seed=0)
        other.reset(seed=0)
        arrived, release = _stall(slow)
        got: dict[str, Any] = {}
        waiter = threading.Thread(target=lambda: got.update(info=_search(slow)))
        waiter.start()
        assert arrived.wait(STALL_S)
        info = _search(other)  # two steps while `slow` waits on its server
        assert info["valid_action"] is True and other.engine.state.page == "results"
        assert waiter.is_alive()  # they came back while the stalled step was still waiting
        release.set()
        waiter.join(STALL_S)
        assert got["info"]["valid_action"] is True  # answered in time: an ordinary step
        assert slow.engine.state.page == "results"
    finally:
        slow.close()
        other.close()
