"""Starting and closing many sandboxes leaves no container and no process behind."""

from __future__ import annotations

import os

from sandbox_support import BASE, FAST, needs_docker

pytestmark = needs_docker


def _mine(client) -> list:
    """This test process's sandbox containers (other sessions may run their own)."""
    label = f"agentgym.sandbox.pid={os.getpid()}"
    return client.containers.list(all=True, filters={"label": label})


def _processes_of(container_ids: set[str]) -> list[int]:
    """Host pids whose cgroup names one of these containers."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cgroup") as handle:
                text = handle.read()
        except OSError:
            continue
        if any(cid in text for cid in container_ids):
            found.append(int(name))
    return found


def test_many_sandboxes_leave_nothing_behind():
    from agentgym.sandbox.docker_backend import DockerBackend

    backend = DockerBackend(pool_size=2)
    seen: set[str] = set()
    for i in range(12):
        box = backend.start(BASE, FAST, workdir="/app")
        seen.add(box.id)
        assert box.run(f"echo {i}").stdout == f"{i}\n"
        if i % 3 == 0:
            box.run_as_root_script("true")
        if i % 4 == 1:
            box.run("sleep 30 &")
        box.close(wait=i % 2 == 0)
    dropped = backend.start(BASE, FAST, workdir="/app")  # never closed by hand
    seen.add(dropped.id)
    clean = backend.start_clean(BASE, FAST, workdir="/app")
    seen.add(clean.id)
    assert _processes_of(seen)  # the check below can see processes
    backend.close()
    assert _mine(backend.client) == []
    assert _processes_of(seen) == []
    assert backend.client.volumes.list(filters={"dangling": True, "label": "agentgym.sandbox"}) \
        == []


def test_pools_are_capped_and_evicted_without_leaks():
    from agentgym.sandbox import Limits
    from agentgym.sandbox.docker_backend import DockerBackend

    backend = DockerBackend(pool_size=1, max_pools=2)
    # Three keys (limits differ): the least recently used pool is drained.
    keys = [Limits(command_timeout_s=3.0 + i, memory_mb=128, workspace_mb=8, tmp_mb=8)
            for i in range(3)]
    for limits in keys:
        backend.start(BASE, limits, workdir="/app").close(wait=False)
    assert len(backend._pools) == 2 and (BASE, keys[0], "/app") not in backend._pools
    backend.close()
    assert _mine(backend.client) == []


def test_containers_of_a_killed_process_are_reaped():
    import subprocess
    import sys

    from agentgym.sandbox.docker_backend import LABEL, DockerBackend, reap_orphans

    code = ("from agentgym.sandbox.docker_backend import DockerBackend\n"
            "from agentgym.sandbox import Limits\n"
            "import os\n"
            "b = DockerBackend(pool_size=0)\n"
            f"b.start({BASE!r}, Limits(), workdir='/app')\n"
            "print(os.getpid(), flush=True)\n"
            "os.kill(os.getpid(), 9)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    pid = done.stdout.strip()
    import docker

    raw = docker.from_env()
    try:
        orphans = raw.containers.list(all=True, filters={"label": f"{LABEL}.pid={pid}"})
    finally:
        raw.close()
    assert len(orphans) == 1  # left running by the kill -9
    backend = DockerBackend(pool_size=0)  # starting a backend reaps it
    try:
        ours = backend.start(BASE, FAST, workdir="/app")
        assert backend.client.containers.list(all=True,
                                              filters={"label": f"{LABEL}.pid={pid}"}) == []
        assert reap_orphans(backend.client) == 0  # nothing left, and a live owner's stays
        assert ours.run("echo alive").stdout == "alive\n"
    finally:
        backend.close()
    assert _mine(backend.client) == []


def test_close_removes_a_container_it_never_tracked():
    # A container made on a path close() does not follow (a start that failed half-way, a
    # race with close) still carries the backend's label, and close() sweeps it.
    from agentgym.sandbox.docker_backend import LABEL, DockerBackend

    backend = DockerBackend(pool_size=0)
    box = backend.start(BASE, FAST, workdir="/app")
    labels = backend.client.api.inspect_container(box.id)["Config"]["Labels"]
    assert labels[f"{LABEL}.backend"] == backend.id
    stray = backend.client.api.create_container(
        BASE, command=["true"], labels={LABEL: "1", f"{LABEL}.backend": backend.id})["Id"]
    other = backend.client.api.create_container(
        BASE, command=["true"], labels={LABEL: "1", f"{LABEL}.backend": "someone-else"})["Id"]
    try:
        backend.close()
        mine = backend.client.api.containers(
            all=True, filters={"label": f"{LABEL}.backend={backend.id}"})
        assert mine == []
        assert backend.client.api.inspect_container(other)["Id"] == other  # not ours: kept
    finally:
        backend.client.api.remove_container(other, force=True)
    assert stray not in {c["Id"] for c in backend.client.api.containers(all=True)}
