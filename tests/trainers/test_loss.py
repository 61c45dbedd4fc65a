"""The policy loss against values computed by hand, and the token log-probs it reads."""

import math

import pytest

torch = pytest.importorskip("torch")

from agentgym.trainers.loss import (  # noqa: E402
    KL_LOG_RATIO_CAP,
    collate,
    policy_loss,
    sequence_logprobs,
)

BIG = 50.0  # a log-ratio that would dominate any sum if a masked position leaked in


def two_sequences():
    """Two sequences of 4 positions; hand-computed per-token losses are in the comments.

    seq 0, A = +1, agent tokens at 1, 2: ratio 1.5 (clipped to 1.2: loss -1.2), ratio 1 (-1).
    seq 1, A = -2, agent tokens at 1, 2, 3: ratio 0.5 (clipped to 0.8: loss 1.6), ratio 1.1
    (2.2), ratio 1 (2.0). Masked positions carry huge log-ratios that must not count.
    """
    old = torch.zeros(2, 4)
    new = torch.tensor(
        [
            [BIG, math.log(1.5), 0.0, BIG],
            [-BIG, math.log(0.5), math.log(1.1), 0.0],
        ]
    )
    mask = torch.tensor([[0.0, 1.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0]])
    adv = torch.tensor([1.0, -2.0])
    return new, old, adv, mask


def test_seq_mean_matches_hand_computation():
    new, old, adv, mask = two_sequences()
    loss, stats = policy_loss(new, old, adv, mask, agg="seq-mean")
    expected = ((-1.2 - 1.0) / 2 + (1.6 + 2.2 + 2.0) / 3) / 2
    assert loss.item() == pytest.approx(expected, abs=1e-6)
    assert stats["clip_fraction"] == pytest.approx(2 / 5)


def test_token_mean_and_token_sum_match_hand_computation():
    new, old, adv, mask = two_sequences()
    total = -1.2 - 1.0 + 1.6 + 2.2 + 2.0
    loss, _ = policy_loss(new, old, adv, mask, agg="token-mean")
    assert loss.item() == pytest.approx(total / 5, abs=1e-6)
    loss, _ = policy_loss(new, old, adv, mask, agg="token-sum", constant=10.0)
    assert loss.item() == pytest.approx(total / 10, abs=1e-6)


def test_token_sum_needs_a_constant():
    new, old, adv, mask = two_sequences()
    with pytest.raises(ValueError, match="constant"):
        policy_loss(new, old, adv, mask, agg="token-sum")


def test_eps_low_and_eps_high_are_separate_bounds():
    new, old, adv, mask = two_sequences()
    # eps_high 0.6: ratio 1.5 is inside [.., 1.6], so seq 0 token 1 is -1.5 (unclipped).
    loss, stats = policy_loss(new, old, adv, mask, agg="token-mean", eps_high=0.6)
    assert loss.item() == pytest.approx((-1.5 - 1.0 + 1.6 + 2.2 + 2.0) / 5, abs=1e-6)
    assert stats["clip_fraction"] == pytest.approx(1 / 5)
    # eps_low 0.6: ratio 0.5 is inside [0.4, ..], so seq 1 token 1 is 1.0 (unclipped).
    loss, _ = policy_loss(new, old, adv, mask, agg="token-mean", eps_low=0.6)
    assert loss.item() == pytest.approx((-1.2 - 1.0 + 1.0 + 2.2 + 2.0) / 5, abs=1e-6)


def test_gradient_flows_only_through_unclipped_agent_tokens():
    new, old, adv, mask = two_sequences()
    new = new.clone().requires_grad_(True)
    loss, _ = policy_loss(new, old, adv, mask, agg="token-mean")
    loss.backward()
    grad = new.grad
    # d/dnew of -r*A = -r*A, divided by the 5 active tokens; clipped tokens and masked ones: 0.
    expected = torch.tensor([[0.0, 0.0, -1.0 / 5, 0.0], [0.0, 0.0, 2.2 / 5, 2.0 / 5]])
    assert torch.allclose(grad, expected, atol=1e-6)


def test_kl_penalty_is_off_by_default_and_k3_when_on():
    new, old, adv, mask = two_sequences()
    ref = new.clone()
    ref[0, 2] = new[0, 2] + math.log(2.0)  # k3 there: 2 - ln 2 - 1
    base, stats = policy_loss(new, old, adv, mask, agg="token-mean", ref_logprobs=ref)
    plain, _ = policy_loss(new, old, adv, mask, agg="token-mean")
    assert base.item() == plain.item()  # beta = 0: reported, not added
    k3 = 2.0 - math.log(2.0) - 1.0
    assert stats["kl_ref"] == pytest.approx(k3 / 5, abs=1e-6)
    loss, _ = policy_loss(new, old, adv, mask, agg="token-mean", beta=0.5, ref_logprobs=ref)
    assert loss.item() == pytest.approx(plain.item() + 0.5 * k3 / 5, abs=1e-6)
    with pytest.raises(ValueError, match="ref_logprobs"):
        policy_loss(new, old, adv, mask, beta=0.1)


def test_entropy_and_approx_kl_are_masked_means():
    new, old, adv, mask = two_sequences()
    entropy = torch.full((2, 4), 100.0)
    entropy[mask > 0] = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
    _, stats = policy_loss(new, old, adv, mask, entropy=entropy)
    assert stats["entropy"] == pytest.approx(3.0)
    logs = [math.log(1.5), 0.0, math.log(0.5), math.log(1.1), 0.0]
    assert stats["approx_kl"] == pytest.approx(sum(0.5 * x * x for x in logs) / 5, abs=1e-6)


def test_collate_masks_exactly_the_completion_of_a_multi_turn_prompt():
    # Turn 2's prompt holds turn 1's completion (ids 7, 8): it is not this row's agent text.
    prompt = [1, 2, 7, 8, 3]
    batch = collate([prompt, [1]], [[9, 10], [4, 5, 6]], [[-0.1, -0.2], [-1.0, -2.0, -3.0]])
    assert batch.input_ids.tolist() == [[1, 2, 7, 8, 3, 9, 10], [0, 0, 0, 1, 4, 5, 6]]
    assert batch.completion_mask.tolist() == [[0, 0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 1, 1, 1]]
    assert batch.attention_mask.tolist() == [[1] * 7, [0, 0, 0, 1, 1, 1, 1]]
    assert batch.old_logprobs[0, 5:].tolist() == pytest.approx([-0.1, -0.2])
    assert batch.old_logprobs[1].tolist() == pytest.approx([0, 0, 0, 0, -1.0, -2.0, -3.0])
    with pytest.raises(ValueError, match="log-probs"):
        collate([[1]], [[2, 3]], [[-0.1]])


def test_sequence_logprobs_match_a_manual_log_softmax():
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32,
                         num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2)
    model = LlamaForCausalLM(config).eval()
    batch = collate([[1, 2, 3], [4]], [[5, 6], [7, 8, 9]])
    with torch.no_grad():
        lp, ent = sequence_logprobs(model, batch.input_ids, batch.attention_mask,
                                    batch.completion_mask, temperature=0.5, with_entropy=True)
        logits = model(input_ids=torch.tensor([[1, 2, 3, 5, 6]])).logits[0] / 0.5
    logp = torch.log_softmax(logits, -1)
    # Row 0 has no padding: its completion (5, 6) is at columns 3, 4.
    assert lp[0, 3].item() == pytest.approx(logp[2, 5].item(), abs=1e-5)
    assert lp[0, 4].item() == pytest.approx(logp[3, 6].item(), abs=1e-5)
    assert lp[0, :3].tolist() == [0.0, 0.0, 0.0]
    assert ent[0, 3].item() == pytest.approx(-(logp[2].exp() * logp[2]).sum().item(), abs=1e-5)
    # Row 1 is left-padded by one: the same values as the unpadded sequence 4, 7, 8, 9.
    with torch.no_grad():
        logits1 = model(input_ids=torch.tensor([[4, 7, 8, 9]])).logits[0] / 0.5
    logp1 = torch.log_softmax(logits1, -1)
    assert lp[1, :2].tolist() == [0.0, 0.0]  # padding, then the prompt
    for column, (row, token) in zip((2, 3, 4), ((0, 7), (1, 8), (2, 9)), strict=True):
        assert lp[1, column].item() == pytest.approx(logp1[row, token].item(), abs=1e-5)


def test_k3_penalty_stays_finite_for_a_token_far_from_the_reference():
    # A token the policy has driven to -150 nats while the reference keeps it at -0.1: the
    # unclamped exp(ref - new) is inf in float32, and the step's gradient NaN.
    new = torch.tensor([[-150.0, -1.0]], requires_grad=True)
    ref = torch.tensor([[-0.1, -1.0]])
    loss, stats = policy_loss(new, new.detach(), torch.tensor([1.0]), torch.ones(1, 2),
                              beta=0.1, ref_logprobs=ref)
    loss.backward()
    assert torch.isfinite(loss) and torch.isfinite(new.grad).all()
    cap = KL_LOG_RATIO_CAP
    assert stats["kl_ref"] == pytest.approx((math.exp(cap) - cap - 1.0) / 2, rel=1e-5)
    # Inside the cap nothing changes: k3 by hand for ref - new = 2.
    small, _ = policy_loss(torch.tensor([[-3.0]]), torch.tensor([[-3.0]]), torch.tensor([0.0]),
                           torch.ones(1, 1), beta=1.0, ref_logprobs=torch.tensor([[-1.0]]))
    assert float(small) == pytest.approx(math.exp(2.0) - 2.0 - 1.0, rel=1e-6)
