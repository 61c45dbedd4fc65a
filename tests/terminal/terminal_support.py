"""Helpers shared by the terminal tests (imported by name: pytest puts this folder on the path)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgym.sandbox.base_image import base_image_present

FIXTURES = Path(__file__).parent / "fixtures"


def docker_ready() -> bool:
    """A Docker daemon answers and the base image exists (the Docker tests need both)."""
    return base_image_present()


needs_docker = pytest.mark.skipif(
    not docker_ready(), reason="no Docker daemon answers, or agentgym/base:bookworm is missing "
    "(start dockerd; agentgym docker build-base)"
)
