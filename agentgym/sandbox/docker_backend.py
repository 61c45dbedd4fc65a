"""The Docker backend: one locked-down container per episode, commands through a runner.

Every container: ``--network none`` (unless ``Limits.network``), memory (no swap), CPU and
pids limits, user ``agent`` (1000:1000), all capabilities dropped, ``no-new-privileges``, a
read-only root, size-capped tmpfs mounts on the workspace, ``/tmp`` and the agent's home, an
init process that reaps orphans (``sleep infinity`` is its child), no Docker socket and no
host mounts, and the label ``agentgym.sandbox=1`` with the owning process (host, pid and its
start time): a backend that starts removes the containers of owners that died
(:func:`reap_orphans`, also ``agentgym docker reap``), so a ``kill -9`` leaks nothing for
longer than the next start.

The workspace is a tmpfs (so filling it is contained by its size), seeded with the image's
workdir: a tar of it is captured once per image and streamed into ``tar -x`` through an
exec's stdin (``docker cp`` / ``put_archive`` cannot write into tmpfs mounts).

Commands go to a long-lived runner (:mod:`agentgym.sandbox.runner`) started by one exec and
attached over its socket: a round trip costs a few milliseconds where a ``docker exec`` costs
tens. If the agent kills its runner, the next call restarts it. Milestones go to a second
runner started as uid 1001 (:meth:`DockerSandbox.run_check`: neither root nor the agent,
which kills what each check left). The verifier's test run trusts nothing inside its
container: :meth:`DockerSandbox.run_argv` is a ``docker exec`` of its own, as the uid it asks
for, whose exit code is the one Docker's API records. ``run_as_root_script`` starts a root
runner on first use (in an agent sandbox that root has no capabilities either).

>>> backend = DockerBackend()  # doctest: +SKIP
>>> box = backend.start("agentgym/base:bookworm", Limits(), workdir="/app")  # doctest: +SKIP
>>> box.run("cd /tmp && pwd").stdout, box.run("pwd").cwd  # doctest: +SKIP
('/tmp\\n', '/tmp')
>>> backend.close()  # doctest: +SKIP
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import functools
import io
import json
import math
import os
import queue
import socket
import struct
import tarfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentgym.sandbox.limits import Limits
from agentgym.sandbox.result import EXIT_KILLED, EXIT_TIMEOUT, CommandResult, decode_output

__all__ = [
    "AGENT_USER",
    "CHECK_ENV",
    "CHECK_USER",
    "CLEAN_WRITABLE",
    "LABEL",
    "ROOT_PATH",
    "DockerBackend",
    "DockerSandbox",
    "SandboxError",
    "docker_available",
    "owner_labels",
    "process_start",
    "reap_orphans",
]

AGENT_USER = "1000:1000"
AGENT_HOME = "/home/agent"
LABEL = "agentgym.sandbox"
ROOT_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
_AGENT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
ROOT_ENV = {"PATH": ROOT_PATH, "HOME": "/root", "LANG": "C.UTF-8", "USER": "root"}
#: The uid of checks in an agent's sandbox (milestones): neither root nor the agent.
CHECK_USER = "1001:1001"
#: Their environment: no home to read configuration from, no git config but the system's.
CHECK_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8",
             "PYTHONDONTWRITEBYTECODE": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}
# Added to a command's own timeout before the host gives up on the runner's answer: the
# runner enforces the timeout itself, this only catches a runner that was stopped or wedged.
_GRACE_S = 3.0
_RUNNER_START_S = 30.0
# copy_out's tar runs again when Docker loses its output (moby #27289); a third loss is reported.
_COPY_OUT_TRIES = 3
# The capabilities the verifier's root needs to handle files the agent owns (copy them in
# with their owners, let tests write beside them); everything else stays dropped.
_CLEAN_ROOT_CAPS = ["CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETUID", "SETGID", "KILL"]
#: Where a verifier container may write besides its workdir, /tmp and /root (tmpfs mounts,
#: each ``tmp_mb``): the hidden tests and their reports (``/verifier``), Harbor's ``/tests``
#: and ``/logs``.
CLEAN_WRITABLE = ("/verifier", "/tests", "/logs")


class SandboxError(RuntimeError):
    """A sandbox could not be started, or a file copy failed (one-line message)."""


@functools.cache
def docker_available() -> bool:
    """True when the ``docker`` SDK is installed and a daemon answers (checked once).

    >>> isinstance(docker_available(), bool)
    True
    """
    try:
        import docker
    except ImportError:
        return False
    try:
        client = docker.from_env(timeout=5)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # any failure to reach a daemon means "not available"
        return False


def process_start(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot, from ``/proc``), "" when it is
    gone: with the pid it names one process for good, so a reused pid is not its owner.

    >>> process_start(os.getpid()) != "" and process_start(2 ** 22 + 1) == ""
    True
    """
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def owner_labels() -> dict[str, str]:
    """The labels naming this process as a container's owner (host, pid, its start time)."""
    pid = os.getpid()
    return {f"{LABEL}.pid": str(pid), f"{LABEL}.pidstart": process_start(pid),
            f"{LABEL}.host": socket.gethostname()}


def reap_orphans(client: Any = None) -> int:
    """Remove sandbox containers whose owning process (on this host) is gone: what a
    ``kill -9`` of a Python process leaves behind. Returns how many were removed.

    Every :class:`DockerBackend` calls it when it starts; ``agentgym docker reap`` calls it by
    hand. Only containers labelled with this host's name are touched, so other machines'
    sandboxes on a shared daemon are left alone; a container's owner is gone when its pid
    no longer runs, or runs a process that started at another time (a reused pid).
    """
    client = client or _client()
    host = socket.gethostname()
    removed = 0
    # The low-level listing: containers.list() inspects each container after listing them,
    # and raises NotFound when another process removes one in between.
    for summary in client.api.containers(all=True, filters={"label": f"{LABEL}.host={host}"}):
        labels = summary.get("Labels") or {}
        try:
            pid = int(labels.get(f"{LABEL}.pid", ""))
        except ValueError:
            continue  # no owner recorded: not ours to judge
        started = process_start(pid)
        if started and started == labels.get(f"{LABEL}.pidstart", started):
            continue  # the owner still runs
        with contextlib.suppress(Exception):  # already gone (removed by its owner's reaper)
            client.api.remove_container(summary["Id"], force=True)
        removed += 1
    return removed


def runner_source() -> str:
    """The runner's source, shipped to ``python3 -c`` (nothing is written in the container)."""
    return (Path(__file__).with_name("runner.py")).read_text()


def _client() -> Any:
    try:
        import docker
    except ImportError as exc:
        raise SandboxError("the docker SDK is missing: pip install 'agentgym[docker]'") from exc
    try:
        client = docker.from_env(timeout=120)
        client.ping()
    except Exception as exc:  # the SDK raises several types for "no daemon"
        raise SandboxError(f"no Docker daemon answers: {_first_line(exc)}") from exc
    return client


def _first_line(exc: BaseException | str) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:300]


def _env_dict(pairs: list[str] | None) -> dict[str, str]:
    out = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if sep:
            out[key] = value
    return out


def container_options(limits: Limits, *, workdir: str, clean: bool, user: str) -> dict[str, Any]:
    """The ``containers.create`` keyword arguments of a sandbox (a pure function).

    Both kinds have a read-only root and size-capped tmpfs mounts where writing is allowed.
    ``clean`` containers are the verifier's: writable mounts on the workdir (seeded from the
    image, owners kept), ``/tmp``, ``/root`` and the verifier's :data:`CLEAN_WRITABLE`
    directories, and, for root, the few capabilities needed to handle the agent's files. The
    agent's code runs there during the tests: it must not be able to fill the host's disk.

    >>> opts = container_options(Limits(), workdir="/app", clean=False, user="1000:1000")
    >>> opts["network_mode"], opts["cap_drop"], opts["read_only"], opts["pids_limit"]
    ('none', ['ALL'], True, 128)
    >>> opts["tmpfs"]["/app"]
    'size=256m,uid=1000,gid=1000,mode=0755,nosuid,nodev,exec'
    >>> sorted(container_options(Limits(), workdir="/app", clean=True, user="0:0")["tmpfs"])
    ['/app', '/logs', '/root', '/tests', '/tmp', '/verifier']
    """
    memory = f"{limits.memory_mb}m"
    tmpfs = {"/tmp": f"size={limits.tmp_mb}m,mode=1777,exec,nosuid,nodev"}
    if not clean:
        owned = "uid=1000,gid=1000,mode=0755,nosuid,nodev"
        tmpfs[workdir] = f"size={limits.workspace_mb}m,{owned},exec"
        tmpfs[AGENT_HOME] = f"size={limits.tmp_mb}m,{owned}"
    else:
        tmpfs[workdir] = f"size={limits.workspace_mb}m,mode=0755,nosuid,nodev,exec"
        for path in ("/root", *CLEAN_WRITABLE):
            tmpfs.setdefault(path, f"size={limits.tmp_mb}m,mode=0755,nosuid,nodev,exec")
    opts: dict[str, Any] = {
        "command": ["sleep", "infinity"],
        "init": True,
        "user": user,
        "working_dir": workdir,
        "network_mode": "bridge" if limits.network else "none",
        "mem_limit": memory,
        "memswap_limit": memory,
        "nano_cpus": int(limits.cpus * 1e9),
        "pids_limit": limits.pids,
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"],
        "read_only": True,
        "tmpfs": tmpfs,
        "shm_size": f"{limits.tmp_mb}m",
        "hostname": "sandbox",
        "labels": {LABEL: "1", **owner_labels(), f"{LABEL}.role": "clean" if clean else "agent"},
    }
    if clean and user.split(":")[0] in ("root", "0"):
        opts["cap_add"] = list(_CLEAN_ROOT_CAPS)
    return opts


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
                 user: str, image_env: dict[str, str], reaper: _Reaper | None = None,
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
                     "SHELL": "/bin/bash", "PATH": image_env.get("PATH", _AGENT_PATH)}
        self._channels: dict[str, tuple[_Channel, int]] = {}
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
            except (_ChannelClosed, _ChannelTimeout, SandboxError, ValueError):
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
            except _ChannelTimeout:
                self._kill_runner(which)
                return fail(f"the command runner stopped answering after {timeout:.1f} s; it "
                            "was killed and will be restarted", EXIT_TIMEOUT, True)
            except ValueError:  # not JSON: something wrote into the runner's stdout
                self._kill_runner(which)
                return fail("the command runner sent an unreadable answer; it was restarted",
                            126)
            except _ChannelClosed:
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
    def _channel(self, which: str, *, reap: bool = False) -> _Channel:
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
            chan = _Channel(api.exec_start(exec_id, socket=True), max_line=64 << 20)
            hello = chan.receive(_RUNNER_START_S)
        except (_ChannelClosed, _ChannelTimeout, ValueError) as exc:
            raise SandboxError(f"the command runner did not start: {_first_line(exc)}") from exc
        except Exception as exc:  # docker.errors.APIError and friends
            if not self._running():
                raise SandboxError(self._dead) from exc
            raise SandboxError(f"the command runner did not start: {_first_line(exc)}") from exc
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
                raise SandboxError(f"copy_out {paths} failed: {_first_line(err.decode() or code)}")
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

    def _untar(self, tar_bytes: bytes, dest: str, *, strip: int) -> None:
        argv = ["sh", "-c", 'mkdir -p -- "$1" && exec tar -x -p -C "$1" '
                f"--strip-components={strip} {'' if self._root else '--no-same-owner'}",
                "sh", dest]
        code, _, err = self._exec_stream(argv, stdin=tar_bytes)
        if code != 0:
            raise SandboxError(f"copy_in to {dest} failed: {_first_line(err.decode() or code)}")

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
            raise SandboxError(f"docker exec failed: {_first_line(exc)}") from exc
        raw: socket.socket = getattr(sock, "_sock", sock)
        frames = _FrameBuffer(keep_stdout=cap)
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
            raise SandboxError(f"docker exec stream failed: {_first_line(exc)}") from exc
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
            _remove(self._container)
        if self._on_close is not None:
            self._on_close(self)

    def __enter__(self) -> DockerSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "dead" if self._dead else "running"
        return f"DockerSandbox({self._container.short_id}, {state}, cwd={self.cwd!r})"


def _remove(container: Any) -> None:
    with contextlib.suppress(Exception):
        container.remove(force=True)


class _Reaper:
    """Removes containers in the background so closing one does not wait for Docker."""

    def __init__(self) -> None:
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def put(self, container: Any) -> None:
        with self._lock:  # with _loop's exit check: no container waits on a thread that left
            self._queue.put(container)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="agentgym-reaper",
                                                 daemon=True)
                self._thread.start()

    def _loop(self) -> None:
        while True:
            try:
                container = self._queue.get(timeout=1.0)
            except queue.Empty:
                with self._lock:
                    if self._queue.empty():
                        self._thread = None
                        return
                continue
            _remove(container)
            self._queue.task_done()

    def flush(self) -> None:
        """Wait until every queued container is removed."""
        self._queue.join()


_BACKENDS: set[DockerBackend] = set()


@atexit.register
def _close_all() -> None:
    for backend in list(_BACKENDS):
        backend.close()


class DockerBackend:
    """Starts sandboxes from images, keeps a warm pool per (image, limits, workdir).

    ``pool_size`` warm containers wait per key (0 disables the pool); at most ``max_pools``
    keys keep a pool (the least recently used one is drained first), so cycling through many
    task images does not pile up containers.

    >>> backend = DockerBackend(pool_size=2)  # doctest: +SKIP
    >>> box = backend.start("agentgym/base:bookworm", Limits(), workdir="/app")  # doctest: +SKIP
    >>> backend.close()  # doctest: +SKIP
    """

    name = "docker"

    def __init__(self, *, pool_size: int = 2, max_pools: int = 4) -> None:
        if not isinstance(pool_size, int) or pool_size < 0:
            raise ValueError(f"pool_size must be an int >= 0, got {pool_size!r}")
        if not isinstance(max_pools, int) or max_pools < 1:
            raise ValueError(f"max_pools must be an int >= 1, got {max_pools!r}")
        self.client = _client()
        # What a kill -9 of an earlier process on this host left running (its episode and its
        # warm spares) goes now, before this backend adds its own.
        with contextlib.suppress(Exception):
            reap_orphans(self.client)
        self.pool_size = pool_size
        self.max_pools = max_pools
        self._pools: dict[tuple[str, Limits, str], Any] = {}
        self._retired: list[Any] = []
        # Strong references: a sandbox dropped without close() is still removed by close().
        self._sandboxes: set[DockerSandbox] = set()
        self._seeds: dict[tuple[str, str], bytes] = {}
        self._images: dict[str, tuple[str, dict[str, str]]] = {}
        self._lock = threading.Lock()
        self._reaper = _Reaper()
        self.closed = False
        _BACKENDS.add(self)

    def prepare(self, image_context: Path, *, tag: str) -> str:
        """Build ``image_context`` (a directory with a Dockerfile), cached by its content hash;
        ``tag`` is the repository part, e.g. ``agentgym/task-csv-column-sum``."""
        from agentgym.sandbox.images import build_image

        return build_image(Path(image_context), tag_prefix=tag, client=self.client)

    def start(self, image: str, limits: Limits, *, workdir: str) -> DockerSandbox:
        """A sandbox for one episode as the agent user, from the warm pool when one is ready.

        Raises SandboxError (one line) when the image is missing or Docker fails.
        """
        self._check_open()
        key = (image, limits, workdir)
        if self.pool_size == 0:
            box = self._create(image, limits, workdir=workdir, user=AGENT_USER, clean=False)
            with self._lock:
                self._sandboxes.add(box)
            return box
        from agentgym.sandbox.pool import WarmPool

        def factory() -> DockerSandbox:
            return self._create(image, limits, workdir=workdir, user=AGENT_USER, clean=False)

        with self._lock:
            pool = self._pools.pop(key, None)
            if pool is not None:
                self._pools[key] = pool  # most recently used last
        if pool is None:
            # The first start of a key is cold, and proves the image works before a refill
            # thread starts making containers from it.
            box = factory()
            with self._lock:
                pool = self._pools.pop(key, None) or WarmPool(factory, size=self.pool_size)
                self._pools[key] = pool
        else:
            try:
                box = pool.take()
            except RuntimeError:  # evicted by another thread meanwhile: start cold
                box = factory()
        with self._lock:
            self._sandboxes.add(box)
            evicted = [self._pools.pop(k) for k in list(self._pools)[: -self.max_pools]]
        self._retire(evicted)
        return box

    def warm(self, image: str, limits: Limits, *, workdir: str,
             wait_s: float | None = None) -> int:
        """Fill the pool of (image, limits, workdir) ahead of the first ``start``; with
        ``wait_s``, block until it is full (or that many seconds passed). Returns how many
        sandboxes are ready. Raises SandboxError when the image is missing.

        >>> backend.warm(BASE_IMAGE, Limits(), workdir="/app", wait_s=30)  # doctest: +SKIP
        2
        """
        self._check_open()
        if self.pool_size == 0:
            return 0
        from agentgym.sandbox.pool import WarmPool

        self._image(image)  # fails fast, before a refill thread retries a missing image
        key = (image, limits, workdir)
        with self._lock:
            pool = self._pools.pop(key, None) or WarmPool(
                lambda: self._create(image, limits, workdir=workdir, user=AGENT_USER,
                                     clean=False), size=self.pool_size)
            self._pools[key] = pool
            evicted = [self._pools.pop(k) for k in list(self._pools)[: -self.max_pools]]
        self._retire(evicted)
        if wait_s is not None:
            pool.wait_ready(wait_s)
        return pool.ready()

    def start_clean(self, image: str, limits: Limits, *, workdir: str,
                    user: str = "root") -> DockerSandbox:
        """A fresh container straight from ``image`` (never pooled), for the verifier: the
        image's workdir as built (on a tmpfs), writable :data:`CLEAN_WRITABLE` directories,
        ``user`` for ``run``; everything else read-only."""
        self._check_open()
        uid = "0:0" if user in ("root", "0", "0:0") else AGENT_USER if user == "agent" else user
        box = self._create(image, limits, workdir=workdir, user=uid, clean=True)
        with self._lock:
            self._sandboxes.add(box)
        return box

    def _retire(self, pools: list[Any]) -> None:
        """Close evicted pools without waiting; ``close`` waits for their refill threads."""
        for pool in pools:
            pool.close(wait=False)
        with self._lock:
            self._retired.extend(pools)

    def _check_open(self) -> None:
        if self.closed:
            raise SandboxError("the Docker backend is closed")

    def _image(self, image: str) -> tuple[str, dict[str, str]]:
        """(image id, its environment), looked up once per image reference."""
        with self._lock:
            known = self._images.get(image)
        if known is not None:
            return known
        try:
            found = self.client.images.get(image)
        except Exception as exc:  # ImageNotFound, APIError
            hint = " (run `agentgym docker build-base`)" if "agentgym/base" in image else ""
            raise SandboxError(f"image {image} is not available: {_first_line(exc)}{hint}") \
                from exc
        known = (found.id, _env_dict(found.attrs.get("Config", {}).get("Env")))
        with self._lock:
            self._images[image] = known
        return known

    def _seed(self, image_id: str, workdir: str) -> bytes:
        """A tar of the image's workdir (top directory included), captured once per image."""
        key = (image_id, workdir)
        with self._lock:
            if key in self._seeds:
                return self._seeds[key]
        api = self.client.api
        cid = api.create_container(image_id, command=["true"],
                                   labels={LABEL: "1", **owner_labels(),
                                           f"{LABEL}.role": "seed"})["Id"]
        try:
            stream, _ = api.get_archive(cid, workdir)
            data = b"".join(stream)
        except Exception as exc:  # docker.errors.NotFound: no such workdir
            if "404" not in str(exc) and "No such" not in str(exc):
                raise SandboxError(f"could not read {workdir} of the image: {_first_line(exc)}") \
                    from exc
            data = b""
        finally:
            with contextlib.suppress(Exception):
                api.remove_container(cid, force=True)
        with self._lock:
            self._seeds[key] = data
        return data

    def _create(self, image: str, limits: Limits, *, workdir: str, user: str,
                clean: bool) -> DockerSandbox:
        if not isinstance(workdir, str) or not workdir.startswith("/") or workdir == "/":
            raise ValueError(f"workdir must be an absolute path below /, got {workdir!r}")
        image_id, image_env = self._image(image)
        seed = self._seed(image_id, workdir)
        opts = container_options(limits, workdir=workdir, clean=clean, user=user)
        name = f"agentgym-{'clean' if clean else 'sbx'}-{uuid.uuid4().hex[:12]}"
        try:
            container = self.client.containers.run(image_id, detach=True, name=name, **opts)
        except Exception as exc:  # docker.errors.*
            with contextlib.suppress(Exception):
                _remove(self.client.containers.get(name))
            raise SandboxError(f"could not start a container from {image}: "
                               f"{_first_line(exc)}") from exc
        box = DockerSandbox(self.client, container, limits, workdir=workdir, user=user,
                            image_env=image_env, reaper=self._reaper,
                            on_close=self._forget)
        try:
            if seed and _has_members(seed):
                box._untar(seed, workdir, strip=1)
            if not clean:  # the verifier's checks use run_argv; its runner starts on demand
                box._channel("main")
                box._channel("check")  # the milestones' runner, ready before the first check
        except BaseException:
            box.close()
            raise
        return box

    def _forget(self, box: DockerSandbox) -> None:
        with self._lock:
            self._sandboxes.discard(box)

    def close(self) -> None:
        """Remove every container this backend started (pools included); idempotent."""
        self.closed = True
        _BACKENDS.discard(self)
        with self._lock:
            pools, self._pools = [*self._pools.values(), *self._retired], {}
            self._retired = []
        for pool in pools:
            pool.close()
        with self._lock:
            boxes = list(self._sandboxes)
        for box in boxes:
            box.close(wait=False)
        self._reaper.flush()

    def __enter__(self) -> DockerBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def tar_is_complete(data: bytes) -> bool:
    """True when ``data`` is a whole tar stream: whole 512-byte blocks ending in the two zero
    blocks that close every archive. Docker losing an exec's last chunk fails this.

    >>> tar_is_complete(bytes(10240)), tar_is_complete(b""), tar_is_complete(bytes(10240)[:-7])
    (True, False, False)
    """
    return len(data) >= 1024 and len(data) % 512 == 0 and not any(data[-1024:])


def _has_members(tar_bytes: bytes) -> bool:
    """True when the archive holds more than its top directory."""
    with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as archive:
        return sum(1 for _ in zip(archive, range(2), strict=False)) > 1


# ---------------------------------------------------------------------- the exec stream
# Docker multiplexes a non-TTY exec's stdout and stderr on one socket: each frame is an 8-byte
# header (stream id, three zero bytes, big-endian payload length), then the payload.
_HEADER = struct.Struct(">BxxxL")
_STDERR_CAP = 64 << 10


class _ChannelClosed(ConnectionError):
    """The process at the other end exited (or its container stopped)."""


class _ChannelTimeout(TimeoutError):
    """No complete answer arrived before the deadline."""


class _FrameBuffer:
    """Demultiplexes Docker's exec stream: stdout kept up to ``keep_stdout`` bytes (then
    ``overflow`` is set), stderr capped.

    >>> buf = _FrameBuffer()
    >>> buf.feed(_HEADER.pack(1, 3) + b"ab\\n" + _HEADER.pack(2, 1) + b"!")
    >>> buf.line(), bytes(buf.stderr)
    (b'ab', b'!')
    """

    def __init__(self, keep_stdout: int = 1 << 62) -> None:
        self._raw = bytearray()
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.overflow = False
        self._keep = keep_stdout

    def feed(self, data: bytes) -> None:
        self._raw += data
        while len(self._raw) >= _HEADER.size:
            stream, size = _HEADER.unpack_from(self._raw)
            if len(self._raw) < _HEADER.size + size:
                break
            payload = bytes(self._raw[_HEADER.size:_HEADER.size + size])
            del self._raw[:_HEADER.size + size]
            if stream == 2:
                self.stderr += payload[: max(0, _STDERR_CAP - len(self.stderr))]
            elif len(self.stdout) + len(payload) > self._keep:
                self.overflow = True
            else:
                self.stdout += payload

    def line(self) -> bytes | None:
        """The next complete stdout line (without its newline), or None."""
        end = self.stdout.find(b"\n")
        if end < 0:
            return None
        out = bytes(self.stdout[:end])
        del self.stdout[: end + 1]
        return out


class _Channel:
    """JSON lines, one request at a time, with a process attached by
    ``exec_start(socket=True)`` (the runner's stdin and stdout)."""

    def __init__(self, sock: Any, *, max_line: int) -> None:
        self._sock: socket.socket = getattr(sock, "_sock", sock)
        self._holder = sock  # the SDK's wrapper keeps the HTTP response alive
        self._buf = _FrameBuffer()
        self._max_line = max_line
        self.closed = False

    def send(self, obj: dict[str, Any]) -> None:
        if self.closed:
            raise _ChannelClosed("channel closed")
        try:
            self._sock.sendall(json.dumps(obj).encode() + b"\n")
        except OSError as exc:
            self.closed = True
            raise _ChannelClosed(str(exc)) from exc

    def receive(self, timeout: float) -> dict[str, Any]:
        """The next JSON line; raises _ChannelTimeout or _ChannelClosed."""
        deadline = time.monotonic() + timeout
        while True:
            line = self._buf.line()
            if line is not None:
                return json.loads(line)
            if len(self._buf.stdout) > self._max_line:
                self.close()
                raise _ChannelClosed(f"answer longer than {self._max_line} bytes")
            left = deadline - time.monotonic()
            if left <= 0:
                raise _ChannelTimeout(f"no answer within {timeout:.1f} s")
            self._sock.settimeout(left)
            try:
                data = self._sock.recv(1 << 20)
            except TimeoutError:
                continue
            except OSError as exc:
                self.closed = True
                raise _ChannelClosed(str(exc)) from exc
            if not data:
                self.closed = True
                stderr = self._buf.stderr.decode("utf-8", "replace").strip()
                raise _ChannelClosed("the runner ended" + (f": {stderr[-300:]}" if stderr else ""))
            self._buf.feed(data)

    def request(self, obj: dict[str, Any], timeout: float) -> dict[str, Any]:
        self.send(obj)
        return self.receive(timeout)

    def close(self) -> None:
        self.closed = True
        for closer in (self._sock.close, getattr(self._holder, "close", None)):
            if closer is not None:
                with contextlib.suppress(OSError):
                    closer()
