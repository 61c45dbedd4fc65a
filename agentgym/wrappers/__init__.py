"""Wrappers that turn an agentgym env into an LLM agent's environment.

Each does one thing with a small documented contract, in the style of Gymnasium's own:

* :class:`ChatObservation`: ``info["messages"]`` chat messages (system prompt, history, state);
* :class:`ExtractAction`: strict ``<action>...</action>`` extraction with a clear error;
* :class:`HistoryWindow`: the last k turns in ``info["history"]``, bounded, never re-rendered;
* :class:`RewardMode`: process-only, outcome-only or combined reward;
* :class:`StepBudget`: truncation after N steps (``info["truncated_by"] = "step_budget"``).

:func:`wrap_chat` applies them in the order that composes:
``ChatObservation(HistoryWindow(ExtractAction(StepBudget(RewardMode(env)))))``.

>>> import gymnasium as gym
>>> import agentgym
>>> from agentgym.wrappers import wrap_chat
>>> env = wrap_chat(gym.make("agentgym/Sudoku-v0"), turns=3)
>>> obs, info = env.reset(seed=1)
>>> info["messages"][0]["role"], info["messages"][-1]["content"] == obs
('system', True)
"""

from agentgym.wrappers.action import ExtractAction
from agentgym.wrappers.budget import StepBudget
from agentgym.wrappers.chat import (
    ANSWER_FORMAT,
    ChatObservation,
    render_user,
    system_prompt_for,
    to_messages,
)
from agentgym.wrappers.history import CLIP_MARKER, HistoryWindow, Turn
from agentgym.wrappers.reward import RewardMode
from agentgym.wrappers.stack import wrap_chat

__all__ = [
    "ANSWER_FORMAT",
    "CLIP_MARKER",
    "ChatObservation",
    "ExtractAction",
    "HistoryWindow",
    "RewardMode",
    "StepBudget",
    "Turn",
    "render_user",
    "system_prompt_for",
    "to_messages",
    "wrap_chat",
]
