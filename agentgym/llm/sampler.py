"""Sample completions from a local causal LM: token ids and log-probs, exactly as sampled.

:class:`Sampler` is the one interface the trainers and LLM agents use. A sampler reads
prompts as token ids and returns, per prompt, a :class:`Sample`: the completion's ids, the
log-prob of each under the sampling distribution, and its decoded text (for the env only;
trainers use the ids, which are never decoded and re-encoded).

:class:`TransformersSampler` runs any transformers causal LM on CPU or CUDA: prompts are left
padded into one batch, decoded with a KV cache, and sampled with a seeded
:class:`torch.Generator`, so the same prompts, settings and seed give the same samples.

* ``temperature`` divides the logits; ``logprobs`` are of that tempered distribution,
  ``log_softmax(logits / temperature)`` at the sampled token, *before* ``top_p`` truncation
  (a trainer recomputing them divides by the same temperature). ``temperature=0`` is greedy
  decoding and reports the untempered log-probs.
* ``stop``: the completion is cut right after the first token whose decoded text completes
  the stop string, or any of several (SearchQA stops at ``</search>`` and ``</answer>``);
  the stop tokens stay in ``completion_ids`` and the text. The model's end-of-sequence
  token also ends a completion (and stays in it).
* ``sync(model)``: call after each optimizer step. A sampler that shares the trainer's model
  just takes the (new) model object; one with its own copy (another device or dtype, or
  ``share_weights=False``) loads the new weights into it.

>>> from agentgym.llm.models import byte_tokenizer, tiny_random_model
>>> tok = byte_tokenizer()
>>> sampler = TransformersSampler(tiny_random_model(tok), tok)
>>> a = sampler.generate([tok.encode("hi")], max_new_tokens=4, seed=0)[0]
>>> b = sampler.generate([tok.encode("hi")], max_new_tokens=4, seed=0)[0]
>>> a == b, len(a.completion_ids), len(a.logprobs), a.finish_reason
(True, 4, 4, 'length')
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import torch

from agentgym.actions import CLOSE_TAG

__all__ = ["Sample", "Sampler", "TransformersSampler", "make_sampler", "stop_index"]


@dataclass(frozen=True)
class Sample:
    """One completion. ``logprobs[i]`` is the sampler's log-prob of ``completion_ids[i]``.

    ``stopped`` is True when the model ended the completion (the stop string or its
    end-of-sequence token), False when ``max_new_tokens`` cut it; ``finish_reason`` says
    which: ``"stop"``, ``"eos"`` or ``"length"``.
    """

    prompt_ids: list[int]
    completion_ids: list[int]
    logprobs: list[float]
    text: str
    stopped: bool
    finish_reason: str = "length"


@runtime_checkable
class Sampler(Protocol):
    """What a trainer or an LLM agent needs from a sampler."""

    def generate(
        self,
        prompts: list[list[int]],
        *,
        max_new_tokens: int,
        temperature: float = 1.0,
        top_p: float = 1.0,
        stop: str | Sequence[str] | None = CLOSE_TAG,
        seed: int | None = None,
    ) -> list[Sample]:
        """One :class:`Sample` per prompt, in order."""
        ...

    def sync(self, model: Any) -> None:
        """Use ``model``'s current weights from the next :meth:`generate` on."""
        ...


def stop_index(
    tokenizer: Any, completion_ids: Sequence[int], stop: str | Sequence[str]
) -> int | None:
    """The length to cut ``completion_ids`` to: up to the first token whose decoded text
    completes ``stop`` (any of them, when several); None when the text contains none.

    >>> from agentgym.llm.models import byte_tokenizer
    >>> tok = byte_tokenizer()
    >>> ids = tok.encode("go <action>up</action> and more")
    >>> cut = stop_index(tok, ids, "</action>")
    >>> tok.decode(ids[:cut]), stop_index(tok, ids[:cut - 1], "</action>")
    ('go <action>up</action>', None)
    >>> tok.decode(ids[:stop_index(tok, ids, ("</search>", "up"))])
    'go <action>up'
    """
    stops = (stop,) if isinstance(stop, str) else tuple(stop)
    ids = list(completion_ids)
    text = tokenizer.decode(ids, skip_special_tokens=True)
    if not any(s in text for s in stops):
        return None
    # The decoded prefixes grow monotonically in what they contain: binary-search the first
    # prefix whose text holds a stop string.
    low, high = 1, len(ids)
    while low < high:
        mid = (low + high) // 2
        prefix = tokenizer.decode(ids[:mid], skip_special_tokens=True)
        if any(s in prefix for s in stops):
            high = mid
        else:
            low = mid + 1
    return low


def _end_ids(model: Any, tokenizer: Any) -> set[int]:
    ids: set[int] = set()
    config = getattr(model, "generation_config", None)
    for source in (getattr(config, "eos_token_id", None), tokenizer.eos_token_id):
        if isinstance(source, int):
            ids.add(source)
        elif isinstance(source, (list, tuple)):
            ids.update(int(i) for i in source)
    return ids


def _forward_kwargs(model: Any) -> tuple[str, dict[str, Any]]:
    """The name of the KV-cache argument (and output) of ``model``'s forward, and extras.

    transformers 5 renamed ``past_key_values`` to ``cache``; ``logits_to_keep=1`` skips the
    vocabulary projection of every prompt position but the last.
    """
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    try:
        parameters = inspect.signature(base.forward).parameters
    except (TypeError, ValueError):
        parameters = {}
    name = "cache" if "cache" in parameters else "past_key_values"
    extra = {"logits_to_keep": 1} if "logits_to_keep" in parameters else {}
    return name, extra


def _check_settings(max_new_tokens: int, temperature: float, top_p: float) -> None:
    if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or (
        max_new_tokens < 1
    ):
        raise ValueError(f"max_new_tokens must be an int >= 1, got {max_new_tokens!r}")
    if not (isinstance(temperature, (int, float)) and temperature >= 0):
        raise ValueError(f"temperature must be a number >= 0, got {temperature!r}")
    if not (isinstance(top_p, (int, float)) and 0 < top_p <= 1):
        raise ValueError(f"top_p must be in (0, 1], got {top_p!r}")


def _nucleus(probs: torch.Tensor, top_p: float) -> torch.Tensor:
    """``probs`` with everything outside the top-``top_p`` nucleus zeroed (rows renormalised)."""
    sorted_probs, order = probs.sort(dim=-1, descending=True)
    # Keep a token when the mass before it is below top_p (so the top token always stays).
    keep_sorted = (sorted_probs.cumsum(dim=-1) - sorted_probs) < top_p
    keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
    kept = probs * keep
    return kept / kept.sum(dim=-1, keepdim=True)


class TransformersSampler:
    """Batched sampling from a transformers causal LM (see the module docstring).

    ``device`` / ``dtype`` None use the model's own. When they differ from the model's, or
    with ``share_weights=False``, the sampler keeps its own copy of the model and
    :meth:`sync` copies the trainer's weights into it; otherwise it samples from the very
    model object it was given (still call :meth:`sync` after each update: it is free then,
    and a trainer that swaps model objects or moves to another backend stays correct).
    ``batch_size`` caps how many prompts go through the model at once.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        device: str | torch.device | None = None,
        dtype: torch.dtype | None = None,
        share_weights: bool = True,
        batch_size: int = 64,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        first = next(model.parameters())
        self.device = torch.device(device) if device is not None else first.device
        self.dtype = dtype if dtype is not None else first.dtype
        self.shares_weights = share_weights and self.device == first.device and (
            self.dtype == first.dtype
        )
        self.model = self._copy(model) if not self.shares_weights else model
        pad = tokenizer.pad_token_id
        self.pad_id = int(pad if pad is not None else tokenizer.eos_token_id)
        self.end_ids = _end_ids(model, tokenizer)
        self._cache_name, self._extra = _forward_kwargs(model)

    def _copy(self, model: Any) -> Any:
        own = copy.deepcopy(model).to(device=self.device, dtype=self.dtype)
        for parameter in own.parameters():
            parameter.requires_grad_(False)
        return own.eval()

    def sync(self, model: Any) -> None:
        """Sample from ``model``'s current weights from now on."""
        if self.shares_weights:
            self.model = model
            return
        with torch.no_grad():
            self.model.load_state_dict(model.state_dict())

    def generate(
        self,
        prompts: list[list[int]],
        *,
        max_new_tokens: int,
        temperature: float = 1.0,
        top_p: float = 1.0,
        stop: str | Sequence[str] | None = CLOSE_TAG,
        seed: int | None = None,
    ) -> list[Sample]:
        """One :class:`Sample` per prompt; the same inputs and ``seed`` give the same samples.

        ``seed`` None draws the generator's seed from torch's global RNG (so
        ``torch.manual_seed`` and a checkpointed RNG state make runs repeatable).
        """
        _check_settings(max_new_tokens, temperature, top_p)
        if not prompts or any(len(p) == 0 for p in prompts):
            raise ValueError("give at least one prompt, each with at least one token id")
        if seed is None:
            seed = int(torch.randint(0, 2**62, (1,)).item())
        generator = torch.Generator(device=self.device).manual_seed(seed)
        samples: list[Sample] = []
        for start in range(0, len(prompts), self.batch_size):
            chunk = [[int(i) for i in p] for p in prompts[start : start + self.batch_size]]
            samples.extend(
                self._generate_batch(chunk, max_new_tokens, temperature, top_p, stop, generator)
            )
        return samples

    @torch.no_grad()
    def _generate_batch(
        self,
        prompts: list[list[int]],
        max_new_tokens: int,
        temperature: float,
        top_p: float,
        stop: str | Sequence[str] | None,
        generator: torch.Generator,
    ) -> list[Sample]:
        model = self.model
        was_training = model.training
        model.eval()
        try:
            batch, width = len(prompts), max(len(p) for p in prompts)
            input_ids = torch.full((batch, width), self.pad_id, dtype=torch.long)
            mask = torch.zeros((batch, width), dtype=torch.long)
            for row, prompt in enumerate(prompts):  # left padding: the prompts end together
                input_ids[row, width - len(prompt) :] = torch.tensor(prompt)
                mask[row, width - len(prompt) :] = 1
            input_ids, mask = input_ids.to(self.device), mask.to(self.device)
            positions = (mask.cumsum(dim=-1) - 1).clamp(min=0)
            completions: list[list[int]] = [[] for _ in prompts]
            logprobs: list[list[float]] = [[] for _ in prompts]
            reasons = ["length"] * batch
            active = list(range(batch))
            for step in range(max_new_tokens):
                if step == 0:
                    logits, past = self._prefill(prompts, input_ids, mask, positions)
                else:
                    logits, past = self._forward(input_ids, mask, positions, past)
                tokens, token_logprobs = self._pick(logits, temperature, top_p, generator)
                for row in list(active):
                    token = int(tokens[row])
                    completions[row].append(token)
                    logprobs[row].append(float(token_logprobs[row]))
                    if token in self.end_ids:
                        reasons[row] = "eos"
                    elif stop is not None:
                        cut = stop_index(self.tokenizer, completions[row], stop)
                        if cut is not None:
                            del completions[row][cut:], logprobs[row][cut:]
                            reasons[row] = "stop"
                    if reasons[row] != "length":
                        active.remove(row)
                if not active:
                    break
                # Finished rows keep decoding pad tokens (ignored) so the batch stays one shape.
                fed = torch.full((batch, 1), self.pad_id, dtype=torch.long, device=self.device)
                fed[active, 0] = tokens[active]
                input_ids = fed
                mask = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=1)
                positions = positions[:, -1:] + 1
        finally:
            model.train(was_training)
        return [
            Sample(
                prompt_ids=prompt,
                completion_ids=ids,
                logprobs=lps,
                text=self.tokenizer.decode(ids, skip_special_tokens=True),
                stopped=reason != "length",
                finish_reason=reason,
            )
            for prompt, ids, lps, reason in zip(
                prompts, completions, logprobs, reasons, strict=True
            )
        ]

    def _prefill(
        self,
        prompts: list[list[int]],
        input_ids: torch.Tensor,
        mask: torch.Tensor,
        positions: torch.Tensor,
    ) -> tuple[torch.Tensor, Any]:
        """The first forward pass: last-position logits and the KV cache of every row.

        Identical prompts (VPR's K candidates of one state, a GRPO group's first turn) go
        through the model once and their cache is copied to each row: on CPU the prompt pass
        is most of a turn's cost (SmolLM2, a 180-token prompt: ~0.3 s on two cores, while
        the ~10 tokens of an action decode in a fraction of that).
        """
        first: dict[tuple[int, ...], int] = {}  # distinct prompt -> its number
        unique: list[int] = []  # the first row holding each distinct prompt
        inverse: list[int] = []  # each row's distinct-prompt number
        for row, prompt in enumerate(prompts):
            key = tuple(prompt)
            if key not in first:
                first[key] = len(unique)
                unique.append(row)
            inverse.append(first[key])
        if len(unique) < len(prompts):
            rows = torch.tensor(unique, device=input_ids.device)
            logits, past = self._forward(input_ids[rows], mask[rows], positions[rows])
            if hasattr(past, "reorder_cache"):  # a Cache object: copy rows by index
                index = torch.tensor(inverse, device=input_ids.device)
                past.reorder_cache(index)
                return logits[index], past
            # A model without a Cache object: the shared pass is wasted, run every row.
        return self._forward(input_ids, mask, positions)

    def _forward(
        self, input_ids: torch.Tensor, mask: torch.Tensor, positions: torch.Tensor,
        past: Any = None,
    ) -> tuple[torch.Tensor, Any]:
        """One cached forward pass: the last position's logits (float) and the new cache."""
        out = self.model(input_ids=input_ids, attention_mask=mask, position_ids=positions,
                         use_cache=True, **{self._cache_name: past}, **self._extra)
        return out.logits[:, -1, :].float(), getattr(out, self._cache_name, None)

    @staticmethod
    def _pick(
        logits: torch.Tensor, temperature: float, top_p: float, generator: torch.Generator
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if temperature == 0:
            log_probs = torch.log_softmax(logits, dim=-1)
            tokens = logits.argmax(dim=-1)
        else:
            log_probs = torch.log_softmax(logits / temperature, dim=-1)
            probs = log_probs.exp()
            if top_p < 1:
                probs = _nucleus(probs, top_p)
            tokens = torch.multinomial(probs, 1, generator=generator).squeeze(-1)
        chosen = log_probs.gather(-1, tokens[:, None]).squeeze(-1)
        return tokens.cpu(), chosen.cpu()


def make_sampler(model: Any, tokenizer: Any, backend: str = "auto", **kwargs: Any) -> Sampler:
    """The sampler for a backend: ``"transformers"`` (and ``"auto"``, which picks it).

    No vLLM backend exists yet: ``backend="vllm"`` raises a one-line :class:`ValueError`.

    >>> from agentgym.llm.models import byte_tokenizer, tiny_random_model
    >>> tok = byte_tokenizer()
    >>> type(make_sampler(tiny_random_model(tok), tok)).__name__
    'TransformersSampler'
    """
    if backend in ("auto", "transformers"):
        return TransformersSampler(model, tokenizer, **kwargs)
    if backend == "vllm":
        raise ValueError(
            "the vllm sampler backend is not implemented yet; use backend='transformers'"
        )
    raise ValueError(f"backend must be 'auto', 'transformers' or 'vllm', got {backend!r}")
