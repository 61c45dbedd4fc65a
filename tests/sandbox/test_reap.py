"""A process killed with SIGKILL leaks its sandboxes only until the next start (issue 29,
attack 4): its episode's container and the warm spares were left running for good."""

from __future__ import annotations

import subprocess
import sys

from sandbox_support import BASE, needs_docker

from agentgym.cli import main

pytestmark = needs_docker

# A process that starts an episode's sandbox and fills a warm pool of two, then waits.
OWNER = f"""
import time
from agentgym.sandbox import Limits
from agentgym.sandbox.docker_backend import DockerBackend
backend = DockerBackend(pool_size={{pool}})
box = backend.start({BASE!r}, Limits(), workdir="/app")
backend.warm({BASE!r}, Limits(), workdir="/app", wait_s=90)
print("ready", flush=True)
time.sleep(600)
"""


def _containers_of(pid: int) -> list[str]:
    import docker

    client = docker.from_env()
    try:
        found = client.api.containers(all=True, filters={"label": f"agentgym.sandbox.pid={pid}"})
        return [c["Id"] for c in found]
    finally:
        client.close()


def _killed_owner(pool: int) -> tuple[int, int]:
    """Start an owner, SIGKILL it once its sandboxes run; (its pid, how many it left)."""
    proc = subprocess.Popen([sys.executable, "-c", OWNER.format(pool=pool)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        left = len(_containers_of(proc.pid))
    finally:
        proc.kill()
        proc.wait()
    return proc.pid, left


def test_the_next_backend_to_start_removes_a_killed_owners_sandboxes():
    from agentgym.sandbox.docker_backend import DockerBackend

    pid, left = _killed_owner(pool=2)
    assert left >= 3  # the episode's sandbox and two warm spares outlived their owner
    DockerBackend(pool_size=0).close()
    assert _containers_of(pid) == []


def test_agentgym_docker_reap_removes_them_by_hand(capsys):
    pid, left = _killed_owner(pool=0)
    assert left >= 1
    assert main(["docker", "reap"]) == 0
    assert "removed" in capsys.readouterr().out
    assert _containers_of(pid) == []
