"""BazaarC2C-v0's declared kwargs (see :mod:`agentgym.config`), for the Gymnasium env and its
PettingZoo version (a guardian seat and a seller seat).

Strangers may set every kwarg up to the operator's maximum: the largest market (9 sybils,
12 honest sellers, 12 buyers, 20 rounds: 420 listings) builds and resets in about 10 ms and
holds about 0.3 MB (0.7 MB after a whole episode), so 256 such sessions fit in 200 MB.

>>> MarketConfig.parse({"sybils": 4})
Traceback (most recent call last):
...
ValueError: sybils must be one of (3, 6, 9), got 4
"""

from __future__ import annotations

from typing import Literal

from agentgym.config import EnvConfig, TextEnvConfig, setting

__all__ = ["BazaarC2CConfig", "BazaarC2CParallelConfig", "MarketConfig"]


class MarketConfig(EnvConfig):
    """The market's kwargs, the same in both versions (so both refuse the same input)."""

    sybils: Literal[3, 6, 9] = setting(
        3, "the deceptive seller's identities (the paper's curriculum: 3, 6, 9)")
    honest: int = setting(6, "honest sellers, one listing each a round", ge=1, le=12)
    buyers: int = setting(4, "naive scripted buyers after the guardian each round", ge=0, le=12)
    rounds: int = setting(4, "rounds of listings in an episode", ge=1, le=20)
    inspect_cost: float = setting(2.0, "money an inspection costs (rewards divide by 100)", ge=0)
    flag_reward: float = setting(1.0, "weight of flagging a sybil's listing", ge=0)
    wrong_flag_penalty: float = setting(1.0, "weight of flagging an honest listing", ge=0)
    welfare_weight: float = setting(
        1.0, "weight of the other buyers' regret in the guardian's outcome", ge=0)
    process_weight: float = setting(
        0.2, "bound on the summed guardian process reward", ge=0)


class BazaarC2CConfig(MarketConfig, TextEnvConfig):
    """The kwargs of :class:`~.env.BazaarC2CEnv`."""

    role: Literal["buyer", "seller"] = setting(
        "buyer", "buyer: the guardian who flags sybils; seller: sell one item a round")
    max_steps: int = setting(300, "step budget; running out truncates", ge=1, le=100_000)
    invalid_penalty: float = setting(-0.1, "process reward of an invalid action", le=0)
    max_invalid: int = setting(10, "invalid actions that end the episode, truncated",
                               ge=1, le=100_000)


class BazaarC2CParallelConfig(MarketConfig):
    """The kwargs of :class:`~.parallel.BazaarC2CParallelEnv`."""

    max_steps: int = setting(
        300, "parallel steps; the step that spends them truncates both seats",
        ge=1, le=100_000)
    invalid_penalty: float = setting(-0.1, "a seat's reward for an invalid action", le=0)
    max_invalid: int = setting(
        10, "a seat's invalid actions that truncate the episode", ge=1, le=100_000)
    render_mode: Literal["ansi"] | None = setting(
        None, "null, or ansi: render() returns the guardian's view")
