"""ByteCache: a cache bounded in bytes, shared by threads, building each key once."""

from __future__ import annotations

import threading
import time

import pytest

from agentgym.memo import ByteCache


def test_the_kept_entries_never_exceed_the_budget_and_the_oldest_go_first():
    cache = ByteCache(max_bytes=100, size_of=len)
    for i in range(10):
        cache.get(i, lambda i=i: "x" * (10 + i))
        assert cache.bytes <= 100
        kept = cache.keys()
        assert cache.bytes == sum(10 + k for k in kept)
    assert cache.keys() == [4, 5, 6, 7, 8, 9]  # 14 + ... + 19 = 99; with 13 it would be 112
    cache.get(5, lambda: pytest.fail("a hit must not build"))
    assert cache.keys()[-1] == 5 and cache.hits == 1


def test_an_entry_bigger_than_the_budget_is_returned_but_not_kept():
    cache = ByteCache(max_bytes=10, size_of=len)
    cache.get("small", lambda: "abc")
    assert cache.get("big", lambda: "y" * 11) == "y" * 11
    assert cache.keys() == ["small"] and cache.bytes == 3


def test_concurrent_calls_for_one_key_build_it_once():
    cache = ByteCache(max_bytes=1_000, size_of=len)
    calls = []

    def build() -> str:
        calls.append(1)
        time.sleep(0.2)
        return "world"

    results = []
    threads = [threading.Thread(target=lambda: results.append(cache.get("w", build)))
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == ["world"] * 8 and len(calls) == 1 and cache.builds == 1


def test_a_failed_build_raises_to_its_caller_and_a_later_call_builds_again():
    cache = ByteCache(max_bytes=100, size_of=len)
    with pytest.raises(RuntimeError):
        cache.get("k", lambda: (_ for _ in ()).throw(RuntimeError("no")))
    assert cache.get("k", lambda: "ok") == "ok"


def test_a_negative_budget_is_refused():
    with pytest.raises(ValueError, match="max_bytes must be >= 0"):
        ByteCache(max_bytes=-1, size_of=len)
