"""Incremental stop detection (StopWatch) stops exactly where the full re-decode did."""

import random

import pytest

pytest.importorskip("transformers")

from agentgym.llm.models import _smollm2_tokenizer, byte_tokenizer, smollm2_gguf_path
from agentgym.llm.sampler import StopWatch, stop_index

STOPS = ["</action>", ("</search>", "</answer>"), "\n\n", " and", "é>", "中文"]
PIECES = ["<action>", "</action>", "</act", "ion>", "</search>", "</answer>", "hello", " and",
          "and", "é", "中文", "中", "🙂", "\n", "\n\n", " ", "<|im_end|>", "x" * 30, "1 2"]


def tokenizers():
    toks = [("byte", byte_tokenizer())]
    if smollm2_gguf_path() is not None:
        toks.append(("smollm2", _smollm2_tokenizer()))
    return toks


def first_stop_before(tok, ids, stop):
    """The old sampler's answer: the completion re-decoded after every token, then the cut
    found by binary search; None when it never stops."""
    for n in range(1, len(ids) + 1):
        cut = stop_index(tok, ids[:n], stop)
        if cut is not None:
            return cut
    return None


def first_stop_now(tok, ids, stop):
    watch = StopWatch(tok, stop)
    for n in range(1, len(ids) + 1):
        if watch.hit(ids[:n]):
            return n
    return None


def cases(tok, rng, count):
    for _ in range(count):
        if rng.random() < 0.7:  # text made of stop-like pieces, encoded
            text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 25)))
            ids = list(tok.encode(text, add_special_tokens=False))
        else:  # arbitrary token ids, special ones and partial UTF-8 bytes included
            ids = [rng.randrange(len(tok)) for _ in range(rng.randint(1, 60))]
        yield ids, rng.choice(STOPS)


@pytest.mark.parametrize(("name", "tok"), tokenizers(), ids=lambda v: v if isinstance(v, str)
                         else "")
def test_incremental_stop_equals_the_full_redecode_on_many_cases(name, tok):
    rng = random.Random(36)
    stopped = 0
    for ids, stop in cases(tok, rng, 200):
        before = first_stop_before(tok, ids, stop)
        assert first_stop_now(tok, ids, stop) == before, (name, ids, stop)
        stopped += before is not None
    assert 25 < stopped < 200  # both outcomes are well represented


def test_a_stop_after_a_long_completion_is_found_at_its_last_token():
    tok = byte_tokenizer()
    ids = tok.encode("é" * 3000 + "<action>1 1</action>tail")
    cut = first_stop_now(tok, ids, "</action>")
    assert tok.decode(ids[:cut]).endswith("</action>")
    assert first_stop_now(tok, ids[: cut - 1], "</action>") is None


def test_tokens_that_decode_to_nothing_widen_the_window():
    tok = byte_tokenizer()
    end = tok.convert_tokens_to_ids("<|im_end|>")
    ids = tok.encode("</act") + [end] * 40 + tok.encode("ion>")
    # Special tokens are skipped when decoding, so the text holds the stop across them.
    assert stop_index(tok, ids, "</action>") == len(ids)
    assert first_stop_now(tok, ids, "</action>") == len(ids)
