"""The optimizer every trainer uses: AdamW with an optional linear learning-rate warm-up.

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
>>> optimizer_step(opt, lr=1e-3, warmup_steps=4)
0.00025
>>> steps_taken(opt)
1
"""

from __future__ import annotations

from collections.abc import Iterable

import torch

__all__ = ["make_optimizer", "optimizer_step", "steps_taken", "warmup_lr"]


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
    """AdamW over ``params`` (the trainers' one optimizer; its defaults otherwise)."""
    return torch.optim.AdamW(params, lr=lr)


def steps_taken(optimizer: torch.optim.Optimizer) -> int:
    """How many steps ``optimizer`` has taken (0 before the first; survives ``state_dict``)."""
    for state in optimizer.state.values():
        if "step" in state:
            return int(state["step"])
    return 0


def optimizer_step(optimizer: torch.optim.Optimizer, *, lr: float, warmup_steps: int) -> float:
    """Set the warm-up rate on every parameter group, step, and return the rate used."""
    rate = warmup_lr(lr, steps_taken(optimizer), warmup_steps)
    for group in optimizer.param_groups:
        group["lr"] = rate
    optimizer.step()
    return rate
