"""What WebShop's two modes share: kwargs, goals, the engine, the rewards and the oracle.

:class:`WebShopBase` is a :class:`~agentgym.core.TextEnv` over one
:class:`~.engine.WebShopEngine` per episode. The modes are siblings built on it, each in its
own module and neither importing the other: :class:`~.env.WebShopEnv` (text: the page's
strings, ``search[...]`` / ``click[...]``) and :class:`~.browser_env.BrowserWebShopEnv`
(Chromium on the loopback site, accessibility tree, ``click(ID)`` / ``fill(ID, "text")``).
``gym.make("agentgym/WebShop-v0", mode=...)`` goes through :func:`~.factory.make_webshop`,
which picks one; this module imports neither.

Both modes score an engine action the same way (:meth:`WebShopBase._moved`), so the same
episode earns the same rewards in either (``tests/webshop/test_parity.py``):

================  ==========================================================================
outcome           ``R`` (WebShop's score in [0, 1], see :mod:`.reward`) when Buy Now is
                  clicked; 0 when the episode is truncated. ``success`` iff ``R == 1``.
                  ``reward_components`` then holds ``r_type``, ``r_att``, ``r_option``,
                  ``r_price``; ``info["purchase"]`` the product, options and price (``None``
                  when the episode ends unbought).
process           potential-based shaping ``gamma * phi(s') - phi(s)``, applied by
                  :class:`~agentgym.core.TextEnv` from :meth:`WebShopBase._shaping_potential`:
                  ``phi`` is the best ``R`` any product listed so far could earn (options
                  chosen well), and the earned ``R`` after buying. The base's end rule counts
                  the last potential as the outcome, so it ends at ``R`` when bought and at 0
                  once the episode is truncated (out of steps or of invalid actions). It
                  rewards searches and pages that surface better products and never changes
                  the optimal policy; with ``gamma = 1`` and no invalid action an episode's
                  process rewards sum to its outcome.
invalid action    refused with ``action_error``; the state is unchanged, so the shaping part
                  is ``gamma * phi - phi`` (0 by default), plus ``invalid_penalty`` (-0.1).
                  After ``max_invalid`` (5) of them the episode is truncated.
================  ==========================================================================

>>> from agentgym.environments.webshop.env import WebShopEnv
>>> env = WebShopEnv(num_products=2000, goal_index=0)
>>> obs, info = env.reset(seed=0)
>>> env.score_actions(["click[Buy Now]"])  # no Buy Now on the search page: gamma*phi - phi - 0.1
[-0.1]
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from agentgym.action_result import ActionResult
from agentgym.core import Outcome, TextEnv, check_range
from agentgym.draws import below

from .config import (
    DEFAULT_INVALID_PENALTY,
    DEFAULT_MAX_INVALID,
    DEFAULT_MAX_STEPS,
    MAX_PRODUCTS,
    BrowserWebShopConfig,
    WebShopConfig,
)
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
    EngineState,
    WebShopEngine,
    apply_click,
    apply_search,
    get_shop,
    potential,
    render_page,
)
from .goals import SPLITS, Goal, GoalBank
from .reward import best_purchase

__all__ = [
    "BROWSER_INSTALL_HINT",
    "DEFAULT_INVALID_PENALTY",
    "DEFAULT_MAX_INVALID",
    "DEFAULT_MAX_STEPS",
    "MAX_PRODUCTS",
    "WebShopBase",
]

BROWSER_INSTALL_HINT = (
    "pip install 'agentgym[browser]' and bash scripts/install_browser.sh (Chromium)"
)


class WebShopBase(TextEnv):
    """The shared half of both WebShop modes; see the module docstring for the rewards.

    A mode subclass sets :attr:`mode` and implements the TextEnv hooks that depend on what
    the agent sees and types (``_observe``, ``_legal_actions``, ``_parse``, ``_apply``);
    goals, scoring (:meth:`_shaping_potential`, :meth:`_apply_engine`, :meth:`_moved`,
    :meth:`_on_end`), snapshots of the engine and the oracle's plan live here.

    Kwargs (both modes):

    * ``split`` (``"test"``): ``"test"`` (goals 0-499), ``"eval"`` (500-1499) or ``"train"``
      (1500-11999).
    * ``goal_index`` (``None``): a fixed goal, as an index within the split. ``None`` plays
      goal ``seed % len(split)`` after ``reset(seed=seed)`` (so ``agentgym eval --episodes
      500 --seed 0`` plays each test goal once, as the original's session ids do) and draws
      one from the env's generator after ``reset()`` without a seed.
      ``reset(options={"goal_index": i})`` overrides it for one episode.
    * ``num_products`` (50,000; 100-1,200,000): catalog size. The index is built once per
      machine (20-40 s for 50,000 on two cores, with a progress bar) and cached; see
      :mod:`.search`. Remote clients and leaderboard bundles may only pick one of
      :data:`~.config.PUBLIC_NUM_PRODUCTS` (1,000, 2,000, 10,000 or 50,000).
    * ``gamma`` (1.0; in (0, 1]): discount of the shaping reward.
    * ``max_steps`` (15), ``invalid_penalty`` (-0.1), ``max_invalid`` (5), ``reward_mode``,
      ``render_mode``, ``score_process``: as in :class:`agentgym.core.TextEnv`.

    Each mode declares them in :mod:`.config` and parses them before calling this
    constructor with the parsed config.
    """

    #: ``"text"`` or ``"browser"``; recorded in :meth:`config` and in ``info["mode"]``.
    mode: ClassVar[str] = ""
    verifier_name: ClassVar[str] = "webshop-reward-potential"
    # 2: truncation ends the potential at 0 for either limit (the base's end rule: the outcome,
    # 0 unbought), and invalid actions pay the uniform penalty.
    verifier_version: ClassVar[str] = "2"

    def __init__(self, cfg: WebShopConfig | BrowserWebShopConfig) -> None:
        # The mode's constructor has parsed its kwargs into ``cfg`` (see .config).
        self.split = cfg.split
        self.goal_index = cfg.goal_index
        self.num_products = cfg.num_products
        self.gamma = cfg.gamma
        super().__init__(**cfg.contract())
        self.shop = get_shop(self.num_products)
        self._engine: WebShopEngine | None = None
        self._stopped = ""  # why the episode was truncated (the base's truncated_by)

    def _config(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "split": self.split,
            "goal_index": self.goal_index,
            "num_products": self.num_products,
            "gamma": self.gamma,
        }

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
            i = below(rng, size)
        else:
            i = check_range("goal_index", fixed, 0, size - 1)
        self._engine = WebShopEngine(self.shop, self.shop.goals.split_goal(self.split, i))
        self._stopped = ""

    def _reset_info(self) -> dict[str, Any]:
        return self._extras()

    def _extras(self) -> dict[str, Any]:
        """The ``info`` extras of every reset and step (the state after the step)."""
        engine = self.engine
        return {
            "webshop_actions": engine.available_actions(),
            "page": engine.state.page,
            "split": self.split,
            "goal_index": engine.goal.index - SPLITS[self.split][0],
            "mode": self.mode,
        }

    def _status(self) -> str:
        """The observation's last line once the episode is over ("" while it runs)."""
        if self.engine.state.page == PAGE_DONE:
            return "The purchase is complete; the episode is over."
        if not self.is_over:
            return ""
        if self._stopped == "max_invalid":
            return "Too many invalid actions; the episode is over, nothing was bought."
        return "No steps left; the episode is over, nothing was bought."

    # ------------------------------------------------------------------ scoring
    def _phi(self, state: EngineState) -> float:
        """The shaping potential of ``state``: the earned ``R`` once bought, else the best
        ``R`` any product listed so far could earn (:func:`.engine.potential`)."""
        return potential(self.shop, self.engine.goal, state)

    def _shaping_potential(self) -> float:
        # TextEnv applies gamma * phi(s') - phi(s) and settles the last potential to the
        # outcome (R bought, 0 unbought); it reads this only while process scoring is on.
        return self._phi(self.engine.state)

    def _transition(self, move: tuple[str, str]) -> tuple[EngineState, ActionResult]:
        """The engine's answer to ``("search", query)`` or ``("click", label)``; no change."""
        engine = self.engine
        kind, arg = move
        if kind == "search":
            return apply_search(self.shop, engine.goal, engine.state, arg)
        return apply_click(self.shop, engine.goal, engine.state, arg)

    def _apply_engine(self, move: tuple[str, str]) -> Outcome:
        """Run an engine action and report it (a refusal is an invalid action)."""
        new, result = self._transition(move)
        if not result.ok:
            return Outcome(valid=False, error=result.error)
        self.engine.state = new
        return self._moved(result)

    def _moved(self, result: ActionResult) -> Outcome:
        """What an engine action that was applied did; the engine's state is already the new
        one. The shaping is the base class's (:meth:`_shaping_potential`)."""
        purchase = result.detail  # the engine's Purchase after Buy Now
        if purchase is not None:
            r = purchase.reward
            return Outcome(
                outcome=r.total,
                terminated=True,
                success=r.success,
                parts={"r_type": r.r_type, "r_att": r.r_att, "r_option": r.r_option,
                       "r_price": r.r_price},
                info={**self._extras(), "purchase": purchase.to_dict()},
            )
        return self._unmoved()

    def _unmoved(self) -> Outcome:
        """A step that bought nothing: the page's extras (the shaping is the base class's)."""
        return Outcome(info=self._extras())

    def _reject(self, error: str) -> Outcome:
        # The state is unchanged; the base class adds the shaping and invalid_penalty.
        return self._unmoved()

    def _on_end(self, out: Outcome) -> None:
        self._stopped = out.truncated_by
        if out.truncated:
            out.info["purchase"] = None

    # ------------------------------------------------------------------ oracle
    def _engine_plan(self) -> str | None:
        """The oracle's next step as a text action (``search[...]`` / ``click[...]``).

        It searches the instruction (the listed search), walks the results to the best
        product among the top 50, picks its best options and buys (every test goal reaches
        ``R = 1``, see :mod:`.goals`).
        """
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

    def _oracle_plan(self) -> str | None:
        """The plan's next step in this mode's action format."""
        return self._engine_plan()

    def oracle_actions(self) -> list[str]:
        """The oracle's next action: on its plan to an ``R = 1`` purchase and top-scored.

        If (unusually) another available action scores higher, every top-scored action is
        returned instead, in ``available_actions`` order.
        """
        self._require_started()
        legal = self._legal_actions()
        if not legal or self.is_over:
            return []
        scores = self.score_actions(legal)
        best = max(scores)
        plan = self._oracle_plan()
        if plan in legal and scores[legal.index(plan)] == best:
            return [plan]
        return [a for a, s in zip(legal, scores, strict=True) if s == best]

    # ------------------------------------------------------------------ snapshots
    def _state_dict(self) -> dict[str, Any]:
        # Split and catalog size travel in the snapshot's config, which set_state checks.
        return {"goal": self.engine.goal.index, "engine": self.engine.to_dict(),
                "stopped": self._stopped}

    def _load_state_dict(self, d: dict[str, Any]) -> None:
        index = int(d["goal"])
        start, stop = SPLITS[self.split]
        if not start <= index < stop:
            raise ValueError(
                f"snapshot plays goal {index}, outside the {self.split} split [{start}, {stop})"
            )
        stopped = d.get("stopped", "")  # absent from snapshots made before it was kept
        if stopped not in ("", "max_steps", "max_invalid"):
            raise ValueError(f"snapshot stopped must be '', 'max_steps' or 'max_invalid', "
                             f"got {stopped!r}")
        goal = self.shop.goals.goal(index)
        self._engine = WebShopEngine(self.shop, goal, EngineState.from_dict(d["engine"]))
        self._stopped = stopped

    def page_text(self) -> str:
        """The current page as the original WebShop text (no footer)."""
        return render_page(self.shop, self.engine.goal, self.engine.state).text()
