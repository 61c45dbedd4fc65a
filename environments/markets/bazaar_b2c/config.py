"""BazaarB2C-v0's declared kwargs (see :mod:`agentgym.config`), for the Gymnasium env and its
PettingZoo version (every firm a seat).

Strangers may set every kwarg up to the operator's maximum: the largest market (8 firms,
100 consumers a round, 100 units each, 1000 rounds) builds and resets in under a millisecond
and holds about 5 MB after all 1000 rounds (the ledger and the market without the agent),
so 256 such sessions fit in under 1.5 GB.

>>> BazaarB2CConfig.parse({"firms": 1})
Traceback (most recent call last):
...
ValueError: firms must be in [2, 8], got 1
"""

from __future__ import annotations

from typing import Literal

from agentgym.config import EnvConfig, TextEnvConfig, setting

__all__ = ["BazaarB2CConfig", "BazaarB2CParallelConfig", "MarketConfig"]


class MarketConfig(EnvConfig):
    """The market's kwargs, the same in both versions."""

    firms: int = setting(4, "firms in the market, the agent's included", ge=2, le=8)
    rate: int = setting(20, "consumers a round on average (Poisson)", ge=1, le=100)
    capacity: int = setting(10, "units each firm's stock refills to every round", ge=1, le=100)
    rounds: int = setting(
        100, "rounds before the market closes, ending the episode as terminated", ge=1, le=1000)
    process_weight: float = setting(
        0.2, "summed process reward = this x outcome (the EAS)", ge=0)


class BazaarB2CConfig(MarketConfig, TextEnvConfig):
    """The kwargs of :class:`~.env.BazaarB2CEnv`."""

    strategies: Literal["mixed", "cost-plus", "undercutter", "amplifier"] = setting(
        "mixed", "the scripted rivals' strategy; mixed cycles through the three")
    invalid_penalty: float = setting(-0.5, "process reward of an invalid action", le=0)
    max_invalid: int = setting(10, "invalid actions that end the episode, truncated",
                               ge=1, le=100_000)


class BazaarB2CParallelConfig(MarketConfig):
    """The kwargs of :class:`~.parallel.BazaarB2CParallelEnv` (one seat per firm)."""

    max_steps: int = setting(
        100, "parallel steps; the step that spends them truncates every seat",
        ge=1, le=100_000)
    invalid_penalty: float = setting(-0.5, "a seat's reward for an invalid price", le=0)
    max_invalid: int = setting(
        10, "a seat's invalid actions that truncate the episode", ge=1, le=100_000)
