"""A bounded window of past turns, recorded once and never re-rendered.

Two failures of multi-turn LLM training motivate the rules here: context overflow from
concatenating every past turn, and chat templates that render an earlier turn differently
later on (so the prompt at step t+1 no longer extends the one at step t). A
:class:`HistoryWindow` therefore

* keeps at most ``turns`` turns and at most ``max_chars`` characters of them, dropping the
  oldest first;
* stores each turn as an immutable :class:`Turn` the moment it happens: the observation the
  agent answered, the feedback shown beside it, the agent's text exactly as sent (clipped once
  to ``max_action_chars`` at record time, never later), the action's error and its reward;
* exposes the window as ``info["history"]`` (a fresh list of dicts each step, oldest first),
  which :class:`~agentgym.wrappers.chat.ChatObservation` renders as user/assistant messages.

Sliding the window only ever drops whole turns from the front; every kept turn is
byte-identical at every step.

>>> Turn("o", "", "<action>up</action>", "", 1.0).size
20
"""

from __future__ import annotations

from collections import deque
from dataclasses import asdict, dataclass
from typing import Any, SupportsFloat

import gymnasium as gym

from agentgym.wrappers._util import find_wrapper
from agentgym.wrappers.chat import ChatObservation

__all__ = ["CLIP_MARKER", "HistoryWindow", "Turn"]

#: Appended to an agent text clipped at record time.
CLIP_MARKER = " ...[clipped]"


@dataclass(frozen=True)
class Turn:
    """One past step, exactly as the agent saw and answered it.

    ``observation`` and ``feedback`` are what the agent was shown (``feedback`` is the error
    of the action that led to ``observation``, empty after a reset or a valid action);
    ``action`` is the text the agent sent; ``action_error`` and ``reward`` are what that text
    earned.
    """

    observation: str
    feedback: str
    action: str
    action_error: str
    reward: float

    @property
    def size(self) -> int:
        """Characters this turn adds to a prompt (what ``max_chars`` bounds)."""
        return len(self.observation) + len(self.feedback) + len(self.action)

    def as_dict(self) -> dict[str, Any]:
        """A fresh JSON-able dict of the turn (what ``info["history"]`` holds)."""
        return asdict(self)


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return value


class HistoryWindow(gym.Wrapper):
    """Keep the last ``turns`` turns (at most ``max_chars`` characters) in ``info["history"]``.

    Args:
        env: the env to wrap. Put :class:`~agentgym.wrappers.action.ExtractAction` inside
            it (so the raw model text is recorded) and
            :class:`~agentgym.wrappers.chat.ChatObservation` outside it.
        turns: most past turns kept (>= 1).
        max_chars: most characters (observation + feedback + action, summed over kept turns)
            kept; older turns are dropped first, and a turn larger than this alone is not kept.
        max_action_chars: agent text longer than this is clipped once, when recorded, and
            marked with :data:`CLIP_MARKER`.

    Raises:
        ValueError: a bound is not an integer >= 1, or ``env`` contains a ChatObservation
            (its messages would miss the history).

    >>> import gymnasium as gym
    >>> import agentgym
    >>> env = HistoryWindow(gym.make("agentgym/TicTacToe-v0"), turns=2)
    >>> obs, info = env.reset(seed=0)
    >>> info["history"]
    []
    >>> obs, r, term, trunc, info = env.step("<action>nonsense</action>")
    >>> info["history"][0]["action"]
    '<action>nonsense</action>'
    """

    def __init__(
        self,
        env: gym.Env,
        turns: int = 4,
        *,
        max_chars: int = 32_000,
        max_action_chars: int = 4_096,
    ) -> None:
        super().__init__(env)
        self.turns = _positive_int("turns", turns)
        self.max_chars = _positive_int("max_chars", max_chars)
        self.max_action_chars = _positive_int("max_action_chars", max_action_chars)
        if find_wrapper(env, ChatObservation) is not None:
            raise ValueError(
                "HistoryWindow must be inside ChatObservation, not around it: "
                "use ChatObservation(HistoryWindow(env))"
            )
        self._window: deque[Turn] = deque()
        self._chars = 0
        self._prompt: tuple[str, str] | None = None

    @property
    def history(self) -> list[Turn]:
        """The kept turns, oldest first."""
        return list(self._window)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        self._window.clear()
        self._chars = 0
        self._prompt = (str(obs), str(info.get("action_error", "") or ""))
        info["history"] = []
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._prompt is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        obs, reward, terminated, truncated, info = self.env.step(action)
        error = str(info.get("action_error", "") or "")
        text = action if isinstance(action, str) else repr(action)
        if len(text) > self.max_action_chars:
            keep = max(0, self.max_action_chars - len(CLIP_MARKER))
            text = text[:keep] + CLIP_MARKER
        shown, feedback = self._prompt
        self._record(Turn(shown, feedback, text, error, float(reward)))
        self._prompt = (str(obs), error)
        info["history"] = [turn.as_dict() for turn in self._window]
        return obs, reward, terminated, truncated, info

    def _record(self, turn: Turn) -> None:
        self._window.append(turn)
        self._chars += turn.size
        while self._window and (len(self._window) > self.turns or self._chars > self.max_chars):
            self._chars -= self._window.popleft().size
