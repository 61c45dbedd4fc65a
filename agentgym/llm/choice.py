"""Choosing among given continuations by the model's likelihood (``decoding="choice"``).

A small model often cannot write a legal move on its own: SmolLM2-135M echoes the board instead
of answering ``<action>2 3</action>``. When the env lists its legal actions
(``info["available_actions"]``), the model can still *choose*: each candidate reply is scored
by the log-probability the model gives its tokens after the prompt, and the agent answers with
the best (or samples one, by those probabilities, at a temperature). Every move is then legal
and still the model's own preference, which is what lets a newcomer watch a tiny local model
play. It is a different agent from free generation, and the evaluation records it as such
(the agent's ``describe()`` names the decoding).

The prompt is run once (its key/value cache is shared by every candidate), then the
candidates in right-padded batches, as many rows at once as their copies of that cache fit
:data:`MAX_CACHE_BYTES`, so a turn costs one prompt pass plus a few tokens per candidate.

>>> from agentgym.llm.models import byte_tokenizer, tiny_random_model
>>> tok = byte_tokenizer()
>>> model = tiny_random_model(tok)
>>> prompt = tok.encode("pick one: ")
>>> scores = continuation_logprobs(model, prompt, [tok.encode("a"), tok.encode("bc")])
>>> len(scores), all(s < 0 for s in scores)
(2, True)
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

__all__ = ["MAX_CACHE_BYTES", "choose", "continuation_logprobs"]


#: The most memory the candidates' copies of the prompt's key/value cache may take at once.
#: Each candidate row holds a whole copy; with a long prompt (8,000 tokens of SmolLM2-135M is
#: 370 MB a row) 64 rows at once would take 24 GB, so rows go in chunks under this budget.
MAX_CACHE_BYTES = 1 << 30


def _cache_bytes(cache: Any) -> int:
    """Bytes of a key/value cache's tensors (0 when its layout is unknown)."""
    total = 0
    for layer in getattr(cache, "layers", ()):
        for tensor in (getattr(layer, "keys", None), getattr(layer, "values", None)):
            if isinstance(tensor, torch.Tensor):
                total += tensor.numel() * tensor.element_size()
    return total


@torch.inference_mode()
def continuation_logprobs(
    model: Any,
    prompt_ids: Sequence[int],
    continuations: Sequence[Sequence[int]],
    *,
    max_cache_bytes: int = MAX_CACHE_BYTES,
) -> list[float]:
    """Sum of the model's log-probabilities of each continuation's tokens after ``prompt_ids``.

    Equal (to float rounding) to scoring ``prompt + continuation`` in one forward pass each;
    here the prompt runs once and the continuations share its cache, in batches whose copies
    of that cache fit ``max_cache_bytes`` (at least one row a batch).
    """
    if not prompt_ids:
        raise ValueError("prompt_ids is empty: a continuation needs a prompt to follow")
    if not continuations or any(len(c) == 0 for c in continuations):
        raise ValueError("every continuation needs at least one token")
    device = next(model.parameters()).device
    prompt = torch.tensor([list(prompt_ids)], device=device)
    out = model(input_ids=prompt, use_cache=True)
    first = torch.log_softmax(out.logits[0, -1].float(), dim=-1)  # the first token of each
    totals = [float(first[c[0]]) for c in continuations]
    longer = [i for i, c in enumerate(continuations) if len(c) > 1]
    # A row's cache: the prompt's, grown by the candidate's tokens.
    longest = max(len(c) for c in continuations)
    per_row = _cache_bytes(out.cache) * (len(prompt_ids) + longest) / len(prompt_ids)
    rows = max(1, int(max_cache_bytes // max(per_row, 1)))
    for start in range(0, len(longer), rows):
        chunk = longer[start:start + rows]
        for i, score in zip(chunk, _rest_logprobs(model, out.cache, len(prompt_ids),
                                                   [continuations[i] for i in chunk], device),
                            strict=True):
            totals[i] += score
    return totals


def _rest_logprobs(
    model: Any, prompt_cache: Any, prompt_len: int, conts: Sequence[Sequence[int]], device: Any
) -> list[float]:
    """Log-probabilities of each continuation's tokens after its first, given the prompt's
    cache (left as it is: the batch works on a copy)."""
    count, longest = len(conts), max(len(c) for c in conts)
    ids = torch.zeros((count, longest), dtype=torch.long, device=device)
    for row, cont in enumerate(conts):
        ids[row, : len(cont)] = torch.tensor(list(cont), device=device)
    cache = copy.deepcopy(prompt_cache)
    cache.batch_repeat_interleave(count)
    # Right padding: a row's padded tail is masked out and never scored.
    lengths = torch.tensor([len(c) for c in conts], device=device)
    valid = torch.arange(longest, device=device)[None, :] < lengths[:, None]
    mask = torch.cat(
        [torch.ones((count, prompt_len), dtype=torch.long, device=device), valid.long()], dim=1)
    rest = model(input_ids=ids[:, :-1], cache=cache, use_cache=True, attention_mask=mask[:, :-1])
    logp = torch.log_softmax(rest.logits.float(), dim=-1)
    picked = logp.gather(-1, ids[:, 1:, None])[..., 0]
    return [float(t) for t in (picked.double() * valid[:, 1:]).sum(dim=1)]


def choose(scores: Sequence[float], temperature: float, rng: np.random.Generator) -> int:
    """Index of the chosen candidate: the best score at temperature 0 (first on ties), else a
    draw from ``softmax(scores / temperature)``.

    >>> choose([-3.0, -1.0, -2.0], 0.0, np.random.default_rng(0))
    1
    >>> picks = {choose([-1.0, -1.0], 1.0, np.random.default_rng(s)) for s in range(20)}
    >>> sorted(picks)
    [0, 1]
    """
    if not scores:
        raise ValueError("no candidates to choose from")
    if temperature < 0 or not math.isfinite(temperature):
        raise ValueError(f"temperature must be a finite number >= 0, got {temperature}")
    values = np.asarray(scores, dtype=np.float64)
    if temperature == 0:
        return int(np.argmax(values))
    logits = values / temperature
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    return int(rng.choice(len(values), p=probs))
