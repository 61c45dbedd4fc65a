"""The one policy loss every RL trainer here uses, and the token log-probs it needs.

A training *sequence* is one agent turn: the prompt ids the sampler saw (system, earlier
turns, the current observation) followed by the completion ids it sampled. Only the
completion is the agent's own text, so the loss mask is 1 exactly on those positions; the
earlier turns' completions sit inside the prompt with mask 0 (they are trained on as their
own sequences).

The loss is PPO's clipped ratio with separate bounds (DAPO's ``eps_low`` / ``eps_high``),
an optional KL penalty to a frozen reference (the k3 estimator, off with ``beta=0``), and
one of three aggregations:

* ``"seq-mean"``: mean over each sequence's own tokens, then mean over sequences (GRPO);
* ``"token-sum"``: sum over every active token divided by a fixed ``constant`` (Dr.GRPO:
  no length bias, since the divisor does not depend on the batch);
* ``"token-mean"``: sum over every active token divided by the number of active tokens.

>>> import torch
>>> lp = torch.zeros(1, 3)
>>> loss, stats = policy_loss(lp, lp, torch.tensor([2.0]), torch.tensor([[0.0, 1.0, 1.0]]))
>>> loss.item(), stats["clip_fraction"]
(-2.0, 0.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, overload

import torch

__all__ = [
    "AGGREGATIONS",
    "KL_LOG_RATIO_CAP",
    "Batch",
    "collate",
    "logprob_gap",
    "policy_loss",
    "sequence_logprobs",
    "token_logprobs",
    "truncated_is_weights",
]

AGGREGATIONS = ("seq-mean", "token-sum", "token-mean")
#: The k3 penalty's log-ratio ``ref - new`` is clamped to +-20 nats (as verl does): beyond it
#: ``exp`` leaves float range within a few steps of drift, and the step's gradient is NaN.
KL_LOG_RATIO_CAP = 20.0


def _aggregate(
    per_token: torch.Tensor, mask: torch.Tensor, agg: str, constant: float | None
) -> torch.Tensor:
    """Reduce ``[B, T]`` per-token values to a scalar over the tokens where ``mask == 1``."""
    masked = per_token * mask
    if agg == "seq-mean":
        counts = mask.sum(dim=1)
        has_tokens = counts > 0
        # A sequence with no agent token (an empty completion) contributes nothing, and does
        # not count in the mean over sequences.
        per_seq = masked.sum(dim=1)[has_tokens] / counts[has_tokens]
        return per_seq.mean() if per_seq.numel() else masked.sum()
    if agg == "token-sum":
        if constant is None or not constant > 0:
            raise ValueError(f"agg='token-sum' needs a constant > 0, got {constant!r}")
        return masked.sum() / constant
    if agg == "token-mean":
        return masked.sum() / mask.sum().clamp(min=1.0)
    raise ValueError(f"agg must be one of {', '.join(AGGREGATIONS)}; got {agg!r}")


def policy_loss(
    new_logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    eps_low: float = 0.2,
    eps_high: float = 0.2,
    agg: str = "seq-mean",
    beta: float = 0.0,
    ref_logprobs: torch.Tensor | None = None,
    constant: float | None = None,
    entropy: torch.Tensor | None = None,
    is_weights: torch.Tensor | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """Clipped-ratio policy loss over the agent's tokens; returns ``(loss, stats)``.

    Args:
        new_logprobs: ``[B, T]`` log-probs of each token under the policy being trained.
        old_logprobs: ``[B, T]`` log-probs under the policy that sampled (the sampler's).
        advantages: ``[B]``, one per sequence, broadcast over its tokens.
        mask: ``[B, T]``, 1 on the agent's own (sampled) tokens, 0 elsewhere (prompt, padding).
        eps_low, eps_high: the ratio is clipped to ``[1 - eps_low, 1 + eps_high]``.
        agg: ``"seq-mean"``, ``"token-sum"`` (divided by ``constant``) or ``"token-mean"``.
        beta: weight of the KL penalty to ``ref_logprobs`` (0: off; needs ``ref_logprobs``).
        entropy: optional ``[B, T]`` per-token entropy, only reported (``stats["entropy"]``).
        is_weights: optional ``[B, T]`` per-token weights of the clipped term (truncated
            importance sampling, :func:`truncated_is_weights`); constants, no gradient.

    Per token: ``-min(r A, clip(r, 1 - eps_low, 1 + eps_high) A) + beta * KL`` with
    ``r = exp(new - old)`` and ``KL = exp(ref - new) - (ref - new) - 1`` (k3, >= 0), with
    ``ref - new`` clamped to +-:data:`KL_LOG_RATIO_CAP`.

    ``stats``: ``clip_fraction`` (active tokens whose clipped term was the one taken, i.e.
    that get no gradient), ``approx_kl`` (mean ``(new - old)^2 / 2``, how far the update
    moved from the sampler), ``kl_ref`` (mean k3 to the reference, when given), ``entropy``.

    >>> lp = torch.zeros(1, 2)
    >>> policy_loss(lp + 1.0, lp, torch.tensor([1.0]), torch.ones(1, 2))[1]["clip_fraction"]
    1.0
    """
    if not (eps_low >= 0 and eps_high >= 0):
        raise ValueError(f"eps_low and eps_high must be >= 0, got {eps_low}, {eps_high}")
    if beta < 0:
        raise ValueError(f"beta must be >= 0, got {beta}")
    if beta > 0 and ref_logprobs is None:
        raise ValueError("beta > 0 needs ref_logprobs (the reference model's token log-probs)")
    if new_logprobs.shape != old_logprobs.shape or new_logprobs.shape != mask.shape:
        raise ValueError(
            f"new_logprobs {tuple(new_logprobs.shape)}, old_logprobs "
            f"{tuple(old_logprobs.shape)} and mask {tuple(mask.shape)} must have one shape"
        )
    if advantages.shape != (new_logprobs.shape[0],):
        raise ValueError(
            f"advantages must be [B] = [{new_logprobs.shape[0]}], got {tuple(advantages.shape)}"
        )
    mask = mask.to(new_logprobs.dtype)
    adv = advantages.to(new_logprobs.dtype)[:, None]
    # Padding positions may hold anything; zero the log-ratio there so exp() cannot overflow.
    log_ratio = torch.where(mask > 0, new_logprobs - old_logprobs, 0.0)
    ratio = log_ratio.exp()
    unclipped = ratio * adv
    clipped = ratio.clamp(1.0 - eps_low, 1.0 + eps_high) * adv
    per_token = -torch.minimum(unclipped, clipped)
    if is_weights is not None:
        per_token = per_token * is_weights.detach().to(per_token.dtype)

    kl_ref = None
    if ref_logprobs is not None:
        # Clamped to +-KL_LOG_RATIO_CAP: a token the policy has left far behind (new - ref of
        # -90 nats) would make exp() overflow to inf and the whole step's gradient NaN.
        delta = torch.where(mask > 0, ref_logprobs - new_logprobs, 0.0).clamp(
            -KL_LOG_RATIO_CAP, KL_LOG_RATIO_CAP)
        kl_ref = delta.exp() - delta - 1.0
        if beta > 0:
            per_token = per_token + beta * kl_ref

    loss = _aggregate(per_token, mask, agg, constant)

    with torch.no_grad():
        active = mask.sum().clamp(min=1.0)
        was_clipped = (clipped < unclipped).to(mask.dtype) * mask
        stats = {
            "clip_fraction": float(was_clipped.sum() / active),
            "approx_kl": float((0.5 * log_ratio**2 * mask).sum() / active),
        }
        if kl_ref is not None:
            stats["kl_ref"] = float((kl_ref * mask).sum() / active)
        if entropy is not None:
            stats["entropy"] = float((entropy * mask).sum() / active)
    return loss, stats


def truncated_is_weights(
    trainer_logprobs: torch.Tensor, sampler_logprobs: torch.Tensor, mask: torch.Tensor,
    cap: float,
) -> torch.Tensor:
    """Truncated importance-sampling weights ``min(exp(trainer - sampler), cap)`` per token.

    The rollout was sampled by the sampler (another dtype, another kernel), whose
    probabilities differ from the trainer's at the same weights; the PPO ratio is taken
    against the trainer's own log-probs, and this weight corrects the remaining
    sampler/trainer mismatch, truncated at ``cap`` so that a token the sampler found much
    less likely than the trainer does cannot dominate the batch. 1 outside ``mask``.

    >>> w = truncated_is_weights(torch.tensor([[-1.0, -0.5, 0.0]]),
    ...                          torch.tensor([[-1.0, -1.5, 9.0]]),
    ...                          torch.tensor([[1.0, 1.0, 0.0]]), cap=2.0)
    >>> [round(v, 4) for v in w[0].tolist()]
    [1.0, 2.0, 1.0]
    """
    if not cap > 0:
        raise ValueError(f"cap must be > 0, got {cap}")
    delta = torch.where(mask > 0, trainer_logprobs - sampler_logprobs, 0.0)
    return delta.exp().clamp(max=cap).detach()


def logprob_gap(a: torch.Tensor, b: torch.Tensor, mask: torch.Tensor) -> tuple[float, float]:
    """Mean and max of ``|a - b|`` over the tokens where ``mask == 1`` (0.0, 0.0 for none).

    >>> logprob_gap(torch.tensor([[0.0, -1.0]]), torch.tensor([[0.5, -1.25]]),
    ...             torch.tensor([[1.0, 1.0]]))
    (0.375, 0.5)
    """
    active = mask > 0
    if not bool(active.any()):
        return 0.0, 0.0
    gap = (a - b).abs()[active]
    return float(gap.mean()), float(gap.max())


# The overloads say what ``with_entropy`` returns: the log-probs alone, or with the entropy.
@overload
def token_logprobs(
    logits: torch.Tensor, targets: torch.Tensor, *, temperature: float = ...,
    with_entropy: Literal[False] = ..., chunk_rows: int = ...,
) -> torch.Tensor: ...
@overload
def token_logprobs(
    logits: torch.Tensor, targets: torch.Tensor, *, temperature: float = ...,
    with_entropy: Literal[True], chunk_rows: int = ...,
) -> tuple[torch.Tensor, torch.Tensor]: ...
@overload
def token_logprobs(
    logits: torch.Tensor, targets: torch.Tensor, *, temperature: float = ...,
    with_entropy: bool, chunk_rows: int = ...,
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]: ...
def token_logprobs(
    logits: torch.Tensor,
    targets: torch.Tensor,
    *,
    temperature: float = 1.0,
    with_entropy: bool = False,
    chunk_rows: int = 256,
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
    """``log_softmax(logits / temperature)`` at ``targets``, without the full log-softmax.

    ``logits`` is ``[..., V]`` and ``targets`` ``[...]``. Per row: the taken token's logit
    minus the row's logsumexp, computed ``chunk_rows`` rows at a time, so autograd holds
    no ``[rows, V]`` log-softmax (nor its exp, for the entropy) besides the logits
    themselves. Half-precision logits (autocast) are upcast to float32 one chunk at a time.
    With ``with_entropy``, also each row's entropy, computed under ``no_grad`` (it is only
    reported).

    >>> logits = torch.tensor([[2.0, 0.0, -1.0], [0.0, 0.0, 0.0]])
    >>> lp = token_logprobs(logits, torch.tensor([0, 2]), chunk_rows=1)
    >>> ref = torch.log_softmax(logits, -1)[[0, 1], [0, 2]]
    >>> bool(torch.allclose(lp, ref))
    True
    """
    shape = targets.shape
    flat = logits.reshape(-1, logits.shape[-1])
    index = targets.reshape(-1)
    picked, entropies = [], []
    for start in range(0, flat.shape[0], max(1, chunk_rows)):
        rows = flat[start : start + chunk_rows].float() / temperature
        lse = torch.logsumexp(rows, dim=-1)
        picked.append(rows.gather(-1, index[start : start + chunk_rows, None]).squeeze(-1) - lse)
        if with_entropy:
            with torch.no_grad():
                # H = logsumexp(z) - sum(softmax(z) * z)
                entropies.append(lse - (torch.softmax(rows, dim=-1) * rows).sum(-1))
    out = torch.cat(picked) if picked else flat.new_zeros(0, dtype=torch.float32)
    if not with_entropy:
        return out.reshape(shape)
    ent = torch.cat(entropies) if entropies else out.detach()
    return out.reshape(shape), ent.reshape(shape)


@overload
def sequence_logprobs(
    model: torch.nn.Module, input_ids: torch.Tensor, attention_mask: torch.Tensor,
    completion_mask: torch.Tensor, *, temperature: float = ...,
    with_entropy: Literal[False] = ..., autocast_dtype: torch.dtype | None = ...,
) -> torch.Tensor: ...
@overload
def sequence_logprobs(
    model: torch.nn.Module, input_ids: torch.Tensor, attention_mask: torch.Tensor,
    completion_mask: torch.Tensor, *, temperature: float = ...,
    with_entropy: Literal[True], autocast_dtype: torch.dtype | None = ...,
) -> tuple[torch.Tensor, torch.Tensor]: ...
@overload
def sequence_logprobs(
    model: torch.nn.Module, input_ids: torch.Tensor, attention_mask: torch.Tensor,
    completion_mask: torch.Tensor, *, temperature: float = ...,
    with_entropy: bool, autocast_dtype: torch.dtype | None = ...,
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]: ...
def sequence_logprobs(
    model: torch.nn.Module,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    completion_mask: torch.Tensor,
    *,
    temperature: float = 1.0,
    with_entropy: bool = False,
    autocast_dtype: torch.dtype | None = None,
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
    """Log-prob of every completion token given the ones before it, ``[B, T]`` (0 elsewhere).

    Position ``t`` holds ``log p(input_ids[t] | input_ids[:t])`` where ``completion_mask``
    is 1, and 0 everywhere else. Logits are divided by ``temperature`` first, so the values
    match the sampler's log-probs (it samples from the tempered distribution). With
    ``with_entropy`` also returns the per-token entropy of that distribution, ``[B, T]``,
    computed without gradients.

    ``autocast_dtype`` (``torch.bfloat16`` or ``float16``) runs the forward under
    ``torch.autocast`` in that dtype: matrix products in half precision, while the weights
    (and so the optimizer's updates) stay float32. None: the model's own dtype throughout.

    Rows are left-padded (as :func:`collate` builds them, and as the sampler pads its
    prompts): position ids count real tokens only, so they equal the sampler's, and every
    completion ends at the last column. Only the last columns that hold completion tokens
    go through the vocabulary projection (``logits_to_keep``), and the taken tokens'
    log-probs are read with :func:`token_logprobs` (gather, then logsumexp, in chunks of
    rows): for a 49k-token vocabulary a full ``[B, T, V]`` log-softmax held for autograd
    would cost gigabytes.
    """
    width = input_ids.shape[1]
    has = completion_mask.any(dim=0).nonzero()
    first = int(has[0]) if has.numel() else width  # leftmost column with a completion token
    keep = max(width - first + 1, 1)  # ... and the column before it, which predicts it
    positions = (attention_mask.cumsum(dim=-1) - 1).clamp(min=0)
    kwargs = {"input_ids": input_ids, "attention_mask": attention_mask, "position_ids": positions}
    autocast = torch.autocast(device_type=input_ids.device.type, dtype=autocast_dtype,
                              enabled=autocast_dtype is not None)
    with autocast:
        try:
            logits = model(**kwargs, logits_to_keep=keep).logits
        except TypeError:  # a model without logits_to_keep: project every position
            logits = model(**kwargs).logits
    logits = logits[:, -keep:-1]  # predictions for the last keep-1 columns
    targets = input_ids[:, width - keep + 1 :]
    if with_entropy:
        picked, entropy = token_logprobs(logits, targets, temperature=temperature,
                                         with_entropy=True)
    else:
        picked, entropy = token_logprobs(logits, targets, temperature=temperature), None
    mask = completion_mask.to(picked.dtype)
    head = torch.zeros_like(mask[:, : width - keep + 1])
    token_lps = torch.cat([head, picked], dim=1) * mask
    if entropy is None:
        return token_lps
    return token_lps, torch.cat([head, entropy], dim=1) * mask


@dataclass
class Batch:
    """Right-padded tensors for a list of turns (see :func:`collate`)."""

    input_ids: torch.Tensor  # [B, T] padding, then prompt + completion
    attention_mask: torch.Tensor  # [B, T] 1 on real tokens
    completion_mask: torch.Tensor  # [B, T] 1 exactly on the completion (the agent's tokens)
    old_logprobs: torch.Tensor  # [B, T] the sampler's log-probs at completion positions, else 0

    def to(self, device: str | torch.device) -> Batch:
        return Batch(*(t.to(device) for t in vars(self).values()))


def collate(
    prompts: Sequence[Sequence[int]],
    completions: Sequence[Sequence[int]],
    logprobs: Sequence[Sequence[float]] | None = None,
    *,
    pad_id: int = 0,
) -> Batch:
    """Concatenate each prompt with its completion, left-pad, and mark the completion.

    Left padding puts every completion at the end, where :func:`sequence_logprobs` reads.

    >>> b = collate([[1, 2], [3]], [[4], [5, 6]], [[-0.5], [-1.0, -2.0]], pad_id=0)
    >>> b.input_ids.tolist(), b.completion_mask.int().tolist()
    ([[1, 2, 4], [3, 5, 6]], [[0, 0, 1], [0, 1, 1]])
    >>> b.old_logprobs.tolist()
    [[0.0, 0.0, -0.5], [0.0, -1.0, -2.0]]
    >>> collate([[7], [1, 2]], [[8], [3]]).input_ids.tolist()  # left padding
    [[0, 7, 8], [1, 2, 3]]
    """
    if len(prompts) != len(completions):
        raise ValueError(f"{len(prompts)} prompts but {len(completions)} completions")
    width = max((len(p) + len(c) for p, c in zip(prompts, completions, strict=True)), default=0)
    n = len(prompts)
    ids = torch.full((n, width), pad_id, dtype=torch.long)
    attention = torch.zeros((n, width), dtype=torch.long)
    completion = torch.zeros((n, width), dtype=torch.float32)
    old = torch.zeros((n, width), dtype=torch.float32)
    for i, (p, c) in enumerate(zip(prompts, completions, strict=True)):
        start = width - len(p) - len(c)  # padding first: the completion ends the row
        ids[i, start:] = torch.tensor(list(p) + list(c), dtype=torch.long)
        attention[i, start:] = 1
        completion[i, width - len(c) :] = 1.0
        if logprobs is not None and len(logprobs[i]):
            if len(logprobs[i]) != len(c):
                raise ValueError(f"row {i}: {len(logprobs[i])} log-probs for {len(c)} tokens")
            old[i, width - len(c) :] = torch.tensor(list(logprobs[i]), dtype=torch.float32)
    return Batch(ids, attention, completion, old)
