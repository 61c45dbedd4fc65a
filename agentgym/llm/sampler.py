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
  just takes the (new) model object; one with its own copy (another device or dtype,
  ``share_weights=False`` or ``weights="fp16"``) loads the new weights into it.

Speed on CPU. Decoding one token reads every weight once, so a small model on CPU is bound
by memory traffic and per-operation overhead, not arithmetic. (SmolLM2-135M, one thread:
float32 matrix-vector products were about 80% of a token's time, transformers' per-layer
Python most of the rest.) Two things address that:

* a plain float32 Llama (SmolLM2, the tiny test model) is decoded by :class:`_LlamaDecoder`:
  the same calls on the same tensors as transformers' ``LlamaForCausalLM``, so the same
  greedy tokens as ``model.generate``, with about half its per-token overhead and a
  preallocated KV cache. Any other model, or one with forward hooks, runs through its own
  ``forward``;
* ``weights="fp16"`` samples from a copy whose ``Linear`` weights are stored in float16 and
  multiplied in float32 (fbgemm's kernel): half the bytes per token, and a faster
  matrix-vector kernel than float32's. Activations stay float32, so the log-probs differ
  from the float32 model's only by the rounding of the weights (SmolLM2: at most about
  1e-2, and the same greedy tokens in our checks); trainers, whose loss recomputes
  log-probs with the float32 model, keep the default ``weights="model"``.
  ``benchmarks/test_bench_sampler.py`` times both beside ``model.generate``.

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
import functools
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import torch

from agentgym.actions import CLOSE_TAG

__all__ = [
    "WEIGHT_FORMATS",
    "Fp16Linear",
    "Sample",
    "Sampler",
    "StopWatch",
    "TransformersSampler",
    "fp16_linear_copy",
    "fp16_weights_available",
    "make_sampler",
    "stop_index",
]


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


class StopWatch:
    """Incremental stop detection for one completion: O(1) work per new token.

    :meth:`hit` answers what ``stop_index(tokenizer, ids, stop) is not None`` answers for a
    completion checked after every token (the sampler's loop), without decoding the whole
    completion: a stop string that is in ``ids`` but was not in ``ids[:-1]`` ends inside the
    last token's text, so decoding a tail of ``ids`` that holds the last token's text, the
    longest stop string and a few characters of margin (for a multi-byte character or a
    leading space cut at the window's edge) finds it. The tail is a handful of tokens
    whatever the completion's length; it grows only while it holds fewer characters than
    that (tokens that decode to nothing, such as special tokens).

    >>> from agentgym.llm.models import byte_tokenizer
    >>> tok = byte_tokenizer()
    >>> watch, ids = StopWatch(tok, "</action>"), tok.encode("x" * 500 + "<action>1</action>!")
    >>> [n for n in range(1, len(ids) + 1) if watch.hit(ids[:n])][0] == stop_index(
    ...     tok, ids, "</action>")
    True
    """

    MARGIN = 4  # characters before the stop string that the tail must also hold

    def __init__(self, tokenizer: Any, stop: str | Sequence[str]) -> None:
        self.tokenizer = tokenizer
        self.stops = (stop,) if isinstance(stop, str) else tuple(stop)
        self.longest = max((len(s) for s in self.stops), default=0)

    def _decode(self, ids: Sequence[int]) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=True)

    def hit(self, ids: Sequence[int]) -> bool:
        """Whether ``ids`` (a completion so far, checked after each token) holds a stop."""
        if not ids or not self.stops:
            return False
        need = len(self._decode(ids[-1:])) + self.longest + self.MARGIN
        width = self.longest + self.MARGIN  # tokens; most decode to >= 1 character
        while True:
            start = max(0, len(ids) - width)
            text = self._decode(ids[start:])
            if start == 0 or len(text) >= need:
                return any(s in text for s in self.stops)
            width *= 2


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


# --- float16 weights --------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def fp16_weights_available() -> bool:
    """Whether this torch has the CPU kernel ``weights="fp16"`` needs (fbgemm, on x86).

    >>> isinstance(fp16_weights_available(), bool)
    True
    """
    try:
        packed = torch.ops.quantized.linear_prepack_fp16(torch.ones(1, 1), None)
        torch.ops.quantized.linear_dynamic_fp16(torch.ones(1, 1), packed)
    except (AttributeError, RuntimeError, NotImplementedError):
        return False
    return True


class Fp16Linear(torch.nn.Module):
    """A ``Linear`` whose weight is stored in float16 and multiplied in float32 (fbgemm).

    The input, the accumulation and the output stay float32; only the weight is rounded.
    On CPU this halves the bytes a matrix-vector product reads, and fbgemm's kernel is
    faster than the float32 one besides. Made by :func:`fp16_linear_copy`.

    >>> layer = torch.nn.Linear(4, 3)
    >>> half = Fp16Linear(layer.weight, layer.bias)
    >>> x = torch.randn(2, 4)
    >>> bool(torch.allclose(half(x), layer(x), atol=1e-3))
    True
    """

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor | None = None) -> None:
        super().__init__()
        self.out_features, self.in_features = weight.shape
        weight = weight.detach().to(device="cpu", dtype=torch.float32).contiguous()
        bias = None if bias is None else bias.detach().to(device="cpu", dtype=torch.float32)
        # An opaque fbgemm object, not a Parameter: it is not trained and not saved.
        self.packed = torch.ops.quantized.linear_prepack_fp16(weight, bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.quantized.linear_dynamic_fp16(x, self.packed)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, fp16 weight"


def fp16_linear_copy(model: Any) -> Any:
    """A frozen eval-mode copy of ``model`` with every ``torch.nn.Linear`` an :class:`Fp16Linear`.

    What ``TransformersSampler(weights="fp16")`` samples from; ``model`` is left alone. A peft
    model's adapters are merged into the copy first. Embeddings and norms stay float32.

    >>> from agentgym.llm.models import byte_tokenizer, tiny_random_model
    >>> model = tiny_random_model(byte_tokenizer())
    >>> half = fp16_linear_copy(model)
    >>> type(half.lm_head).__name__, type(model.lm_head).__name__
    ('Fp16Linear', 'Linear')
    """
    if not fp16_weights_available():
        raise ValueError("fp16 weights need torch's fbgemm CPU kernels, which this torch lacks")
    own = copy.deepcopy(model)
    if hasattr(own, "merge_and_unload"):  # peft: the adapters' Linear layers read .weight
        own = own.merge_and_unload()
    for parent in list(own.modules()):
        for name, child in list(parent.named_children()):
            if type(child) is torch.nn.Linear:
                setattr(parent, name, Fp16Linear(child.weight, child.bias))
    own = own.to("cpu")
    for parameter in own.parameters():
        parameter.requires_grad_(False)
    return own.eval()


# --- the lean Llama decoder ----------------------------------------------------------------


def _rope_type(config: Any) -> str:
    # transformers 5 names it rope_parameters["rope_type"]; 4 had rope_scaling (or None).
    params = getattr(config, "rope_parameters", None) or getattr(config, "rope_scaling", None)
    if not isinstance(params, dict):
        return "default"
    return str(params.get("rope_type", params.get("type", "default")))


_LINEARS = (
    "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
    "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj",
)
_TORCH_VERSION = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])


def _plain_llama(model: Any) -> bool:
    """Whether :class:`_LlamaDecoder` computes exactly what ``model``'s own forward does."""
    try:
        from transformers import LlamaForCausalLM
    except ImportError:
        return False
    # F.rms_norm came with torch 2.4, scaled_dot_product_attention(enable_gqa=) with 2.5.
    if _TORCH_VERSION < (2, 5) or not isinstance(model, LlamaForCausalLM):
        return False
    config = model.config
    base = model.model
    if (
        getattr(config, "hidden_act", None) != "silu"
        or getattr(config, "pretraining_tp", 1) != 1
        # These two rescale the rotary frequencies with the sequence length.
        or _rope_type(config) in ("dynamic", "longrope")
        or getattr(base, "rotary_emb", None) is None
        or base.embed_tokens.weight.dtype != torch.float32
    ):
        return False
    for module in model.modules():
        # Hooks (a user's, accelerate's offloading) live in forward calls this path skips.
        if module._forward_hooks or module._forward_pre_hooks or hasattr(module, "_hf_hook"):
            return False
    linear_types = (torch.nn.Linear, Fp16Linear)
    return type(model.lm_head) in linear_types and all(
        type(layer.get_submodule(name)) in linear_types
        for layer in base.layers
        for name in _LINEARS
    )


def _linear(module: Any) -> Any:
    """``module``'s forward without ``Module.__call__`` (for an nn.Linear: F.linear itself)."""
    if type(module) is torch.nn.Linear:
        weight, bias = module.weight, module.bias
        return lambda x: torch.nn.functional.linear(x, weight, bias)
    return module.forward


class _KVCache:
    """Keys and values of every layer, preallocated for the whole completion.

    ``keys[layer]`` is ``(batch, kv_heads, capacity, head_dim)``; ``length`` positions are
    filled. Writing a step is a copy into place, where a transformers DynamicCache
    concatenates (copies) the whole cache at every step. ``cos`` / ``sin`` are the rotary
    tables for positions ``0 .. capacity - 1`` (``sin`` with its first half negated: see
    :meth:`_LlamaDecoder.forward`); ``padded`` says whether any row is left padded.
    """

    def __init__(
        self, keys: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, padded: bool
    ) -> None:
        self.keys, self.values = keys, torch.empty_like(keys)
        self.cos, self.sin, self.padded = cos, sin, padded
        self.length = 0

    def store(
        self, layer: int, keys: torch.Tensor, values: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Write the new positions of ``layer``; its keys and values so far."""
        end = self.length + keys.shape[2]
        self.keys[layer, :, :, self.length : end] = keys
        self.values[layer, :, :, self.length : end] = values
        return self.keys[layer, :, :, :end], self.values[layer, :, :, :end]

    def reorder_cache(self, index: torch.Tensor) -> None:
        """Rows ``index`` of the batch, in that order (the name a transformers Cache uses)."""
        self.keys = self.keys.index_select(1, index)
        self.values = self.values.index_select(1, index)


class _LlamaDecoder:
    """The forward pass of a plain float32 Llama (see :func:`_plain_llama`), lean.

    The same operations on the same tensors as transformers' ``LlamaForCausalLM`` (RMSNorm,
    rotary embedding, grouped-query attention through ``scaled_dot_product_attention`` with
    the kernels transformers picks, SiLU MLP): for unpadded rows the logits equal its cached
    forward's bit for bit, for left-padded ones within float rounding. What is saved is
    around them: no module calls, keyword plumbing, mask building or cache bookkeeping per
    layer, and the query and key heads are rotated in one go. Built per batch from the
    model's current modules, so it always uses the live weights.
    """

    def __init__(self, model: Any) -> None:
        base, config = model.model, model.config
        attention = base.layers[0].self_attn
        self.heads = config.num_attention_heads
        self.kv_heads = config.num_key_value_heads
        self.head_dim = getattr(attention, "head_dim", config.hidden_size // self.heads)
        self.scale = getattr(attention, "scaling", self.head_dim**-0.5)
        self.hidden = (config.hidden_size,)
        self.embed = base.embed_tokens.weight
        self.rotary = base.rotary_emb
        self.final_norm = base.norm
        self.head = _linear(model.lm_head)
        self.blocks = [
            (
                layer.input_layernorm,
                [_linear(layer.get_submodule(name)) for name in _LINEARS[:3]],
                _linear(layer.self_attn.o_proj),
                layer.post_attention_layernorm,
                _linear(layer.mlp.gate_proj),
                _linear(layer.mlp.up_proj),
                _linear(layer.mlp.down_proj),
            )
            for layer in base.layers
        ]

    def _norm(self, norm: Any, x: torch.Tensor) -> torch.Tensor:
        # Bit for bit LlamaRMSNorm's float32 arithmetic, in one call instead of six.
        return torch.nn.functional.rms_norm(x, self.hidden, norm.weight, norm.variance_epsilon)

    def new_cache(self, batch: int, capacity: int, mask: torch.Tensor) -> _KVCache:
        device = self.embed.device
        positions = torch.arange(capacity, device=device)[None]
        cos, sin = self.rotary(self.embed[:1], positions)  # the model's own rotary tables
        half = self.head_dim // 2
        sin = torch.cat([-sin[0, :, :half], sin[0, :, half:]], dim=-1)
        keys = torch.empty(
            (len(self.blocks), batch, self.kv_heads, capacity, self.head_dim),
            dtype=self.embed.dtype, device=device,
        )
        return _KVCache(keys, cos[0], sin, padded=bool((mask == 0).any()))

    def _mask(self, mask: torch.Tensor, cache: _KVCache, new: int) -> torch.Tensor | None:
        """The boolean attention mask (True: attend), or None where causality says it all."""
        start = cache.length
        if not cache.padded and (new == 1 or start == 0):
            return None  # no padding: a step attends to everything, a prompt is causal
        end = start + new
        keys = torch.arange(end, device=mask.device)
        queries = torch.arange(start, end, device=mask.device)[:, None]
        allowed = mask[:, None, None, :end].bool() & (keys <= queries)
        # A padding position may see no key at all, and softmax over nothing is NaN, which
        # would reach the real rows through 0 * NaN: let every position see itself.
        return allowed | (keys == queries)

    def _attend(
        self, q: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, mask: Any
    ) -> torch.Tensor:
        """Attention as transformers' sdpa integration runs it, kernel choice included."""
        batch, _, new, dim = q.shape
        sdpa = torch.nn.functional.scaled_dot_product_attention
        groups = self.heads // self.kv_heads
        if mask is None:
            out = sdpa(q, keys, values, scale=self.scale, is_causal=new > 1,
                       enable_gqa=groups > 1)
        elif new == 1:
            # One query per head: each key/value head's group of query heads becomes that
            # head's rows of queries, so no key or value is repeated.
            grouped = q.reshape(batch, self.kv_heads, groups, dim)
            out = sdpa(grouped, keys, values, attn_mask=mask, scale=self.scale)
            return out.reshape(batch, 1, self.heads * dim)
        else:
            keys = keys.repeat_interleave(groups, dim=1)
            values = values.repeat_interleave(groups, dim=1)
            out = sdpa(q, keys, values, attn_mask=mask, scale=self.scale)
        return out.transpose(1, 2).reshape(batch, new, self.heads * dim)

    def forward(
        self, input_ids: torch.Tensor, mask: torch.Tensor, positions: torch.Tensor,
        cache: _KVCache | None = None, *, capacity: int,
    ) -> tuple[torch.Tensor, _KVCache]:
        """The last position's logits (float) and the cache; ``capacity`` sizes a new cache.

        The same step function as :class:`_ModelStep` (``cache`` None: the prompt pass).
        """
        batch, new = input_ids.shape
        if cache is None:
            cache = self.new_cache(batch, capacity, mask)
        attention_mask = self._mask(mask, cache, new)
        cos, sin = cache.cos[positions][:, None], cache.sin[positions][:, None]
        heads, dim = self.heads, self.head_dim
        hidden = torch.nn.functional.embedding(input_ids, self.embed)
        for layer, (norm, qkv, out, mlp_norm, gate, up, down) in enumerate(self.blocks):
            x = self._norm(norm, hidden)
            q, k, v = (f(x).view(batch, new, -1, dim) for f in qkv)
            qk = torch.cat([q, k], dim=2).transpose(1, 2)
            # transformers' rotate_half(x) * sin is cat(-x2, x1) * sin; rolling x by half a
            # head gives cat(x2, x1), and the sign moved into sin leaves every product equal.
            qk = qk * cos + qk.roll(dim // 2, dims=-1) * sin
            keys, values = cache.store(layer, qk[:, heads:], v.transpose(1, 2))
            hidden = hidden + out(self._attend(qk[:, :heads], keys, values, attention_mask))
            x = self._norm(mlp_norm, hidden)
            hidden = hidden + down(torch.nn.functional.silu(gate(x)) * up(x))
        cache.length += new
        last = self._norm(self.final_norm, hidden[:, -1:])
        return self.head(last)[:, -1].float(), cache


class _ModelStep:
    """One cached forward pass through the model's own ``forward`` (any causal LM)."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.cache_name, self.extra = _forward_kwargs(model)

    def __call__(
        self, input_ids: torch.Tensor, mask: torch.Tensor, positions: torch.Tensor,
        past: Any = None,
    ) -> tuple[torch.Tensor, Any]:
        out = self.model(input_ids=input_ids, attention_mask=mask, position_ids=positions,
                         use_cache=True, **{self.cache_name: past}, **self.extra)
        return out.logits[:, -1, :].float(), getattr(out, self.cache_name, None)


#: What :class:`TransformersSampler`'s ``weights`` accepts.
WEIGHT_FORMATS = ("model", "fp16")


class TransformersSampler:
    """Batched sampling from a transformers causal LM (see the module docstring).

    ``device`` / ``dtype`` None use the model's own. When they differ from the model's, or
    with ``share_weights=False``, the sampler keeps its own copy of the model and
    :meth:`sync` copies the trainer's weights into it; otherwise it samples from the very
    model object it was given (still call :meth:`sync` after each update: it is free then,
    and a trainer that swaps model objects or moves to another backend stays correct).
    ``batch_size`` caps how many prompts go through the model at once.

    ``weights="fp16"`` (CPU, float32 only) samples from :func:`fp16_linear_copy` of the model,
    its own copy: two to three times faster to decode on CPU, with log-probs close to the
    float32 model's but not equal (see the module docstring); :meth:`sync` makes it anew.

    >>> from agentgym.llm.models import byte_tokenizer, tiny_random_model
    >>> tok = byte_tokenizer()
    >>> model = tiny_random_model(tok)
    >>> fast = TransformersSampler(model, tok, weights="fp16")
    >>> exact = TransformersSampler(model, tok)
    >>> a = fast.generate([tok.encode("hi")], max_new_tokens=6, temperature=0)[0]
    >>> b = exact.generate([tok.encode("hi")], max_new_tokens=6, temperature=0)[0]
    >>> fast.shares_weights, a.completion_ids == b.completion_ids
    (False, True)
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
        weights: str = "model",
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if weights not in WEIGHT_FORMATS:
            raise ValueError(f"weights must be one of {WEIGHT_FORMATS}, got {weights!r}")
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        self.weights = weights
        first = next(model.parameters())
        self.device = torch.device(device) if device is not None else first.device
        self.dtype = dtype if dtype is not None else first.dtype
        if weights == "fp16":
            if self.device.type != "cpu" or self.dtype != torch.float32:
                raise ValueError(
                    f"weights='fp16' runs a float32 model on CPU, got {self.dtype} on "
                    f"{self.device}; on a GPU give dtype=torch.float16 or bfloat16 instead"
                )
            if not fp16_weights_available():
                raise ValueError(
                    "weights='fp16' needs torch's fbgemm CPU kernels, which this torch lacks"
                )
        self.shares_weights = weights == "model" and share_weights and (
            self.device == first.device and self.dtype == first.dtype
        )
        # Any, not Optional: sync sets it to None only while it builds the next copy.
        self.model: Any = model if self.shares_weights else self._copy(model)
        pad = tokenizer.pad_token_id
        self.pad_id = int(pad if pad is not None else tokenizer.eos_token_id)
        self.end_ids = _end_ids(model, tokenizer)

    def _copy(self, model: Any) -> Any:
        if self.weights == "fp16":
            return fp16_linear_copy(model)
        own = copy.deepcopy(model).to(device=self.device, dtype=self.dtype)
        for parameter in own.parameters():
            parameter.requires_grad_(False)
        return own.eval()

    def sync(self, model: Any) -> None:
        """Sample from ``model``'s current weights from now on."""
        if self.shares_weights:
            self.model = model
            return
        if self.weights == "fp16":  # packed weights cannot be loaded into: pack them anew
            self.model = None  # free the old copy first
            self.model = self._copy(model)
            return
        # Copy into the tensors the copy already has (casting to its dtype, e.g. bfloat16):
        # no new allocation, and the same parameter objects stay in place.
        source = model.state_dict()
        with torch.no_grad():
            for name, tensor in self.model.state_dict().items():
                tensor.copy_(source[name])

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

    def _stepper(self, capacity: int) -> Any:
        """The forward pass for this batch: the lean Llama decoder where it applies."""
        if _plain_llama(self.model):
            return functools.partial(_LlamaDecoder(self.model).forward, capacity=capacity)
        return _ModelStep(self.model)

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
            # inference_mode, not just no_grad: no version counters or views tracked per op.
            with torch.inference_mode():
                completions, logprobs, reasons = self._decode(
                    prompts, max_new_tokens, temperature, top_p, stop, generator
                )
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

    def _decode(
        self,
        prompts: list[list[int]],
        max_new_tokens: int,
        temperature: float,
        top_p: float,
        stop: str | Sequence[str] | None,
        generator: torch.Generator,
    ) -> tuple[list[list[int]], list[list[float]], list[str]]:
        batch, width = len(prompts), max(len(p) for p in prompts)
        input_ids = torch.full((batch, width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((batch, width), dtype=torch.long)
        for row, prompt in enumerate(prompts):  # left padding: the prompts end together
            input_ids[row, width - len(prompt) :] = torch.tensor(prompt)
            mask[row, width - len(prompt) :] = 1
        input_ids, mask = input_ids.to(self.device), mask.to(self.device)
        positions = (mask.cumsum(dim=-1) - 1).clamp(min=0)
        step = self._stepper(capacity=width + max_new_tokens)
        completions: list[list[int]] = [[] for _ in prompts]
        logprobs: list[list[float]] = [[] for _ in prompts]
        reasons = ["length"] * batch
        active = list(range(batch))
        watch = StopWatch(self.tokenizer, stop) if stop is not None else None
        past: Any = None
        for index in range(max_new_tokens):
            if index == 0:
                logits, past = self._prefill(step, prompts, input_ids, mask, positions)
            else:
                logits, past = step(input_ids, mask, positions, past)
            tokens, token_logprobs = self._pick(logits, temperature, top_p, generator)
            # One transfer to Python per step, not one tensor index per row.
            token_list, logprob_list = tokens.tolist(), token_logprobs.tolist()
            for row in list(active):
                token = token_list[row]
                completions[row].append(token)
                logprobs[row].append(logprob_list[row])
                if token in self.end_ids:
                    reasons[row] = "eos"
                elif watch is not None and watch.hit(completions[row]):
                    # Checked after every token, so the stop ends in this one: no cut.
                    reasons[row] = "stop"
                if reasons[row] != "length":
                    active.remove(row)
            if not active:
                break
            # Finished rows keep decoding pad tokens (ignored) so the batch stays one shape.
            if len(active) < batch:
                done = torch.ones(batch, dtype=torch.bool)
                done[active] = False
                tokens = tokens.masked_fill(done, self.pad_id)
            input_ids = tokens[:, None].to(self.device)
            mask = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=1)
            positions = positions[:, -1:] + 1
        return completions, logprobs, reasons

    def _prefill(
        self,
        step: Any,
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
            logits, past = step(input_ids[rows], mask[rows], positions[rows])
            if hasattr(past, "reorder_cache"):  # a Cache object: copy rows by index
                index = torch.tensor(inverse, device=input_ids.device)
                past.reorder_cache(index)
                return logits[index], past
            # A model without a Cache object: the shared pass is wasted, run every row.
        return step(input_ids, mask, positions)

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
