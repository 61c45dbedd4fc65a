"""Constants and skip markers shared by the sandbox tests (imported by name, like
tests/server/server_support.py, so no other folder's conftest can shadow them)."""

from __future__ import annotations

import pytest

from agentgym.sandbox import Limits
from agentgym.sandbox.base_image import base_image_present

BASE = "agentgym/base:bookworm"


DOCKER_READY = base_image_present()
needs_docker = pytest.mark.skipif(
    not DOCKER_READY,
    reason="no Docker daemon answers or agentgym/base:bookworm is missing "
    "(scripts/start_docker.sh, agentgym docker build-base)",
)

#: Small and quick: the tests must not wait on the default 10 s timeout.
FAST = Limits(command_timeout_s=3.0, memory_mb=256, workspace_mb=32, tmp_mb=16, pids=64)
