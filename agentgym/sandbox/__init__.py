"""Sandboxes for episodes that run real commands: Docker containers, or bubblewrap jails.

Families code against :class:`Sandbox` and :class:`Backend`; ``make_backend("auto")`` gives
Docker where a daemon answers and falls back to bubblewrap (which warns, once, which
guarantees it lacks).

>>> from agentgym.sandbox import Limits, make_backend
>>> backend = make_backend("auto")  # doctest: +SKIP
>>> box = backend.start("agentgym/base:bookworm", Limits(), workdir="/app")  # doctest: +SKIP
>>> box.run("echo hello").stdout  # doctest: +SKIP
'hello\\n'
>>> backend.close()  # doctest: +SKIP
"""

from __future__ import annotations

import shutil
from typing import Any

from agentgym.sandbox.docker_client import docker_available
from agentgym.sandbox.errors import SandboxError
from agentgym.sandbox.limits import Limits
from agentgym.sandbox.protocols import Backend, Sandbox
from agentgym.sandbox.result import CommandResult

__all__ = [
    "Backend",
    "CommandResult",
    "Limits",
    "Sandbox",
    "SandboxError",
    "docker_available",
    "make_backend",
]


def bwrap_available() -> bool:
    """True when the ``bwrap`` binary is on PATH."""
    return shutil.which("bwrap") is not None


def make_backend(name: str = "auto", **kwargs: Any) -> Backend:
    """The backend called ``name``: ``"docker"``, ``"bwrap"`` or ``"auto"`` (Docker where a
    daemon answers, else bubblewrap). Keyword arguments go to the backend's constructor.

    >>> make_backend("podman")
    Traceback (most recent call last):
    ...
    ValueError: unknown sandbox backend 'podman' (choose auto, docker or bwrap)
    """
    if name not in ("auto", "docker", "bwrap"):
        raise ValueError(f"unknown sandbox backend {name!r} (choose auto, docker or bwrap)")
    if name == "docker" or (name == "auto" and docker_available()):
        from agentgym.sandbox.docker_backend import DockerBackend

        return DockerBackend(**kwargs)
    if name == "auto" and not bwrap_available():
        raise SandboxError("no sandbox backend: no Docker daemon answers and bwrap is missing "
                           "(run scripts/start_docker.sh)")
    from agentgym.sandbox.bwrap_backend import BwrapBackend

    return BwrapBackend(**kwargs)
