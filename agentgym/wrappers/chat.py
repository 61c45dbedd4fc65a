"""Chat rendering: the env's text observation as ``[system, user, ...]`` chat messages.

The observation itself stays the env's text (so ``observation_space`` stays an honest
:class:`gymnasium.spaces.Text`, and vector envs can batch it); the messages go in
``info["messages"]``. They are built by one pure function, :func:`to_messages`, from values
that are stored once and never recomputed, so a turn renders identically at every later step:

* the system prompt (fixed per episode, read at ``reset``);
* each past turn of :class:`~agentgym.wrappers.history.HistoryWindow` as a user message (the
  observation the agent answered, with the feedback shown beside it) and an assistant message
  (the agent's text exactly as sent);
* the current observation, prefixed with the error of the last action when it was invalid.

The rules and the action format stand in the system message only, once per episode; the
user messages carry what the env observes (the state, a short legend, what is legal now), so
no past turn repeats the rules. An env's observation must therefore not restate its
``rules``: nothing here relies on it, and a prompt that did would grow by the rules at every
kept turn.

When sampling, stop at :data:`STOP_SEQUENCE` (``</action>``; pass it as the stop string of
the sampler and keep it in the text). The env takes the *last* complete
``<action>...</action>`` in the text, so whatever a model rambles after a good tag can hold
another complete tag that overrides it.

Compose it outermost: ``ChatObservation(HistoryWindow(ExtractAction(env)))`` (or use
:func:`agentgym.wrappers.wrap_chat`).

:meth:`ChatObservation.step` also takes the assistant message itself, as an OpenAI-style
client returns it (``{"role": "assistant", "content": ..., "tool_calls": [...]}``), and turns
it into the env's text action with :func:`assistant_action`: each ``tool_calls`` entry becomes
a ``<tool_call>`` tag after the content, and, for an env that lists tools (``info["tools"]``
at reset, e.g. Workplace-v0), content without any tag is a ``<message>`` to the user.

>>> to_messages("board: . .", system="Play.")
[{'role': 'system', 'content': 'Play.'}, {'role': 'user', 'content': 'board: . .'}]
>>> to_messages("board: X .", system="Play.", feedback="bad move")[-1]["content"]
'Your last action was invalid: bad move\\n\\nboard: X .'
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, SupportsFloat

import gymnasium as gym

from agentgym.actions import CLOSE_TAG

__all__ = [
    "ANSWER_FORMAT",
    "STOP_SEQUENCE",
    "ChatObservation",
    "assistant_action",
    "render_user",
    "stop_sequences_for",
    "system_prompt_for",
    "to_messages",
]

#: Where a sampler should stop generating (kept in the text): the last complete tag wins, so
#: text after a good ``</action>`` could only override it.
STOP_SEQUENCE = CLOSE_TAG


def stop_sequences_for(env: gym.Env) -> tuple[str, ...]:
    """Where a sampler should stop on ``env``: the env's ``stop_sequences``, else ``</action>``.

    An env with its own answer format declares it (SearchQA: Search-R1's ``</search>`` and
    ``</answer>``, then ``</action>``), so one turn holds one action.

    >>> import gymnasium as gym, agentgym
    >>> stop_sequences_for(gym.make("agentgym/Sudoku-v0"))
    ('</action>',)
    >>> stop_sequences_for(gym.make("agentgym/SearchQA-v0"))
    ('</search>', '</answer>', '</action>')
    """
    stops = getattr(env.unwrapped, "stop_sequences", None)
    return tuple(stops) if stops else (STOP_SEQUENCE,)

#: Appended to the generic system prompt of an env that does not write its own.
ANSWER_FORMAT = (
    "Think briefly if you need to, then answer with exactly one action inside <action>...</action>."
)


def system_prompt_for(env: gym.Env) -> str:
    """The system prompt an env asks for, or a generic one built from its rules or id.

    Looks, on ``env.unwrapped``, for a ``system_prompt()`` method (every
    :class:`~agentgym.core.TextEnv` has one), then a non-empty ``rules`` string, then falls
    back to the env id (or class name) plus the ``<action>`` answer format.

    >>> import gymnasium as gym
    >>> from gymnasium.envs.classic_control import CartPoleEnv
    >>> system_prompt_for(CartPoleEnv()).splitlines()[0]
    'You are playing CartPoleEnv.'
    """
    base = env.unwrapped
    hook = getattr(base, "system_prompt", None)
    if callable(hook):
        prompt = hook()
        if isinstance(prompt, str) and prompt.strip():
            return prompt
    rules = getattr(base, "rules", None)
    if not isinstance(rules, str) or not rules.strip():
        spec = getattr(env, "spec", None) or getattr(base, "spec", None)
        name = spec.id if spec is not None else type(base).__name__
        rules = f"You are playing {name}."
    return f"{rules.strip()}\n\n{ANSWER_FORMAT}"


def render_user(observation: str, feedback: str = "") -> str:
    """The user message for an observation; ``feedback`` (an action error) goes first.

    >>> render_user("grid", "")
    'grid'
    >>> render_user("grid", "no tag")
    'Your last action was invalid: no tag\\n\\ngrid'
    """
    if feedback:
        return f"Your last action was invalid: {feedback}\n\n{observation}"
    return observation


def to_messages(
    observation: str,
    *,
    system: str,
    history: Sequence[Mapping[str, Any]] = (),
    feedback: str = "",
) -> list[dict[str, str]]:
    """Chat messages for the current observation after the given past turns.

    ``history`` items are turns as found in ``info["history"]`` (keys ``observation``,
    ``feedback`` and ``action``). The result alternates user/assistant after the system
    message and always ends with a user message, as chat templates expect.

    >>> turns = [{"observation": "o0", "feedback": "", "action": "<action>up</action>"}]
    >>> [m["role"] for m in to_messages("o1", system="s", history=turns)]
    ['system', 'user', 'assistant', 'user']
    """
    messages = [{"role": "system", "content": system}]
    for turn in history:
        messages.append(
            {"role": "user", "content": render_user(turn["observation"], turn.get("feedback", ""))}
        )
        messages.append({"role": "assistant", "content": turn["action"]})
    messages.append({"role": "user", "content": render_user(observation, feedback)})
    return messages


_TAG = re.compile(r"<\s*/?\s*[a-z_]+\s*>", re.IGNORECASE)


def assistant_action(message: Mapping[str, Any], *, tools: bool = False) -> str:
    """The env's text action for an assistant ``message`` in the OpenAI chat form.

    Its ``content`` comes first (thinking before a tag is allowed), then each ``tool_calls``
    entry as ``<tool_call>ENTRY</tool_call>`` (the env reads OpenAI's entry inside the tag and
    answers two entries as two actions, i.e. invalid). With ``tools`` (the env lists tools)
    and no tool call, content holding no tag is a message to the user. Raises TypeError for
    a message that is not that shape (a harness's error, not the model's).

    >>> call = {"id": "c1", "type": "function",
    ...         "function": {"name": "find_user", "arguments": '{"email": "a@b.c"}'}}
    >>> text = assistant_action({"role": "assistant", "content": None, "tool_calls": [call]})
    >>> text.startswith("<tool_call>") and json.loads(text[11:-12]) == call
    True
    >>> assistant_action({"role": "assistant", "content": "Your email?"}, tools=True)
    '<message>Your email?</message>'
    >>> assistant_action({"role": "assistant", "content": "<action>1 1</action>"})
    '<action>1 1</action>'
    """
    if not isinstance(message, Mapping):
        raise TypeError(f"an assistant message must be a mapping, got {type(message).__name__}")
    if message.get("role", "assistant") != "assistant":
        raise TypeError(f"the message's role must be 'assistant', got {message.get('role')!r}")
    content = message.get("content") or ""
    calls = message.get("tool_calls") or []
    if not isinstance(content, str):
        raise TypeError(f"the message's content must be text or null, got "
                        f"{type(content).__name__}")
    if not isinstance(calls, list):
        raise TypeError(f"tool_calls must be a list, got {type(calls).__name__}")
    if calls:
        # "<" escaped (JSON reads \u003c back as "<"): an argument holding "</tool_call>"
        # cannot close the tag early or open a second one.
        entries = [json.dumps(call).replace("<", "\\u003c") for call in calls]
        return content + "".join(f"<tool_call>{entry}</tool_call>" for entry in entries)
    if tools and not _TAG.search(content):
        return f"<message>{content}</message>"
    return content


class ChatObservation(gym.Wrapper):
    """Adds ``info["messages"]``: the observation (and any history) as chat messages.

    The observation and ``observation_space`` are unchanged (text). The system prompt is the
    ``system_prompt`` argument or :func:`system_prompt_for` of the env, read at each ``reset``
    and fixed for the episode. A ``system_prompt`` of your own replaces the env's entirely:
    since observations do not repeat the rules, include them (start from
    ``env.unwrapped.system_prompt()``). When a :class:`~agentgym.wrappers.history.HistoryWindow` is
    inside this wrapper, its ``info["history"]`` turns become alternating user/assistant
    messages. With ``feedback=True`` (the default) the current and past user messages start
    with the error of the action that led to them, so the model learns why a move failed.

    >>> import gymnasium as gym
    >>> import agentgym
    >>> env = ChatObservation(gym.make("agentgym/TicTacToe-v0"))
    >>> obs, info = env.reset(seed=0)
    >>> [m["role"] for m in info["messages"]]
    ['system', 'user']
    >>> info["messages"][1]["content"] == obs
    True
    """

    def __init__(
        self, env: gym.Env, *, system_prompt: str | None = None, feedback: bool = True
    ) -> None:
        super().__init__(env)
        if system_prompt is not None and not isinstance(system_prompt, str):
            raise TypeError(f"system_prompt must be a str or None, got {type(system_prompt)}")
        self._fixed_prompt = system_prompt
        self._feedback = bool(feedback)
        self._system: str | None = None
        self._tools = False  # the episode's env lists tools: untagged content is a message

    @property
    def system(self) -> str:
        """The system prompt of the current episode (computed now if not reset yet)."""
        if self._system is None:
            return self._fixed_prompt or system_prompt_for(self.env)
        return self._system

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        # Read after the inner reset: a family may tailor its rules to the episode's kwargs.
        self._system = self._fixed_prompt or system_prompt_for(self.env)
        self._tools = bool(info.get("tools"))
        info["messages"] = self._messages(obs, info)
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step with the agent's text, or with its assistant message (:func:`assistant_action`)."""
        if isinstance(action, Mapping):
            action = assistant_action(action, tools=self._tools)
        obs, reward, terminated, truncated, info = self.env.step(action)
        info["messages"] = self._messages(obs, info)
        return obs, reward, terminated, truncated, info

    def _messages(self, obs: Any, info: dict[str, Any]) -> list[dict[str, str]]:
        history = info.get("history", ())
        if not self._feedback:
            history = [{**turn, "feedback": ""} for turn in history]
        feedback = str(info.get("action_error", "") or "") if self._feedback else ""
        return to_messages(str(obs), system=self.system, history=history, feedback=feedback)
