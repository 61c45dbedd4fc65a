"""Negotiation-v0's declared kwargs (see :mod:`agentgym.config`), for the Gymnasium env and
its two-seat PettingZoo version.

Every kwarg is cheap but one: ``say(TEXT)`` uses no round and the whole transcript is kept,
so each step can add up to :data:`~.env.MAX_SAY` characters. A stranger's step budget is
capped at :data:`PUBLIC_MAX_STEPS` (about 0.6 MB of talk a session; 1.1 MB for the two
seats), the operator's stays 100000 (about 55 MB a session).

>>> NegotiationConfig.parse({"opponent": "nice"})
Traceback (most recent call last):
...
ValueError: opponent must be one of ('tough', 'fair', 'boulware', 'conceder', 'tit-for-tat', \
'random', 'any'), got 'nice'
>>> NegotiationParallelConfig.parse({"render_mode": "ansi"})
Traceback (most recent call last):
...
ValueError: render_mode must be None, got 'ansi'
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import field_validator

from agentgym.config import EnvConfig, TextEnvConfig, setting

__all__ = ["PUBLIC_MAX_STEPS", "NegotiationConfig", "NegotiationParallelConfig"]

#: The most steps a remote client or a leaderboard bundle may ask for: 50 rounds and
#: plenty of talk. Each ``say`` step keeps up to 500 characters in the transcript.
PUBLIC_MAX_STEPS = 1000


class NegotiationConfig(TextEnvConfig):
    """The kwargs of :class:`~.env.NegotiationEnv`."""

    role: Literal["buyer", "seller", "random"] = setting(
        "buyer", "the agent's side; random draws it per episode from the seed")
    opponent: Literal["tough", "fair", "boulware", "conceder", "tit-for-tat", "random",
                      "any"] = setting(
        "any", "the scripted counterparty's strategy; any draws one per episode from the seed")
    max_rounds: int = setting(8, "the agent's binding offers before talks end", ge=1, le=50)
    process_weight: float = setting(
        0.2, "summed process reward = this x the mean check score of the offers and accepts",
        ge=0)
    max_steps: int = setting(
        40, "step budget (say uses steps, not rounds); running out truncates",
        ge=1, le=100_000, public_max=PUBLIC_MAX_STEPS)
    invalid_penalty: float = setting(-0.1, "process reward of an invalid action", le=0)
    max_invalid: int = setting(10, "invalid actions that end the episode, truncated",
                               ge=1, le=100_000)


class NegotiationParallelConfig(EnvConfig):
    """The kwargs of :class:`~.parallel.NegotiationParallelEnv` (buyer and seller seats)."""

    first: Literal["buyer", "seller"] = setting("buyer", "the seat that opens")
    max_rounds: int = setting(8, "binding offers per seat before talks end", ge=1, le=50)
    process_weight: float = setting(
        0.2, "a seat's summed process reward = this x the mean check score of its offers "
        "and accepts", ge=0)
    max_steps: int = setting(
        60, "parallel steps; the step that spends them truncates both seats",
        ge=1, le=100_000, public_max=PUBLIC_MAX_STEPS)
    invalid_penalty: float = setting(-0.1, "a seat's reward for an invalid action", le=0)
    max_invalid: int = setting(
        10, "a seat's invalid actions that truncate the episode", ge=1, le=100_000)
    render_mode: None = setting(None, "null: the seats have no render modes")

    @field_validator("render_mode", mode="before")
    @classmethod
    def _no_render_modes(cls, value: Any) -> None:
        if value is not None:
            raise ValueError(f"render_mode must be None, got {value!r}")
        return value
