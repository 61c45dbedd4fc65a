"""``agentgym/WebShop-v0``: shop for a product that fits an instruction, scored by WebShop's reward.

See :class:`WebShopEnv` for the kwargs, the action format and the reward table.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import numpy as np

from agentgym.core import Outcome, TextEnv, check_range

from . import agents as _agents  # noqa: F401  (registers make_agent("webshop-rule"))
from .catalog import DEFAULT_NUM_PRODUCTS
from .engine import (
    BACK_TO_SEARCH,
    BUY_NOW,
    NEXT,
    PAGE_DONE,
    PAGE_ITEM,
    PAGE_SEARCH,
    PAGE_SUB,
    PREV,
    RESULTS_PER_PAGE,
    ActionResult,
    EngineState,
    WebShopEngine,
    apply_click,
    apply_search,
    clean_query,
    get_shop,
    potential,
    render_page,
    resolve_label,
)
from .goals import SPLITS, Goal, GoalBank
from .reward import best_purchase

__all__ = ["MODES", "WebShopEnv"]

MODES: tuple[str, ...] = ("text", "browser")
MAX_PRODUCTS = 1_200_000
# search[...] / click[...]; also click(...) and "click <label>" (harmless formatting).
_ACTION = re.compile(
    r"\s*(search|click)\s*(?:\[(?P<sq>.*)\]|\((?P<par>.*)\)|:?\s+(?P<bare>.+?))\s*",
    re.IGNORECASE | re.DOTALL,
)
_FORMAT_HINT = (
    "use search[<query>] on the search page or click[<label>] with a label from the page, "
    "e.g. click[Back to Search]"
)


class WebShopEnv(TextEnv):
    """WebShop offline: find, configure and buy the product an instruction asks for.

    Each episode draws one goal (an instruction such as ``"i need a long lasting lipstick, in
    ruby color, and price lower than 20.00 dollars"``) and starts on the search page. Pages
    (search -> results -> item -> Description/Features/Reviews) come from
    :mod:`.engine`; the observation is the page's visible strings joined by ``" [SEP] "``
    (the instruction included), then the steps left and the page's clickables.

    Kwargs:

    * ``mode`` (``"text"``): ``"browser"`` returns the browser env of
      :mod:`.browser_env` (same engine, same rewards) instead.
    * ``split`` (``"test"``): ``"test"`` (goals 0-499), ``"eval"`` (500-1499) or ``"train"``
      (1500-11999).
    * ``goal_index`` (``None``): a fixed goal, as an index within the split. ``None`` plays
      goal ``seed % len(split)`` after ``reset(seed=seed)`` (so ``agentgym eval --episodes
      500 --seed 0`` plays each test goal once, as the original's session ids do) and draws
      one from the env's generator after ``reset()`` without a seed.
      ``reset(options={"goal_index": i})`` overrides it for one episode.
    * ``num_products`` (50,000; 100-1,200,000): catalog size. The index is built once per
      machine (20-40 s for 50,000 on two cores) and cached; see :mod:`.search`.
    * ``max_steps`` (15; 1-1000): the episode ends, unbought, on this step.
    * ``gamma`` (1.0; in (0, 1]): discount of the shaping reward.
    * ``reward_mode``, ``render_mode``: as in :class:`agentgym.core.TextEnv`.

    Actions: ``search[<query>]`` (only on the search page) and ``click[<label>]`` with a label
    from the page (case and spacing are ignored; ``click(<label>)`` and ``click <label>``
    also work). ``available_actions`` lists ``search[<the instruction without its price
    clause>]`` on the search page and ``click[<label>]`` for every clickable;
    ``info["webshop_actions"]`` is the original's ``{"has_search_bar", "clickables"}``.

    Rewards:

    ================  ==========================================================================
    outcome           ``R`` (WebShop's score in [0, 1], see :mod:`.reward`) when Buy Now is
                      clicked; 0 when the step budget runs out. ``success`` iff ``R == 1``.
                      ``reward_components`` then holds ``r_type``, ``r_att``, ``r_option``,
                      ``r_price``; ``info["purchase"]`` the product, options and price.
    process           potential-based shaping ``gamma * phi(s') - phi(s)``, where ``phi`` is
                      the best ``R`` any product listed so far could earn (options chosen
                      well), the earned ``R`` after buying and 0 when time runs out. It
                      rewards searches and pages that surface better products, never changes
                      the optimal policy, and with ``gamma = 1`` an episode's process rewards
                      sum to its outcome (so ``reward_mode="both"`` pays ``2 R`` in total).
    invalid action    refused with ``action_error``; the state is unchanged (so its process
                      reward is ``(gamma - 1) * phi``, i.e. 0 by default) and it uses a step.
    ================  ==========================================================================

    :meth:`oracle_actions` knows the goal: it searches the instruction (the listed search),
    walks the results to the best product among the top 50, picks its best options and buys
    (every test goal reaches ``R = 1``, see :mod:`.goals`). Its action always has the highest
    process score available; when the plan's next step would not, it returns the top-scored
    actions instead.

    >>> env = WebShopEnv(num_products=2000, goal_index=0)
    >>> obs, info = env.reset(seed=0)
    >>> obs.startswith("WebShop [SEP] Instruction: [SEP] ")
    True
    >>> info["webshop_actions"]["has_search_bar"], info["available_actions"][0][:7]
    (True, 'search[')
    >>> while not env.step(env.oracle_actions()[0])[2]:
    ...     pass
    >>> env.step("click[Buy Now]")[4]["action_error"]
    'the episode is over; call reset()'
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    verifier_name: ClassVar[str] = "webshop-reward-potential"
    verifier_version: ClassVar[str] = "1"
    max_observation_length: ClassVar[int] = 8192
    rules: ClassVar[str] = (
        "You are shopping on WebShop for the product described by an instruction. Pages: the "
        "search page (instruction and a search box), search results (10 products a page of "
        "the top 50, with < Prev / Next > / Back to Search), a product page (option groups "
        "such as size or color, title, price, tabs Description / Features / Reviews, and Buy "
        "Now) and the tabs themselves (< Prev returns to the product). Observations are the "
        "page's texts separated by [SEP], then the steps left and what can be clicked.\n"
        "Actions: search[<query>] on the search page, and click[<label>] with one of the "
        "clickable labels (a product's id such as B0ABCDEFGH, an option value, a button).\n"
        "Buy the product that best matches the instruction: its type, every requested "
        "attribute, every requested option (click each one on the product page before Buy "
        "Now) and a price under the limit. Buying ends the episode with a score from 0 to 1; "
        "you can buy only once, and the episode also ends when the steps run out."
    )

    def __new__(cls, *args: Any, **kwargs: Any) -> WebShopEnv:
        mode = kwargs.get("mode", args[0] if args else "text")
        if cls is WebShopEnv and mode == "browser":
            try:
                from .browser_env import BrowserWebShopEnv
            except ImportError as exc:
                raise ValueError(
                    "mode='browser' needs agentgym.environments.webshop.browser_env "
                    f"(and Playwright): {exc}"
                ) from exc
            if isinstance(BrowserWebShopEnv, type) and issubclass(BrowserWebShopEnv, cls):
                return super().__new__(BrowserWebShopEnv)  # its __init__ runs next
            return BrowserWebShopEnv(*args, **kwargs)
        return super().__new__(cls)

    def __init__(
        self,
        mode: str = "text",
        split: str = "test",
        goal_index: int | None = None,
        num_products: int = DEFAULT_NUM_PRODUCTS,
        max_steps: int = 15,
        gamma: float = 1.0,
        *,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if split not in SPLITS:
            raise ValueError(f"split must be one of {tuple(SPLITS)}, got {split!r}")
        size = GoalBank.split_size(split)
        self.goal_index = (
            None if goal_index is None else check_range("goal_index", goal_index, 0, size - 1)
        )
        self.num_products = check_range("num_products", num_products, 100, MAX_PRODUCTS)
        self.max_steps = check_range("max_steps", max_steps, 1, 1000)
        if isinstance(gamma, bool) or not isinstance(gamma, (int, float, np.floating)) or not (
            0.0 < float(gamma) <= 1.0
        ):
            raise ValueError(f"gamma must be a number in (0, 1], got {gamma!r}")
        self.mode = mode
        self.split = split
        self.gamma = float(gamma)
        if type(self) is WebShopEnv:
            # Text mode has no pixels. The class lists rgb_array only so that gym.make accepts
            # it for mode="browser" (it checks the registered class); this instance does not.
            self.metadata = {"render_modes": ["ansi"], "render_fps": 4}
        super().__init__(
            reward_mode=reward_mode, render_mode=render_mode, score_process=score_process
        )
        self.shop = get_shop(self.num_products)
        self._engine: WebShopEngine | None = None

    # ------------------------------------------------------------------ episode
    @property
    def engine(self) -> WebShopEngine:
        """The site state machine of the current episode."""
        if self._engine is None:
            raise RuntimeError("call reset() first")
        return self._engine

    @property
    def goal(self) -> Goal:
        """The current goal (only the instruction is ever shown to the agent)."""
        return self.engine.goal

    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        size = GoalBank.split_size(self.split)
        fixed = options.get("goal_index", self.goal_index)
        if fixed is None and self.episode_seed is not None:
            # As in the original, a seed names a goal: seeds 0..499 play each test goal once.
            i = self.episode_seed % size
        elif fixed is None:
            i = int(rng.integers(size))
        else:
            i = check_range("goal_index", fixed, 0, size - 1)
        goal = self.shop.goals.split_goal(self.split, i)
        self._engine = WebShopEngine(self.shop, goal)

    def _observe(self) -> str:
        engine = self.engine
        page = engine.page()
        lines = [page.text(), ""]
        if page.kind == PAGE_DONE:
            lines.append("The purchase is complete; the episode is over.")
        else:
            left = self.max_steps - self._steps
            lines.append(f"Steps left: {left}.")
            if page.has_search_bar:
                lines.append("Action: search[<your query>]")
            else:
                lines.append("Action: click[<label>]. Clickable: " + " | ".join(page.clickables()))
        text = "\n".join(lines)
        return text[: self.max_observation_length]

    def _legal_actions(self) -> list[str]:
        engine = self.engine
        page = engine.page()
        actions = [f"search[{engine.goal.search_query}]"] if page.has_search_bar else []
        return actions + [f"click[{c}]" for c in page.clickables()]

    def _parse(self, text: str) -> tuple[Any, str]:
        m = _ACTION.fullmatch(text)
        if m is None:
            return None, f"could not read {text[:60]!r} as an action; {_FORMAT_HINT}"
        verb = m.group(1).lower()
        arg = next(g for g in (m.group("sq"), m.group("par"), m.group("bare")) if g is not None)
        page = self.engine.page()
        if verb == "search":
            if not page.has_search_bar:
                return None, (f"there is no search box on this page; click[{BACK_TO_SEARCH}] "
                              "first")
            query, error = clean_query(arg)
            return (None, error) if query is None else (("search", query), "")
        label, error = resolve_label(page, arg)
        return (None, error) if label is None else (("click", label), "")

    def _transition(self, move: Any) -> tuple[EngineState, ActionResult]:
        engine = self.engine
        kind, arg = move
        if kind == "search":
            return apply_search(self.shop, engine.goal, engine.state, arg)
        return apply_click(self.shop, engine.goal, engine.state, arg)

    def _outcome(
        self, new: EngineState, result: ActionResult | None, step_no: int, *, score: bool = True
    ) -> Outcome:
        """Rewards for moving to ``new`` on step ``step_no`` (``result`` None: refused).

        ``score=False`` skips the potential (the costly part) for ``score_process=False``.
        """
        engine = self.engine

        def phi(state: EngineState) -> float:
            return potential(self.shop, engine.goal, state) if score else 0.0

        phi0 = phi(engine.state)
        purchase = result.purchase if result is not None else None
        if purchase is not None:
            r = purchase.reward
            return Outcome(
                process=self.gamma * r.total - phi0,
                outcome=r.total,
                terminated=True,
                success=r.success,
                parts={"r_type": r.r_type, "r_att": r.r_att, "r_option": r.r_option,
                       "r_price": r.r_price},
                info={"purchase": purchase.to_dict()},
            )
        if step_no >= self.max_steps:
            return Outcome(process=-phi0, terminated=True, info={"purchase": None})
        return Outcome(process=self.gamma * phi(new) - phi0)

    def _apply(self, move: Any) -> Outcome:
        new, result = self._transition(move)
        if not result.ok:  # _parse checked legality already; kept as a safety net
            return self._reject(result.error)
        out = self._outcome(new, result, self._steps, score=self.score_process)
        self.engine.state = new
        return out

    def _reject(self, error: str) -> Outcome:
        return self._outcome(self.engine.state, None, self._steps, score=self.score_process)

    def _score_move(self, move: Any, step_no: int) -> float:
        if move is None:
            return self._outcome(self.engine.state, None, step_no).process
        new, result = self._transition(move)
        return self._outcome(new, result if result.ok else None, step_no).process

    def _score(self, move: Any, snapshot: bytes) -> float:
        return self._score_move(move, self._steps + 1)

    def score_actions(self, actions: list[str]) -> list[float]:
        """Process reward each action would earn now, computed directly (state untouched)."""
        self._require_started()
        if self._done:
            return [0.0 for _ in actions]
        # step() counts the step before scoring it, so the budget check here looks one ahead.
        return [float(self._score_move(self._interpret(a)[0], self._steps + 1)) for a in actions]

    # ------------------------------------------------------------------ oracle
    def _oracle_plan(self) -> str | None:
        engine, shop, goal = self.engine, self.shop, self.engine.goal
        state = engine.state
        if state.page == PAGE_DONE:
            return None
        on_product = state.page in (PAGE_ITEM, PAGE_SUB)
        candidates = ([state.product] if on_product else []) + state.results
        candidates += list(shop.search(goal.search_query))
        value = max(shop.best(goal, pid) for pid in candidates)
        target = next(pid for pid in candidates if shop.best(goal, pid) == value)
        if on_product and state.product == target:
            if state.page == PAGE_SUB:
                return f"click[{PREV}]"
            product = shop.catalog.product(target)
            _, plan = best_purchase(product, goal, state.chosen)
            for group in product.options:
                want = plan.get(group.name)
                if want is not None and state.chosen.get(group.name) != want:
                    return f"click[{want}]"
            return f"click[{BUY_NOW}]"
        if target in state.results and state.page != PAGE_SEARCH:
            if on_product:
                return f"click[{PREV}]"
            page_of = state.results.index(target) // RESULTS_PER_PAGE + 1
            if page_of == state.results_page:
                return f"click[{shop.catalog.product(target).asin}]"
            return f"click[{NEXT if page_of > state.results_page else PREV}]"
        if state.page == PAGE_SEARCH:
            return f"search[{goal.search_query}]"
        return f"click[{BACK_TO_SEARCH}]"

    def oracle_actions(self) -> list[str]:
        """The oracle's next action: on its plan to an ``R = 1`` purchase and top-scored.

        If (unusually) another available action scores higher, every top-scored action is
        returned instead, in ``available_actions`` order.
        """
        self._require_started()
        legal = self._legal_actions()
        if not legal or self._done:
            return []
        scores = self.score_actions(legal)
        best = max(scores)
        plan = self._oracle_plan()
        if plan in legal and scores[legal.index(plan)] == best:
            return [plan]
        return [a for a, s in zip(legal, scores, strict=True) if s == best]

    # ------------------------------------------------------------------ snapshots and info
    def _state_dict(self) -> dict[str, Any]:
        return {
            "num_products": self.num_products,
            "split": self.split,
            "goal": self.engine.goal.index,
            "engine": self.engine.to_dict(),
        }

    def _load_state_dict(self, d: dict[str, Any]) -> None:
        if int(d["num_products"]) != self.num_products:
            raise ValueError(
                f"snapshot is from a {d['num_products']}-product catalog, this env has "
                f"{self.num_products}"
            )
        goal = self.shop.goals.goal(int(d["goal"]))
        self._engine = WebShopEngine(self.shop, goal, EngineState.from_dict(d["engine"]))

    def _info(
        self, out: Outcome, *, valid: bool, error: str, components: dict[str, float]
    ) -> dict[str, Any]:
        info = super()._info(out, valid=valid, error=error, components=components)
        info["webshop_actions"] = self.engine.available_actions()
        info["page"] = self.engine.state.page
        info["split"] = self.split
        info["goal_index"] = self.engine.goal.index - SPLITS[self.split][0]
        return info

    def page_text(self) -> str:
        """The current page as the original WebShop text (no footer)."""
        return render_page(self.shop, self.engine.goal, self.engine.state).text()
