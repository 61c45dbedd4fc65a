"""SFT on oracle trajectories: the data is the oracle's turns, the loss falls, resume is exact."""

import io

import pytest

torch = pytest.importorskip("torch")

from rich.console import Console  # noqa: E402
from trainer_fakes import tiny_policy, weights  # noqa: E402

from agentgym.trainers import sft  # noqa: E402
from agentgym.trainers.config import SFTConfig  # noqa: E402
from agentgym.trainers.metrics import without_timing  # noqa: E402

ENV = "agentgym/TicTacToe-v0"


def cfg_for(tmp_path, **kw):
    base = dict(env=ENV, out_dir=str(tmp_path), episodes=2, epochs=3, batch_size=4, lr=3e-3,
                max_turns=5, progress=False, plots=False)
    base.update(kw)
    return SFTConfig(**base)


def test_turns_are_the_oracles_actions_in_an_append_only_conversation(tmp_path):
    policy = tiny_policy()
    turns, play = sft.agent_turns(cfg_for(tmp_path, episodes=1), policy.tokenizer)
    assert len(turns) >= 2 and play["agent_success_rate"] in (0.0, 1.0)
    texts = [policy.tokenizer.decode(c) for _, c in turns]
    assert all(t.startswith("<action>") and t.endswith("</action>") for t in texts)
    (p1, c1), (p2, _) = turns[0], turns[1]
    assert p2[: len(p1) + len(c1)] == p1 + c1  # turn 2's prompt extends turn 1's, verbatim
    # The first action is one the oracle rates best at the start.
    import gymnasium as gym

    env = gym.make(ENV)
    env.reset(seed=0)
    assert texts[0][len("<action>") : -len("</action>")] in env.unwrapped.oracle_actions()


# slow: eight epochs of training (~12 s of CPU)
@pytest.mark.slow
def test_sft_lowers_the_loss_and_saves_a_loadable_model(tmp_path):
    policy = tiny_policy()
    rows = sft.train(cfg_for(tmp_path, epochs=8, lr=1e-2, plots=True), policy=policy,
                     console=Console(file=io.StringIO()))
    per_epoch = {}
    for row in rows:
        per_epoch.setdefault(row["epoch"], []).append(row["loss"])
    first, last = per_epoch[1], per_epoch[max(per_epoch)]
    assert sum(last) / len(last) < 0.5 * sum(first) / len(first)
    assert (tmp_path / "curves.png").is_file()
    from agentgym.llm.models import load_model

    back, _ = load_model(str(tmp_path / "model"))
    assert torch.equal(back.lm_head.weight, policy.model.lm_head.weight)


# slow: three training runs (~6 s of CPU)
@pytest.mark.slow
def test_sft_resume_is_bit_for_bit(tmp_path):
    full = tiny_policy()
    rows_full = sft.train(cfg_for(tmp_path / "a", epochs=2), policy=full,
                          console=Console(file=io.StringIO()))
    steps = len(rows_full)
    # Stop after the first epoch (its checkpoint is written at the end), then resume.
    first = tiny_policy()
    sft.train(cfg_for(tmp_path / "b", epochs=1), policy=first,
              console=Console(file=io.StringIO()))
    resumed = tiny_policy()
    rows_resumed = sft.train(cfg_for(tmp_path / "b", epochs=2, resume=True), policy=resumed,
                             console=Console(file=io.StringIO()))
    assert len(rows_resumed) == steps
    assert [without_timing(r) for r in rows_resumed] == [without_timing(r) for r in rows_full]
    a, b = weights(full.model), weights(resumed.model)
    assert all(torch.equal(a[k], b[k]) for k in a)
