"""The framed JSON-lines channel to a runner, against a socket pair (no Docker needed).

The far end plays a runner behind ``docker exec``: it reads JSON lines and answers in
Docker's multiplexed frames, or misbehaves (garbage, silence, an endless line, hanging up).
"""

from __future__ import annotations

import json
import socket
import threading

import pytest

from agentgym.sandbox.channel import (
    HEADER,
    STDERR_CAP,
    Channel,
    ChannelClosed,
    ChannelTimeout,
    FrameBuffer,
)


def _frame(stream: int, payload: bytes) -> bytes:
    return HEADER.pack(stream, len(payload)) + payload


@pytest.fixture()
def pair():
    near, far = socket.socketpair()
    chan = Channel(near, max_line=1024)
    yield chan, far
    chan.close()
    far.close()


def test_a_request_gets_its_answer_even_cut_into_pieces(pair):
    chan, far = pair
    answer = _frame(1, b'{"exit": 0, "std') + _frame(2, b"warn") + _frame(1, b'out": "aGk="}\n')

    def runner():
        assert json.loads(far.makefile("rb").readline()) == {"op": "ping"}
        for i in range(0, len(answer), 5):  # frames and headers cut anywhere
            far.sendall(answer[i:i + 5])

    thread = threading.Thread(target=runner)
    thread.start()
    assert chan.request({"op": "ping"}, 5.0) == {"exit": 0, "stdout": "aGk="}
    thread.join()


def test_garbage_on_stdout_is_a_value_error(pair):
    chan, far = pair
    far.sendall(_frame(1, b"Traceback (most recent call last)\n"))
    with pytest.raises(ValueError):
        chan.receive(2.0)


def test_silence_times_out(pair):
    chan, far = pair
    far.sendall(_frame(1, b'{"half": '))
    with pytest.raises(ChannelTimeout, match=r"no answer within 0\.2 s"):
        chan.receive(0.2)
    assert not chan.closed  # a timeout leaves the decision to kill the runner to the caller


def test_a_runner_that_ends_says_why_from_its_stderr(pair):
    chan, far = pair
    far.sendall(_frame(2, b"MemoryError\n"))
    far.close()
    with pytest.raises(ChannelClosed, match="the runner ended: MemoryError"):
        chan.receive(2.0)
    assert chan.closed
    with pytest.raises(ChannelClosed, match="channel closed"):
        chan.send({"op": "ping"})


def test_an_endless_line_closes_the_channel_instead_of_filling_memory(pair):
    chan, far = pair
    far.sendall(_frame(1, b"x" * 2000))  # no newline, past max_line=1024
    with pytest.raises(ChannelClosed, match="answer longer than 1024 bytes"):
        chan.receive(2.0)
    assert chan.closed


def test_frame_buffer_caps_stderr_and_stdout():
    buf = FrameBuffer(keep_stdout=8)
    buf.feed(_frame(2, b"e" * (STDERR_CAP + 10)) + _frame(1, b"12345678") + _frame(1, b"9"))
    assert len(buf.stderr) == STDERR_CAP
    assert bytes(buf.stdout) == b"12345678" and buf.overflow
    assert buf.line() is None  # no newline yet: nothing complete
