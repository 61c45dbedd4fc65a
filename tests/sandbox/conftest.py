"""Fixtures of the sandbox tests: one Docker backend per module, sandboxes from its pool.

The Docker tests need a daemon and the base image (``scripts/start_docker.sh``,
``agentgym docker build-base``); without them they skip and say why.
"""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sandbox_support import BASE, FAST


@pytest.fixture(scope="module")
def backend():
    from agentgym.sandbox.docker_backend import DockerBackend

    b = DockerBackend(pool_size=1)
    yield b
    b.close()


@pytest.fixture()
def box(backend):
    """A fresh agent sandbox (closed after the test)."""
    sandbox = backend.start(BASE, FAST, workdir="/app")
    yield sandbox
    sandbox.close(wait=False)
