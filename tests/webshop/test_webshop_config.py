"""WebShop-v0's declared config (environments/webshop/config.py): the factory's and both modes'."""

from __future__ import annotations

import inspect
import typing

import numpy as np
import pytest
from browser_support import needs_browser

import agentgym
from agentgym.config import ScopeError
from agentgym.envinfo import config_model
from agentgym.environments.webshop import base, factory, make_webshop
from agentgym.environments.webshop.browser_env import BrowserWebShopEnv
from agentgym.environments.webshop.config import (
    MAX_PRODUCTS,
    PUBLIC_NUM_PRODUCTS,
    PUBLIC_TIMEOUT_MS,
    PUBLIC_VIEWPORT,
    BrowserWebShopConfig,
    MakeWebShopConfig,
    WebShopConfig,
)
from agentgym.environments.webshop.env import WebShopEnv
from agentgym.environments.webshop.goals import SPLITS, GoalBank

N = 2000
STRANGERS = ("client", "bundle")


@pytest.mark.parametrize(("creator", "model"), [
    (make_webshop, MakeWebShopConfig),
    (WebShopEnv, WebShopConfig),
    (BrowserWebShopEnv, BrowserWebShopConfig),
])
def test_each_entry_point_declares_its_signature(creator, model):
    assert creator.config_model is model
    params = {k: p for k, p in inspect.signature(creator).parameters.items() if k != "self"}
    assert list(params) and set(params) == set(model.model_fields)
    for name, p in params.items():
        assert p.default == model.model_fields[name].default, name
    for row in model.table():
        assert row.description and row.scope == "public", row


def test_the_registry_reads_the_factory_model():
    assert "agentgym/WebShop-v0" in agentgym.env_ids()
    assert config_model("agentgym/WebShop-v0") is MakeWebShopConfig
    assert not hasattr(base, "_check_gamma")


def test_choices_follow_the_code():
    assert typing.get_args(WebShopConfig.model_fields["split"].annotation) == tuple(SPLITS)
    assert typing.get_args(MakeWebShopConfig.model_fields["mode"].annotation) == factory.MODES
    top = WebShopConfig.model_fields["goal_index"].metadata
    assert max(GoalBank.split_size(s) for s in SPLITS) - 1 in [getattr(m, "le", None)
                                                               for m in top]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"gamma": 0}, "gamma must be in (0, 1], got 0"),
    ({"gamma": 1.5}, "gamma must be in (0, 1], got 1.5"),
    ({"gamma": True}, "gamma must be a finite number in (0, 1], got True"),
    ({"gamma": "1"}, "gamma must be a finite number in (0, 1], got '1'"),
    ({"num_products": 99}, "num_products must be in [100, 1200000], got 99"),
    ({"split": "dev"}, "split must be one of ('test', 'eval', 'train'), got 'dev'"),
    ({"goal_index": 500}, "goal_index must be in [0, 499], got 500"),
    ({"split": "eval", "goal_index": 1000}, "goal_index must be in [0, 999], got 1000"),
    ({"mode": "pixels"}, "mode must be one of ('text', 'browser'), got 'pixels'"),
    ({"timeout_ms": 5000}, "timeout_ms only apply to mode='browser'"),
    ({"viewport_width": 800, "full_navigation": True},
     "full_navigation, viewport_width only apply to mode='browser'"),
    ({"mode": "browser", "viewport_width": 10}, "viewport_width must be in [320, 3840], got 10"),
    ({"mode": "browser", "full_navigation": "yes"},
     "full_navigation must be None or True or False, got 'yes'"),
])
def test_the_factory_refuses_bad_kwargs_in_one_line(kwargs, message):
    # Judged before any catalog is loaded or browser started.
    with pytest.raises(ValueError) as exc:
        make_webshop(**{"num_products": N, **kwargs})
    assert str(exc.value) == message


def test_numpy_values_and_the_largest_goal_of_each_split_are_accepted():
    env = WebShopEnv(split=np.str_("train"), goal_index=np.int64(10_499),
                     num_products=np.int64(N), gamma=np.float64(0.5))
    assert (env.goal_index, env.num_products, env.gamma) == (10_499, N, 0.5)
    assert type(env.num_products) is int
    assert env.reset(seed=0)[1]["goal_index"] == 10_499


@pytest.mark.parametrize("who", STRANGERS)
def test_strangers_pick_only_the_bundled_catalog_sizes(who):
    for size in PUBLIC_NUM_PRODUCTS:
        MakeWebShopConfig.refuse_strangers({"num_products": size}, who)
    messages = set()
    for size in (3000, 50_001, MAX_PRODUCTS, np.int64(200_000)):
        with pytest.raises(ScopeError) as exc:
            MakeWebShopConfig.refuse_strangers({"num_products": size}, who)
        messages.add(str(exc.value))
    assert len(messages) == 1
    assert "num_products must be one of (1000, 2000, 10000, 50000) when" in messages.pop()


@pytest.mark.parametrize("who", STRANGERS)
@pytest.mark.parametrize("model", [MakeWebShopConfig, BrowserWebShopConfig])
def test_strangers_get_a_capped_page_and_timeout(who, model):
    ceilings = {"viewport_width": PUBLIC_VIEWPORT[0], "viewport_height": PUBLIC_VIEWPORT[1],
                "timeout_ms": PUBLIC_TIMEOUT_MS}
    operator = {"viewport_width": 3840, "viewport_height": 2160, "timeout_ms": 120_000}
    model.refuse_strangers(ceilings, who)
    model.parse(operator if model is BrowserWebShopConfig else {**operator, "mode": "browser"})
    for name, ceiling in ceilings.items():
        messages = set()
        for value in (ceiling + 1, operator[name]):
            with pytest.raises(ScopeError) as exc:
                model.refuse_strangers({name: value}, who)
            messages.add(str(exc.value))
        assert len(messages) == 1
        assert messages.pop().startswith(f"{name} must be in [")
    schema = model.stranger_schema(who)["properties"]
    assert schema["num_products"]["enum"] == list(PUBLIC_NUM_PRODUCTS)


@pytest.mark.slow
def test_the_text_env_builds_at_the_public_ceiling():
    kwargs = {"num_products": max(PUBLIC_NUM_PRODUCTS), "split": "train", "gamma": 1}
    MakeWebShopConfig.refuse_strangers(kwargs, "bundle")
    env = make_webshop(**kwargs)
    obs, info = env.reset(seed=3)
    assert info["goal_index"] == 3 and env.config()["num_products"] == 50_000


@needs_browser
def test_the_browser_env_builds_at_the_operator_maximum():
    env = make_webshop(mode="browser", num_products=N, goal_index=0, viewport_width=3840,
                       viewport_height=2160, timeout_ms=120_000, full_navigation=True,
                       render_mode="rgb_array")
    try:
        env.reset(seed=0)
        assert env.render().shape == (2160, 3840, 3)
        assert (env.viewport, env.timeout_ms, env.full_navigation) == ((3840, 2160), 120_000,
                                                                        True)
    finally:
        env.close()
