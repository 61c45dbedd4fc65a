"""OpenEnv's env server as a benchmark peer, in its own virtual environment.

``openenv`` 0.10.0 (formerly ``openenv-core``) brings FastAPI, gradio, fastmcp, huggingface_hub,
openai and pandas (about 100 packages), none of which the project needs, so it lives in
``.venv-openenv`` (``scripts/bench.sh`` creates it; ``$OPENENV_VENV`` names another one). This
one file holds both ends:

* **server side** (``python benchmarks/openenv_peer.py --port P [--variant V]`` under the
  OpenEnv venv; stdlib and OpenEnv only, no agentgym import): an echo env written against
  OpenEnv's own API (an ``Environment`` subclass with pydantic ``Action`` / ``Observation``
  models, the layout ``openenv init`` generates), wrapped by OpenEnv's
  ``openenv.core.env_server.http_server.create_app`` and run by uvicorn on 127.0.0.1, as
  OpenEnv's generated ``server/app.py`` does. It does the same work per step as the
  agentgym side's ``bench/Echo-v0`` (``bench_server_env.py``): count the step, echo the
  message in the same text.
* **pytest side**: where the venv is, what it holds, and the command line that starts the
  server (:func:`server_command`).

What OpenEnv serves (read from its installed ``http_server.py``): ``POST /reset`` and
``POST /step`` build a **new env for every request** and close it after (HTTP is stateless:
no session survives between two requests); ``/ws`` gives each WebSocket connection its own env
(a session lasts as long as the connection; messages ``{"type": "reset" | "step" | "state" |
"close", "data": {...}}``, answered ``{"type": "observation", "data": {"observation",
"reward", "done"}}``); each session's env runs in its own one-thread executor. There are no
request ids and no way to resume a session after a dropped connection.

Variants (:data:`VARIANTS`): ``default`` is ``uvicorn.run(app)`` as ``pip install
openenv`` gets it (asyncio event loop, h11 HTTP parser: openenv does not depend on
uvicorn's ``standard`` extra); ``tuned`` adds uvloop and httptools (what ``uvicorn[standard]``
brings), both installed in the venv by ``scripts/bench.sh``.

>>> sorted(VARIANTS)
['default', 'tuned']
>>> echo_text("hi", 3)
'Echo: hi. Step 3.'
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_SESSIONS",
    "OPENENV_SPEC",
    "VARIANTS",
    "build_app",
    "default_venv",
    "echo_text",
    "server_command",
]

_REPO = Path(__file__).resolve().parents[1]

#: What scripts/bench.sh installs into the OpenEnv venv.
OPENENV_SPEC: tuple[str, ...] = ("openenv==0.10.0", "uvloop==0.23.0", "httptools==0.9.0")

#: Variant name -> uvicorn ``loop`` / ``http`` settings.
VARIANTS: dict[str, dict[str, str]] = {
    "default": {"loop": "asyncio", "http": "h11"},
    "tuned": {"loop": "uvloop", "http": "httptools"},
}

#: OpenEnv's session cap (``max_concurrent_envs``), above the benchmark's 16 clients.
MAX_SESSIONS = 64


def echo_text(message: str, step: int) -> str:
    """The echo observation, written exactly as ``bench_server_env.echo_text`` writes it."""
    return f"Echo: {message}. Step {step}."


def default_venv() -> Path:
    """``$OPENENV_VENV``, else ``.venv-openenv`` at the repository root."""
    env = os.environ.get("OPENENV_VENV")
    path = Path(env) if env else _REPO / ".venv-openenv"
    return path if path.is_absolute() else _REPO / path


def server_command(venv: Path, port: int, variant: str = "default") -> list[str]:
    """The command line that serves the OpenEnv echo env on ``127.0.0.1:port``.

    >>> server_command(Path("/v"), 9000, "tuned")[2:]
    ['--port', '9000', '--variant', 'tuned']
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {sorted(VARIANTS)}, got {variant!r}")
    script = str(Path(__file__).resolve())
    return [str(venv / "bin" / "python"), script, "--port", str(port), "--variant", variant]


# --------------------------------------------------------------------------- server side
def build_app() -> Any:
    """The FastAPI app OpenEnv's ``create_app`` builds around the echo env (OpenEnv venv)."""
    from openenv.core.env_server.http_server import create_app
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import Action, Observation, State
    from pydantic import Field

    class EchoAction(Action):
        message: str = Field(..., description="Text to echo back")

    class EchoObservation(Observation):
        text: str = Field(default="", description="The echo")

    class EchoEnvironment(Environment):
        """Counts the steps and echoes the message: the agentgym echo env's work."""

        SUPPORTS_CONCURRENT_SESSIONS = True

        def __init__(self) -> None:
            super().__init__()
            self._state = State(episode_id="0", step_count=0)

        def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any):
            self._state = State(episode_id=episode_id or str(seed), step_count=0)
            return EchoObservation(text=echo_text("(nothing yet)", 0), done=False, reward=0.0)

        def step(self, action: EchoAction, timeout_s: float | None = None, **kwargs: Any):
            self._state.step_count += 1
            return EchoObservation(
                text=echo_text(action.message, self._state.step_count), done=False, reward=0.0
            )

        @property
        def state(self) -> State:
            return self._state

    return create_app(
        EchoEnvironment,
        EchoAction,
        EchoObservation,
        env_name="echo",
        max_concurrent_envs=MAX_SESSIONS,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="serve the OpenEnv echo env on 127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="default")
    args = parser.parse_args(argv)
    import uvicorn

    uvicorn.run(
        build_app(),
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
        access_log=False,
        **VARIANTS[args.variant],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
