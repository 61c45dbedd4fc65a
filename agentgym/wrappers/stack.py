"""The canonical wrapper stack for an LLM agent, in the one order that composes correctly.

Innermost first: :class:`RewardMode` (optional), :class:`StepBudget` (optional),
:class:`ExtractAction`, :class:`HistoryWindow`, :class:`ChatObservation`. ExtractAction sits
inside HistoryWindow so the history records the model's raw text and the extraction error;
HistoryWindow sits inside ChatObservation so the messages include the history.
"""

from __future__ import annotations

import gymnasium as gym

from agentgym.wrappers.action import ExtractAction
from agentgym.wrappers.budget import StepBudget
from agentgym.wrappers.chat import ChatObservation
from agentgym.wrappers.history import HistoryWindow
from agentgym.wrappers.reward import RewardMode

__all__ = ["wrap_chat"]


def wrap_chat(
    env: gym.Env,
    *,
    turns: int = 4,
    max_chars: int = 32_000,
    max_steps: int | None = None,
    reward_mode: str | None = None,
    require_tag: bool = True,
    system_prompt: str | None = None,
) -> ChatObservation:
    """Wrap ``env`` for a chat model: strict ``<action>`` tags, a bounded history, messages.

    ``turns=0`` disables the history window. ``max_steps`` and ``reward_mode`` add
    :class:`StepBudget` and :class:`RewardMode` when given. ``info["messages"]`` holds the
    system prompt (rules and action format, once) and the turns; sample each reply with
    ``stop=["</action>"]`` (:data:`agentgym.wrappers.chat.STOP_SEQUENCE`), since the last
    complete tag in the text is the action.

    >>> import gymnasium as gym
    >>> import agentgym
    >>> env = wrap_chat(gym.make("agentgym/TicTacToe-v0"), turns=2, max_steps=5)
    >>> obs, info = env.reset(seed=0)
    >>> obs, r, term, trunc, info = env.step("<action>nonsense</action>")
    >>> [m["role"] for m in info["messages"]]
    ['system', 'user', 'assistant', 'user']
    """
    if reward_mode is not None:
        env = RewardMode(env, reward_mode)
    if max_steps is not None:
        env = StepBudget(env, max_steps)
    env = ExtractAction(env, require_tag=require_tag)
    if isinstance(turns, bool) or not isinstance(turns, int) or turns < 0:
        raise ValueError(f"turns must be an integer >= 0, got {turns!r}")
    if turns > 0:
        env = HistoryWindow(env, turns, max_chars=max_chars)
    return ChatObservation(env, system_prompt=system_prompt)
