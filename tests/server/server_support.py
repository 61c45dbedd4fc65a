"""Live servers for the server tests: ``agentgym serve`` in a subprocess on a free loopback port.

:class:`ServerProcess` starts one, waits for ``/health`` and kills it (SIGKILL when asked);
:class:`CuttingProxy` sits between a client and a server and cuts connections on demand, the
way a flaky network does.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import httpx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: The ids the conformance run plays remotely.
REMOTE_IDS = ("agentgym/Sokoban-v0", "agentgym/TicTacToe-v0")


def free_port() -> int:
    """A loopback port nothing listens on (the kernel's pick)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """``python -m agentgym.cli serve IDS --port P ARGS...`` as a child process."""

    def __init__(self, env_ids: tuple[str, ...] = REMOTE_IDS, args: tuple[str, ...] = (),
                 port: int | None = None) -> None:
        self.env_ids = env_ids
        self.args = args
        self.fixed_port = port is not None
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, wait: float = 30.0, tries: int = 3) -> ServerProcess:
        cmd = [sys.executable, "-m", "agentgym.cli", "serve", *self.env_ids,
               "--port", str(self.port), *self.args]
        # stderr to a file, not a pipe: a pipe nobody reads would fill and stall the server.
        self.log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (lives as the server does)
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL,
                                     stderr=self.log, text=True)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.log.seek(0)
                error = self.log.read()
                self.log.close()
                if "cannot listen" in error and not self.fixed_port and tries > 1:
                    # Another process took the free port between the pick and the bind.
                    self.port = free_port()
                    return self.start(wait, tries - 1)
                raise RuntimeError(f"server exited: {error}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/health", timeout=1.0).status_code == 200:
                    return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"server on {self.url} not healthy within {wait} s")

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def kill(self) -> None:
        """SIGKILL: no shutdown handlers run."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        if self.proc is not None:
            self.log.close()


def open_fds(pid: int) -> int:
    """Open file descriptors of a process (Linux /proc)."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def rss_bytes(pid: int) -> int:
    """Resident set size of a process (Linux /proc)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


class CuttingProxy:
    """A loopback TCP proxy to ``upstream_port`` that cuts connections when told to.

    * ``drop_replies = n``: the next ``n`` replies from the server are not forwarded; the
      connection is closed instead (the server has applied the request, the client never
      hears of it).
    * ``refuse = n``: the next ``n`` connections are accepted and closed at once.
    * :meth:`cut_all`: close every open connection now (a kept-alive connection dies between
      two requests).
    """

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.drop_replies = 0
        self.refuse = 0
        self.dropped = 0
        self.refused = 0
        self._lock = threading.Lock()
        self._closing = False
        self._open: set[socket.socket] = set()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _take(self, name: str) -> bool:
        with self._lock:
            if getattr(self, name) > 0:
                setattr(self, name, getattr(self, name) - 1)
                return True
            return False

    def _accept(self) -> None:
        while not self._closing:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self._take("refuse"):
                self.refused += 1
                client.close()
                continue
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=10)
            upstream.settimeout(None)
            with self._lock:
                self._open.update((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream, False),
                             daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, True),
                             daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, replies: bool) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if replies and self._take("drop_replies"):
                    self.dropped += 1
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()
                with self._lock:
                    self._open.discard(s)

    def cut_all(self) -> int:
        """Cut every open connection; returns how many sockets were open."""
        with self._lock:
            sockets = list(self._open)
        for s in sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
        return len(sockets)

    def close(self) -> None:
        self._closing = True
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        self._thread.join(timeout=5)
