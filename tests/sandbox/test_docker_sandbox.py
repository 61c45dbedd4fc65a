"""The Docker sandbox against a real daemon: commands, files, the pool, images, bad input."""

from __future__ import annotations

import io
import tarfile
import time

import pytest
from sandbox_support import BASE, FAST, needs_docker

from agentgym.sandbox import CommandResult, Limits, Sandbox

pytestmark = needs_docker


def _tar(files: dict[str, bytes], uid: int = 0) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.uid, info.gid, info.mode = len(data), uid, uid, 0o644
            archive.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_commands_run_as_agent_with_persistent_cwd(box):
    assert isinstance(box, Sandbox)
    first = box.run("id -u; pwd")
    assert isinstance(first, CommandResult)
    assert first.stdout == "1000\n/app\n" and first.exit_code == 0 and first.cwd == "/app"
    assert box.run("mkdir -p sub && cd sub").cwd == "/app/sub"
    assert box.run("pwd").stdout == "/app/sub\n"
    assert box.run("export FOO=1; cd /tmp").cwd == "/tmp"
    assert box.run('echo "[$FOO]"').stdout == "[]\n"  # environment variables do not persist
    failed = box.run("echo out; echo err >&2; exit 3")
    assert (failed.stdout, failed.stderr, failed.exit_code) == ("out\n", "err\n", 3)
    assert "syntax error" in box.run("if then").stderr
    assert box.run("cat").exit_code == 0  # stdin is /dev/null: nothing waits for input


def test_root_scripts_go_in_on_stdin(box):
    box.run("echo data > /app/f.txt")
    result = box.run_as_root_script("id -u\npwd\necho $PATH\ncat /app/f.txt\nexit 4\n")
    assert result.stdout == "0\n/app\n/usr/sbin:/usr/bin:/sbin:/bin\ndata\n"
    assert result.exit_code == 4
    # The script never lands in the container's filesystem.
    assert "exit 4" not in box.run("grep -rl 'exit 4' /app /tmp /home 2>/dev/null").stdout
    slow = box.run_as_root_script("sleep 30", timeout_s=0.5)
    assert slow.timed_out and slow.exit_code == 124


def test_copy_out_and_in_round_trip(backend, box):
    box.run("mkdir -p /app/pkg && printf 'x = 1\\n' > /app/pkg/mod.py && chmod 755 /app/pkg")
    data = box.copy_out(["/app"])
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        names = archive.getnames()
        assert archive.extractfile("app/pkg/mod.py").read() == b"x = 1\n"
    assert {"app", "app/pkg", "app/pkg/mod.py"} <= set(names)
    with pytest.raises(ValueError, match="absolute"):
        box.copy_out(["app"])
    box.copy_in(_tar({"notes/a.txt": b"hello"}), "/app/in")
    listing = box.run("stat -c '%U %n' /app/in/notes/a.txt; cat /app/in/notes/a.txt").stdout
    assert listing == "agent /app/in/notes/a.txt\nhello"
    clean = backend.start_clean(BASE, FAST, workdir="/app")
    try:
        clean.copy_in(data, "/")
        clean.copy_in(_tar({"tests/test_x.py": b"def test(): pass\n"}), "/verifier")
        out = clean.run("id -u; cat /app/pkg/mod.py; stat -c '%U' /app/pkg/mod.py "
                        "/verifier/tests/test_x.py")
        assert out.stdout == "0\nx = 1\nagent\nroot\n"
        # The agent's code runs here during the tests: the disk stays capped.
        assert clean.run("touch /etc/x /usr/x /x").exit_code != 0
        fill = clean.run("dd if=/dev/zero of=/verifier/big bs=1M count=100")
        assert "No space left on device" in fill.stderr
    finally:
        clean.close()


def test_workspace_is_seeded_from_the_image_and_owned_by_agent(tmp_path):
    from agentgym.sandbox.docker_backend import DockerBackend

    backend = DockerBackend(pool_size=0)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "data.csv").write_text("a,b\n1,2\n")
    (tmp_path / "Dockerfile").write_text(
        f"FROM {BASE}\nWORKDIR /app\nCOPY src/ /app/\nRUN chown -R 1000:1000 /app\n")
    tag = backend.prepare(tmp_path, tag="agentgym/task-sandbox-test")
    try:
        assert tag.startswith("agentgym/task-sandbox-test:")
        started = time.monotonic()
        assert backend.prepare(tmp_path, tag="agentgym/task-sandbox-test") == tag
        assert time.monotonic() - started < 1.0  # cached by content: no rebuild
        box = backend.start(tag, FAST, workdir="/app")
        out = box.run("stat -c '%U %n' data.csv; cat data.csv; touch new && echo ok")
        assert out.stdout == "agent data.csv\na,b\n1,2\nok\n"
        box.close()
        clean = backend.start_clean(tag, FAST, workdir="/app")
        assert clean.run("cat /app/data.csv; ls /app; stat -c %U /app/data.csv").stdout == \
            "a,b\n1,2\ndata.csv\nagent\n"
        clean.close()
    finally:
        backend.close()  # frees the image's containers before removing it
        backend.client.images.remove(tag, force=True)


def test_build_failure_names_the_dockerfile(tmp_path):
    from agentgym.sandbox import SandboxError
    from agentgym.sandbox.images import build_image

    (tmp_path / "Dockerfile").write_text(f"FROM {BASE}\nRUN exit 7\n")
    with pytest.raises(SandboxError, match=r"Dockerfile: image build failed: .*exit 7"):
        build_image(tmp_path, tag_prefix="agentgym/task-broken")
    with pytest.raises(SandboxError, match="no Dockerfile"):
        build_image(tmp_path / "missing", tag_prefix="agentgym/task-broken")


def test_warm_pool_makes_start_fast_and_close_is_idempotent():
    from agentgym.sandbox.docker_backend import DockerBackend

    with DockerBackend(pool_size=2) as backend:
        first = backend.start(BASE, FAST, workdir="/app")  # cold: creates the pool
        assert backend.warm(BASE, FAST, workdir="/app", wait_s=60) == 2
        pool = next(iter(backend._pools.values()))
        started = time.monotonic()
        warm = backend.start(BASE, FAST, workdir="/app")
        assert time.monotonic() - started < 0.5
        assert warm.run("echo warm").stdout == "warm\n" and pool.warm_takes == 1
        assert warm.id != first.id
        warm.close()
        warm.close()
        assert "closed" in warm.run("true").stderr
    with pytest.raises(Exception, match="closed"):
        backend.start(BASE, FAST, workdir="/app")


def test_missing_image_is_a_one_line_error(backend):
    from agentgym.sandbox import SandboxError

    for start in (backend.start_clean, backend.start, backend.warm):
        with pytest.raises(SandboxError, match="image agentgym/nope:1 is not available"):
            start("agentgym/nope:1", FAST, workdir="/app")
    assert not any(key[0] == "agentgym/nope:1" for key in backend._pools)


# ---------------------------------------------------------------------- bad input


def test_a_megabyte_command_works(box):
    result = box.run("printf '%s' " + "a" * 1_000_000 + " | wc -c")
    assert result.exit_code == 0 and result.stdout.strip() == "1000000"


def test_binary_output_is_shown_escaped(box):
    result = box.run(r"printf 'ok\000\377\033[2J'; head -c 3000 /dev/urandom >&2")
    assert result.stdout.startswith("ok\\x00\ufffd\\x1b[2J")
    assert "\x00" not in result.stderr and "\x1b" not in result.stderr
    assert box.run("echo fine").stdout == "fine\n"


def test_endless_output_is_capped_drained_and_timed_out(box):
    started = time.monotonic()
    result = box.run("yes", timeout_s=1.0)
    assert result.timed_out and result.exit_code == 124 and result.truncated
    assert len(result.stdout.encode()) <= FAST.output_limit
    assert result.dropped_bytes > 10 * FAST.output_limit
    assert time.monotonic() - started < 4
    burst = box.run("head -c 5000000 /dev/zero | tr '\\0' x")
    assert burst.exit_code == 0 and burst.truncated and not burst.timed_out
    assert len(burst.stdout) == FAST.output_limit and burst.dropped_bytes == 5_000_000 - 16_384
    assert box.run("echo usable").stdout == "usable\n"


def test_a_command_that_never_returns_is_killed_with_its_children(box):
    result = box.run("sleep 300 & (sleep 301 &) ; sleep 302", timeout_s=0.5)
    assert result.timed_out and result.exit_code == 124 and "timed out" in result.stderr
    assert box.run("ps -eo args | grep -c '^sleep 30[012]'").stdout == "0\n"
    # A background job ends with the command that started it.
    box.run("sleep 303 &")
    assert box.run("ps -eo args | grep -c '^sleep 303'").stdout == "0\n"


def test_bad_arguments_raise_clearly(box):
    with pytest.raises(TypeError, match="command must be a str"):
        box.run(b"ls")
    with pytest.raises(ValueError, match="timeout_s must be a positive number"):
        box.run("ls", timeout_s=0)
    with pytest.raises(ValueError, match=r"Limits\.memory_mb"):
        Limits(memory_mb=0)


def test_make_backend_auto_is_docker_here():
    from agentgym.sandbox import make_backend

    backend = make_backend("auto", pool_size=0)
    try:
        assert backend.name == "docker"
    finally:
        backend.close()
