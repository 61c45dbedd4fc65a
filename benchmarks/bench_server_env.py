"""The trivial env the server benchmarks serve: an echo counter with a text observation.

``bench/Echo-v0`` is an agentgym :class:`~agentgym.core.TextEnv` that accepts any action,
counts the steps and answers ``"Echo: <action>. Step <n>."``; it has no legal-action list, no
oracle and a process reward of 0. The OpenEnv side of the benchmark (``openenv_peer.py``)
serves an OpenEnv ``Environment`` doing the same work. The env lives here, not in the
package: it is a benchmark fixture, not an environment anyone trains on.

Run as a script, it registers the id and runs the env server on it: the function
``agentgym serve`` runs (``agentgym.server.app.serve``, same uvicorn settings), called
directly because the CLI only accepts the ids of agentgym's own table::

    python benchmarks/bench_server_env.py bench/Echo-v0 agentgym/Sudoku-v0 --port 8765

>>> import gymnasium as gym
>>> env = gym.make(ENV_ID)
>>> env.reset(seed=0)[0]
'Echo: (nothing yet). Step 0.'
>>> obs, reward, terminated, truncated, info = env.step("hello")
>>> obs, reward, terminated, truncated, info["available_actions"]
('Echo: hello. Step 1.', 0.0, False, False, [])
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from agentgym.core import Outcome, TextEnv

ENV_ID = "bench/Echo-v0"
#: The largest step budget TextEnv allows, so a benchmark session never truncates.
MAX_STEPS = 100_000

__all__ = ["ENV_ID", "MAX_STEPS", "EchoEnv", "bare_app", "echo_text", "main", "register"]


def echo_text(message: str, step: int) -> str:
    """The observation both servers' echo envs produce (the OpenEnv peer builds the same)."""
    return f"Echo: {message}. Step {step}."


class EchoEnv(TextEnv):
    """Echoes the action and counts the steps; every action is valid."""

    rules = "Say anything; the env repeats it."
    verifier_name = "echo"
    verifier_version = "1"

    def __init__(self, max_steps: int = MAX_STEPS, **kwargs: Any) -> None:
        super().__init__(max_steps=max_steps, **kwargs)
        self.last = "(nothing yet)"

    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        self.last = "(nothing yet)"

    def _observe(self) -> str:
        return echo_text(self.last, self.steps)

    def _parse(self, action: str) -> tuple[Any, str]:
        return action, ""

    def _apply(self, move: str) -> Outcome:
        self.last = move
        return Outcome()

    def _config(self) -> dict[str, Any]:
        return {}

    def _state_dict(self) -> dict[str, Any]:
        return {"last": self.last}

    def _load_state_dict(self, state: dict[str, Any]) -> None:
        self.last = state["last"]


def register() -> None:
    """Register :data:`ENV_ID` with Gymnasium (the same wrapper flags as agentgym's ids)."""
    if ENV_ID not in gym.registry:
        gym.register(
            id=ENV_ID, entry_point=EchoEnv, disable_env_checker=False, order_enforce=True
        )


register()


def bare_app() -> Any:
    """A bare Starlette echo on the server's stack (uvicorn, Starlette, orjson), as a floor.

    No env, no sessions, no request-id memory, no thread hop: ``POST /step`` ``{"action"}``
    and ``/ws`` ``{"op": "step", "request_id", "action"}`` answer the echo text at once. It
    shows what the stack itself costs per round trip, under any env server built on it.
    """
    import orjson
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route, WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    steps = itertools.count(1)

    async def health(request: Request) -> Response:
        return Response(b'{"status":"ok"}', media_type="application/json")

    async def step(request: Request) -> Response:
        action = orjson.loads(await request.body())["action"]
        body = orjson.dumps({"observation": echo_text(action, next(steps))})
        return Response(body, media_type="application/json")

    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        n = 0
        try:
            while True:
                msg = orjson.loads(await websocket.receive_text())
                n += 1
                reply = {
                    "request_id": msg.get("request_id"),
                    "ok": True,
                    "observation": echo_text(str(msg.get("action", "")), n),
                }
                await websocket.send_text(orjson.dumps(reply).decode())
        except WebSocketDisconnect:
            pass

    return Starlette(
        routes=[
            Route("/health", health, methods=["GET"]),
            Route("/step", step, methods=["POST"]),
            WebSocketRoute("/ws", ws),
        ]
    )


def main(argv: Sequence[str]) -> int:
    """``agentgym serve ENV_IDS... --host H --port P --max-sessions N``, this id registered;
    ``--bare``: :func:`bare_app` instead, with the same uvicorn defaults."""
    parser = argparse.ArgumentParser(description="the env server, with bench/Echo-v0")
    parser.add_argument("env_ids", nargs="*")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--max-sessions", type=int, default=256)
    parser.add_argument("--bare", action="store_true", help="serve bare_app() instead")
    args = parser.parse_args(argv)
    if args.bare:
        import uvicorn

        uvicorn.run(bare_app(), host=args.host, port=args.port, log_level="warning")
        return 0
    if not args.env_ids:
        parser.error("give at least one env id (or --bare)")
    from agentgym.server.app import serve

    serve(args.env_ids, host=args.host, port=args.port, max_sessions=args.max_sessions)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
