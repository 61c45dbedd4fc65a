"""The command runner: one long-lived Python process inside a sandbox that runs its commands.

A ``docker exec`` costs tens of milliseconds (an HTTP round trip, a new process set up by
runc); a pipe write to a process that is already running costs microseconds. So a sandbox
starts this file once (``python3 -c SOURCE CONFIG``, as the sandbox's user) and then speaks
JSON lines with it over that one exec's stdin and stdout:

request  ``{"op": "run", "cmd": "...", "cwd": "/app", "timeout": 10, "limit": 16384}``
(optional ``"stdin"``: base64 bytes fed to the command; otherwise its stdin is /dev/null)
response ``{"exit": 0, "stdout": b64, "stderr": b64, "dropped": 0, "timed_out": false,
"cwd": "/app", "duration": 0.003, "note": ""}``

Other ops: ``ping`` and ``script`` (text fed to ``sh -s`` on stdin, or ``"shell"``'s ``-s``;
with ``"reap": true`` every other process of the runner's uid is killed afterwards: the
milestones' runner, started as a uid of its own, does that after each check).

Each command runs in its own session, so it and everything it starts form one process
group: a timeout kills the group, and so does the command's end (background jobs end with
the command that started them; a fork bomb dies with its shell). The command text reaches
bash through a pipe, never argv, so a megabyte of command works (``MAX_ARG_STRLEN`` is
128 KiB).

This file is shipped as the source of ``python3 -c``: only the standard library of the
image's Python 3 (Debian bookworm: 3.11) may be used, and nothing from agentgym.

>>> exit_status(3 << 8), exit_status(9)
(3, 137)
"""

from __future__ import annotations

import base64
import contextlib
import errno
import fcntl
import json
import os
import selectors
import signal
import subprocess
import sys
import time

# Far above anything a command redirects by hand (``3>file``), so its fds survive.
_HIGH_FD = 200
# How long output is still read after a command's shell exited and its group was killed.
_DRAIN_S = 0.2
_CHUNK = 65536


def exit_status(status: int) -> int:
    """A ``waitpid`` status as a shell exit code (128 + signal when killed by one)."""
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def _high(fd: int) -> int:
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, _HIGH_FD)
    os.close(fd)
    return moved


def _oom_kills() -> int | None:
    """The memory cgroup's OOM-kill counter (cgroup v2 or v1), None where it is unreadable."""
    for path in ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"):
        try:
            with open(path) as handle:
                for line in handle:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            continue
    return None


def _pids() -> tuple[int, int] | None:
    """(processes in the container's pids cgroup, its limit), None where unreadable."""
    for base in ("/sys/fs/cgroup/pids", "/sys/fs/cgroup"):
        try:
            with open(f"{base}/pids.current") as cur, open(f"{base}/pids.max") as top:
                return int(cur.read()), int(top.read())
        except (OSError, ValueError):
            continue
    return None


def _is_main_sleep(pid: int) -> bool:
    """The container's ``sleep infinity`` under its init: killing it stops the container."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return ppid == 1 and handle.read() == b"sleep\0infinity\0"
    except (OSError, ValueError, IndexError):
        return False


def _kill_all_but_me() -> None:
    """SIGKILL every process this user may signal but the runner, PID 1 and the container's
    main sleep (``kill(-1)`` would take that too and stop the container). A few passes:
    a fork bomb forks while it is being killed."""
    keep = {1, os.getpid()}
    for _ in range(8):
        killed = 0
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) in keep:
                continue
            pid = int(name)
            if _is_main_sleep(pid):
                keep.add(pid)
                continue
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except OSError:  # gone, or another user's (root's runner)
                continue
        if not killed:
            return
        time.sleep(0.01)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


class Job:
    """One spawned process tree: its inputs fed, its outputs read into a capped buffer.

    ``inputs`` become pipes the child reads at high fd numbers (``fds[i]``); ``side`` adds
    one pipe the child writes to (the shell's final working directory).
    """

    def __init__(self, *, cwd: str, env: dict[str, str], stdin: bytes | None,
                 inputs: tuple[bytes, ...] = (), side: bool = False) -> None:
        self.cwd, self.env, self.stdin = cwd, env, stdin
        self.fds: list[int] = []
        self._child_ends: list[int] = []
        self._feeds: dict[int, bytes] = {}
        self._side_r: int | None = None
        for data in inputs:
            r, w = os.pipe()
            r = _high(r)
            self.fds.append(r)
            self._child_ends.append(r)
            self._feeds[w] = data
        if side:
            r, w = os.pipe()
            w = _high(w)
            self.fds.append(w)
            self._child_ends.append(w)
            self._side_r = r

    def start(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(
            argv, cwd=self.cwd, env=self.env, start_new_session=True,
            stdin=subprocess.PIPE if self.stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=self.fds,
        )
        for fd in self._child_ends:
            os.close(fd)
        self._child_ends = []
        if self.stdin is not None and self.proc.stdin is not None:  # a pipe when stdin is set
            self._feeds[self.proc.stdin.fileno()] = self.stdin

    def abandon(self) -> None:
        """Close every pipe end of a job that could not start."""
        for fd in [*self._child_ends, *self._feeds]:
            os.close(fd)
        if self._side_r is not None:
            os.close(self._side_r)
        self._child_ends, self._feeds, self._side_r = [], {}, None

    def collect(self, timeout: float, limit: int) -> dict:
        """Feed the inputs and read the outputs until the shell ends or ``timeout``; then kill
        its group, drain what is still coming for a moment and reap it. Output past ``limit``
        bytes (stdout and stderr together) is counted and dropped."""
        proc = self.proc
        stdin, stdout, stderr = proc.stdin, proc.stdout, proc.stderr
        assert stdout is not None and stderr is not None  # start() pipes both
        start = time.monotonic()
        sel = selectors.DefaultSelector()
        bufs = {stdout.fileno(): bytearray(), stderr.fileno(): bytearray()}
        open_reads = set(bufs)
        side = bytearray()
        if self._side_r is not None:
            open_reads.add(self._side_r)
        for fd in open_reads:
            sel.register(fd, selectors.EVENT_READ)
        feeds = {}
        for fd, data in self._feeds.items():
            os.set_blocking(fd, False)
            feeds[fd] = memoryview(data)
            sel.register(fd, selectors.EVENT_WRITE)
        self._feeds = {}
        pidfd = None
        try:
            pidfd = os.pidfd_open(proc.pid)
            sel.register(pidfd, selectors.EVENT_READ)
        except (AttributeError, OSError):
            pidfd = None

        stdin_fd = stdin.fileno() if stdin is not None else None
        out_fd, err_fd = stdout.fileno(), stderr.fileno()

        def close_feed(fd: int) -> None:
            sel.unregister(fd)
            if stdin is not None and fd == stdin_fd:
                stdin.close()  # the file object owns this fd
            else:
                os.close(fd)
            feeds.pop(fd, None)

        kept = dropped = 0
        timed_out = False
        drain_until: float | None = None
        while True:
            now = time.monotonic()
            if drain_until is None:
                exited = os.waitid(os.P_PID, proc.pid,
                                   os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
                if exited or now - start >= timeout:
                    timed_out = not exited
                    # The shell is alive or a zombie (WNOWAIT), so its pgid is not reused yet.
                    _kill_group(proc.pid)
                    drain_until = now + _DRAIN_S
                    for fd in list(feeds):
                        close_feed(fd)
                    if pidfd is not None:
                        sel.unregister(pidfd)
                        os.close(pidfd)
                        pidfd = None
            if drain_until is not None:
                wait = drain_until - now
                if wait <= 0 or not open_reads:
                    break
            else:
                wait = timeout - (now - start)
                if pidfd is None:
                    wait = min(wait, 0.005)
            for key, _ in sel.select(max(wait, 0.0)):
                fd = key.fd
                if fd == pidfd:
                    continue  # readable once the process exited; waitid above sees it
                if fd in feeds:
                    try:
                        n = os.write(fd, feeds[fd][:_CHUNK])
                    except BlockingIOError:
                        continue
                    except OSError:  # the child closed its end: it will not read the rest
                        n = len(feeds[fd])
                    feeds[fd] = feeds[fd][n:]
                    if not len(feeds[fd]):
                        close_feed(fd)
                    continue
                try:
                    chunk = os.read(fd, _CHUNK)
                except OSError:
                    chunk = b""
                if not chunk:
                    sel.unregister(fd)
                    open_reads.discard(fd)
                elif fd == self._side_r:
                    side += chunk[: 4096 - len(side)]
                else:
                    room = max(0, limit - kept)
                    bufs[fd] += chunk[:room]
                    kept += min(room, len(chunk))
                    dropped += max(0, len(chunk) - room)
        for fd in open_reads:
            sel.unregister(fd)
        sel.close()
        if self._side_r is not None:
            os.close(self._side_r)
            self._side_r = None
        _, status = os.waitpid(proc.pid, 0)
        proc.returncode = exit_status(status)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        return {
            "exit": 124 if timed_out else proc.returncode,
            "stdout": bytes(bufs[out_fd]), "stderr": bytes(bufs[err_fd]),
            "dropped": dropped, "timed_out": timed_out, "side": bytes(side),
            "duration": time.monotonic() - start,
        }


class Runner:
    """Reads requests from stdin, answers on stdout, one at a time."""

    def __init__(self, config: dict) -> None:
        self.env = dict(config.get("env") or {})
        self.workdir = config.get("workdir") or "/"

    def _spawn(self, job: Job, argv: list[str]) -> str:
        """Start ``job``; when the process limit is hit, end every other process this user
        owns (``kill(-1)`` spares the runner itself and PID 1) and retry once."""
        try:
            job.start(argv)
            return ""
        except OSError as exc:
            if exc.errno != errno.EAGAIN:
                job.abandon()
                raise
        _kill_all_but_me()
        try:
            job.start(argv)
        except OSError:
            job.abandon()
            raise
        return "the sandbox hit its process limit: every process of this user was killed\n"

    def run(self, req: dict) -> dict:
        cwd = req.get("cwd") or self.workdir
        if not os.path.isdir(cwd):
            cwd = self.workdir if os.path.isdir(self.workdir) else "/"
        before = _oom_kills()
        stdin = base64.b64decode(req["stdin"]) if req.get("stdin") is not None else None
        job = Job(cwd=cwd, env=req.get("env") or self.env, stdin=stdin,
                  inputs=(req["cmd"].encode("utf-8", "replace"),), side=True)
        cmd_fd, cwd_fd = job.fds
        # eval keeps bash's messages as "bash: line N: ..."; the EXIT trap reports where the
        # command left the shell, so `cd` persists into the next command.
        prologue = (
            f"trap 'printf \"%s\" \"$PWD\" >&{cwd_fd}' EXIT; "
            f"__agentgym_cmd=$(cat <&{cmd_fd}); exec {cmd_fd}<&-; "
            'eval "$__agentgym_cmd"'
        )
        note = self._spawn(job, ["/bin/bash", "--noprofile", "--norc", "-c", prologue, "bash"])
        out = job.collect(float(req.get("timeout", 10)), int(req.get("limit", 16384)))
        new_cwd = out["side"].decode("utf-8", "replace")
        out["cwd"] = new_cwd if new_cwd.startswith("/") and os.path.isdir(new_cwd) else cwd
        if out["timed_out"]:
            note += f"command timed out after {req.get('timeout')} s; its processes were killed\n"
        pids = _pids()
        if pids is not None and pids[0] * 4 > pids[1] * 3:
            # Processes that left the command's group (setsid) and fill the pids limit would
            # make every later command fail to fork: end them all.
            _kill_all_but_me()
            note += (f"{pids[0]} processes were left running (limit {pids[1]}): every "
                     "process of this user was killed\n")
        if out["exit"] == 137 and not out["timed_out"]:
            after = _oom_kills()
            if before is not None and after is not None and after > before:
                note += "the command was killed by the out-of-memory killer (memory limit)\n"
        out["note"] = note
        return out

    def script(self, req: dict) -> dict:
        cwd = req.get("cwd") or self.workdir
        job = Job(cwd=cwd if os.path.isdir(cwd) else "/", env=req.get("env") or self.env,
                  stdin=req["script"].encode("utf-8", "replace"))
        note = self._spawn(job, [req.get("shell") or "/bin/sh", "-s"])
        out = job.collect(float(req.get("timeout", 10)), int(req.get("limit", 16384)))
        out["cwd"] = cwd
        if out["timed_out"]:
            note += f"script timed out after {req.get('timeout')} s; its processes were killed\n"
        if req.get("reap"):
            # A check's runner has a uid of its own: whatever the script started and left
            # (setsid, double fork) is this uid's, and none of it may outlive the check.
            _kill_all_but_me()
        out["note"] = note
        return out

    def handle(self, req: dict) -> dict:
        op = req.get("op")
        if op == "ping":
            return {"pong": True, "pid": os.getpid()}
        # An op that is not a string (a list, say) is unknown too, not a crash of the runner.
        handler = {"run": self.run, "script": self.script}.get(op) if isinstance(op, str) else None
        if handler is None:
            return {"error": f"unknown op {op!r}"}
        try:
            out = handler(req)
        except OSError as exc:
            return {"error": f"could not start: {exc}"}
        except MemoryError:
            return {"error": "the runner ran out of memory holding the output"}
        except (ValueError, KeyError, TypeError) as exc:  # a malformed request, not a crash
            return {"error": f"bad request: {type(exc).__name__}: {exc}"}
        try:
            for key in ("stdout", "stderr", "side"):
                out[key] = base64.b64encode(out[key]).decode()
        except MemoryError:
            return {"error": "the runner ran out of memory holding the output"}
        return out


def main() -> None:
    config = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    # The runner must outlive the commands it kills; SIGPIPE would end it when a client goes.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if config.get("reap"):
        # A restart after the previous runner died mid-command: that command's processes
        # were never stopped by its timeout.
        _kill_all_but_me()
    runner = Runner(config)
    out = sys.stdout.buffer
    out.write(json.dumps({"ready": True, "pid": os.getpid()}).encode() + b"\n")
    out.flush()
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError as exc:
            answer = {"error": f"bad request: {exc}"}
        else:
            answer = runner.handle(req)
        out.write(json.dumps(answer).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()

