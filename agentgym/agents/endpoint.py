"""An agent behind an OpenAI-compatible chat-completions endpoint: ``--agent openai``.

Works with vLLM's and SGLang's servers (``vllm serve MODEL``, ``python -m sglang.launch_server``)
and any server speaking ``POST {base_url}/chat/completions``. Where it connects:

* ``base_url``: option ``-a base_url=...``, else ``$AGENTGYM_LLM_BASE_URL``, else
  ``$OPENAI_BASE_URL`` (with the ``/v1``, e.g. ``http://127.0.0.1:8000/v1``);
* ``model``: option, else ``$AGENTGYM_LLM_MODEL``;
* the key: ``$OPENAI_API_KEY`` (sent as a bearer token when set; never recorded).

The conversation is the one the trainers and the local agent build: the env's system prompt,
each observation as a user message (the error of an invalid action first), each reply verbatim.
Requests send the env's stop strings (``stop: ["</action>"]``, or SearchQA's ``</search>`` and
``</answer>``); servers leave a matched stop string out of the reply, so the agent puts it back
when the reply ends inside its open tag (the env reads the last complete tag). Token counts
come from the reply's ``usage``; a server that sends none gets counts of 0, and a warning says
so once per agent.

Timeouts, connection errors, HTTP 408/425/429/5xx and garbage replies (not JSON, no choices,
no message text) are retried ``retries`` times, waiting ``backoff * 2**attempt`` seconds
(at most 30) between tries; then :class:`~agentgym.agents.base.AgentFailure` ends the episode
and the evaluation records it as failed with the reason. Other HTTP errors (400: the prompt
no longer fits the model's context, 401: a bad key) fail at once: retrying cannot fix them.

>>> agent = EndpointAgent(base_url="http://127.0.0.1:8000/v1", model="m", temperature=0)
>>> agent.describe()["base_url"], agent.describe()["prompt"]
('http://127.0.0.1:8000/v1', 'standard')
"""

from __future__ import annotations

import json
import os
import time
import warnings
from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym

from agentgym.agents.base import Agent, AgentFailure, AgentTurn
from agentgym.agents.local_llm import check_sampling, turn_seed
from agentgym.wrappers.chat import (
    STOP_SEQUENCE,
    render_user,
    stop_sequences_for,
    system_prompt_for,
)

__all__ = ["EndpointAgent", "EndpointError", "parse_reply", "restore_stop"]

#: HTTP statuses worth another try: the server is busy, overloaded or restarting.
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
#: Longest wait between two tries, whatever ``backoff`` says.
MAX_WAIT_S = 30.0


class EndpointError(Exception):
    """One failed request; ``retry`` says whether another try might succeed."""

    def __init__(self, reason: str, *, retry: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry = retry


def restore_stop(
    text: str, finish_reason: str | None, stops: Sequence[str] = (STOP_SEQUENCE,)
) -> str:
    """``text`` with the stop string put back where the server cut it.

    Servers leave a matched stop string out; the one cut is the close tag (``</x>``) of the
    last tag left open in the text.

    >>> restore_stop("I go <action>up", "stop")
    'I go <action>up</action>'
    >>> restore_stop("I go <action>up</action>", "stop"), restore_stop("<action>up", "length")
    ('I go <action>up</action>', '<action>up')
    >>> restore_stop("think <search>capital of Ulm", "stop", ("</search>", "</answer>"))
    'think <search>capital of Ulm</search>'
    """
    if finish_reason != "stop":
        return text
    best, where = None, -1
    for stop in stops:
        opener = "<" + stop[2:] if stop.startswith("</") else None
        if opener is None:
            continue
        at = text.rfind(opener)
        if at > text.rfind(stop) and at > where:
            best, where = stop, at
    return text + best if best is not None else text


def parse_reply(body: bytes) -> tuple[str, str | None, dict[str, int] | None]:
    """``(text, finish_reason, usage)`` of a chat-completions reply; EndpointError if garbage.

    >>> parse_reply(b'{"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]}')
    ('hi', 'stop', None)
    >>> parse_reply(b'<html>')
    Traceback (most recent call last):
    ...
    agentgym.agents.endpoint.EndpointError: the reply is not JSON: b'<html>'
    """
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise EndpointError(f"the reply is not JSON: {body[:80]!r}", retry=True) from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise EndpointError(f"the reply has no choices: {body[:80]!r}", retry=True)
    message = choices[0].get("message")
    text = message.get("content") if isinstance(message, dict) else None
    if not isinstance(text, str):
        raise EndpointError(f"the reply's first choice has no message text: {body[:80]!r}",
                            retry=True)
    usage = data.get("usage")
    counts = None
    if isinstance(usage, dict):
        try:
            counts = {k: int(usage.get(k) or 0) for k in ("prompt_tokens", "completion_tokens")}
        except (TypeError, ValueError):
            counts = None
    finish = choices[0].get("finish_reason")
    return text, finish if isinstance(finish, str) else None, counts


class EndpointAgent(Agent):
    """Chat completions from an OpenAI-compatible server (see the module docstring)."""

    name: ClassVar[str] = "openai"

    def __init__(
        self,
        *,
        model: str | None = None,
        base_url: str | None = None,
        temperature: float = 0.7,
        top_p: float = 1.0,
        max_new_tokens: int = 64,
        system_prompt: str | None = None,
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 1.0,
    ) -> None:
        base_url = base_url or os.environ.get("AGENTGYM_LLM_BASE_URL") or os.environ.get(
            "OPENAI_BASE_URL"
        )
        if not base_url or not isinstance(base_url, str):
            raise ValueError(
                "agent 'openai' needs a server: set AGENTGYM_LLM_BASE_URL (or OPENAI_BASE_URL) "
                "or pass -a base_url=http://HOST:PORT/v1"
            )
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        model = model or os.environ.get("AGENTGYM_LLM_MODEL")
        if not model or not isinstance(model, str):
            raise ValueError(
                "agent 'openai' needs a model name: set AGENTGYM_LLM_MODEL or pass -a model=NAME"
            )
        check_sampling(temperature, top_p, max_new_tokens)
        number = (int, float)
        if isinstance(timeout, bool) or not isinstance(timeout, number) or timeout <= 0:
            raise ValueError(f"timeout must be a number of seconds > 0, got {timeout!r}")
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ValueError(f"retries must be an int >= 0, got {retries!r}")
        if isinstance(backoff, bool) or not isinstance(backoff, number) or backoff < 0:
            raise ValueError(f"backoff must be a number of seconds >= 0, got {backoff!r}")
        if system_prompt is not None and (not isinstance(system_prompt, str)
                                          or not system_prompt.strip()):
            raise ValueError("system_prompt must be a non-empty string (or unset)")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.temperature = float(temperature)
        self.top_p = float(top_p)
        self.max_new_tokens = max_new_tokens
        self.system_prompt = system_prompt
        self.timeout = float(timeout)
        self.retries = retries
        self.backoff = float(backoff)
        self.usage_missing = False
        self._client: Any = None
        self._messages: list[dict[str, str]] = []
        self._stops: tuple[str, ...] = (STOP_SEQUENCE,)
        self._seed: int | None = None
        self._turn = 0
        self._last = AgentTurn()

    # -- HTTP ---------------------------------------------------------------------------
    def _http(self) -> Any:
        if self._client is None:
            try:
                import httpx
            except ImportError as exc:
                raise ImportError(
                    "agent 'openai' needs httpx: pip install 'agentgym[openai]'"
                ) from exc

            headers = {}
            key = os.environ.get("OPENAI_API_KEY")
            if key:
                headers["Authorization"] = f"Bearer {key}"
            self._client = httpx.Client(timeout=self.timeout, headers=headers)
        return self._client

    def _post_once(self, payload: dict[str, Any]) -> tuple[str, str | None, dict[str, int] | None]:
        client = self._http()  # first: a missing httpx is named with its install command
        import httpx

        url = f"{self.base_url}/chat/completions"
        try:
            response = client.post(url, json=payload)
        except httpx.TimeoutException:
            raise EndpointError(f"no reply within {self.timeout:g} s", retry=True) from None
        except httpx.HTTPError as exc:
            raise EndpointError(f"{type(exc).__name__}: {exc}", retry=True) from None
        if response.status_code != 200:
            snippet = response.text[:200].replace("\n", " ")
            raise EndpointError(f"HTTP {response.status_code}: {snippet}",
                                retry=response.status_code in RETRY_STATUSES)
        return parse_reply(response.content)

    def _complete(self, payload: dict[str, Any]) -> tuple[str, str | None, dict[str, int] | None]:
        attempts = self.retries + 1
        for attempt in range(attempts):
            try:
                return self._post_once(payload)
            except EndpointError as exc:
                if not exc.retry:
                    raise AgentFailure(f"endpoint {self.base_url}: {exc.reason}") from None
                if attempt == attempts - 1:
                    raise AgentFailure(
                        f"endpoint {self.base_url}: {exc.reason} (after {attempts} attempts)"
                    ) from None
                time.sleep(min(MAX_WAIT_S, self.backoff * 2**attempt))
        raise AssertionError("unreachable")  # the loop returns or raises

    def chat(self, messages: list[dict[str, str]]) -> str:
        """One completion of ``messages`` (OpenAI chat form) at this agent's sampling
        settings, retried as :meth:`act`'s are; raises :class:`AgentFailure` when the server
        cannot answer. What Workplace-v0's LLM user speaks through.

        >>> EndpointAgent(base_url="http://127.0.0.1:9/v1", model="m", retries=0).chat([])
        Traceback (most recent call last):
        ...
        ValueError: chat needs at least one message
        """
        if not messages:
            raise ValueError("chat needs at least one message")
        payload = {"model": self.model, "messages": messages, "temperature": self.temperature,
                   "top_p": self.top_p, "max_tokens": self.max_new_tokens}
        return self._complete(payload)[0]

    # -- Agent --------------------------------------------------------------------------
    def reset(self, env: gym.Env, *, seed: int | None = None) -> None:
        system = self.system_prompt if self.system_prompt is not None else system_prompt_for(env)
        self._messages = [{"role": "system", "content": system}]
        self._stops = stop_sequences_for(env)
        self._seed = seed
        self._turn = 0
        self._last = AgentTurn()

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if not self._messages:
            raise RuntimeError("EndpointAgent.reset(env) must be called before act()")
        feedback = str(info.get("action_error", "") or "") if self._turn else ""
        self._messages.append({"role": "user", "content": render_user(str(observation), feedback)})
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": self._messages,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_new_tokens,
            "stop": list(self._stops),
        }
        seed = turn_seed(self._seed, self._turn)
        if seed is not None:
            payload["seed"] = seed % 2**31  # vLLM and SGLang take 32-bit seeds
        text, finish, usage = self._complete(payload)
        text = restore_stop(text, finish, self._stops)
        if usage is None and not self.usage_missing:
            self.usage_missing = True
            warnings.warn(f"endpoint {self.base_url} sends no usage: token counts are 0",
                          stacklevel=2)
        usage = usage or {"prompt_tokens": 0, "completion_tokens": 0}
        self._messages.append({"role": "assistant", "content": text})
        self._turn += 1
        self._last = AgentTurn(text, usage["prompt_tokens"], usage["completion_tokens"])
        return text

    @property
    def last_turn(self) -> AgentTurn:
        return self._last

    def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = {
            "name": self.name,
            "backend": "openai-chat-completions",
            "base_url": self.base_url,
            "model": self.model,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_new_tokens": self.max_new_tokens,
            "prompt": "standard" if self.system_prompt is None else "custom",
        }
        if self.system_prompt is not None:
            described["system_prompt"] = self.system_prompt
        return described

    def close(self) -> None:
        """Close the HTTP connection pool (a later request opens a new one)."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def __getstate__(self) -> dict[str, Any]:
        # httpx clients do not pickle; a worker process opens its own.
        return {**self.__dict__, "_client": None}
