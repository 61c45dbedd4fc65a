"""Pure parts of the sandbox: limits, output decoding, Docker options, framing, hashing."""

from __future__ import annotations

import doctest
import importlib
import io
import os
import stat
import tarfile

import pytest

from agentgym.sandbox import Limits, make_backend
from agentgym.sandbox.channel import HEADER, FrameBuffer
from agentgym.sandbox.docker_backend import container_options
from agentgym.sandbox.docker_sandbox import DockerSandbox, tar_is_complete
from agentgym.sandbox.errors import SandboxError
from agentgym.sandbox.images import context_hash
from agentgym.sandbox.result import decode_output, error_result


def test_limits_defaults_and_validation():
    limits = Limits()
    assert (limits.memory_mb, limits.cpus, limits.pids, limits.network) == (512, 1.0, 128, False)
    assert (limits.workspace_mb, limits.tmp_mb, limits.output_limit) == (256, 64, 16_384)
    for bad in ({"memory_mb": 1}, {"pids": True}, {"cpus": 0}, {"command_timeout_s": -1},
                {"network": "yes"}, {"output_limit": -5}, {"workspace_mb": 1.5}):
        with pytest.raises(ValueError, match=r"Limits\."):
            Limits(**bad)
    assert hash(Limits()) == hash(Limits())  # pools are keyed by limits


def test_decode_output_makes_binary_readable():
    assert decode_output(b"plain text\n") == "plain text\n"
    assert decode_output(b"a\x00b") == "a\\x00b"
    assert decode_output(b"\xff\xfe") == "\ufffd\ufffd"
    assert decode_output(b"x\r\ny\rz") == "x\ny\\x0dz"
    assert decode_output(b"\x1b[31mred") == "\\x1b[31mred"
    assert decode_output("tab\tnewline\né".encode()) == "tab\tnewline\né"


def test_error_result_is_a_clear_failure():
    result = error_result("closed", cwd="/app")
    assert result.exit_code == 137 and not result.ok and result.stderr == "closed\n"


def test_container_options_lock_the_container_down():
    opts = container_options(Limits(memory_mb=300, cpus=0.5, pids=50, workspace_mb=20),
                             workdir="/work", clean=False, user="1000:1000")
    assert opts["network_mode"] == "none"
    assert opts["cap_drop"] == ["ALL"] and "cap_add" not in opts
    assert opts["security_opt"] == ["no-new-privileges"]
    assert opts["read_only"] is True and opts["user"] == "1000:1000"
    assert opts["mem_limit"] == opts["memswap_limit"] == "300m"
    assert opts["nano_cpus"] == 500_000_000 and opts["pids_limit"] == 50
    assert opts["tmpfs"]["/work"].startswith("size=20m,uid=1000,gid=1000")
    assert "size=64m" in opts["tmpfs"]["/tmp"]
    assert opts["labels"]["agentgym.sandbox"] == "1"
    assert "volumes" not in opts and "mounts" not in opts  # no docker socket, no host paths
    clean = container_options(Limits(network=True), workdir="/app", clean=True, user="0:0")
    assert clean["read_only"] is True and "uid=" not in clean["tmpfs"]["/app"]
    assert {"/verifier", "/tests", "/logs", "/root", "/tmp"} <= set(clean["tmpfs"])
    assert "SYS_ADMIN" not in clean["cap_add"] and "DAC_OVERRIDE" in clean["cap_add"]
    assert clean["network_mode"] == "bridge"


def test_frame_buffer_splits_streams_and_lines():
    buf = FrameBuffer()
    data = (HEADER.pack(1, 6) + b'{"a":1' + HEADER.pack(2, 3) + b"err"
            + HEADER.pack(1, 2) + b"}\n")
    for i in range(len(data)):  # one byte at a time: frames may be cut anywhere
        buf.feed(data[i:i + 1])
    assert buf.line() == b'{"a":1}' and buf.line() is None and bytes(buf.stderr) == b"err"
    capped = FrameBuffer(keep_stdout=4)
    capped.feed(HEADER.pack(1, 5) + b"12345")
    assert capped.overflow and not capped.stdout


def _tar_of(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_tar_is_complete_spots_a_lost_tail():
    whole = _tar_of({"app/solution.py": b"print(1)\n" * 300})
    assert tar_is_complete(whole)
    assert not tar_is_complete(b"")
    # Block-aligned, but cut right after the member: the two closing zero blocks are gone.
    assert not tar_is_complete(whole[:512 + 3072])
    assert not tar_is_complete(whole[:1500])


def _sandbox_answering(answers: list[bytes]) -> tuple[DockerSandbox, list[list[str]]]:
    """A DockerSandbox whose ``docker exec`` returns ``answers`` in turn (no daemon)."""
    calls: list[list[str]] = []
    box = object.__new__(DockerSandbox)

    def exec_stream(argv: list[str], *, stdin: bytes | None) -> tuple[int, bytes, bytes]:
        calls.append(argv)
        return 0, answers[len(calls) - 1], b""

    box._exec_stream = exec_stream
    return box, calls


def test_copy_out_runs_tar_again_when_docker_loses_its_output():
    whole = _tar_of({"app/a.txt": b"hello"})
    box, calls = _sandbox_answering([b"", whole[:600], whole])
    assert box.copy_out(["/app"]) == whole and len(calls) == 3
    box, calls = _sandbox_answering([b""] * 3)
    with pytest.raises(SandboxError, match="truncated 3 times"):
        box.copy_out(["/app"])


def test_context_hash_tracks_content_names_and_modes(tmp_path):
    (tmp_path / "Dockerfile").write_text("FROM agentgym/base:bookworm\n")
    (tmp_path / "run.sh").write_text("echo hi\n")
    first = context_hash(tmp_path)
    assert first == context_hash(tmp_path) and len(first) == 12
    (tmp_path / "run.sh").chmod(0o755)
    second = context_hash(tmp_path)
    assert second != first
    (tmp_path / "run.sh").write_text("echo ho\n")
    os.chmod(tmp_path / "run.sh", stat.S_IRWXU)
    assert context_hash(tmp_path) not in (first, second)
    (tmp_path / "run.sh").rename(tmp_path / "go.sh")
    assert len({first, second, context_hash(tmp_path)}) == 3


def test_make_backend_refuses_unknown_names():
    with pytest.raises(ValueError, match="unknown sandbox backend 'lxc'"):
        make_backend("lxc")


@pytest.mark.parametrize("module", ["limits", "result", "pool", "images", "base_image", "runner",
                                    "errors", "policy", "protocols", "channel", "docker_client",
                                    "docker_cleanup", "docker_sandbox", "docker_backend"])
def test_docstring_examples(module):
    mod = importlib.import_module(f"agentgym.sandbox.{module}")
    failures, _ = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert failures == 0


class _Flaky:
    """A container whose removal fails ``failures`` times, then succeeds (or says gone)."""

    class NotFound(Exception):
        pass

    def __init__(self, failures: int, gone: bool = False) -> None:
        self.failures, self.gone, self.calls = failures, gone, 0

    def remove(self, force: bool) -> None:
        assert force
        self.calls += 1
        if self.calls <= self.failures:
            raise RuntimeError("500 Server Error: removal of container is already in progress")
        if self.gone:
            raise _Flaky.NotFound("404 Client Error: No such container")


def test_a_failed_container_removal_is_retried_until_it_is_gone(caplog):
    from agentgym.sandbox.docker_cleanup import remove_container

    box = _Flaky(failures=2)
    remove_container(box, pause_s=0)
    assert box.calls == 3  # the close used to return after the first failure
    gone = _Flaky(failures=0, gone=True)
    remove_container(gone, pause_s=0)
    assert gone.calls == 1  # already gone: done, not retried
    stuck = _Flaky(failures=99)
    remove_container(stuck, attempts=3, pause_s=0)  # never raises
    assert stuck.calls == 3 and "could not remove container" in caplog.text


def test_the_orphan_reaper_retries_a_busy_daemon_and_spares_live_owners(monkeypatch):
    import os
    import socket
    from types import SimpleNamespace

    from agentgym.sandbox import docker_cleanup

    monkeypatch.setattr(docker_cleanup.time, "sleep", lambda s: None)
    host = socket.gethostname()
    dead = _Flaky(failures=1)  # the daemon answers "already in progress" once
    live = _Flaky(failures=0)
    boxes = {"dead": dead, "live": live}
    summaries = [
        {"Id": "dead", "Labels": {"agentgym.sandbox.pid": str(2**22 + 1),
                                  "agentgym.sandbox.host": host}},
        {"Id": "live", "Labels": {"agentgym.sandbox.pid": str(os.getpid()),
                                  "agentgym.sandbox.pidstart": docker_cleanup.process_start(
                                      os.getpid()),
                                  "agentgym.sandbox.host": host}},
    ]
    client = SimpleNamespace(
        api=SimpleNamespace(containers=lambda all, filters: summaries),
        containers=SimpleNamespace(prepare_model=lambda attrs: boxes[attrs["Id"]]))
    assert docker_cleanup.reap_orphans(client) == 1
    assert dead.calls == 2 and live.calls == 0  # retried once; the live owner's kept
