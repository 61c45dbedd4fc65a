"""The optimizer step: clipping, the warm-up rate per step, and that resuming continues it."""

import math

import pytest
import torch

from agentgym.trainers.optim import make_optimizer, optimizer_step, steps_taken, warmup_lr


def test_warmup_rates_by_hand():
    assert [warmup_lr(8.0, s, 4) for s in range(6)] == [2.0, 4.0, 6.0, 8.0, 8.0, 8.0]
    assert [warmup_lr(8.0, s, 0) for s in range(3)] == [8.0, 8.0, 8.0]
    assert [warmup_lr(8.0, s, 1) for s in range(3)] == [8.0, 8.0, 8.0]
    assert warmup_lr(3.0, 0, 3) == pytest.approx(1.0)


def one_step(warmup_steps: int, lr: float = 1e-2) -> torch.Tensor:
    weight = torch.nn.Parameter(torch.zeros(3))
    optimizer = make_optimizer([weight], lr=lr)
    weight.grad = torch.tensor([5.0, -0.001, 200.0])
    optimizer_step(optimizer, lr=lr, warmup_steps=warmup_steps, max_grad_norm=0.0)
    return weight.detach()


def test_first_adam_step_moves_every_weight_by_the_warmed_up_rate():
    # Adam's first step is lr * g / |g| whatever |g|: the reason the warm-up exists.
    assert one_step(0) == pytest.approx(torch.tensor([-1e-2, 1e-2, -1e-2]), rel=1e-4)
    assert one_step(4) == pytest.approx(torch.tensor([-2.5e-3, 2.5e-3, -2.5e-3]), rel=1e-4)


def test_resumed_optimizer_continues_the_schedule():
    weight = torch.nn.Parameter(torch.zeros(2))
    optimizer = make_optimizer([weight], lr=1.0)
    rates = []
    for _ in range(2):
        weight.grad = torch.ones(2)
        rates.append(optimizer_step(optimizer, lr=1.0, warmup_steps=4, max_grad_norm=0.0).lr)
    assert steps_taken(optimizer) == 2

    fresh = make_optimizer([weight], lr=1.0)
    assert steps_taken(fresh) == 0
    fresh.load_state_dict(optimizer.state_dict())
    for _ in range(3):
        weight.grad = torch.ones(2)
        rates.append(optimizer_step(fresh, lr=1.0, warmup_steps=4, max_grad_norm=0.0).lr)
    assert rates == [0.25, 0.5, 0.75, 1.0, 1.0]


def test_gradients_are_clipped_to_max_grad_norm_and_the_norm_before_is_reported():
    weight = torch.nn.Parameter(torch.zeros(2))
    optimizer = torch.optim.SGD([weight], lr=1.0)  # SGD: the step is the clipped gradient
    weight.grad = torch.tensor([3.0, 4.0])
    step = optimizer_step(optimizer, lr=1.0, warmup_steps=0, max_grad_norm=1.0)
    assert step.grad_norm == pytest.approx(5.0)
    assert weight.detach() == pytest.approx(torch.tensor([-0.6, -0.8]), rel=1e-5)

    weight.grad = torch.tensor([3.0, 4.0])
    assert optimizer_step(optimizer, lr=1.0, warmup_steps=0, max_grad_norm=0.0).grad_norm == 5.0
    assert weight.detach() == pytest.approx(torch.tensor([-3.6, -4.8]), rel=1e-5)


def test_steps_taken_counts_the_most_updated_parameter():
    # AdamW skips a parameter without a gradient, so per-parameter counts can differ.
    once, always = torch.nn.Parameter(torch.zeros(1)), torch.nn.Parameter(torch.zeros(1))
    optimizer = make_optimizer([once, always], lr=1.0)
    once.grad, always.grad = torch.ones(1), torch.ones(1)
    optimizer.step()
    once.grad = None
    for _ in range(2):
        always.grad = torch.ones(1)
        optimizer.step()
    assert steps_taken(optimizer) == 3


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_gradient_that_is_not_finite_skips_the_step(bad):
    weight = torch.nn.Parameter(torch.ones(3))
    opt = make_optimizer([weight], lr=0.1)
    weight.grad = torch.tensor([1.0, bad, 1.0])
    step = optimizer_step(opt, lr=0.1, warmup_steps=0, max_grad_norm=1.0)
    assert step.skipped and not math.isfinite(step.grad_norm)
    assert torch.equal(weight.detach(), torch.ones(3)) and weight.grad is None
    assert steps_taken(opt) == 0
    weight.grad = torch.ones(3)  # the next finite step goes through
    assert not optimizer_step(opt, lr=0.1, warmup_steps=0, max_grad_norm=1.0).skipped
    assert steps_taken(opt) == 1 and torch.isfinite(weight).all()


def test_the_mmap_threshold_is_set_through_glibc_and_by_load_policy(monkeypatch):
    import platform

    from agentgym.trainers import grpo
    from agentgym.trainers.config import GRPOConfig
    from agentgym.trainers.memory import set_mmap_threshold

    assert set_mmap_threshold(0) is False  # glibc's own dynamic threshold: untouched
    if platform.libc_ver()[0] == "glibc":
        assert set_mmap_threshold(1 << 25) is True  # 32 MiB: near what glibc grows to itself
    seen = []
    monkeypatch.setattr(grpo, "set_mmap_threshold", seen.append)
    grpo.load_policy(GRPOConfig(model="tiny-random", malloc_mmap_threshold=65536))
    assert seen == [65536]
    with pytest.raises(ValueError):
        GRPOConfig(malloc_mmap_threshold=-1)
