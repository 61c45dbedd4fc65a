"""Choice decoding: the cached, batched scoring equals scoring each full sequence on its own."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from agentgym.llm.choice import choose, continuation_logprobs  # noqa: E402
from agentgym.llm.models import byte_tokenizer, tiny_random_model  # noqa: E402


@pytest.fixture(scope="module")
def tiny():
    tok = byte_tokenizer()
    return tiny_random_model(tok, seed=3), tok


def _one_by_one(model, prompt, cont):
    """Log-probability of ``cont`` after ``prompt`` from one plain forward pass, no cache."""
    with torch.inference_mode():
        logits = model(input_ids=torch.tensor([prompt + cont])).logits[0].float()
    logp = torch.log_softmax(logits, dim=-1)
    return sum(float(logp[len(prompt) - 1 + i, tok]) for i, tok in enumerate(cont))


def test_batched_scores_equal_each_sequence_scored_alone(tiny):
    model, tok = tiny
    prompt = tok.encode("<|im_start|>user\nboard<|im_end|>\n")
    conts = [tok.encode(s) for s in ("<action>1 1</action>", "x", "<action>3 3</action>", "ab")]
    got = continuation_logprobs(model, prompt, conts)
    want = [_one_by_one(model, prompt, c) for c in conts]
    assert got == pytest.approx(want, abs=1e-4)
    # Different continuations of different lengths really get different scores.
    assert len({round(g, 3) for g in got}) == len(got)


def test_scores_do_not_depend_on_the_other_candidates(tiny):
    model, tok = tiny
    prompt = tok.encode("choose: ")
    alone = continuation_logprobs(model, prompt, [tok.encode("yes")])
    among = continuation_logprobs(model, prompt, [tok.encode("no, never"), tok.encode("yes")])
    assert alone[0] == pytest.approx(among[1], abs=1e-4)


@pytest.mark.parametrize("prompt, conts", [([], [[5]]), ([5], []), ([5], [[6], []])])
def test_empty_prompt_or_candidate_is_refused(tiny, prompt, conts):
    model, _ = tiny
    with pytest.raises(ValueError):
        continuation_logprobs(model, prompt, conts)


def test_choose_is_greedy_at_zero_and_follows_the_softmax_otherwise():
    rng = np.random.default_rng(0)
    assert choose([-5.0, -0.5, -0.5, -9.0], 0.0, rng) == 1  # the first of the best
    draws = [choose([0.0, np.log(3.0)], 1.0, np.random.default_rng(s)) for s in range(2000)]
    assert np.mean(draws) == pytest.approx(0.75, abs=0.03)  # p = 3 / (1 + 3)
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError):
            choose([0.0], bad, rng)
    with pytest.raises(ValueError):
        choose([], 0.0, rng)


def test_a_cache_budget_scores_in_smaller_batches_with_the_same_scores(tiny, monkeypatch):
    import agentgym.llm.choice as choice

    model, tok = tiny
    prompt = tok.encode("a long enough prompt to have a cache: " * 4)
    conts = [tok.encode(s) for s in ("<action>1</action>", "no", "x", "<action>22</action>",
                                     "yes please", "ok")]
    whole = continuation_logprobs(model, prompt, conts)
    batches = []
    real = choice._rest_logprobs

    def spy(model, cache, prompt_len, chunk, device):
        batches.append(len(chunk))
        return real(model, cache, prompt_len, chunk, device)

    monkeypatch.setattr(choice, "_rest_logprobs", spy)
    one_row = continuation_logprobs(model, prompt, conts, max_cache_bytes=1)
    assert one_row == pytest.approx(whole, abs=1e-5)
    assert batches == [1, 1, 1, 1, 1]  # "x" has one token: scored by the prompt pass alone
    batches.clear()
    with torch.inference_mode():
        out = model(input_ids=torch.tensor([prompt]), use_cache=True)
    per_row = choice._cache_bytes(out.cache) * (len(prompt) + 19) / len(prompt)
    assert continuation_logprobs(model, prompt, conts, max_cache_bytes=int(2.5 * per_row)) == \
        pytest.approx(whole, abs=1e-5)
    assert batches == [2, 2, 1]
