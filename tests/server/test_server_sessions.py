"""The session store in process, with a fake clock: ids, dedupe, capacity, expiry, hang-ups."""

from __future__ import annotations

import asyncio
import json
import threading

import gymnasium as gym
import pytest
from toy_env import CounterEnv

from agentgym.core import Outcome
from agentgym.server.sessions import SessionStore

COUNTER = "agentgym-test/ServerCounter-v0"
SLOW = "agentgym-test/ServerSlow-v0"


class SlowCounterEnv(CounterEnv):
    """A counter whose moves wait until :data:`RELEASE` is set (an env call that blocks)."""

    blocking_io = True  # so the server calls it in a worker thread, as it does the browser env
    started = threading.Event()
    release = threading.Event()

    def _apply(self, move: str) -> Outcome:
        type(self).started.set()
        type(self).release.wait(timeout=30)
        return super()._apply(move)


for _id, _cls in ((COUNTER, CounterEnv), (SLOW, SlowCounterEnv)):
    if _id not in gym.registry:
        gym.register(id=_id, entry_point=_cls)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def run(coro):
    return asyncio.run(coro)


def test_session_ids_are_fresh_and_replies_are_remembered_per_request_id():
    async def scenario():
        store = SessionStore([COUNTER], replay_window=2)
        sids = set()
        for _ in range(50):
            reply = await store.handle("create", None, {"env_id": COUNTER})
            sids.add(reply.body["session_id"])
            await store.handle("close", reply.body["session_id"], {})
        assert len(sids) == 50 and not store.sessions
        sid = (await store.handle("create", None, {"env_id": COUNTER})).body["session_id"]
        await store.handle("reset", sid, {"seed": 0})
        steps = [await store.handle("step", sid, {"action": "dec", "request_id": f"s{i}"})
                 for i in range(3)]
        assert [r.body["info"]["step"] for r in steps] == [1, 2, 3]
        again = await store.handle("step", sid, {"action": "dec", "request_id": "s2"})
        assert again is steps[2]  # the stored reply itself
        # s0 fell out of the 2-reply window: a very late retry is applied again.
        late = await store.handle("step", sid, {"action": "dec", "request_id": "s0"})
        assert late.body["info"]["step"] == 4
        # Reads are never remembered (they change nothing).
        state = await store.handle("state", sid, {"request_id": "s1"})
        assert json.loads(state.body["state"])["steps"] == 4

    run(scenario())


def test_capacity_and_idle_expiry_follow_the_clock():
    async def scenario():
        clock = FakeClock()
        store = SessionStore([COUNTER], max_sessions=2, idle_timeout=10, clock=clock)
        a = (await store.handle("create", None, {"env_id": COUNTER})).body["session_id"]
        b = (await store.handle("create", None, {"env_id": COUNTER})).body["session_id"]
        busy = await store.handle("create", None, {"env_id": COUNTER})
        assert busy.status == 503 and busy.headers["Retry-After"] == "1"
        clock.now = 8.0
        await store.handle("reset", b, {"seed": 0})  # b is used; a is not
        clock.now = 12.0
        assert (await store.handle("create", None, {"env_id": COUNTER})).status == 200
        gone = await store.handle("reset", a, {"seed": 0})
        assert gone.status == 404 and "expired" in gone.body["error"]
        assert (await store.handle("reset", b, {"seed": 0})).status == 200
        clock.now = 100.0
        assert await store.expire() == 2 and not store.sessions
        assert store.expired_total == 3

    run(scenario())


def test_a_client_that_hangs_up_mid_step_does_not_double_the_retried_step():
    SlowCounterEnv.started.clear()
    SlowCounterEnv.release.clear()

    async def scenario():
        store = SessionStore([SLOW])
        sid = (await store.handle("create", None, {"env_id": SLOW})).body["session_id"]
        await store.handle("reset", sid, {"seed": 0})
        body = {"action": "inc", "request_id": "once"}
        first = asyncio.ensure_future(store.handle("step", sid, body))
        await asyncio.to_thread(SlowCounterEnv.started.wait, 30)  # the step is in its thread
        first.cancel()  # the connection dropped: the server cancels the request
        retry = asyncio.ensure_future(store.handle("step", sid, body))
        await asyncio.sleep(0.01)
        SlowCounterEnv.release.set()
        reply = await retry
        state = await store.handle("state", sid, {})
        return first, reply, json.loads(state.body["state"])["steps"]

    first, reply, steps = run(scenario())
    assert first.cancelled()
    assert reply.status == 200 and reply.body["info"]["step"] == 1
    assert steps == 1


def test_a_retried_create_gives_the_same_session():
    async def scenario():
        store = SessionStore([COUNTER])
        body = {"env_id": COUNTER, "request_id": "c1"}
        first, second = await asyncio.gather(store.handle("create", None, body),
                                             store.handle("create", None, body))
        assert first.body == second.body and len(store.sessions) == 1

    run(scenario())


@pytest.mark.parametrize("bad", [[], ["nope/X-v0"]])
def test_a_store_refuses_no_ids_or_unknown_ones(bad):
    with pytest.raises(ValueError):
        SessionStore(bad)
