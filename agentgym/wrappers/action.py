"""Strict action extraction: the model must answer ``<action>...</action>``.

:class:`~agentgym.core.TextEnv` alone is lenient (bare text counts as an action). When a
policy is being trained to use the tag, that leniency hides format failures, so
:class:`ExtractAction` requires the tag by default and reports a clear error when it is missing.

>>> import gymnasium as gym
>>> import agentgym
>>> env = ExtractAction(gym.make("agentgym/TicTacToe-v0"))
>>> _ = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step("I think the centre is best.")
>>> info["valid_action"], info["action_error"]
(False, 'no <action>...</action> tag found in the text')
>>> info["raw_action"]
'I think the centre is best.'
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
from gymnasium import spaces

from agentgym.actions import extract_action
from agentgym.core import TEXT_CHARSET
from agentgym.wrappers._util import find_wrapper
from agentgym.wrappers.chat import ChatObservation
from agentgym.wrappers.history import HistoryWindow

__all__ = ["ExtractAction"]


class ExtractAction(gym.Wrapper):
    """Pass the ``<action>`` content of the model's text to the env; refuse text without it.

    ``step(text)`` extracts the action with
    :func:`agentgym.actions.extract_action` (``require_tag`` as given; the last complete tag
    wins, so the model may think aloud first). When extraction fails (no tag, an empty tag, an
    unclosed tag, or a non-string action) the env receives ``""``, which it treats as invalid
    under its own policy (penalty, counted invalid action), and the step's
    ``info["action_error"]`` is overwritten with the extraction error and
    ``info["valid_action"]`` set to False. Every step adds ``info["raw_action"]`` (the model
    text as sent; ``repr`` of a non-string) and ``info["extracted_action"]`` (the string the
    env received).

    The action space becomes :class:`~gymnasium.spaces.Text` of up to ``max_text_length``
    characters: model text is longer than a bare action. Longer text is refused (before any
    search, so its cost is bounded) and ``raw_action`` then holds its first 200 characters.

    Raises:
        ValueError: ``max_text_length`` < 1, or ``env`` already contains a HistoryWindow or a
            ChatObservation (they must see the raw text and the extraction error, so they go
            outside this wrapper).
    """

    def __init__(
        self, env: gym.Env, *, require_tag: bool = True, max_text_length: int = 65_536
    ) -> None:
        super().__init__(env)
        if isinstance(max_text_length, bool) or not isinstance(max_text_length, int):
            raise ValueError(f"max_text_length must be an integer >= 1, got {max_text_length!r}")
        if max_text_length < 1:
            raise ValueError(f"max_text_length must be an integer >= 1, got {max_text_length}")
        for outer in (HistoryWindow, ChatObservation):
            if find_wrapper(env, outer) is not None:
                raise ValueError(
                    f"ExtractAction must be inside {outer.__name__}, not around it: "
                    f"use {outer.__name__}(ExtractAction(env))"
                )
        self.require_tag = bool(require_tag)
        inner = env.action_space
        charset = inner.characters if isinstance(inner, spaces.Text) else TEXT_CHARSET
        self.action_space = spaces.Text(max_length=max_text_length, min_length=0, charset=charset)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        space = self.action_space
        assert isinstance(space, spaces.Text)  # __init__ made it one (gym.Wrapper types a Space)
        limit = space.max_length
        if isinstance(action, str) and len(action) > limit:
            raw = action[:200] + f"... ({len(action)} characters)"
            extracted, error = "", f"the text is {len(action)} characters; the limit is {limit}"
        elif isinstance(action, str):
            raw = action
            extracted, error = extract_action(action, require_tag=self.require_tag)
        else:
            raw = repr(action)
            extracted, error = "", f"action must be a string, got {type(action).__name__}"
        obs, reward, terminated, truncated, info = self.env.step(extracted)
        if error:
            info["valid_action"] = False
            info["action_error"] = error
        info["raw_action"] = raw
        info["extracted_action"] = extracted
        return obs, reward, terminated, truncated, info
