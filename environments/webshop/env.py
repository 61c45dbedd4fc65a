"""``agentgym/WebShop-v0`` in text mode: the page's strings in, ``search[...]``/``click[...]`` out.

See :class:`WebShopEnv` for the observation and actions, and :mod:`.base` for the kwargs and
the reward table both modes share.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from agentgym.core import Outcome

from .base import WebShopBase
from .catalog import DEFAULT_NUM_PRODUCTS
from .config import (
    DEFAULT_INVALID_PENALTY,
    DEFAULT_MAX_INVALID,
    DEFAULT_MAX_STEPS,
    WebShopConfig,
)
from .engine import BACK_TO_SEARCH, clean_query, resolve_label

__all__ = ["WebShopEnv"]

# search[...] / click[...]; also click(...) and "click <label>" (harmless formatting).
_ACTION = re.compile(
    r"\s*(search|click)\s*(?:\[(?P<sq>.*)\]|\((?P<par>.*)\)|:?\s+(?P<bare>.+?))\s*",
    re.IGNORECASE | re.DOTALL,
)
_FORMAT_HINT = (
    "use search[<query>] on the search page or click[<label>] with a label from the page, "
    "e.g. click[Back to Search]"
)


class WebShopEnv(WebShopBase):
    """WebShop offline, text mode: find, configure and buy the product an instruction asks for.

    Each episode plays one goal (an instruction such as ``"i need a long lasting lipstick,
    in ruby color, and price lower than 20.00 dollars"``) and starts on the search page.
    Pages (search -> results -> item -> Description/Features/Reviews) come from
    :mod:`.engine`. The observation is the original WebShop text, the page's visible strings
    joined by ``" [SEP] "`` (the instruction included), then one line with the steps left and
    (except on the search page, whose last string is its search box) the page's clickables.
    The action format stands in :attr:`rules` (the system prompt) only.

    Kwargs: those of :class:`~.base.WebShopBase` (``split``, ``goal_index``,
    ``num_products``, ``gamma``, ``max_steps`` 15, ``invalid_penalty`` -0.1,
    ``max_invalid`` 5, ``reward_mode``, ``render_mode``, ``score_process``).
    ``gym.make("agentgym/WebShop-v0", mode="browser")`` gives the browser mode instead
    (:func:`~.base.make_webshop`).

    Actions: ``search[<query>]`` (only on the search page) and ``click[<label>]`` with a label
    from the page (case and spacing are ignored; ``click(<label>)`` and ``click <label>``
    also work). ``available_actions`` lists ``search[<the instruction without its price
    clause>]`` on the search page and ``click[<label>]`` for every clickable;
    ``info["webshop_actions"]`` is the original's ``{"has_search_bar", "clickables"}``.

    Rewards: see :mod:`.base`. :meth:`oracle_actions` knows the goal: it searches the
    instruction (the listed search), walks the results to the best product among the top
    50, picks its best options and buys. Its action always has the highest process score
    available; when the plan's next step would not, it returns the top-scored actions.

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

    mode: ClassVar[str] = "text"
    config_model = WebShopConfig
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4}
    max_observation_length: ClassVar[int] = 8192
    rules: ClassVar[str] = (
        "You are shopping on WebShop for the product described by an instruction. Pages: the "
        "search page (instruction and a search box), search results (10 products a page of "
        "the top 50, with < Prev / Next > / Back to Search), a product page (option groups "
        "such as size or color, title, price, tabs Description / Features / Reviews, and Buy "
        "Now) and the tabs themselves (< Prev returns to the product). Observations are the "
        "page's texts separated by [SEP], then the steps left and (except on the search page) "
        "what can be clicked.\n"
        "Actions: search[<query>] on the search page, with your own words for <query>, and "
        "click[<label>] with one of the clickable labels (a product's id such as B0ABCDEFGH, "
        "an option value, a button).\n"
        "Buy the product that best matches the instruction: its type, every requested "
        "attribute, every requested option (click each one on the product page before Buy "
        "Now) and a price under the limit. Buying ends the episode with a score from 0 to 1; "
        "you can buy only once, and the episode also ends when the steps run out."
    )

    def __init__(
        self,
        split: str = "test",
        goal_index: int | None = None,
        num_products: int = DEFAULT_NUM_PRODUCTS,
        gamma: float = 1.0,
        *,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
        max_steps: int = DEFAULT_MAX_STEPS,
        invalid_penalty: float = DEFAULT_INVALID_PENALTY,
        max_invalid: int = DEFAULT_MAX_INVALID,
    ) -> None:
        super().__init__(WebShopConfig.of(locals(), owner="WebShopEnv"))

    def _observe(self) -> str:
        page = self.engine.page()
        status = self._status()
        if status:
            footer = status
        elif page.has_search_bar:  # the page's last string is the search box ("Search")
            footer = f"Steps left: {self.steps_left}."
        else:
            footer = f"Steps left: {self.steps_left}. Clickable: " + " | ".join(page.clickables())
        return f"{page.text()}\n\n{footer}"[: self.max_observation_length]

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

    def _apply(self, move: Any) -> Outcome:
        # _parse checked the move against the page; the engine still has the last word.
        return self._apply_engine(move)
