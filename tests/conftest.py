"""Suite-wide: Terminal-v0 runs against real Docker; without a daemon its cases skip, saying so.

Every test parametrized over the registered ids (the conformance suite, the wrappers, vector
envs, evaluation, the CLI) gets a Terminal-v0 case. Those cases need a Docker daemon and the
base image (``scripts/start_docker.sh``, ``agentgym docker build-base``, both run by
``scripts/test.sh``); where none answers they are skipped with that reason instead of falling
back to bubblewrap, which the terminal tests cover on their own.
"""

from __future__ import annotations

import pytest


def _docker_ready() -> tuple[bool, str]:
    from agentgym.sandbox import docker_available
    from agentgym.sandbox.base_image import BASE_IMAGE, base_image_present

    if not docker_available():
        return False, "no Docker daemon answers (scripts/start_docker.sh starts one)"
    if not base_image_present():
        return False, f"{BASE_IMAGE} is not built (agentgym docker build-base)"
    return True, ""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    terminal = [item for item in items if "Terminal-v0" in item.nodeid]
    if not terminal:
        return
    ready, why = _docker_ready()
    if not ready:
        for item in terminal:
            item.add_marker(pytest.mark.skip(reason=f"Terminal-v0: {why}"))
