"""The two CPU savings the trainers rely on, each against the same work done without it.

* ``sampler-shared-prompts``: 16 prompts that are 4 distinct ones x 4 (VPR's K candidates of
  a state) against 16 distinct prompts of the same length. The sampler runs one prompt pass
  per distinct prompt and copies its KV cache to the rows that share it.
* ``update-trainable-layers``: one forward + backward of the policy loss's log-probs over 16
  sequences with every weight trainable, against ``trainable_layers=1`` (only the last block
  and the final norm): the backward pass stops above the frozen blocks.

Both use a random-weight Llama of 8 blocks, width 256 (SmolLM2's shape scaled down, so a
round takes well under a second on one core) and the byte tokenizer, with 180-token prompts
like the learning benchmark's. Unit: one call over 16 rows (generate: 8 new tokens each).
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from bench_common import describe, scaled  # noqa: E402

from agentgym.llm import TransformersSampler, byte_tokenizer, tiny_random_model  # noqa: E402
from agentgym.trainers.grpo import freeze_below  # noqa: E402
from agentgym.trainers.loss import collate, sequence_logprobs  # noqa: E402

PROMPT_TOKENS, ROWS, LAYERS, WIDTH = 180, 16, 8, 256


def _prompts(distinct: int) -> list[list[int]]:
    """``ROWS`` prompts of ``PROMPT_TOKENS`` ids, ``distinct`` different ones, each repeated."""
    base = [[3 + (7 * p + i) % 250 for i in range(PROMPT_TOKENS)] for p in range(distinct)]
    return [base[i % distinct] for i in range(ROWS)]


@pytest.fixture(scope="module")
def model_and_tokenizer():
    tok = byte_tokenizer()
    return tiny_random_model(tok, seed=0, hidden_size=WIDTH, layers=LAYERS), tok


@pytest.mark.parametrize(("distinct", "primary"), [(4, True), (ROWS, False)],
                         ids=["4-distinct-x4", "16-distinct"])
def test_sampler_shared_prompts(benchmark, model_and_tokenizer, distinct, primary):
    model, tok = model_and_tokenizer
    sampler = TransformersSampler(model, tok)
    prompts = _prompts(distinct)
    describe(benchmark, group="sampler-shared-prompts", side="agentgym",
             impl="TransformersSampler", variant="" if primary else "no shared prompts",
             unit="call", primary=primary)
    benchmark.pedantic(sampler.generate, args=(prompts,),
                       kwargs={"max_new_tokens": 8, "temperature": 1.0, "stop": None, "seed": 0},
                       rounds=scaled(5), warmup_rounds=1)


@pytest.mark.parametrize(("frozen", "primary"), [(True, True), (False, False)],
                         ids=["last-block-only", "all-trainable"])
def test_update_trainable_layers(benchmark, frozen, primary):
    tok = byte_tokenizer()
    model = tiny_random_model(tok, seed=0, hidden_size=WIDTH, layers=LAYERS)
    if frozen:
        freeze_below(model, 1)
    prompts = _prompts(ROWS)
    batch = collate(prompts, [tok.encode("<action>2 2</action>")] * ROWS, pad_id=0)
    model.train()

    def forward_backward() -> None:
        logprobs = sequence_logprobs(model, batch.input_ids, batch.attention_mask,
                                     batch.completion_mask)
        (-logprobs.sum()).backward()
        model.zero_grad(set_to_none=True)

    describe(benchmark, group="update-trainable-layers", side="agentgym",
             impl="sequence_logprobs + backward",
             variant="" if primary else "every weight trainable",
             unit="call", primary=primary)
    benchmark.pedantic(forward_backward, rounds=scaled(5), warmup_rounds=1)
