"""RemoteEnv: a Gymnasium env backed by a session on an agentgym env server.

``gym.make("agentgym/Sokoban-v0", server_url="http://127.0.0.1:8000")`` returns one (any other
kwarg goes to the env on the server). Every request carries a request id; after a dropped
connection or a timeout the client reconnects and sends the *same* request again, and the server
answers a request id it has seen with its stored reply, so a step is never lost or doubled.
When the server stays unreachable for ``retry_for`` seconds the call raises
:class:`RemoteEnvError` saying so.

Client options (not passed to the env):

* ``server_url``: the server's base URL;
* ``token``: its bearer token (default: the ``AGENTGYM_TOKEN`` environment variable);
* ``timeout``: seconds to wait for one reply (default 60);
* ``retry_for``: seconds to keep reconnecting after a connection error (default 10).

``get_state``, ``set_state``, ``score_actions`` and ``oracle_actions`` run on the server, so
VPR-style state-group rollouts work remotely.

>>> RemoteEnv.metadata["render_modes"]
['ansi']
"""

from __future__ import annotations

import os
import secrets
import time
import uuid
from typing import Any, ClassVar

import gymnasium as gym
import httpx
import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import load_env_creator

from agentgym.core import TEXT_CHARSET, check_seed
from agentgym.server.protocol import dumps, loads

__all__ = ["CLIENT_KWARGS", "RemoteEnv", "RemoteEnvError"]

#: The kwargs RemoteEnv keeps for itself; every other kwarg is the env's.
CLIENT_KWARGS: frozenset[str] = frozenset({"server_url", "token", "timeout", "retry_for"})

# Exceptions the server reports by type name and the client raises as such, so code that
# catches them around a local env works unchanged around a remote one.
_RAISE_AS: dict[str, type[Exception]] = {
    "ValueError": ValueError,
    "TypeError": TypeError,
    "ResetNeeded": gym.error.ResetNeeded,
}


class RemoteEnvError(RuntimeError):
    """The server could not be reached, refused the request, or lost the session.

    ``status`` is the HTTP status (None when no reply came at all).
    """

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def _text_space(desc: dict[str, Any] | None, default_max: int, default_min: int) -> spaces.Text:
    desc = desc or {}
    return spaces.Text(
        max_length=int(desc.get("max_length", default_max)),
        min_length=int(desc.get("min_length", default_min)),
        charset=desc.get("charset") or TEXT_CHARSET,
    )


class RemoteEnv(gym.Env[str, str]):
    """An env id played on a server; see the module docstring.

    Args:
        env_id: the id to create on the server (it must host it).
        server_url: the server's base URL, e.g. ``http://127.0.0.1:8000``.
        token: bearer token; default ``$AGENTGYM_TOKEN`` (none when unset).
        timeout: seconds to wait for one reply.
        retry_for: seconds to keep retrying the same request after connection errors.
        **kwargs: the env's kwargs (``render_mode`` included), checked by the server.

    Raises:
        ValueError: the server refused the kwargs (the message is the env's).
        RemoteEnvError: the server is unreachable, busy (503) or does not host ``env_id``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        env_id: str,
        *,
        server_url: str,
        token: str | None = None,
        timeout: float = 60.0,
        retry_for: float = 10.0,
        **kwargs: Any,
    ) -> None:
        if not isinstance(server_url, str) or not server_url.startswith(("http://", "https://")):
            raise ValueError(f"server_url must be an http(s) URL, got {server_url!r}")
        if timeout <= 0 or retry_for < 0:
            raise ValueError(f"timeout must be > 0 and retry_for >= 0, got {timeout}, {retry_for}")
        self.env_id = env_id
        self.server_url = server_url.rstrip("/")
        self.timeout = float(timeout)
        self.retry_for = float(retry_for)
        token = token if token is not None else os.environ.get("AGENTGYM_TOKEN") or None
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._client = httpx.Client(
            base_url=self.server_url,
            headers=headers,
            timeout=httpx.Timeout(self.timeout, connect=min(5.0, self.timeout)),
            # A plain-http URL never uses TLS; not building a verifying SSL context (loading
            # the CA bundle) makes creating an env ~20 ms faster. https verifies as usual.
            verify=self.server_url.startswith("https://"),
        )
        self._session_id: str | None = None
        self._closed = False
        self.render_mode = kwargs.get("render_mode")
        self._frame: str | None = None
        self._episode_seed: int | None = None
        try:
            # A random client token scopes the create's request id to this env: a retry on a
            # new connection finds its session, and no other client's id can name it.
            reply = self._call("POST", "/sessions", {"env_id": env_id, "kwargs": kwargs,
                                                     "client_token": secrets.token_hex(16)},
                               what="create a session")
        except BaseException:
            self._client.close()
            raise
        self._session_id = reply["session_id"]
        described = reply.get("env") or {}
        self._described = described
        self.observation_space = _text_space(described.get("observation_space"), 8192, 1)
        self.action_space = _text_space(described.get("action_space"), 1024, 0)
        modes = described.get("render_modes")
        if isinstance(modes, list):
            # An instance's own metadata (gymnasium declares it on the class only).
            self.metadata = {**type(self).metadata, "render_modes": modes}  # pyright: ignore[reportAttributeAccessIssue]

    # ------------------------------------------------------------------ transport
    @property
    def session_id(self) -> str | None:
        """The server session this env plays (None once closed)."""
        return self._session_id

    def _path(self, tail: str) -> str:
        if self._session_id is None:
            raise RemoteEnvError("this RemoteEnv is closed")
        return f"/sessions/{self._session_id}{tail}"

    def _call(
        self, method: str, path: str, body: dict[str, Any] | None = None, *, what: str
    ) -> dict[str, Any]:
        """One request, retried with the same request id until ``retry_for`` runs out."""
        content = None
        if body is not None:
            body = {**body, "request_id": uuid.uuid4().hex}
            content = dumps(_jsonable(body))
        deadline: float | None = None  # set at the first failure: a slow reply is no failure
        delay = 0.05
        while True:
            try:
                response = self._client.request(
                    method, path, content=content,
                    headers={"content-type": "application/json"} if content else None,
                )
            except httpx.TransportError as exc:
                # Connection refused, reset or timed out: the server may have applied the
                # request; the same request id makes the retry safe.
                now = time.monotonic()
                deadline = now + self.retry_for if deadline is None else deadline
                if now + delay > deadline:
                    if isinstance(exc, httpx.TimeoutException):
                        why = f"gave no reply within {self.timeout:g} s"
                    else:
                        why = f"unreachable (retried for {self.retry_for:g} s)"
                    raise RemoteEnvError(
                        f"agentgym server {self.server_url} {why} while trying to {what}: "
                        f"{type(exc).__name__}: {exc or 'no reply'}"
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 1.0)
                continue
            return self._reply(response, what)

    def _reply(self, response: httpx.Response, what: str) -> dict[str, Any]:
        try:
            payload = loads(response.content)
        except ValueError:
            payload = {"error": response.text[:200] or response.reason_phrase}
        if not isinstance(payload, dict):
            payload = {"error": f"unexpected reply {payload!r:.200}"}
        if response.status_code < 400:
            return payload
        error = str(payload.get("error", response.reason_phrase))
        raise_as = _RAISE_AS.get(str(payload.get("type")))
        if raise_as is not None and response.status_code == 400:
            raise raise_as(error)
        if response.status_code == 404 and self._session_id is not None:
            error += " (the server restarted or the session expired; make a new env)"
        if response.status_code == 503:
            after = response.headers.get("retry-after", "?")
            error += f" (Retry-After: {after} s)"
        raise RemoteEnvError(f"could not {what}: {error}", response.status_code)

    # ------------------------------------------------------------------ Gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        # The seed checks of a local env, in its order, before anything is sent.
        seed = check_seed(seed)
        super().reset(seed=seed)
        reply = self._call("POST", self._path("/reset"), {"seed": seed, "options": options},
                           what="reset")
        self._episode_seed = seed
        self._frame = reply["observation"]
        return reply["observation"], reply["info"]

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        reply = self._call("POST", self._path("/step"), {"action": action}, what="step")
        self._frame = reply["observation"]
        return (
            reply["observation"],
            float(reply["reward"]),
            bool(reply["terminated"]),
            bool(reply["truncated"]),
            reply["info"],
        )

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self._frame if self._frame is not None else ""
        return None

    def close(self) -> None:
        """End the server session (idempotent; a server that is gone is not an error here)."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._session_id is not None:
                retry_for, self.retry_for = self.retry_for, min(self.retry_for, 1.0)
                try:
                    self._call("DELETE", self._path(""), {}, what="close the session")
                finally:
                    self.retry_for = retry_for
        except RemoteEnvError:
            pass
        finally:
            self._session_id = None
            self._client.close()

    # ------------------------------------------------------------------ snapshots and oracle
    def get_state(self) -> bytes:
        """The server env's snapshot (see :meth:`agentgym.core.TextEnv.get_state`)."""
        return self._call("GET", self._path("/state"), what="get the state")["state"].encode()

    def set_state(self, state: bytes) -> None:
        """Restore a snapshot on the server env; ``ValueError`` as a local env raises it."""
        if isinstance(state, (bytes, bytearray)):
            try:
                text = bytes(state).decode()
            except UnicodeDecodeError as exc:
                raise ValueError(f"not an agentgym snapshot: {exc}") from None
        else:
            text = state
        reply = self._call("PUT", self._path("/state"), {"state": text}, what="set the state")
        self._episode_seed = reply.get("episode_seed")
        self._frame = reply.get("render")

    def score_actions(self, actions: list[str]) -> list[float]:
        """Process reward of each action from the current state; the state is unchanged."""
        reply = self._call("POST", self._path("/score"), {"actions": list(actions)},
                           what="score actions")
        return [float(s) for s in reply["scores"]]

    def oracle_actions(self) -> list[str]:
        """The canonical actions with the top oracle score in the current state."""
        return list(self._call("GET", self._path("/oracle"), what="ask the oracle")["actions"])

    def config(self) -> dict[str, Any]:
        """The server env's config (the kwargs that shape an episode)."""
        return dict(self._described.get("config") or {})

    def system_prompt(self) -> str:
        """Rules and action format for an LLM's system turn, as the server env states them."""
        return str(self._described.get("system_prompt") or "")

    @property
    def hidden_information(self) -> bool:
        """The env class's flag: what a move pays depends on state the agent cannot see
        (read from the id's registered class; False for an id this client does not know)."""
        try:
            entry_point = gym.spec(self.env_id).entry_point
            if not isinstance(entry_point, str):
                return False
            creator = load_env_creator(entry_point)
        except Exception:  # not registered here, or its module does not import
            return False
        return bool(getattr(creator, "hidden_information", False))

    @property
    def rules(self) -> str:
        """The game's rules, as the server env states them."""
        return str(self._described.get("rules") or "")

    @property
    def max_steps(self) -> int | None:
        """The server env's step budget."""
        return self._described.get("max_steps")

    @property
    def episode_seed(self) -> int | None:
        """The seed of the episode being played (restored by :meth:`set_state`)."""
        return self._episode_seed


def _jsonable(value: Any) -> Any:
    """``value`` with what JSON cannot carry (bytes, objects) as null: the env then refuses
    such an action as one that is not a string, as it refuses the value in process.

    >>> _jsonable({"action": b"up", "options": {"k": [1, "x"]}})
    {'action': None, 'options': {'k': [1, 'x']}}
    """
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (np.generic, np.ndarray)):  # a NumPy seed is a seed, as in process
        return value.tolist()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return None
