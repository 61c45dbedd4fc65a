"""WebShop-v0's declared kwargs (see :mod:`agentgym.config`), for both modes and the factory.

* :class:`WebShopConfig`: :class:`~.env.WebShopEnv` (text mode);
* :class:`BrowserWebShopConfig`: :class:`~.browser_env.BrowserWebShopEnv` (browser mode: the
  text mode's kwargs plus the page size, the step timeout and the navigation style);
* :class:`MakeWebShopConfig`: :func:`~.base.make_webshop`, ``agentgym/WebShop-v0``'s entry
  point: ``mode`` plus every kwarg of both modes, the browser-only ones ``None`` (their
  default) unless ``mode="browser"``.

The catalog is the costly size: one search index per distinct ``num_products``, shared by
every session of a process (:func:`~.engine.get_shop`; a session itself adds under 0.1 MB)
but built on first use and cached on disk for good. Measured on two cores: 50,000 products
take about 18 CPU-seconds and 200 MB at the peak to build, 7 MB on disk and 33 MB once
loaded; 1,200,000 take about 430 CPU-seconds, 3.1 GB at the peak, 167 MB on disk and 0.7 GB
once loaded. So a stranger (a remote client or a leaderboard bundle) may only pick one of
:data:`PUBLIC_NUM_PRODUCTS`: a few sizes, so it can neither ask for a huge index nor build
(and store) a new one per request by walking through the sizes. Browser mode's page size
and step timeout are capped for strangers too (:data:`PUBLIC_VIEWPORT`,
:data:`PUBLIC_TIMEOUT_MS`).

>>> MakeWebShopConfig.parse({"mode": "text", "viewport_width": 800})
Traceback (most recent call last):
...
ValueError: viewport_width only apply to mode='browser'
>>> WebShopConfig.parse({"split": "test", "goal_index": 500})
Traceback (most recent call last):
...
ValueError: goal_index must be in [0, 499], got 500
"""

from __future__ import annotations

from typing import Literal, Self

from pydantic import model_validator

from agentgym.config import TextEnvConfig, setting

from .catalog import DEFAULT_NUM_PRODUCTS
from .goals import GoalBank

__all__ = [
    "BROWSER_ONLY",
    "DEFAULT_INVALID_PENALTY",
    "DEFAULT_MAX_INVALID",
    "DEFAULT_MAX_STEPS",
    "MAX_PRODUCTS",
    "PUBLIC_NUM_PRODUCTS",
    "PUBLIC_TIMEOUT_MS",
    "PUBLIC_VIEWPORT",
    "BrowserWebShopConfig",
    "MakeWebShopConfig",
    "WebShopConfig",
]

MAX_PRODUCTS = 1_200_000
#: The catalog sizes a stranger may ask for (the operator may set any size in
#: [100, MAX_PRODUCTS] with ``agentgym serve agentgym/WebShop-v0 -k num_products=...``).
PUBLIC_NUM_PRODUCTS: tuple[int, ...] = (1_000, 2_000, 10_000, DEFAULT_NUM_PRODUCTS)
#: The largest page a stranger may ask for in browser mode, (width, height): a session's
#: Chromium context takes about 74 MB at the default 1024x768, 81 MB at 1280x800 and 171 MB
#: at 3840x2160, so 256 sessions stay under 21 GB.
PUBLIC_VIEWPORT: tuple[int, int] = (1280, 800)
#: The longest step timeout a stranger may ask for: a step that hangs holds one of the
#: server's worker threads that long.
PUBLIC_TIMEOUT_MS = 30_000
DEFAULT_MAX_STEPS = 15
#: Small next to the shaping rewards (a search that lists an R = 1 product earns +1), so an
#: invalid action costs something without drowning the signal; the base class adds it on
#: top of the state-unchanged shaping reward.
DEFAULT_INVALID_PENALTY = -0.1
DEFAULT_MAX_INVALID = 5
#: The factory's kwargs that only browser mode takes (``None`` in text mode).
BROWSER_ONLY: tuple[str, ...] = ("viewport_width", "viewport_height", "timeout_ms",
                                 "full_navigation")
# The largest split (train, 10,500 goals); goal_index is checked against its own split below.
_MAX_GOAL_INDEX = 10_499


class _WebShopCommon(TextEnvConfig):
    """The kwargs both modes take (and their contract defaults)."""

    split: Literal["test", "eval", "train"] = setting(
        "test", "goal split: test (goals 0-499), eval (500-1499) or train (1500-11999)")
    goal_index: int | None = setting(
        None, "null: goal seed % split size (drawn without a seed); else a fixed goal, an index "
        "within the split (test 0-499, eval 0-999, train 0-10499)", ge=0, le=_MAX_GOAL_INDEX)
    num_products: int = setting(
        DEFAULT_NUM_PRODUCTS, "catalog size; each size's search index is built once per "
        "machine and cached", ge=100, le=MAX_PRODUCTS,
        public_max=DEFAULT_NUM_PRODUCTS, public_choices=PUBLIC_NUM_PRODUCTS)
    gamma: float = setting(1.0, "discount of the shaping (process) reward", gt=0, le=1)
    max_steps: int = setting(DEFAULT_MAX_STEPS, "step budget; running out truncates",
                             ge=1, le=100_000)
    invalid_penalty: float = setting(
        DEFAULT_INVALID_PENALTY, "process reward of an invalid action (added to the "
        "state-unchanged shaping reward)", le=0)
    max_invalid: int = setting(DEFAULT_MAX_INVALID,
                               "invalid actions that end the episode, truncated",
                               ge=1, le=100_000)

    @model_validator(mode="after")
    def _goal_in_split(self) -> Self:
        size = GoalBank.split_size(self.split)
        if self.goal_index is not None and self.goal_index > size - 1:
            raise ValueError(f"goal_index must be in [0, {size - 1}], got {self.goal_index}")
        return self


class WebShopConfig(_WebShopCommon):
    """The kwargs of :class:`~.env.WebShopEnv` (text mode)."""

    render_mode: Literal["ansi"] | None = setting(None, "null or ansi (the observation text)")


class BrowserWebShopConfig(_WebShopCommon):
    """The kwargs of :class:`~.browser_env.BrowserWebShopEnv` (browser mode)."""

    render_mode: Literal["ansi", "rgb_array"] | None = setting(
        None, "null, ansi (the observation text) or rgb_array (a screenshot)")
    viewport_width: int = setting(1024, "page width in pixels (also the rgb_array width)",
                                  ge=320, le=3840, public_max=PUBLIC_VIEWPORT[0])
    viewport_height: int = setting(768, "page height in pixels (also the rgb_array height)",
                                   ge=240, le=2160, public_max=PUBLIC_VIEWPORT[1])
    timeout_ms: int = setting(
        10_000, "limit for one step's browser work; past it the step is invalid",
        ge=1000, le=120_000, public_max=PUBLIC_TIMEOUT_MS)
    full_navigation: bool = setting(
        False, "every click and search a full Chromium navigation instead of the site's "
        "in-place load (same rewards, 2-3x slower)")


class MakeWebShopConfig(_WebShopCommon):
    """The kwargs of :func:`~.base.make_webshop`: ``mode`` and both modes' kwargs."""

    mode: Literal["text", "browser"] = setting(
        "text", "text (page strings, search[...] / click[...]) or browser (Chromium, "
        "accessibility tree, click(ID) / fill(ID, text))")
    render_mode: Literal["ansi", "rgb_array"] | None = setting(
        None, "null, ansi, or rgb_array (browser mode: a screenshot)")
    viewport_width: int | None = setting(
        None, "browser mode: page width in pixels; null: 1024", ge=320, le=3840,
        public_max=PUBLIC_VIEWPORT[0])
    viewport_height: int | None = setting(
        None, "browser mode: page height in pixels; null: 768", ge=240, le=2160,
        public_max=PUBLIC_VIEWPORT[1])
    timeout_ms: int | None = setting(
        None, "browser mode: limit for one step's browser work; null: 10000",
        ge=1000, le=120_000, public_max=PUBLIC_TIMEOUT_MS)
    full_navigation: bool | None = setting(
        None, "browser mode: full Chromium navigations instead of in-place loads; null: false")

    @model_validator(mode="after")
    def _browser_only(self) -> Self:
        given = sorted(k for k in BROWSER_ONLY if getattr(self, k) is not None)
        if self.mode == "text" and given:
            raise ValueError(f"{', '.join(given)} only apply to mode='browser'")
        return self

    def mode_kwargs(self) -> dict[str, object]:
        """The kwargs for the chosen mode's class (the browser-only ones only when set)."""
        skip = {"mode", *(k for k in BROWSER_ONLY if getattr(self, k) is None)}
        return {k: getattr(self, k) for k in type(self).model_fields if k not in skip}
