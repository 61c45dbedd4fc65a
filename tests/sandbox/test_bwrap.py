"""The bubblewrap fallback: same interface, the limits it can enforce, one clear warning."""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import warnings
from pathlib import Path

import pytest
from sandbox_support import DOCKER_READY, FAST

from agentgym.sandbox import CommandResult, Sandbox

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed")


@pytest.fixture(scope="module")
def rootfs(tmp_path_factory):
    from agentgym.sandbox.base_image import base_rootfs, export_rootfs

    for candidate in (os.environ.get("AGENTGYM_BWRAP_ROOTFS"), str(base_rootfs())):
        if candidate and (Path(candidate) / "usr" / "bin" / "python3").exists():
            return Path(candidate)
    if not DOCKER_READY or os.geteuid() != 0:
        pytest.skip("no base root filesystem (agentgym docker build-base keeps one)")
    return export_rootfs(tmp_path_factory.mktemp("rootfs") / "bookworm")


@pytest.fixture(scope="module")
def backend(rootfs):
    from agentgym.sandbox import bwrap_backend

    bwrap_backend._warned = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = bwrap_backend.BwrapBackend(rootfs)
        second = bwrap_backend.BwrapBackend(rootfs)
    lacking = [w for w in caught if "bubblewrap fallback" in str(w.message)]
    assert len(lacking) == 1 and "no memory cgroup" in str(lacking[0].message)
    second.close()
    yield first
    first.close()


@pytest.fixture()
def box(backend):
    sandbox = backend.start("agentgym/base:bookworm", FAST, workdir="/app")
    yield sandbox
    sandbox.close()


def test_commands_and_cwd(box):
    assert isinstance(box, Sandbox)
    result = box.run("id -u; pwd; cd /tmp")
    assert isinstance(result, CommandResult)
    assert result.stdout == "1000\n/app\n" and result.cwd == "/tmp"
    assert box.run("pwd").stdout == "/tmp\n"
    assert box.run("exit 5").exit_code == 5
    script = box.run_as_root_script("echo $PATH; pwd")
    assert script.stdout == "/usr/sbin:/usr/bin:/sbin:/bin\n/app\n"


def test_contained(box):
    assert "Network is unreachable" in box.run(
        "python3 -c \"import socket; socket.create_connection(('1.1.1.1', 53), timeout=2)\"").stderr
    for path in ("/etc/passwd", "/newfile", "/usr/x"):
        assert box.run(f"echo x > {path}").exit_code != 0, path
    assert box.run("mount -t tmpfs x /mnt").exit_code != 0
    full = box.run("dd if=/dev/zero of=/app/big bs=1M count=100")
    assert "No space left on device" in full.stderr
    assert box.run("rm /app/big && echo ok").stdout == "ok\n"
    slow = box.run("sleep 100 & sleep 100", timeout_s=0.5)
    assert slow.timed_out and slow.exit_code == 124
    assert box.run("pgrep -c -f 'sleep 100'").stdout == "0\n"
    flood = box.run("yes", timeout_s=0.5)
    assert flood.truncated and len(flood.stdout) <= FAST.output_limit
    assert box.run(":(){ :|:& };:", timeout_s=2).exit_code in (0, 124)
    assert box.run("echo alive").stdout == "alive\n"
    assert box.run("printf %s " + "b" * 1_000_000 + " | wc -c").stdout == "1000000\n"


def test_images_and_the_verifier_path(backend, tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "data.csv").write_text("x,y\n")
    (tmp_path / "Dockerfile").write_text(
        "FROM agentgym/base:bookworm\nWORKDIR /app\nCOPY src/ /app/\n"
        "RUN chown -R 1000:1000 /app\nRUN echo built > /app/built.txt\n")
    image = backend.prepare(tmp_path, tag="agentgym/task-bwrap-test")
    try:
        assert backend.prepare(tmp_path, tag="agentgym/task-bwrap-test") == image
        box = backend.start(image, FAST, workdir="/app")
        assert box.run("cat data.csv built.txt; stat -c %U data.csv").stdout == \
            "x,y\nbuilt\nagent\n"
        box.run("echo answer > /app/out.txt")
        artifacts = box.copy_out(["/app"])
        box.close()
        with tarfile.open(fileobj=io.BytesIO(artifacts)) as archive:
            assert "app/out.txt" in archive.getnames()
        clean = backend.start_clean(image, FAST, workdir="/app")
        clean.copy_in(artifacts, "/")
        assert clean.run("id -u; cat /app/out.txt; ls /verifier").stdout == "0\nanswer\n"
        clean.close()
    finally:
        shutil.rmtree(image, ignore_errors=True)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "Dockerfile").write_text("FROM debian:bookworm\n")
    from agentgym.sandbox import SandboxError

    with pytest.raises(SandboxError, match="needs `FROM agentgym/base:bookworm`"):
        backend.prepare(bad, tag="agentgym/task-bad")


def test_close_ends_every_jail(backend):
    box = backend.start("agentgym/base:bookworm", FAST, workdir="/app")
    box.run("sleep 1000 >/dev/null 2>&1 &")
    pid = box._proc.pid
    box.close()
    box.close()
    assert not os.path.exists(f"/proc/{pid}") or "Z" in Path(f"/proc/{pid}/stat").read_text()
    assert "closed" in box.run("true").stderr
