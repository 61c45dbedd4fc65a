"""The optimizer every trainer uses: AdamW with gradient clipping and an optional linear
learning-rate warm-up.

Why a warm-up: Adam divides each gradient by its own running magnitude, so its first steps
move *every* weight by about ``lr`` whatever the gradient's size (sign-like). A fresh
optimizer on a small RL batch therefore takes its biggest relative steps exactly when its
statistics are worst. ``warmup_steps = N`` scales the n-th step's rate by ``n / N`` until
step N.

The rate of the next step is computed from the optimizer's own step count, which its
``state_dict`` carries, so a resumed run continues the schedule where it stopped without
any extra checkpoint state.

>>> import torch
>>> weight = torch.nn.Parameter(torch.zeros(2))
>>> opt = make_optimizer([weight], lr=1e-3)
>>> weight.grad = torch.ones(2)
>>> optimizer_step(opt, lr=1e-3, warmup_steps=4, max_grad_norm=1.0)
Step(lr=0.00025, grad_norm=1.4142135381698608, skipped=False)
>>> steps_taken(opt)
1

A step whose gradient is not finite (an overflow, a NaN in the loss) is skipped, as mixed-
precision loss scalers do: clipping cannot repair it (it scales every gradient by NaN), and
one such step turns every weight into NaN for good. A GPU run of the learning study did that
on its seventh update, and its sampler then died on a NaN probability.

>>> weight.grad = torch.tensor([float("nan"), 1.0])
>>> optimizer_step(opt, lr=1e-3, warmup_steps=4, max_grad_norm=1.0).skipped
True
>>> bool(weight.isfinite().all())
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import torch

__all__ = ["Step", "make_optimizer", "optimizer_step", "steps_taken", "warmup_lr"]


class Step(NamedTuple):
    """What one optimizer step used: its learning rate, the gradient norm before clipping, and
    whether it was skipped (a gradient that is not finite leaves the weights as they were)."""

    lr: float
    grad_norm: float
    skipped: bool = False


def warmup_lr(lr: float, steps_done: int, warmup_steps: int) -> float:
    """The rate of the next optimizer step: ``lr * min(1, (steps_done + 1) / warmup_steps)``.

    ``warmup_steps = 0`` (or 1) means no warm-up.

    >>> [warmup_lr(1.0, s, 4) for s in range(6)]
    [0.25, 0.5, 0.75, 1.0, 1.0, 1.0]
    >>> warmup_lr(2e-5, 0, 0)
    2e-05
    """
    if warmup_steps <= 1:
        return lr
    return lr * min(1.0, (steps_done + 1) / warmup_steps)


def make_optimizer(params: Iterable[torch.nn.Parameter], *, lr: float) -> torch.optim.Optimizer:
    """AdamW over ``params`` (the trainers' one optimizer; its defaults otherwise).

    ``foreach=False``: the multi-tensor path allocates temporaries the size of every state
    tensor at once (``sqrt(v)`` for all parameters: another copy of the model); the
    per-parameter loop needs only the largest parameter's worth, at the same results.
    """
    return torch.optim.AdamW(params, lr=lr, foreach=False)


def steps_taken(optimizer: torch.optim.Optimizer) -> int:
    """How many steps ``optimizer`` has taken (0 before the first; survives ``state_dict``).

    The most any parameter has seen: AdamW keeps no state for a parameter until it first
    has a gradient, so a late-starting one would undercount.
    """
    return max((int(state["step"]) for state in optimizer.state.values() if "step" in state),
               default=0)


def optimizer_step(optimizer: torch.optim.Optimizer, *, lr: float, warmup_steps: int,
                   max_grad_norm: float) -> Step:
    """Clip the gradients to ``max_grad_norm`` (0: no clipping), set the warm-up rate on every
    parameter group, and step; a gradient that is not finite is dropped and the step skipped."""
    params = [p for group in optimizer.param_groups for p in group["params"]]
    norm = torch.nn.utils.clip_grad_norm_(
        params, max_grad_norm if max_grad_norm > 0 else float("inf"))
    rate = warmup_lr(lr, steps_taken(optimizer), warmup_steps)
    if not torch.isfinite(norm):
        optimizer.zero_grad(set_to_none=True)
        return Step(lr=rate, grad_norm=float(norm), skipped=True)
    for group in optimizer.param_groups:
        group["lr"] = rate
    optimizer.step()
    return Step(lr=rate, grad_norm=float(norm))
