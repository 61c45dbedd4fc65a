"""Trainer numerics (issue 36): float32 master weights under bf16 autocast, the trainer's own
old log-probs, gradient accumulation, truncated importance sampling, LoRA's reference through
the disabled adapter, chunked token log-probs, and the refusals of half-algorithms."""

import io

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rich.console import Console  # noqa: E402
from trainer_fakes import fake_rollout_groups, tiny_policy, weights  # noqa: E402

from agentgym.llm.models import byte_tokenizer, tiny_random_model  # noqa: E402
from agentgym.llm.sampler import TransformersSampler  # noqa: E402
from agentgym.trainers import grpo as grpo_trainer  # noqa: E402
from agentgym.trainers import loss as loss_module  # noqa: E402
from agentgym.trainers.config import GRPOConfig, load_config  # noqa: E402
from agentgym.trainers.loss import (  # noqa: E402
    collate,
    policy_loss,
    sequence_logprobs,
    token_logprobs,
    truncated_is_weights,
)
from agentgym.trainers.records import StepRecord  # noqa: E402


def make_rows(count=16, seed=0, vocab=259):
    """Turns with prompts and completions of varied lengths (the log-probs are not read by
    the loss any more: the trainer recomputes them)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(count):
        prompt = rng.integers(3, vocab, size=int(rng.integers(4, 12))).tolist()
        completion = rng.integers(3, vocab, size=int(rng.integers(1, 7))).tolist()
        rows.append(StepRecord(group=0, trajectory=i, turn=0, state_key="s",
                               reward_components={"process": 0.0, "outcome": 0.0},
                               terminated=True, prompt_ids=prompt, completion_ids=completion,
                               logprobs=[-1.0] * len(completion)))
    return rows


ADVANTAGES = np.array([1.0, -1.0, 0.5, -0.5] * 4)


def policy_with(dtype=""):
    """The tiny model (width 64, 2 blocks, byte tokenizer) as ``load_policy`` sets it up."""
    tok = byte_tokenizer()
    model = tiny_random_model(tok, seed=0)
    half = grpo_trainer.compute_dtype(GRPOConfig(dtype=dtype))
    sampler = TransformersSampler(model, tok, **({"dtype": half} if half else {}))
    return grpo_trainer.Policy(sampler, tok, model)


def one_step(policy, cfg, rows=None, adv=ADVANTAGES, optimizer=torch.optim.AdamW):
    optimizer = optimizer(grpo_trainer.trainable(policy.model), lr=cfg.lr)
    before = weights(policy.model)
    stats = grpo_trainer.ppo_update(policy, optimizer, rows or make_rows(), adv, cfg)
    after = weights(policy.model)
    return {k: after[k] - before[k] for k in before}, stats


def move_figures(delta, reference):
    moved = torch.cat([d.flatten() for d in delta.values()])
    ref = torch.cat([d.flatten() for d in reference.values()])
    return {
        "changed": float((moved != 0).float().mean()),
        "norm_ratio": float(moved.norm() / ref.norm()),
        "rel_error": float((moved - ref).norm() / ref.norm()),
    }


# --- float32 master weights + bf16 autocast ----------------------------------------------------


def test_a_bf16_autocast_step_at_lr_1e6_moves_the_fp32_weights_as_an_fp32_step():
    cfg = GRPOConfig(lr=1e-6, max_new_tokens=8)
    fp32, _ = one_step(policy_with(""), cfg)
    policy = policy_with("bfloat16")
    auto, stats = one_step(policy, cfg.model_copy(update={"dtype": "bfloat16"}))
    assert all(p.dtype == torch.float32 for p in policy.model.parameters())
    figures = move_figures(auto, fp32)
    print("bf16 autocast vs fp32:", figures)
    base = move_figures(fp32, fp32)
    assert base["changed"] > 0.9  # Adam's first step moves (nearly) every weight by ~lr
    assert figures["changed"] >= 0.99 * base["changed"]
    assert 0.97 < figures["norm_ratio"] < 1.03
    assert figures["rel_error"] < 0.25
    # The sampler's bf16 copy differs from the fp32 trainer before any update...
    assert stats["sampler_logprob_gap_mean"] > 0 or stats["sampler_logprob_gap_max"] >= 0


def test_adamw_on_bf16_weights_the_old_way_would_not_move_them():
    """The failure the fp32 master copy fixes: the same step taken on bf16 weights."""
    cfg = GRPOConfig(lr=1e-6, max_new_tokens=8)
    fp32, _ = one_step(policy_with(""), cfg)
    policy = policy_with("")
    policy.model.to(torch.bfloat16)
    rows, pad = make_rows(), 0
    batch = collate([r.prompt_ids for r in rows], [r.completion_ids for r in rows], pad_id=pad)
    optimizer = torch.optim.AdamW(policy.model.parameters(), lr=cfg.lr)
    before = {k: v.float() for k, v in weights(policy.model).items()}
    new = sequence_logprobs(policy.model, batch.input_ids, batch.attention_mask,
                            batch.completion_mask)
    loss, _ = policy_loss(new, new.detach(), torch.tensor(ADVANTAGES, dtype=torch.float32),
                          batch.completion_mask)
    loss.backward()
    optimizer.step()
    old_way = {k: v.float() - before[k] for k, v in weights(policy.model).items()}
    figures = move_figures(old_way, fp32)
    print("bf16 weights (old way) vs fp32:", figures)
    # Most weights do not move at all (the step is below bf16's resolution), and the few
    # that do (those near 0) jump by a whole bf16 step: not the fp32 update.
    assert figures["changed"] < 0.1
    assert figures["rel_error"] > 0.5


def test_the_bf16_sampler_copy_is_synced_in_place_after_an_update():
    policy = policy_with("bfloat16")
    sampler = policy.sampler
    assert not sampler.shares_weights
    own = [p for p in sampler.model.parameters()]
    assert all(p.dtype == torch.bfloat16 for p in own)
    one_step(policy, GRPOConfig(lr=1e-2, max_new_tokens=8, dtype="bfloat16"))
    assert [p for p in sampler.model.parameters()] == own  # the same tensors, refilled
    for (name, mine), theirs in zip(sampler.model.state_dict().items(),
                                    policy.model.state_dict().values(), strict=True):
        assert torch.equal(mine, theirs.to(torch.bfloat16)), name


def test_a_float32_run_samples_from_the_model_itself():
    assert policy_with("").sampler.shares_weights


# --- old log-probs from the trainer's own forward ----------------------------------------------


@pytest.mark.parametrize("dtype", ["", "bfloat16"])
def test_the_ratio_denominator_is_the_trainers_forward_not_the_samplers(monkeypatch, dtype):
    seen = []
    real = grpo_trainer.policy_loss

    def spy(new, old, *args, **kwargs):
        seen.append((new.detach().clone(), old.clone()))
        return real(new, old, *args, **kwargs)

    monkeypatch.setattr(grpo_trainer, "policy_loss", spy)
    policy = policy_with(dtype)
    prompts = [policy.tokenizer.encode(f"board {i}") for i in range(4)]
    samples = policy.sampler.generate(prompts * 2, max_new_tokens=6, stop=None, seed=1)
    rows = [StepRecord(group=0, trajectory=i, turn=0, state_key="s",
                       reward_components={"process": 0.0, "outcome": 0.0}, terminated=True,
                       prompt_ids=s.prompt_ids, completion_ids=s.completion_ids,
                       logprobs=s.logprobs) for i, s in enumerate(samples)]
    cfg = GRPOConfig(lr=1e-3, max_new_tokens=6, dtype=dtype, minibatch_size=4)
    _, stats = one_step(policy, cfg, rows, ADVANTAGES[:8])
    new, old = seen[0]
    assert torch.equal(new, old)  # first step: the recomputed old log-probs ARE the forward
    assert not torch.equal(*seen[1])  # the second minibatch sees the first step's move
    sampler_lps = collate([r.prompt_ids for r in rows[:4]], [r.completion_ids for r in rows[:4]],
                          [r.logprobs for r in rows[:4]]).old_logprobs
    if dtype:  # the bf16 sampler's log-probs are not the trainer's: the gap is logged
        assert not torch.allclose(old, sampler_lps, atol=1e-4)
        assert stats["sampler_logprob_gap_max"] > 1e-3
    else:
        assert torch.allclose(old, sampler_lps, atol=1e-4)
        assert stats["sampler_logprob_gap_max"] < 1e-4
    assert 0 <= stats["sampler_logprob_gap_mean"] <= stats["sampler_logprob_gap_max"]


# --- micro-batches and gradient accumulation ---------------------------------------------------


@pytest.mark.parametrize("agg", ["seq-mean", "token-mean", "token-sum"])
def test_two_micro_batches_of_8_equal_one_step_of_16(agg):
    # Plain SGD at lr 1: the weights move by exactly minus the (clipped) gradient, so the
    # comparison is of the accumulated gradient itself (Adam's first step is ~lr * sign(g),
    # which would hide a wrong scale).
    cfg = GRPOConfig(lr=1.0, max_new_tokens=8, minibatch_size=16, agg=agg, max_grad_norm=0)
    whole, s1 = one_step(policy_with(""), cfg, optimizer=torch.optim.SGD)
    split, s2 = one_step(policy_with(""), cfg.model_copy(update={"micro_batch_size": 8}),
                         optimizer=torch.optim.SGD)
    scale = max(float(d.abs().max()) for d in whole.values())
    for name in whole:
        assert torch.allclose(whole[name], split[name], atol=1e-5 * scale, rtol=1e-4), name
    assert s1["grad_norm"] == pytest.approx(s2["grad_norm"], rel=1e-5)
    assert s1["loss"] == pytest.approx(s2["loss"], rel=1e-5, abs=1e-7)
    # ... while two micro-batches each scaled as a whole minibatch would be twice too large,
    # and two optimizer steps of 8 are a different update.
    halves, _ = one_step(policy_with(""), cfg.model_copy(update={"minibatch_size": 8}),
                         optimizer=torch.optim.SGD)
    assert not all(torch.allclose(whole[n], halves[n], atol=1e-5 * scale, rtol=1e-4)
                   for n in whole)


def test_spans_split_minibatches_into_micro_batches():
    assert grpo_trainer._spans(7, 4, 3) == [[(0, 3), (3, 4)], [(4, 7)]]
    assert grpo_trainer._spans(4, 4, 4) == [[(0, 4)]]


def test_gradient_checkpointing_gives_the_same_step(tmp_path):
    plain = grpo_trainer.load_policy(GRPOConfig())
    ckpt = grpo_trainer.load_policy(GRPOConfig(gradient_checkpointing=True))
    assert ckpt.model.is_gradient_checkpointing and not plain.model.is_gradient_checkpointing
    vocab = len(plain.tokenizer)
    cfg = GRPOConfig(lr=1e-3, max_new_tokens=8)
    a, _ = one_step(plain, cfg, make_rows(vocab=vocab))
    b, _ = one_step(ckpt, cfg, make_rows(vocab=vocab))
    for name in a:
        assert torch.allclose(a[name], b[name], atol=1e-6, rtol=0), name


def test_attn_implementation_reaches_the_model():
    policy = grpo_trainer.load_policy(GRPOConfig(attn_implementation="eager"))
    assert policy.model.config._attn_implementation == "eager"


# --- chunked token log-probs and entropy -------------------------------------------------------


def test_token_logprobs_in_chunks_equal_the_full_log_softmax():
    torch.manual_seed(0)
    logits = torch.randn(3, 5, 50, requires_grad=True)
    targets = torch.randint(0, 50, (3, 5))
    lp, ent = token_logprobs(logits, targets, temperature=0.7, with_entropy=True, chunk_rows=4)
    full = torch.log_softmax(logits / 0.7, dim=-1)
    assert torch.allclose(lp, full.gather(-1, targets[..., None]).squeeze(-1), atol=1e-6)
    assert torch.allclose(ent, -(full.exp() * full).sum(-1), atol=1e-5)
    assert lp.requires_grad and not ent.requires_grad  # entropy: reported, no graph
    lp.sum().backward()
    expected = torch.autograd.grad(full.gather(-1, targets[..., None]).sum(), logits)[0]
    assert torch.allclose(logits.grad, expected, atol=1e-6)


def test_sequence_logprobs_entropy_has_no_graph():
    policy = policy_with("")
    rows = make_rows(4)
    b = collate([r.prompt_ids for r in rows], [r.completion_ids for r in rows])
    lp, ent = sequence_logprobs(policy.model, b.input_ids, b.attention_mask, b.completion_mask,
                                with_entropy=True)
    assert lp.requires_grad and not ent.requires_grad and float(ent.sum()) > 0


# --- truncated importance sampling -------------------------------------------------------------


def test_truncated_is_weights_and_the_weighted_loss_by_hand():
    trainer = torch.tensor([[0.0, -1.0, -2.0], [0.0, -0.1, -3.0]])
    sampler = torch.tensor([[0.0, -1.5, -1.0], [0.0, -1.1, -2.0]])
    mask = torch.tensor([[0.0, 1.0, 1.0], [0.0, 1.0, 1.0]])
    w = truncated_is_weights(trainer, sampler, mask, cap=2.0)
    # exp(0.5) = 1.6487, exp(-1) = 0.3679, exp(1.0) = 2.718 -> capped at 2, exp(-1) = 0.3679
    expected = [[1.0, 1.6487213, 0.3678794], [1.0, 2.0, 0.3678794]]
    assert torch.allclose(w, torch.tensor(expected), atol=1e-6)
    adv = torch.tensor([1.0, -2.0])
    loss, _ = policy_loss(trainer, trainer, adv, mask, agg="seq-mean", is_weights=w)
    # ratio 1: per token -A * w; seq 0: -(1.6487 + 0.3679)/2, seq 1: 2 * (2 + 0.3679)/2
    by_hand = (-(1.6487213 + 0.3678794) / 2 + 2 * (2.0 + 0.3678794) / 2) / 2
    assert float(loss) == pytest.approx(by_hand, rel=1e-6)
    with pytest.raises(ValueError, match="cap must be > 0"):
        truncated_is_weights(trainer, sampler, mask, cap=0.0)


def test_tis_cap_is_used_by_the_update_and_reported():
    policy = policy_with("bfloat16")
    cfg = GRPOConfig(lr=1e-3, max_new_tokens=8, dtype="bfloat16", tis_cap=2.0)
    rows = make_rows()  # sampler log-probs of -1 everywhere: far from the trainer's
    _, stats = one_step(policy, cfg, rows)
    assert 0 < stats["tis_weight_mean"] <= 2.0
    _, off = one_step(policy_with("bfloat16"), cfg.model_copy(update={"tis_cap": 0.0}), rows)
    assert "tis_weight_mean" not in off


# --- the LoRA reference is the disabled adapter ------------------------------------------------


def test_lora_reference_is_the_model_with_its_adapter_disabled(tmp_path, monkeypatch):
    import copy as copy_module

    cfg = GRPOConfig(lora_rank=4, beta=0.1, lr=1e-2, out_dir=str(tmp_path), updates=2,
                     groups=2, group_size=4, max_new_tokens=4, progress=False, plots=False)
    policy = tiny_policy()
    from peft import LoraConfig, get_peft_model

    policy.model = get_peft_model(policy.model, LoraConfig(r=4, target_modules="all-linear"))
    policy.sampler = TransformersSampler(policy.model, policy.tokenizer)
    assert grpo_trainer.reference_model(policy, cfg) is None

    def no_copy(*args, **kwargs):
        raise AssertionError("the reference must not be a deep copy under LoRA")

    monkeypatch.setattr(copy_module, "deepcopy", no_copy)
    monkeypatch.setattr(grpo_trainer.copy, "deepcopy", no_copy)
    monkeypatch.setattr(grpo_trainer, "finish_run", lambda *a, **k: None)
    rows = grpo_trainer.train(cfg, policy=policy, rollout=fake_rollout_groups(),
                              console=Console(file=io.StringIO()))
    trained = [r for r in rows if not r["skipped"]]
    # LoRA's B starts at 0: at the first step the adapted model IS the reference.
    assert trained[0]["kl_ref"] == pytest.approx(0.0, abs=1e-7)
    assert trained[-1]["kl_ref"] > 0  # and moves away from it once trained


def test_a_full_model_reference_is_a_frozen_copy():
    policy = policy_with("")
    ref = grpo_trainer.reference_model(policy, GRPOConfig(beta=0.1))
    assert ref is not policy.model and not any(p.requires_grad for p in ref.parameters())
    assert grpo_trainer.reference_model(policy, GRPOConfig(beta=0.0)) is None


# --- refusals ----------------------------------------------------------------------------------


def test_dr_grpo_brings_token_sum_and_refuses_seq_mean():
    assert load_config("grpo", overrides={"advantage": "dr_grpo"}).agg == "token-sum"
    assert load_config("grpo", overrides={"advantage": "dr_grpo",
                                          "agg": "token-mean"}).agg == "token-mean"
    with pytest.raises(ValueError, match=r"not Dr\.GRPO") as info:
        load_config("grpo", overrides={"advantage": "dr_grpo", "agg": "seq-mean"})
    assert "\n" not in str(info.value)
    assert load_config("grpo", overrides={"agg": "seq-mean"}).advantage == "grpo"


@pytest.mark.parametrize("mode", ["both", "outcome"])
def test_vpr_refuses_reward_modes_other_than_process(mode):
    with pytest.raises(ValueError, match="reward_mode must be 'process'") as info:
        load_config("vpr", overrides={"reward_mode": mode})
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(("overrides", "message"), [
    ({"eval_every": "2"}, "eval_every > 0 needs eval_seeds"),
    ({"eval_seeds": "1,x"}, "eval_seeds must be"),
    ({"eval_seeds": "[-1]"}, "eval_seeds must be >= 0"),
    ({"micro_batch_size": "-1"}, "micro_batch_size must be"),
    ({"tis_cap": "-0.5"}, "tis_cap must be"),
    ({"attn_implementation": "magic"}, "attn_implementation must be"),
])
def test_bad_new_keys_are_refused_in_one_line(overrides, message):
    with pytest.raises(ValueError, match=message) as info:
        load_config("grpo", overrides=overrides)
    assert "\n" not in str(info.value)


def test_loss_module_exports():
    assert {"token_logprobs", "truncated_is_weights", "logprob_gap"} <= set(loss_module.__all__)


@pytest.mark.parametrize("argv", [["--algo", "vpr", "--reward-mode", "both"],
                                  ["--algo", "grpo", "--advantage", "dr_grpo",
                                   "--agg", "seq-mean"]])
def test_the_cli_refuses_half_algorithms_in_one_line(argv, capsys, tmp_path):
    from agentgym.cli import main

    code = main(["train", *argv, "--out-dir", str(tmp_path / "run")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0 and "Traceback" not in err, err
    assert "reward_mode must be 'process'" in err or "not Dr.GRPO" in err
    assert not (tmp_path / "run").exists()


def test_a_disk_reference_gives_the_in_memory_copys_kl(tmp_path):
    import copy

    rows, cfg = make_rows(), GRPOConfig(lr=1e-2, max_new_tokens=8, beta=0.1, minibatch_size=8)
    results = []
    for make_ref in (lambda p: copy.deepcopy(p.model).eval().requires_grad_(False),
                     lambda p: grpo_trainer.DiskReference(p.model, tmp_path / "ref.pt")):
        policy = policy_with("")
        ref = make_ref(policy)
        optimizer = torch.optim.AdamW(grpo_trainer.trainable(policy.model), lr=cfg.lr)
        for _ in range(2):  # the second update's KL is away from 0
            stats = grpo_trainer.ppo_update(policy, optimizer, rows, ADVANTAGES, cfg, ref)
        results.append((stats, weights(policy.model)))
    (mem, w_mem), (disk, w_disk) = results
    assert mem["kl_ref"] > 0 and disk["kl_ref"] == pytest.approx(mem["kl_ref"], rel=1e-6)
    assert all(torch.allclose(w_mem[k], w_disk[k], atol=1e-7) for k in w_mem)
    assert grpo_trainer.reference_model(policy_with(""), cfg, tmp_path / "run").path.is_file()


def test_train_on_cpu_keeps_the_reference_on_disk_and_removes_it(tmp_path, monkeypatch):
    seen = []
    real = grpo_trainer.ppo_update

    def spy(policy, optimizer, rows, adv, cfg, ref_model=None):
        seen.append(type(ref_model).__name__)
        assert ref_model.path.is_file()
        return real(policy, optimizer, rows, adv, cfg, ref_model)

    monkeypatch.setattr(grpo_trainer, "ppo_update", spy)
    cfg = GRPOConfig(out_dir=str(tmp_path), updates=1, groups=2, group_size=4, beta=0.1,
                     max_new_tokens=4, lr=1e-2, progress=False, plots=False)
    rows = grpo_trainer.train(cfg, policy=tiny_policy(), rollout=fake_rollout_groups(),
                              console=Console(file=io.StringIO()))
    assert seen == ["DiskReference"] and rows[0]["kl_ref"] == pytest.approx(0.0, abs=1e-7)
    assert not (tmp_path / "reference.pt").exists()
