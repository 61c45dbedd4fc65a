"""Docker's exec stream, and the framed JSON-lines channel to a runner attached over it.

Docker multiplexes a non-TTY exec's stdout and stderr on one socket: each frame is an 8-byte
header (stream id, three zero bytes, big-endian payload length), then the payload.
:class:`FrameBuffer` takes the frames apart; :class:`Channel` speaks JSON lines, one request
at a time, with the command runner (:mod:`agentgym.sandbox.runner`) at the other end.

>>> buf = FrameBuffer()
>>> buf.feed(HEADER.pack(1, 8) + b'{"a": 1}' + HEADER.pack(1, 1) + b"\\n")
>>> buf.line()
b'{"a": 1}'
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import time
from typing import Any

__all__ = ["HEADER", "STDERR_CAP", "Channel", "ChannelClosed", "ChannelTimeout", "FrameBuffer"]

#: One frame's header: stream id (1 stdout, 2 stderr), three zero bytes, payload length.
HEADER = struct.Struct(">BxxxL")
#: Bytes of stderr kept (a runner's stderr is only read to explain its death).
STDERR_CAP = 64 << 10


class ChannelClosed(ConnectionError):
    """The process at the other end exited (or its container stopped)."""


class ChannelTimeout(TimeoutError):
    """No complete answer arrived before the deadline."""


class FrameBuffer:
    """Demultiplexes Docker's exec stream: stdout kept up to ``keep_stdout`` bytes (then
    ``overflow`` is set), stderr capped at :data:`STDERR_CAP`.

    >>> buf = FrameBuffer()
    >>> buf.feed(HEADER.pack(1, 3) + b"ab\\n" + HEADER.pack(2, 1) + b"!")
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
        """Add bytes read from the socket; every complete frame is taken apart."""
        self._raw += data
        while len(self._raw) >= HEADER.size:
            stream, size = HEADER.unpack_from(self._raw)
            if len(self._raw) < HEADER.size + size:
                break
            payload = bytes(self._raw[HEADER.size:HEADER.size + size])
            del self._raw[:HEADER.size + size]
            if stream == 2:
                self.stderr += payload[: max(0, STDERR_CAP - len(self.stderr))]
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


class Channel:
    """JSON lines, one request at a time, with a process attached by
    ``exec_start(socket=True)`` (the runner's stdin and stdout).

    An answer longer than ``max_line`` bytes closes the channel rather than fill the host's
    memory.
    """

    def __init__(self, sock: Any, *, max_line: int) -> None:
        self._sock: socket.socket = getattr(sock, "_sock", sock)
        self._holder = sock  # the SDK's wrapper keeps the HTTP response alive
        self._buf = FrameBuffer()
        self._max_line = max_line
        self.closed = False

    def send(self, obj: dict[str, Any]) -> None:
        """Write one JSON line; raises ChannelClosed when the other end is gone."""
        if self.closed:
            raise ChannelClosed("channel closed")
        try:
            self._sock.sendall(json.dumps(obj).encode() + b"\n")
        except OSError as exc:
            self.closed = True
            raise ChannelClosed(str(exc)) from exc

    def receive(self, timeout: float) -> dict[str, Any]:
        """The next JSON line; raises ChannelTimeout, ChannelClosed, or ValueError when the
        line is not JSON."""
        deadline = time.monotonic() + timeout
        while True:
            line = self._buf.line()
            if line is not None:
                return json.loads(line)
            if len(self._buf.stdout) > self._max_line:
                self.close()
                raise ChannelClosed(f"answer longer than {self._max_line} bytes")
            left = deadline - time.monotonic()
            if left <= 0:
                raise ChannelTimeout(f"no answer within {timeout:.1f} s")
            self._sock.settimeout(left)
            try:
                data = self._sock.recv(1 << 20)
            except TimeoutError:
                continue
            except OSError as exc:
                self.closed = True
                raise ChannelClosed(str(exc)) from exc
            if not data:
                self.closed = True
                stderr = self._buf.stderr.decode("utf-8", "replace").strip()
                raise ChannelClosed("the runner ended" + (f": {stderr[-300:]}" if stderr else ""))
            self._buf.feed(data)

    def request(self, obj: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send ``obj`` and wait up to ``timeout`` seconds for the answer."""
        self.send(obj)
        return self.receive(timeout)

    def close(self) -> None:
        """Close the socket (idempotent)."""
        self.closed = True
        for closer in (self._sock.close, getattr(self._holder, "close", None)):
            if closer is not None:
                with contextlib.suppress(OSError):
                    closer()
