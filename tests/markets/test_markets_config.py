"""The markets' declared configs (issue 32): one model per env, read by the constructors, and
what a remote client or a leaderboard bundle may set."""

from __future__ import annotations

import inspect
import typing

import pytest

from agentgym.config import ScopeError
from agentgym.envinfo import config_model, refuse_strangers
from agentgym.environments.markets.bazaar_b2c.config import (
    BazaarB2CConfig,
    BazaarB2CParallelConfig,
)
from agentgym.environments.markets.bazaar_b2c.env import STRATEGY_CHOICES, BazaarB2CEnv
from agentgym.environments.markets.bazaar_b2c.parallel import BazaarB2CParallelEnv
from agentgym.environments.markets.bazaar_c2c.config import (
    BazaarC2CConfig,
    BazaarC2CParallelConfig,
)
from agentgym.environments.markets.bazaar_c2c.env import ROLES, SYBIL_CHOICES, BazaarC2CEnv
from agentgym.environments.markets.bazaar_c2c.parallel import BazaarC2CParallelEnv
from agentgym.environments.markets.negotiation.config import (
    PUBLIC_MAX_STEPS,
    NegotiationConfig,
    NegotiationParallelConfig,
)
from agentgym.environments.markets.negotiation.env import (
    OPPONENT_CHOICES,
    ROLE_CHOICES,
    NegotiationEnv,
)
from agentgym.environments.markets.negotiation.parallel import NegotiationParallelEnv

ENVS = {
    NegotiationEnv: NegotiationConfig,
    NegotiationParallelEnv: NegotiationParallelConfig,
    BazaarB2CEnv: BazaarB2CConfig,
    BazaarB2CParallelEnv: BazaarB2CParallelConfig,
    BazaarC2CEnv: BazaarC2CConfig,
    BazaarC2CParallelEnv: BazaarC2CParallelConfig,
}
WHO = ("client", "bundle")

#: Each env at the operator's maximum of every size (and a step budget to play it out).
OPERATOR_MAX = {
    NegotiationEnv: {"max_rounds": 50, "max_steps": 100_000, "max_invalid": 100_000},
    NegotiationParallelEnv: {"max_rounds": 50, "max_steps": 100_000, "max_invalid": 100_000},
    BazaarB2CEnv: {"firms": 8, "rate": 100, "capacity": 100, "rounds": 1000,
                   "max_steps": 100_000, "max_invalid": 100_000},
    BazaarB2CParallelEnv: {"firms": 8, "rate": 100, "capacity": 100, "rounds": 1000,
                           "max_steps": 100_000, "max_invalid": 100_000},
    BazaarC2CEnv: {"sybils": 9, "honest": 12, "buyers": 12, "rounds": 20,
                   "max_steps": 100_000, "max_invalid": 100_000},
    BazaarC2CParallelEnv: {"sybils": 9, "honest": 12, "buyers": 12, "rounds": 20,
                           "max_steps": 100_000, "max_invalid": 100_000},
}


def _choices(model, name):
    return typing.get_args(model.model_fields[name].annotation)


@pytest.mark.parametrize("env_cls", list(ENVS), ids=lambda c: c.__name__)
def test_the_constructor_takes_exactly_the_models_fields_with_its_defaults(env_cls):
    model = ENVS[env_cls]
    assert env_cls.config_model is model
    params = {n: p.default for n, p in inspect.signature(env_cls).parameters.items()}
    assert params == model.defaults()


@pytest.mark.parametrize("env_id", ["agentgym/Negotiation-v0", "agentgym/BazaarB2C-v0",
                                    "agentgym/BazaarC2C-v0"])
def test_each_id_is_read_from_its_model(env_id):
    import agentgym  # noqa: F401  (registers the ids)

    assert config_model(env_id) in ENVS.values()


def test_the_bounds_are_the_old_hand_checked_ones():
    # The check_range bounds the constructors had before the models (issue 32).
    old = {
        (NegotiationConfig, "max_rounds"): (1, 50),
        (NegotiationParallelConfig, "max_rounds"): (1, 50),
        (NegotiationParallelConfig, "max_steps"): (1, 100_000),
        (BazaarB2CConfig, "firms"): (2, 8), (BazaarB2CConfig, "rate"): (1, 100),
        (BazaarB2CConfig, "capacity"): (1, 100), (BazaarB2CConfig, "rounds"): (1, 1000),
        (BazaarB2CParallelConfig, "firms"): (2, 8),
        (BazaarB2CParallelConfig, "max_invalid"): (1, 100_000),
        (BazaarC2CConfig, "honest"): (1, 12), (BazaarC2CConfig, "buyers"): (0, 12),
        (BazaarC2CConfig, "rounds"): (1, 20), (BazaarC2CParallelConfig, "rounds"): (1, 20),
    }
    for (model, name), (low, high) in old.items():
        model.parse({name: low})
        model.parse({name: high})
        for bad in (low - 1, high + 1):
            with pytest.raises(ValueError, match=rf"^{name} must be in \[{low}, {high}\]"):
                model.parse({name: bad})


def test_the_choices_are_the_modules_constants():
    assert _choices(NegotiationConfig, "role") == ROLE_CHOICES
    assert _choices(NegotiationConfig, "opponent") == OPPONENT_CHOICES
    assert _choices(BazaarB2CConfig, "strategies") == STRATEGY_CHOICES
    assert _choices(BazaarC2CConfig, "sybils") == SYBIL_CHOICES
    assert _choices(BazaarC2CParallelConfig, "sybils") == SYBIL_CHOICES
    assert _choices(BazaarC2CConfig, "role") == ROLES


@pytest.mark.parametrize(("env_cls", "kwargs", "message"), [
    (NegotiationEnv, {"process_weight": -1}, "process_weight must be >= 0, got -1"),
    (NegotiationEnv, {"max_rounds": True}, "max_rounds must be an integer in [1, 50], got True"),
    (NegotiationParallelEnv, {"first": "broker"},
     "first must be one of ('buyer', 'seller'), got 'broker'"),
    (NegotiationParallelEnv, {"render_mode": "ansi"}, "render_mode must be None, got 'ansi'"),
    (BazaarB2CEnv, {"firms": 2.0}, "firms must be an integer in [2, 8], got 2.0"),
    (BazaarB2CParallelEnv, {"invalid_penalty": 0.5},
     "invalid_penalty must be <= 0, got 0.5"),
    (BazaarC2CEnv, {"sybils": 4}, "sybils must be one of (3, 6, 9), got 4"),
    (BazaarC2CEnv, {"flag_reward": float("inf")},
     "flag_reward must be a finite number >= 0, got inf"),
    (BazaarC2CParallelEnv, {"render_mode": "human"},
     "render_mode must be None or one of ('ansi',), got 'human'"),
])
def test_the_constructors_refuse_with_one_line(env_cls, kwargs, message):
    with pytest.raises(ValueError) as err:
        env_cls(**kwargs)
    assert str(err.value) == message


@pytest.mark.parametrize("model", list(ENVS.values()), ids=lambda m: m.__name__)
def test_no_market_kwarg_reads_the_host(model):
    # Nothing here names a path or a backend: clients and bundles may set every kwarg.
    for who in WHO:
        assert model.may_set(who) == list(model.model_fields)


@pytest.mark.parametrize("model", [NegotiationConfig, NegotiationParallelConfig])
@pytest.mark.parametrize("who", WHO)
def test_a_stranger_is_refused_a_long_negotiation_with_one_text(model, who):
    # say(TEXT) uses no round and the transcript keeps every message, so the step budget is
    # what a session's memory grows with.
    texts = set()
    for value in (PUBLIC_MAX_STEPS + 1, 50_000, 100_000):
        with pytest.raises(ScopeError) as err:
            model.refuse_strangers({"max_steps": value}, who)
        texts.add(str(err.value))
    assert len(texts) == 1
    assert texts.pop().startswith(f"max_steps must be in [1, {PUBLIC_MAX_STEPS}] when")
    model.refuse_strangers({"max_steps": PUBLIC_MAX_STEPS, "max_rounds": 50,
                            "max_invalid": 100_000}, who)
    schema = model.stranger_schema(who)
    assert schema["properties"]["max_steps"]["maximum"] == PUBLIC_MAX_STEPS


@pytest.mark.parametrize("who", WHO)
def test_the_server_route_refuses_the_same(who):
    with pytest.raises(ScopeError, match="max_steps must be in"):
        refuse_strangers("agentgym/Negotiation-v0", {"max_steps": 100_000}, who)
    refuse_strangers("agentgym/BazaarB2C-v0", OPERATOR_MAX[BazaarB2CEnv], who)
    refuse_strangers("agentgym/BazaarC2C-v0", OPERATOR_MAX[BazaarC2CEnv], who)


@pytest.mark.parametrize("env_cls", [BazaarB2CEnv, BazaarB2CParallelEnv, BazaarC2CEnv,
                                     BazaarC2CParallelEnv], ids=lambda c: c.__name__)
@pytest.mark.parametrize("who", WHO)
def test_a_stranger_may_ask_for_the_largest_bazaar(env_cls, who):
    # Measured (issue 32): 8 firms x 100 consumers x 100 units x 1000 rounds hold ~5 MB a
    # session after the last round; 9 sybils + 12 honest x 20 rounds ~0.7 MB. No ceiling.
    ENVS[env_cls].refuse_strangers(OPERATOR_MAX[env_cls], who)


@pytest.mark.parametrize("env_cls", list(ENVS), ids=lambda c: c.__name__)
def test_every_env_builds_and_plays_at_the_operator_maximum(env_cls):
    env = env_cls(**OPERATOR_MAX[env_cls])
    out = env.reset(seed=7)
    assert out[0]
    if env_cls in (BazaarB2CEnv, BazaarC2CEnv, NegotiationEnv):
        action = {BazaarB2CEnv: "price 13", BazaarC2CEnv: "skip",
                  NegotiationEnv: "say(hello)"}[env_cls]
        for _ in range(3):
            _, _, term, trunc, info = env.step(action)
            assert info["valid_action"] and not (term or trunc)
    elif env_cls is BazaarB2CParallelEnv:
        for _ in range(3):
            _, _, terms, _, infos = env.step({a: "price 13" for a in env.agents})
            assert all(i["valid_action"] for i in infos.values()) and not any(terms.values())
    else:
        first = ({"buyer": "say(hi)", "seller": "wait"} if env_cls is NegotiationParallelEnv
                 else {"seller": "pass", "guardian": "wait"})
        _, _, terms, truncs, infos = env.step(first)
        assert all(i["valid_action"] for i in infos.values()) and env.agents
