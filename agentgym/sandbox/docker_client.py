"""The connection to the Docker daemon, through the ``docker`` SDK (the ``docker`` extra).

:func:`connect` is what every Docker user in this package calls (the backend, image builds,
the base image, the orphan reaper); :func:`docker_available` is the cheap question whether
that would work.

>>> isinstance(docker_available(), bool)
True
"""

from __future__ import annotations

import functools
from typing import Any

from agentgym.sandbox.errors import SandboxError, first_line

__all__ = ["connect", "docker_available"]


@functools.cache
def docker_available() -> bool:
    """True when the ``docker`` SDK is installed and a daemon answers (checked once).

    >>> isinstance(docker_available(), bool)
    True
    """
    try:
        import docker
    except ImportError:
        return False
    try:
        client = docker.from_env(timeout=5)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # any failure to reach a daemon means "not available"
        return False


def connect() -> Any:
    """A ``docker.DockerClient`` whose daemon answered a ping (API timeout 120 s).

    Raises SandboxError (one line) when the SDK is missing or no daemon answers.

    >>> connect().ping()  # doctest: +SKIP
    True
    """
    try:
        import docker
    except ImportError as exc:
        raise SandboxError("the docker SDK is missing: pip install 'agentgym[docker]'") from exc
    try:
        client = docker.from_env(timeout=120)
        client.ping()
    except Exception as exc:  # the SDK raises several types for "no daemon"
        raise SandboxError(f"no Docker daemon answers: {first_line(exc)}") from exc
    return client
