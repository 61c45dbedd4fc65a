"""Dropped connections, a killed server and a restarted one, as a client sees them.

A :class:`~server_support.CuttingProxy` between RemoteEnv and the server cuts connections at
the worst moments (after the server applied a step, before the reply arrives; or before the
request gets through): the episode must go on exactly as the in-process one, with no step lost
or doubled.
"""

from __future__ import annotations

import time

import gymnasium as gym
import pytest
from server_support import CuttingProxy, ServerProcess

from agentgym.remote import RemoteEnvError

TTT = "agentgym/TicTacToe-v0"
SOKOBAN = "agentgym/Sokoban-v0"


def play(env: gym.Env, seed: int, steps: int, cut=None) -> list[tuple]:
    """(obs, reward, terminated, truncated, info) of the oracle's moves; ``cut(i)`` before each."""
    obs, info = env.reset(seed=seed)
    out = [(obs, info)]
    for i in range(steps):
        action = env.unwrapped.oracle_actions()[0]
        if cut is not None:
            cut(i)
        obs, reward, terminated, truncated, info = env.step(action)
        out.append((obs, reward, terminated, truncated, info))
        if terminated or truncated:
            break
    return out


@pytest.fixture
def proxy(server):
    p = CuttingProxy(server.port)
    yield p
    p.close()


@pytest.mark.parametrize("mode", ["drop_reply", "cut_and_refuse"])
def test_a_cut_connection_mid_episode_loses_and_doubles_no_step(proxy, mode):
    local = play(gym.make(SOKOBAN), seed=5, steps=12)
    env = gym.make(SOKOBAN, server_url=proxy.url, retry_for=10)
    cuts = []

    def cut(i: int) -> None:
        if i % 3 != 1:
            return
        if mode == "drop_reply":  # the server applies this step; its reply is lost
            proxy.drop_replies = 1
        else:  # the kept-alive connection dies, and the first reconnect is refused
            cuts.append(proxy.cut_all())
            proxy.refuse = 1

    remote = play(env, seed=5, steps=12, cut=cut)
    env.close()
    assert remote == local
    if mode == "drop_reply":
        assert proxy.dropped >= 2, "the proxy cut nothing; the test saw nothing"
    else:
        assert proxy.refused >= 2 and all(cuts), "the proxy cut nothing; the test saw nothing"
    steps = [info["step"] for *_, info in remote[1:]]
    assert steps == list(range(1, len(steps) + 1))


def test_a_dropped_reply_to_reset_and_set_state_is_retried_safely(proxy):
    env = gym.make(TTT, server_url=proxy.url).unwrapped
    env.reset(seed=2)
    env.step("2 2")
    snapshot = env.get_state()
    proxy.drop_replies = 1
    env.set_state(snapshot)
    proxy.drop_replies = 1
    obs, info = env.reset(seed=2)
    assert info["step"] == 0 and proxy.dropped == 2
    env.close()


def test_a_killed_server_is_a_clear_error_and_a_restarted_one_serves_new_sessions():
    proc = ServerProcess((TTT,)).start()
    try:
        env = gym.make(TTT, server_url=proc.url, retry_for=1.0, timeout=5.0)
        env.reset(seed=0)
        env.step("2 2")
        proc.kill()
        start = time.monotonic()
        with pytest.raises(RemoteEnvError, match="unreachable") as caught:
            env.step("1 1")
        assert time.monotonic() - start < 15, "the error must come within a bounded time"
        assert caught.value.status is None and proc.url in str(caught.value)

        restarted = ServerProcess((TTT,), port=proc.port).start()
        proc = restarted
        with pytest.raises(RemoteEnvError, match="restarted") as caught:
            env.step("1 1")  # the old session died with the old server: said, not hidden
        assert caught.value.status == 404
        env.close()
        fresh = gym.make(TTT, server_url=proc.url)
        obs, info = fresh.reset(seed=0)
        assert info["step"] == 0 and fresh.step("2 2")[4]["step"] == 1
        fresh.close()
    finally:
        proc.stop()


def test_no_server_at_all_is_a_clear_error_within_a_bounded_time():
    from server_support import free_port

    url = f"http://127.0.0.1:{free_port()}"
    start = time.monotonic()
    with pytest.raises(RemoteEnvError, match="unreachable"):
        gym.make(TTT, server_url=url, retry_for=0.5)
    assert time.monotonic() - start < 15


def test_a_server_that_never_answers_is_a_clear_timeout_error():
    import socket

    with socket.socket() as silent:  # accepts connections (the kernel does) and never replies
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        start = time.monotonic()
        with pytest.raises(RemoteEnvError, match=r"no reply within 0\.5 s"):
            gym.make(TTT, server_url=url, timeout=0.5, retry_for=0)
        assert time.monotonic() - start < 15
