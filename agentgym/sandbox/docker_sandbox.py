"""One Docker sandbox: a locked-down container for one episode, commands through a runner.

Every container (see :func:`agentgym.sandbox.docker_backend.container_options`): ``--network
none`` (unless ``Limits.network``), memory (no swap), CPU and pids limits, user ``agent``
(1000:1000), all capabilities dropped, ``no-new-privileges``, a read-only root, size-capped
tmpfs mounts on the workspace, ``/tmp`` and the agent's home, an init process that reaps
orphans (``sleep infinity`` is its child), no Docker socket and no host mounts.

Commands go to a long-lived runner (:mod:`agentgym.sandbox.runner`) started by one exec and
attached over its socket (:mod:`agentgym.sandbox.channel`): a round trip costs a few
milliseconds where a ``docker exec`` costs tens. If the agent kills its runner, the next call
restarts it. Milestones go to a second runner started as uid 1001
(:meth:`DockerSandbox.run_check`: neither root nor the agent, which kills what each check
left). The verifier's test run trusts nothing inside its container:
:meth:`DockerSandbox.run_argv` is a ``docker exec`` of its own, as the uid it asks for, whose
exit code is the one Docker's API records. ``run_as_root_script`` starts a root runner on
first use (in an agent sandbox that root has no capabilities either).

>>> box = backend.start("agentgym/base:bookworm", Limits(), workdir="/app")  # doctest: +SKIP
>>> box.run("cd /tmp && pwd").stdout, box.run("pwd").cwd  # doctest: +SKIP
('/tmp\\n', '/tmp')
>>> tar_is_complete(bytes(1024))
True
"""

from __future__ import annotations

import base64
import contextlib
import json
import math
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from agentgym.sandbox.channel import Channel, ChannelClosed, ChannelTimeout, FrameBuffer
from agentgym.sandbox.docker_cleanup import Reaper, remove_container
from agentgym.sandbox.errors import SandboxError, first_line
from agentgym.sandbox.limits import Limits
from agentgym.sandbox.policy import (
    AGENT_HOME,
    AGENT_PATH,
    CHECK_ENV,
    CHECK_USER,
    ROOT_ENV,
    ROOT_PATH,
    runner_source,
)
from agentgym.sandbox.result import EXIT_KILLED, EXIT_TIMEOUT, CommandResult, decode_output

__all__ = ["DockerSandbox", "tar_is_complete"]

# Added to a command's own timeout before the host gives up on the runner's answer: the
# runner enforces the timeout itself, this only catches a runner that was stopped or wedged.
_GRACE_S = 3.0
_RUNNER_START_S = 30.0
# copy_out's tar runs again when Docker loses its output (moby #27289); a third loss is reported.
_COPY_OUT_TRIES = 3


class DockerSandbox:
    """One running container for one episode (see the module docstring for its limits).

    ``run`` executes as the container's user in the current working directory (``cd``
    persists, environment variables do not); background jobs end with the command that
    started them. Killing the container's main process ends the sandbox: every later
    ``run`` answers exit code 137 with an explanation.
    """

    #: A check can run as a uid of its own (``run_argv(user=...)``), apart from the agent's.
    separate_uids = True

    def __init__(self, client: Any, container: Any, limits: Limits, *, workdir: str,
                 user: str, image_env: dict[str, str], reaper: Reaper | None = None,
                 on_close: Callable[[DockerSandbox], None] | None = None) -> None:
        self._client = client
        self._container = container
        self.limits = limits
        self.workdir = workdir
        self.user = user
        self.cwd = workdir
        self._root = user.split(":")[0] in ("root", "0")
        home = "/root" if self._root else AGENT_HOME
        name = "root" if self._root else "agent"
        self._env = {**image_env, "HOME": home, "USER": name, "LOGNAME": name,
                     "LANG": image_env.get("LANG", "C.UTF-8"), "TERM": "dumb",
                     "SHELL": "/bin/bash", "PATH": image_env.get("PATH", AGENT_PATH)}
        self._channels: dict[str, tuple[Channel, int]] = {}
        self._reaper = reaper
        self._on_close = on_close
        self._lock = threading.Lock()
        self._dead = ""
        self.closed = False

    @property
    def id(self) -> str:
        """The container id."""
        return self._container.id

    # ------------------------------------------------------------------ commands
    def run(self, command: str, *, timeout_s: float | None = None) -> CommandResult:
        """Run one shell command (bash) and report what it did; never raises for the command.

        >>> box.run("echo hi").stdout  # doctest: +SKIP
        'hi\\n'
        """
        if not isinstance(command, str):
            raise TypeError(f"command must be a str, got {type(command).__name__}")
        timeout = self._timeout(timeout_s)
        request = {"op": "run", "cmd": command, "cwd": self.cwd, "timeout": timeout,
                   "limit": self.limits.output_limit}
        result = self._ask("main", request, timeout)
        if result.exit_code != EXIT_KILLED or not self._dead:
            self.cwd = result.cwd
        return result

    def run_as_root_script(self, script: str, *, timeout_s: float = 10.0) -> CommandResult:
        """Run ``script`` with ``sh -s`` as root (no capabilities in an agent sandbox), its text
        on stdin, ``PATH=/usr/sbin:/usr/bin:/sbin:/bin``, in the workdir. Nothing is written
        into the container.

        >>> box.run_as_root_script("id -u").stdout  # doctest: +SKIP
        '0\\n'
        """
        return self._script("main" if self._root else "root", script, timeout_s,
                            env=ROOT_ENV)

    def run_check(self, script: str, *, timeout_s: float = 5.0) -> CommandResult:
        """Run ``script`` with ``bash -s`` as :data:`CHECK_USER` (uid 1001: neither root nor
        the agent, no capabilities), in the workdir, with :data:`CHECK_ENV`; then kill every
        other process of that uid. Through a runner of that uid kept running (one round trip,
        not a ``docker exec``): the agent cannot reach it, but code the script itself runs
        shares its uid, so a check that runs the agent's code can be bent by that code.

        >>> box.run_check("id -u").stdout  # doctest: +SKIP
        '1001\\n'
        """
        return self._script("check", script, timeout_s, env=CHECK_ENV, shell="/bin/bash",
                            reap=True)

    def _script(self, which: str, script: str, timeout_s: float, *, env: dict[str, str],
                shell: str = "/bin/sh", reap: bool = False) -> CommandResult:
        """``script`` on ``shell -s``'s stdin through the runner ``which``, in the workdir."""
        if not isinstance(script, str):
            raise TypeError(f"script must be a str, got {type(script).__name__}")
        timeout = self._timeout(timeout_s)
        request = {"op": "script", "script": script, "cwd": self.workdir, "timeout": timeout,
                   "limit": self.limits.output_limit, "env": env, "shell": shell, "reap": reap}
        return self._ask(which, request, timeout, cwd=self.workdir)

    def ping(self) -> bool:
        """True when the container runs and its runner answers (a pooled sandbox's health)."""
        if self.closed or self._dead:
            return False
        with self._lock:
            try:
                chan = self._channel("main")
                return bool(chan.request({"op": "ping"}, 5.0).get("pong"))
            except (ChannelClosed, ChannelTimeout, SandboxError, ValueError):
                self._drop("main")
                return False

    def _timeout(self, timeout_s: float | None) -> float:
        timeout = self.limits.command_timeout_s if timeout_s is None else timeout_s
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise ValueError(f"timeout_s must be a positive number, got {timeout_s!r}")
        return float(timeout)

    def _ask(self, which: str, request: dict[str, Any], timeout: float, *,
             cwd: str | None = None) -> CommandResult:
        cwd = self.cwd if cwd is None else cwd
        started = time.monotonic()

        def fail(message: str, code: int = EXIT_KILLED, timed_out: bool = False) -> CommandResult:
            return CommandResult("", message + "\n", code, timed_out, False, cwd,
                                 time.monotonic() - started)

        with self._lock:
            if self.closed:
                return fail("the sandbox is closed")
            if self._dead:
                return fail(self._dead)
            try:
                chan = self._channel(which)
            except SandboxError as exc:
                return fail(self._dead or str(exc))
            try:
                answer = chan.request(request, timeout + _GRACE_S)
            except ChannelTimeout:
                self._kill_runner(which)
                return fail(f"the command runner stopped answering after {timeout:.1f} s; it "
                            "was killed and will be restarted", EXIT_TIMEOUT, True)
            except ValueError:  # not JSON: something wrote into the runner's stdout
                self._kill_runner(which)
                return fail("the command runner sent an unreadable answer; it was restarted",
                            126)
            except ChannelClosed:
                self._drop(which)
                if self._stopping():
                    return fail(self._dead)
                try:
                    self._channel(which, reap=True)
                except SandboxError as exc:
                    return fail(self._dead or f"the command runner was killed and could not "
                                f"be restarted: {exc}")
                return fail("the command runner was killed while this command ran (by the "
                            "command itself or the out-of-memory killer); it was restarted "
                            "for the next command")
        if "error" in answer:
            return fail(f"the sandbox could not run the command: {answer['error']}", 126)
        stdout = base64.b64decode(answer["stdout"])
        stderr = base64.b64decode(answer["stderr"])
        note = answer.get("note", "")
        return CommandResult(
            stdout=decode_output(stdout),
            stderr=decode_output(stderr) + (("\n" if stderr and not stderr.endswith(b"\n")
                                              else "") + note if note else ""),
            exit_code=int(answer["exit"]),
            timed_out=bool(answer["timed_out"]),
            truncated=int(answer["dropped"]) > 0,
            cwd=answer.get("cwd") or cwd,
            duration_s=time.monotonic() - started,
            dropped_bytes=int(answer["dropped"]),
        )

    # ------------------------------------------------------------------ runners
    def start_runners(self) -> None:
        """Start the agent's runner and the milestones' one now, so neither the first
        command nor the first check waits for a runner to start (an agent sandbox's start)."""
        self._channel("main")
        self._channel("check")

    def _channel(self, which: str, *, reap: bool = False) -> Channel:
        """The runner ``which`` ("main" or "root"), started if needed. ``reap``: a restart
        after the old one died mid-command; the new one first kills what that command left
        running (it was never stopped by its timeout)."""
        held = self._channels.get(which)
        if held is not None and not held[0].closed:
            return held[0]
        if not self._running():
            raise SandboxError(self._dead)
        user = {"root": "0:0", "check": CHECK_USER}.get(which, self.user)
        env = {"root": ROOT_ENV, "check": CHECK_ENV}.get(which, self._env)
        config = json.dumps({"env": env, "workdir": self.workdir, "reap": reap})
        api = self._client.api
        try:
            exec_id = api.exec_create(
                self._container.id, ["python3", "-I", "-c", runner_source(), config],
                stdin=True, stdout=True, stderr=True, user=user, workdir="/",
                environment=env)["Id"]
            chan = Channel(api.exec_start(exec_id, socket=True), max_line=64 << 20)
            hello = chan.receive(_RUNNER_START_S)
        except (ChannelClosed, ChannelTimeout, ValueError) as exc:
            raise SandboxError(f"the command runner did not start: {first_line(exc)}") from exc
        except Exception as exc:  # docker.errors.APIError and friends
            if not self._running():
                raise SandboxError(self._dead) from exc
            raise SandboxError(f"the command runner did not start: {first_line(exc)}") from exc
        self._channels[which] = (chan, int(hello["pid"]))
        return chan

    def _drop(self, which: str) -> None:
        held = self._channels.pop(which, None)
        if held is not None:
            held[0].close()

    def _kill_runner(self, which: str) -> None:
        """End a wedged runner (and, at the next start, what its command left running)."""
        held = self._channels.get(which)
        if held is not None:
            user = {"root": "0:0", "check": CHECK_USER}.get(which, self.user)
            with contextlib.suppress(Exception):
                self._container.exec_run(["kill", "-9", str(held[1])], user=user)
        self._drop(which)
        with contextlib.suppress(SandboxError):
            self._channel(which, reap=True)

    def _stopping(self) -> bool:
        """After the runner vanished: is the container going down? (Its state lags the
        death of PID 1 by tens of milliseconds, so look a few times.)"""
        for _ in range(4):
            if not self._running():
                return True
            time.sleep(0.05)
        return False

    def _running(self) -> bool:
        if self._dead:
            return False
        try:
            self._container.reload()
            state = self._container.attrs.get("State", {})
        except Exception:  # the container vanished
            state = {"Status": "removed"}
        if state.get("Status") == "running":
            return True
        detail = f"exit code {state.get('ExitCode')}" if "ExitCode" in state else "removed"
        if state.get("OOMKilled"):
            detail += "; the container hit its memory limit"
        self._dead = (f"the sandbox container stopped ({detail}): its main process (PID 1) "
                      "ended, so no command can run; start a new sandbox")
        return False

    # ------------------------------------------------------------------ files
    def copy_out(self, paths: list[str]) -> bytes:
        """A tar of the given absolute paths (member names without the leading ``/``).

        Unreadable or missing paths are left out. Raises SandboxError when tar fails, or when
        Docker loses its output three times in a row.
        """
        rel = []
        for path in paths:
            if not isinstance(path, str) or not path.startswith("/"):
                raise ValueError(f"copy_out paths must be absolute, got {path!r}")
            rel.append(os.path.normpath(path).lstrip("/") or ".")
        argv = ["tar", "-c", "-C", "/", "--ignore-failed-read", "--", *rel]
        for _ in range(_COPY_OUT_TRIES):
            code, out, err = self._exec_stream(argv, stdin=None)
            if code != 0:
                raise SandboxError(f"copy_out {paths} failed: {first_line(err.decode() or code)}")
            if tar_is_complete(out):
                return out
            # Docker can drop the tail (or all) of a fast-exiting exec's output (moby #27289);
            # tar only reads, so running it again is safe.
        raise SandboxError(f"copy_out {paths} came back truncated {_COPY_OUT_TRIES} times "
                           "(Docker lost the exec's output); try again")

    def copy_in(self, tar_bytes: bytes, dest: str) -> None:
        """Extract a tar into the directory ``dest`` (created if missing). An agent sandbox
        extracts as the agent (files owned by agent); a root one keeps the tar's owners."""
        if not isinstance(dest, str) or not dest.startswith("/"):
            raise ValueError(f"copy_in dest must be an absolute path, got {dest!r}")
        self._untar(tar_bytes, dest, strip=0)

    def seed_workspace(self, tar_bytes: bytes) -> None:
        """Fill the workdir's tmpfs from a tar of the image's workdir (its top directory
        stripped), before the sandbox is handed out."""
        self._untar(tar_bytes, self.workdir, strip=1)

    def _untar(self, tar_bytes: bytes, dest: str, *, strip: int) -> None:
        argv = ["sh", "-c", 'mkdir -p -- "$1" && exec tar -x -p -C "$1" '
                f"--strip-components={strip} {'' if self._root else '--no-same-owner'}",
                "sh", dest]
        code, _, err = self._exec_stream(argv, stdin=tar_bytes)
        if code != 0:
            raise SandboxError(f"copy_in to {dest} failed: {first_line(err.decode() or code)}")

    def run_argv(self, argv: list[str], *, user: str | None = None, stdin: bytes | None = None,
                 env: dict[str, str] | None = None, workdir: str = "/",
                 timeout_s: float = 120.0) -> CommandResult:
        """Run ``argv`` in its own ``docker exec`` and report the exit code as Docker's API
        saw it (``ExecInspect``), never as text from inside the container: what the verifier
        trusts. ``user`` is ``"uid:gid"`` (the sandbox's user by default), ``env`` the whole
        environment (a minimal one by default); ``timeout_s`` kills it (exit 137).

        >>> box.run_argv(["sh", "-c", "exit 3"]).exit_code  # doctest: +SKIP
        3
        """
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
            raise TypeError("argv must be a non-empty list of strings")
        started = time.monotonic()
        environ = dict(env) if env is not None else {"PATH": ROOT_PATH, "LANG": "C.UTF-8"}
        code, out, err = self._exec_stream(argv, stdin=stdin, timeout=self._timeout(timeout_s),
                                           user=user, env=environ, workdir=workdir)
        return CommandResult(decode_output(out), decode_output(err), code,
                             code == EXIT_KILLED and time.monotonic() - started >= timeout_s,
                             False, workdir, time.monotonic() - started)

    def _exec_stream(self, argv: list[str], *, stdin: bytes | None, timeout: float = 120.0,
                     user: str | None = None, env: dict[str, str] | None = None,
                     workdir: str = "/") -> tuple[int, bytes, bytes]:
        """One ``docker exec`` (as the sandbox's user unless ``user``) with stdin fed and
        output streamed; the exit code is Docker's."""
        if self.closed:
            raise SandboxError("the sandbox is closed")
        if not self._running():
            raise SandboxError(self._dead)
        api = self._client.api
        cap = (self.limits.workspace_mb + self.limits.tmp_mb + 64) << 20
        try:
            exec_id = api.exec_create(
                self._container.id,
                ["timeout", "-s", "KILL", str(max(1, math.ceil(timeout))), *argv],
                stdin=stdin is not None, stdout=True, stderr=True, user=user or self.user,
                workdir=workdir, environment=self._env if env is None else env)["Id"]
            sock = api.exec_start(exec_id, socket=True)
        except Exception as exc:
            raise SandboxError(f"docker exec failed: {first_line(exc)}") from exc
        raw: socket.socket = getattr(sock, "_sock", sock)
        frames = FrameBuffer(keep_stdout=cap)
        try:
            if stdin is not None:
                raw.sendall(stdin)
                raw.shutdown(socket.SHUT_WR)
            raw.settimeout(timeout + _GRACE_S)
            while True:
                data = raw.recv(1 << 20)
                if not data:
                    break
                frames.feed(data)
        except OSError as exc:
            raise SandboxError(f"docker exec stream failed: {first_line(exc)}") from exc
        finally:
            with contextlib.suppress(OSError):
                raw.close()
            with contextlib.suppress(OSError):
                sock.close()
        if frames.overflow:
            raise SandboxError(f"output of {argv[0]} is larger than {cap >> 20} MB")
        for _ in range(100):
            info = api.exec_inspect(exec_id)
            if not info.get("Running"):
                break
            time.sleep(0.01)
        code = info.get("ExitCode")
        return (code if code is not None else -1), bytes(frames.stdout), bytes(frames.stderr)

    # ------------------------------------------------------------------ lifetime
    def close(self, wait: bool = True) -> None:
        """Remove the container (idempotent). ``wait=False`` hands the removal to the
        backend's reaper thread (the backend's ``close`` waits for it): a reset then does
        not wait for Docker."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            for which in list(self._channels):
                self._drop(which)
        if not wait and self._reaper is not None:
            self._reaper.put(self._container)
        else:
            remove_container(self._container)
        if self._on_close is not None:
            self._on_close(self)

    def __enter__(self) -> DockerSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "dead" if self._dead else "running"
        return f"DockerSandbox({self._container.short_id}, {state}, cwd={self.cwd!r})"


def tar_is_complete(data: bytes) -> bool:
    """True when ``data`` is a whole tar stream: whole 512-byte blocks ending in the two zero
    blocks that close every archive. Docker losing an exec's last chunk fails this.

    >>> tar_is_complete(bytes(10240)), tar_is_complete(b""), tar_is_complete(bytes(10240)[:-7])
    (True, False, False)
    """
    return len(data) >= 1024 and len(data) % 512 == 0 and not any(data[-1024:])
