"""``agentgym/WebShop-v0``'s entry point: :func:`make_webshop` picks the text or browser mode.

It lives apart from :mod:`.base`, which both modes import, so the modes' modules and the
base form no import cycle: ``factory -> env -> base`` and ``factory -> browser_env -> base``.

>>> make_webshop(num_products=2000).reset(seed=0)[1]["mode"]
'text'
"""

from __future__ import annotations

from .base import WebShopBase
from .catalog import DEFAULT_NUM_PRODUCTS
from .config import (
    DEFAULT_INVALID_PENALTY,
    DEFAULT_MAX_INVALID,
    DEFAULT_MAX_STEPS,
    MakeWebShopConfig,
)
from .env import WebShopEnv

__all__ = ["MODES", "make_webshop"]

#: The modes ``make_webshop(mode=...)`` builds.
MODES: tuple[str, ...] = ("text", "browser")


def make_webshop(
    mode: str = "text",
    *,
    split: str = "test",
    goal_index: int | None = None,
    num_products: int = DEFAULT_NUM_PRODUCTS,
    gamma: float = 1.0,
    viewport_width: int | None = None,
    viewport_height: int | None = None,
    timeout_ms: int | None = None,
    full_navigation: bool | None = None,
    reward_mode: str = "both",
    render_mode: str | None = None,
    score_process: bool = True,
    max_steps: int = DEFAULT_MAX_STEPS,
    invalid_penalty: float = DEFAULT_INVALID_PENALTY,
    max_invalid: int = DEFAULT_MAX_INVALID,
) -> WebShopBase:
    """The text or the browser mode of WebShop.

    ``mode="text"`` (default) gives a :class:`~.env.WebShopEnv`, ``mode="browser"`` a
    :class:`~.browser_env.BrowserWebShopEnv`; the other kwargs are theirs
    (:class:`~.base.WebShopBase` lists the shared ones). ``viewport_width`` (1024),
    ``viewport_height`` (768), ``timeout_ms`` (10,000) and ``full_navigation`` (False) are
    browser-mode kwargs; ``None`` means their default, and setting one in text mode is an
    error. Browser mode without Playwright or Chromium fails here with the install command.
    The kwargs are declared in :class:`~.config.MakeWebShopConfig` (``make_webshop.config_model``)
    and checked before anything is built.

    >>> type(make_webshop(num_products=2000, goal_index=0)).__name__
    'WebShopEnv'
    """
    cfg = MakeWebShopConfig.of(locals(), owner="make_webshop")
    if cfg.mode == "text":
        return WebShopEnv(**cfg.mode_kwargs())
    # Browser mode loads the site and the browser runtime only when asked for.
    from .browser_env import BrowserWebShopEnv

    return BrowserWebShopEnv(**cfg.mode_kwargs())


#: The factory's declared config, read by ``agentgym list``, the server and the validator.
make_webshop.config_model = MakeWebShopConfig  # type: ignore[attr-defined]
#: Whether a session made with these kwargs holds a browser (read by the server's
#: ``max_heavy_sessions`` before it builds one): any mode but text does.
make_webshop.heavy_session = lambda kwargs: kwargs.get("mode", "text") != "text"  # type: ignore[attr-defined]
