"""WebShop (``agentgym/WebShop-v0``, default 50,000-product catalog): text and browser modes.

Text mode: a click step, a search step, BM25 search alone and reset. Browser mode: a click
step, reset, and a new env's time and memory, side by side with BrowserGym
(``browsergym-core`` 0.14.3) driving the same shop pages, answered by this process through
Playwright's routing on both sides (no server).

BrowserGym runs in its own venv (``.venv-browsergym``, made by ``scripts/bench.sh``; see
``benchmarks/browsergym_peer.py``), in a subprocess started by this module. A BrowserGym
benchmark times one real call into that process per round (one ``BrowserEnv.step`` or
``reset`` and the pipe round trip); the peer's own clock around the call goes to
``extra_info["peer_inner"]``. Without the venv the BrowserGym benchmarks skip with the reason.

Run with ``scripts/bench.sh -k webshop`` (about 2.5 minutes on 2 busy cores).
"""

from __future__ import annotations

import gc
import itertools
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bench_common import describe, make_ours, scaled, seed_counter
from browsergym_peer import (
    BrowserGymPeer,
    PeerError,
    default_venv,
    own_rss_mib,
    process_cpu_s,
    tree_memory,
    venv_python,
)

ENV_ID = "agentgym/WebShop-v0"
NUM_PRODUCTS = 50_000  # the env's default catalog, named so the figure says what it is
MAX_STEPS = 1000  # long episodes: step benchmarks must not run out of steps
NEXT, PREV = "Next >", "< Prev"

# Rounds per benchmark (times AGENTGYM_BENCH_SCALE). BrowserGym's default config slows
# Playwright operations by 1 s each and relaunches two browsers per reset: few rounds.
TEXT_STEP_ROUNDS = 400
SEARCH_STEP_ROUNDS = 120
BM25_ROUNDS = 400
TEXT_RESET_ROUNDS = 200
BROWSER_STEP_ROUNDS = 60
BROWSER_FULLNAV_ROUNDS = 40
BROWSER_RESET_ROUNDS = 30
OURS_EXTRA_ENVS = 4
BG_STEP_ROUNDS = {"default": 5, "tuned": 12}
BG_RESET_ROUNDS = {"default": 3, "tuned": 4}
BG_EXTRA_ENVS = 2

TEXT_TARGET = {"max_median_s": 1e-3}
SEARCH_TARGET = {"max_median_s": 10e-3}
BROWSER_STEP_TARGET = {"max_median_s": 50e-3}
BROWSER_RESET_TARGET = {"max_median_s": 200e-3}

_REPO = Path(__file__).resolve().parent.parent
_PEER_PIDS: set[int] = set()  # excluded when we measure our own browser's memory


# ------------------------------------------------------------------------------ helpers
def _shop() -> Any:
    from agentgym.environments.webshop.engine import get_shop

    return get_shop(NUM_PRODUCTS)


def _goals_for(seeds: range) -> float:
    """Generate (memoise) the test goals these seeds name; median seconds per goal.

    A goal is generated on its first use in a process (a few ms) and memoised; the reset
    benchmarks time resets with warm goals (the text one records this figure next to it,
    measured while the goals are still cold).
    """
    from agentgym.environments.webshop.goals import GoalBank

    bank = _shop().goals
    size = GoalBank.split_size("test")
    times = []
    for seed in seeds:
        start = time.perf_counter()
        bank.split_goal("test", seed % size)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _fresh_queries(n: int, skip: int = 0) -> list[str]:
    """``n`` distinct realistic queries: instructions of train goals (never searched here).

    The shop memoises search results per query, so a search step is only cold the first time
    a query is seen; every timed search step gets a query not searched before.
    """
    shop = _shop()
    seen: set[str] = set()
    out: list[str] = []
    for i in itertools.count(skip):
        query = shop.goals.split_goal("train", i).search_query
        if query not in seen:
            seen.add(query)
            out.append(query)
        if len(out) == n:
            return out
    raise AssertionError("unreachable")


def _label_id(env: Any, label: str) -> str:
    """The browser id (``data-agid``) of the clickable with this label on the current page."""
    from agentgym.environments.webshop.pages import element_ids

    page = env.unwrapped.engine.page()
    for i, agid in element_ids(page).items():
        if page.elements[i].label == label:
            return agid
    raise LookupError(f"no {label!r} on the {page.kind} page")


def _page_info(engine: Any) -> str:
    """``"Page 2 (Total results: 50)"`` of a results page."""
    return next(el.text for el in engine.page().elements if el.kind == "page_info")


def _paging_click(engine: Any) -> str:
    """Alternate between results pages 1 and 2 (every click reaches the engine)."""
    return NEXT if engine.state.results_page == 1 else PREV


def _browser_search(env: Any) -> None:
    """Type the goal's query and submit it (two browser steps, never timed)."""
    query = env.unwrapped.goal.search_query.replace('"', "'")
    env.step(f'fill(1, "{query}")')
    _, _, _, _, info = env.step("click(2)")
    assert info["valid_action"] and info["page"] == "results", info["action_error"]


def _require_browser() -> None:
    from agentgym.browser import browser_available, chromium_path

    if not browser_available():
        pytest.skip(
            f"browser mode needs playwright and Chromium at {chromium_path()}; "
            "run scripts/install_browser.sh"
        )


def _make_browser(**kwargs: Any) -> Any:
    _require_browser()
    return make_ours(ENV_ID, mode="browser", num_products=NUM_PRODUCTS, **kwargs)


def _settle(envs: list[Any]) -> None:
    """Collect Python and page garbage before reading memory."""
    for env in envs:
        ctx = getattr(env.unwrapped, "_ctx", None)
        if ctx is not None:
            ctx.collect_garbage()
    gc.collect()


class CpuMeter:
    """CPU seconds spent inside the timed calls only: ``stop()`` then ``start()`` in each
    round's setup brackets the previous call, so setup work stays out. ``read(when)`` reads
    the CPU of every process involved (see :func:`browsergym_peer.process_cpu_s`)."""

    def __init__(self, read: Callable[[str], float]) -> None:
        self.read = read
        self.total = 0.0
        self.calls = 0
        self._mark: float | None = None

    def start(self) -> None:
        self._mark = self.read("start")

    def stop(self) -> None:
        if self._mark is not None:
            self.total += self.read("stop") - self._mark
            self.calls += 1
            self._mark = None

    def per_call(self) -> float | None:
        return self.total / self.calls if self.calls else None


def _ours_cpu(when: str) -> float:
    """CPU of this process and its Chromium (the BrowserGym peer's tree left out)."""
    return process_cpu_s(os.getpid(), _PEER_PIDS, when=when)


# ------------------------------------------------------------------------ text mode
def _text_click_starts(env: Any, seeds: range) -> list[tuple[bytes, str]]:
    """(state, click) pairs: the oracle's clicks to an R = 1 purchase (product, options,
    Buy Now), plus ``Next >`` on the first results page, a tab, and ``< Prev`` from the tab."""
    pairs: list[tuple[bytes, str]] = []
    u = env.unwrapped
    for seed in seeds:
        _, info = env.reset(seed=seed)
        extras = {"results": f"click[{NEXT}]", "item": "click[Description]"}
        while True:
            action = u.oracle_actions()[0]
            extra = extras.pop(info["page"], None)
            if extra is not None and extra in info["available_actions"]:
                pairs.append((u.get_state(), extra))
            if action.startswith("click["):
                pairs.append((u.get_state(), action))
            _, _, terminated, _, info = env.step(action)
            assert info["valid_action"], info["action_error"]
            if terminated:
                break
        # From the item page the oracle bought on: a tab, then the way back from it.
        u.set_state(next(s for s, a in pairs[::-1] if a == "click[Buy Now]"))
        env.step("click[Description]")
        pairs.append((u.get_state(), f"click[{PREV}]"))
    return pairs


def test_webshop_text_step_agentgym(benchmark: Any) -> None:
    """One click (no search) through ``gym.make``: engine, potential-based reward, text page."""
    env = make_ours(ENV_ID, num_products=NUM_PRODUCTS, max_steps=MAX_STEPS)
    pairs = _text_click_starts(env, range(8))
    order = itertools.cycle(range(len(pairs)))
    results: list[Any] = []

    def setup() -> tuple[tuple[str], dict[str, Any]]:
        state, action = pairs[next(order)]
        env.unwrapped.set_state(state)
        return (action,), {}

    def play(action: str) -> None:
        results.append(env.step(action))

    describe(
        benchmark,
        group="webshop-text-step",
        side="agentgym",
        impl=f"agentgym (gym.make, text, click, {NUM_PRODUCTS:,} products)",
        unit="step",
        primary=True,
        target=TEXT_TARGET,
        clicks=len(pairs),
    )
    benchmark.pedantic(play, setup=setup, rounds=scaled(TEXT_STEP_ROUNDS), warmup_rounds=1)
    assert all(info["valid_action"] for *_, info in results)


def test_webshop_text_search_step_agentgym(benchmark: Any) -> None:
    """``search[query]`` as a step, each round with a query this process never searched:
    BM25 top 50, the results page, and the process reward (best purchase over 50 products,
    products regenerated from their seeds on first use)."""
    env = make_ours(ENV_ID, num_products=NUM_PRODUCTS, max_steps=MAX_STEPS)
    rounds = scaled(SEARCH_STEP_ROUNDS)
    queries = iter(_fresh_queries(rounds + 1))
    starts = []
    for seed in range(5):
        env.reset(seed=seed)
        starts.append(env.unwrapped.get_state())
    order = itertools.cycle(starts)
    results: list[Any] = []

    def setup() -> tuple[tuple[str], dict[str, Any]]:
        env.unwrapped.set_state(next(order))
        return (f"search[{next(queries)}]",), {}

    def play(action: str) -> None:
        results.append(env.step(action))

    describe(
        benchmark,
        group="webshop-text-search-step",
        side="agentgym",
        impl=f"agentgym (gym.make, text, search step, new query, {NUM_PRODUCTS:,} products)",
        unit="step",
        primary=True,
        target=SEARCH_TARGET,
    )
    benchmark.pedantic(play, setup=setup, rounds=rounds, warmup_rounds=1)
    assert all(info["valid_action"] and info["page"] == "results" for *_, info in results)


def test_webshop_search_bm25_agentgym(benchmark: Any) -> None:
    """BM25 alone: ``SearchIndex.search(query)`` (top 50 of the catalog; no memo)."""
    index = _shop().index
    queries = itertools.cycle(_fresh_queries(200, skip=2000))
    describe(
        benchmark,
        group="webshop-search",
        side="agentgym",
        impl=f"agentgym BM25 top-50 ({NUM_PRODUCTS:,} products, {len(index.vocab):,} terms)",
        unit="query",
        primary=True,
        target=SEARCH_TARGET,
    )
    hits = benchmark.pedantic(
        lambda: index.search(next(queries)), rounds=scaled(BM25_ROUNDS), warmup_rounds=1
    )
    assert 0 < len(hits) <= 50


def test_webshop_text_reset_agentgym(benchmark: Any) -> None:
    """``reset(seed)``: a new engine for the seed's goal and the search page (goals warm)."""
    env = make_ours(ENV_ID, num_products=NUM_PRODUCTS)
    rounds = scaled(TEXT_RESET_ROUNDS)
    goal_s = _goals_for(range(1000, 1000 + rounds + 1))
    next_seed = seed_counter(1000)
    describe(
        benchmark,
        group="webshop-text-reset",
        side="agentgym",
        impl="agentgym (gym.make, text, reset)",
        unit="reset",
        primary=True,
        goal_generation_median_s=goal_s,
    )
    obs, info = benchmark.pedantic(
        lambda: env.reset(seed=next_seed()), rounds=rounds, warmup_rounds=1
    )
    assert info["page"] == "search" and obs.endswith("[SEP] Search\n\nSteps left: 15.")


# ------------------------------------------------------------------- browser mode, ours
def _ours_browser_step(benchmark: Any, *, full_navigation: bool, rounds: int) -> None:
    env = _make_browser(max_steps=MAX_STEPS, full_navigation=full_navigation)
    try:
        env.reset(seed=0)
        _browser_search(env)
        u = env.unwrapped
        last: list[Any] = []
        cpu = CpuMeter(_ours_cpu)

        def setup() -> tuple[tuple[str], dict[str, Any]]:
            cpu.stop()
            if last:  # the previous click landed: the page shows the engine's results page
                obs, _, _, _, info = last[-1]
                assert info["valid_action"] and _page_info(u.engine) in obs, info["action_error"]
            if u.steps > MAX_STEPS - 5:
                env.reset(seed=0)
                _browser_search(env)
            action = f"click({_label_id(env, _paging_click(u.engine))})"
            cpu.start()
            return (action,), {}

        def play(action: str) -> None:
            last.append(env.step(action))

        variant = "full navigation" if full_navigation else ""
        describe(
            benchmark,
            group="webshop-browser-step",
            side="agentgym",
            impl="agentgym (browser, click"
            + (", full_navigation=True)" if full_navigation else ", in-page load)"),
            unit="step",
            variant=variant,
            primary=not full_navigation,
            target=None if full_navigation else BROWSER_STEP_TARGET,
            ratio_row=full_navigation,
        )
        benchmark.pedantic(play, setup=setup, rounds=rounds, warmup_rounds=1)
        setup()  # checks the last click too
        benchmark.extra_info["cpu_per_call_s"] = cpu.per_call()
    finally:
        env.close()


def test_webshop_browser_step_agentgym(benchmark: Any) -> None:
    """A click on ``Next >`` / ``< Prev`` of a results page: the site loads the page in place,
    the engine scores it, the observation is our accessibility-tree text."""
    _ours_browser_step(benchmark, full_navigation=False, rounds=scaled(BROWSER_STEP_ROUNDS))


def test_webshop_browser_step_agentgym_full_navigation(benchmark: Any) -> None:
    """The same click as a full Chromium navigation (what BrowserGym's page does)."""
    _ours_browser_step(benchmark, full_navigation=True, rounds=scaled(BROWSER_FULLNAV_ROUNDS))


def test_webshop_browser_reset_agentgym(benchmark: Any) -> None:
    """``reset(seed)`` from a results page: new goal, search page shown in the env's context."""
    env = _make_browser()
    try:
        rounds = scaled(BROWSER_RESET_ROUNDS)
        _goals_for(range(1000, 1000 + rounds + 1))
        next_seed = seed_counter(1000)
        env.reset(seed=0)
        cpu = CpuMeter(_ours_cpu)

        def setup() -> tuple[tuple, dict[str, Any]]:
            cpu.stop()
            _browser_search(env)  # an episode ended somewhere else than the search page
            cpu.start()
            return (), {}

        describe(
            benchmark,
            group="webshop-browser-reset",
            side="agentgym",
            impl="agentgym (browser, reset)",
            unit="reset",
            primary=True,
            target=BROWSER_RESET_TARGET,
        )
        obs, info = benchmark.pedantic(
            lambda: env.reset(seed=next_seed()), setup=setup, rounds=rounds, warmup_rounds=1
        )
        cpu.stop()
        benchmark.extra_info["cpu_per_call_s"] = cpu.per_call()
        assert info["page"] == "search" and "searchbox" in obs
    finally:
        env.close()


def test_webshop_browser_env_agentgym(benchmark: Any) -> None:
    """A new browser env (``gym.make`` + first reset) next to one already running, and the
    memory each extra env adds: Chromium and Playwright-driver PSS plus our Python RSS."""
    keeper = _make_browser()
    envs: list[Any] = []
    try:
        keeper.reset(seed=0)
        _browser_search(keeper)
        _settle([keeper])
        before, py_before = tree_memory(os.getpid(), _PEER_PIDS), own_rss_mib()

        def create() -> None:
            env = _make_browser()
            env.reset(seed=len(envs) + 1)
            envs.append(env)

        n = scaled(OURS_EXTRA_ENVS, minimum=2)
        describe(
            benchmark,
            group="webshop-browser-env",
            side="agentgym",
            impl="agentgym (browser, new env + reset: one more context)",
            unit="env",
            primary=True,
        )
        benchmark.pedantic(create, rounds=n, warmup_rounds=0)
        for env in envs:
            _browser_search(env)
        _settle([keeper, *envs])
        after, py_after = tree_memory(os.getpid(), _PEER_PIDS), own_rss_mib()
        benchmark.extra_info["memory"] = _memory_info(before, after, py_before, py_after, n)
    finally:
        for env in envs:
            env.close()
        keeper.close()


def _memory_info(
    before: dict[str, float], after: dict[str, float], py_before: float, py_after: float, n: int
) -> dict[str, Any]:
    browser = (after["pss_mib"] - before["pss_mib"]) / n
    python = (py_after - py_before) / n
    return {
        "extra_envs": n,
        "per_env_mib": round(browser + python, 1),
        "browser_pss_mib": round(browser, 1),
        "browser_rss_sum_mib": round((after["rss_mib"] - before["rss_mib"]) / n, 1),
        "python_rss_mib": round(python, 1),
        "processes_per_env": round((after["processes"] - before["processes"]) / n, 2),
        "total_browser_pss_mib": round(after["pss_mib"], 1),
        "total_processes": int(after["processes"]),
    }


# ------------------------------------------------------------------------- BrowserGym
class PeerShop:
    """A shop site answered from this process for one BrowserGym env (over the peer's pipe).

    Full-navigation pages (``inpage=False``): every link and the search form load a new
    document, which is what BrowserGym waits for after an action.
    """

    def __init__(self, goal_index: int) -> None:
        from agentgym.environments.webshop.site import ShopSite

        self.engine = self._engine(goal_index)
        self.session = ShopSite(page=lambda: self.engine.page(), act=self._act, inpage=False)
        self.origin = self.session.origin

    @staticmethod
    def _engine(goal_index: int) -> Any:
        from agentgym.environments.webshop.engine import WebShopEngine

        shop = _shop()
        return WebShopEngine(shop, shop.goals.split_goal("test", goal_index % 500))

    def _act(self, kind: str, arg: str) -> bool:
        (self.engine.search if kind == "search" else self.engine.click)(arg)
        return True

    def new_goal(self, goal_index: int) -> None:
        """A new episode on the server side (the next page load shows its search page)."""
        self.engine = self._engine(goal_index)
        self.session.bump()

    def accept_one(self) -> None:
        """Let the peer's next request act, once. The shop takes at most one action per step
        of an env and none outside one (agentgym's browser env opens each of its steps
        itself); here BrowserGym drives the page, so each of its actions is let in this way,
        outside the timed call."""
        self.session.end_step()
        self.session.begin_step()

    def open_args(self, seed: int = 0) -> dict[str, Any]:
        return {"origin": self.origin, "goal": self.engine.goal.instruction, "seed": seed}

    def answer(self, method: str, url: str) -> tuple[int, dict[str, str], str]:
        """One page request of the peer's browser (see ``browsergym_peer``)."""
        response = self.session.answer(method, url)
        headers = {**response.headers, "Content-Type": response.content_type}
        return response.status, headers, response.body

    def close(self) -> None:
        pass  # nothing to free: the site lives as long as this object


class BrowserGymSide:
    """The running peer process plus the shop sessions served for its envs."""

    def __init__(self, peer: BrowserGymPeer, hello: dict[str, Any]) -> None:
        self.peer = peer
        self.hello = hello
        self.versions: dict[str, str] = hello["versions"]
        self.shops: dict[str, PeerShop] = {}
        self.opened: dict[str, dict[str, Any]] = {}

    def label(self, config: str) -> str:
        what = {
            "default": "defaults: task slow_mo=1000 ms, pre_observation_delay=0.5 s",
            "tuned": "slow_mo=0, pre_observation_delay=0",
        }[config]
        return f"browsergym-core {self.versions['browsergym-core']} ({what})"

    def open(self, name: str, config: str, goal_index: int = 0, search: bool = True) -> PeerShop:
        """A BrowserGym env on a fresh shop session, on its first results page if ``search``."""
        shop = PeerShop(goal_index)
        self.shops[name] = shop
        self.opened[name] = self.peer.call("open", name=name, config=config, **shop.open_args())
        if search:
            shop.accept_one()
            answer = self.peer.call("search", name=name, query=shop.engine.goal.search_query)
            assert answer["action_errors"] == ["", ""], answer
            assert shop.engine.state.page == "results" and shop.session.actions == 1
        return shop

    def cpu(self, when: str) -> float:
        """CPU seconds so far of the peer's tree plus this process (which serves its pages).

        This process's clock is read last at a start and first at a stop, so the pipe call
        for the peer's figure stays outside the interval.
        """
        if when == "stop":
            ours = _ours_cpu(when)
            return ours + self.peer.call("cpu", when=when)["cpu_s"]
        peer = self.peer.call("cpu", when=when)["cpu_s"]
        return peer + _ours_cpu(when)

    def close(self, name: str) -> None:
        self.peer.call("close", name=name)
        self.shops.pop(name).close()

    def info(self, config: str, inner: list[float], name: str) -> dict[str, Any]:
        return {
            "versions": self.versions,
            "config": config,
            "browser": self.opened[name].get("browser"),
            "first_observation": {
                k: self.opened[name].get(k) for k in ("axtree_nodes", "dom_chars", "screenshot")
            },
            "peer_inner": {
                "median_s": statistics.median(inner),
                "min_s": min(inner),
                "n": len(inner),
            }
            if inner
            else None,
        }


@pytest.fixture(scope="module")
def browsergym() -> Any:
    """The BrowserGym peer process for this module (skips with the reason when unavailable)."""
    _require_browser()
    venv = default_venv()
    python = venv_python(venv)
    if not python.exists():
        pytest.skip(
            f"BrowserGym peer: no virtual environment at {venv}; scripts/bench.sh creates it "
            "(browsergym-core==0.14.3, gymnasium==1.4.0, then playwright==1.65.2), or set "
            "BROWSERGYM_VENV"
        )
    shops: dict[str, PeerShop] = {}

    def serve(name: str, method: str, url: str) -> tuple[int, dict[str, str], str]:
        return shops[name].answer(method, url)

    peer = BrowserGymPeer(python, _REPO / ".benchmarks" / "browsergym_peer.log", serve=serve)
    try:
        hello = peer.call("hello", timeout_s=120)
    except PeerError as exc:
        peer.close()
        pytest.skip(f"BrowserGym peer in {venv} does not start: {exc}")
    _PEER_PIDS.add(peer.pid)
    side = BrowserGymSide(peer, hello)
    side.shops = shops
    try:
        yield side
    finally:
        peer.close()
        _PEER_PIDS.discard(peer.pid)
        for shop in side.shops.values():
            shop.close()


def _peer_call(side: BrowserGymSide, cmd: str, inner: list[float], **args: Any) -> None:
    answer = side.peer.call(cmd, **args)
    if answer.get("action_error"):
        raise AssertionError(f"BrowserGym {cmd} failed: {answer['action_error']}")
    inner.append(answer["inner_s"])


@pytest.mark.parametrize("config", ["default", "tuned"])
def test_webshop_browser_step_browsergym(benchmark: Any, browsergym: Any, config: str) -> None:
    """One ``BrowserEnv.step('click("<bid>")')`` on ``Next >`` / ``< Prev`` of the same results
    page (full navigation), timed as one round trip into the peer process. BrowserGym's step
    runs the click, waits (``pre_observation_delay``, DOM loaded), then extracts its
    observation: AXTree, DOM snapshot, screenshot and element properties."""
    side, name = browsergym, f"step-{config}"
    shop = side.open(name, config)
    inner: list[float] = []
    done = [0]
    cpu = CpuMeter(side.cpu)

    def setup() -> tuple[tuple, dict[str, Any]]:
        cpu.stop()
        # The previous click reached the engine once and BrowserGym observed its page.
        assert shop.session.actions == 1 + done[0]
        answer = side.peer.call(
            "prepare", name=name, label=_paging_click(shop.engine), expect=_page_info(shop.engine)
        )
        assert answer["ok"], f"BrowserGym's observation does not show {_page_info(shop.engine)}"
        shop.accept_one()
        cpu.start()
        return (), {}

    def play() -> None:
        _peer_call(side, "step", inner, name=name)
        done[0] += 1

    describe(
        benchmark,
        group="webshop-browser-step",
        side="peer",
        impl=side.label(config),
        peer="browsergym-core",
        variant="" if config == "default" else config,
        unit="step",
    )
    try:
        benchmark.pedantic(play, setup=setup, rounds=scaled(BG_STEP_ROUNDS[config]))
        cpu.stop()
        assert side.peer.call("check", name=name, expect=_page_info(shop.engine))["ok"]
        assert shop.session.actions == 1 + done[0]
        benchmark.extra_info.update(side.info(config, inner, name))
        benchmark.extra_info["cpu_per_call_s"] = cpu.per_call()
    finally:
        side.close(name)


@pytest.mark.parametrize("config", ["default", "tuned"])
def test_webshop_browser_reset_browsergym(benchmark: Any, browsergym: Any, config: str) -> None:
    """``BrowserEnv.reset(seed)``: closes and relaunches its browser and its chat browser, a new
    context and page, the task's setup (route the shop, ``goto`` it) and the first observation."""
    side, name = browsergym, f"reset-{config}"
    shop = side.open(name, config, search=False)
    inner: list[float] = []
    next_seed = seed_counter(1000)
    seeds: list[int] = []
    cpu = CpuMeter(side.cpu)

    def setup() -> tuple[tuple, dict[str, Any]]:
        cpu.stop()
        seeds.append(next_seed())
        shop.new_goal(seeds[-1])
        cpu.start()
        return (), {}

    def play() -> None:
        _peer_call(side, "reset", inner, name=name, seed=seeds[-1])

    describe(
        benchmark,
        group="webshop-browser-reset",
        side="peer",
        impl=side.label(config),
        peer="browsergym-core",
        variant="" if config == "default" else config,
        unit="reset",
    )
    try:
        benchmark.pedantic(play, setup=setup, rounds=scaled(BG_RESET_ROUNDS[config], minimum=2))
        cpu.stop()
        # The last reset shows the last goal's search page.
        assert side.peer.call("check", name=name, expect=shop.engine.goal.instruction)["ok"]
        benchmark.extra_info.update(side.info(config, inner, name))
        benchmark.extra_info["cpu_per_call_s"] = cpu.per_call()
    finally:
        side.close(name)


def test_webshop_browser_env_browsergym(benchmark: Any, browsergym: Any) -> None:
    """A new ``BrowserEnv`` (tuned) + its first reset next to one already running, and the
    memory each extra env adds (its two Chromiums, the Playwright driver, the peer's RSS)."""
    side = browsergym
    side.open("mem-0", "tuned")
    names = ["mem-0"]
    inner: list[float] = []
    before = side.peer.call("memory")
    pending: list[PeerShop] = []

    def setup() -> tuple[tuple, dict[str, Any]]:
        name = f"mem-{len(names)}"
        names.append(name)
        shop = PeerShop(len(names))
        side.shops[name] = shop
        pending.append(shop)
        return (), {}

    def create() -> None:
        answer = side.peer.call("open", name=names[-1], config="tuned", **pending[-1].open_args())
        side.opened[names[-1]] = answer
        inner.append(answer["inner_s"])

    n = scaled(BG_EXTRA_ENVS, minimum=2)
    describe(
        benchmark,
        group="webshop-browser-env",
        side="peer",
        impl=side.label("tuned").replace("(", "(new env + reset, "),
        peer="browsergym-core",
        variant="tuned",
        unit="env",
    )
    try:
        benchmark.pedantic(create, setup=setup, rounds=n, warmup_rounds=0)
        for name in names[1:]:
            side.shops[name].accept_one()
            answer = side.peer.call(
                "search", name=name, query=side.shops[name].engine.goal.search_query
            )
            assert answer["action_errors"] == ["", ""], answer
        after = side.peer.call("memory")
        benchmark.extra_info.update(side.info("tuned", inner, names[-1]))
        benchmark.extra_info["memory"] = _memory_info(
            before, after, before["python_rss_mib"], after["python_rss_mib"], n
        )
    finally:
        for name in names:
            if name in side.shops:
                side.close(name)
