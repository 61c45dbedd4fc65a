"""Workplace-v0's declared kwargs (see :mod:`agentgym.config`).

>>> WorkplaceConfig.parse({"domain": "bank"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: domain must be one of ...
"""

from __future__ import annotations

from typing import Literal

from agentgym.config import TextEnvConfig, setting

__all__ = ["WorkplaceConfig"]


class WorkplaceConfig(TextEnvConfig):
    """The kwargs of :class:`~.env.WorkplaceEnv`."""

    domain: Literal["any", "retail", "travel", "helpdesk"] = setting(
        "any", "retail | travel | helpdesk (dual control), or any (seed % 3 picks)")
    split: Literal["train", "test"] = setting(
        "train", "train | test (templates and database seeds never in train)")
    gamma: float = setting(1.0, "discount of the shaping (process) reward", gt=0, le=1)
    max_steps: int = setting(30, "step budget; running out truncates", ge=1, le=1000)
    invalid_penalty: float = setting(
        -0.1, "process reward of an invalid action (added to the unchanged-state shaping)",
        le=0)
    max_invalid: int = setting(10, "invalid actions that end the episode, truncated",
                               ge=1, le=1000)
    user: Literal["scripted", "llm"] = setting(
        "scripted", "scripted (deterministic) | llm (an endpoint's model words the scripted "
        "user's replies; not reproducible)", scope="operator")
    user_base_url: str = setting(
        "", "the llm user's OpenAI-compatible endpoint (default $AGENTGYM_LLM_BASE_URL)",
        scope="operator")
    user_model: str = setting("", "the llm user's model (default $AGENTGYM_LLM_MODEL)",
                              scope="operator")
