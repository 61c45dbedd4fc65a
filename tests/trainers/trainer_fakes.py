"""Small fakes for the trainer tests: a tiny policy and rollouts that do not need an env.

The fake rollouts have the signatures of ``agentgym.trainers.rollout``'s functions and use the
policy's real sampler, so a trainer's update changes what they sample next.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from agentgym.llm.models import byte_tokenizer, tiny_random_model
from agentgym.llm.sampler import TransformersSampler
from agentgym.trainers.grpo import Policy
from agentgym.trainers.records import StepRecord, StepTable, state_key


def tiny_policy(seed: int = 0) -> Policy:
    tokenizer = byte_tokenizer()
    model = tiny_random_model(tokenizer, seed=seed, hidden_size=32, layers=1).eval()
    return Policy(TransformersSampler(model, tokenizer), tokenizer, model)


def parity_reward(completion: list[int]) -> float:
    """1 when the first sampled token id is even: random-ish, so groups have spread."""
    return float(bool(completion) and completion[0] % 2 == 0)


def fake_rollout_groups(reward: Callable[[list[int]], float] = parity_reward):
    """One-turn episodes; group ``g`` is seed ``seeds[g]``; the reward comes from ``reward``."""

    def rollout(make_env, policy, *, seeds, group_size, max_turns, max_new_tokens,
                temperature, system_prompt=None, seed=None, history_turns=None):
        table = StepTable()
        for g, seed in enumerate(seeds):
            prompt = policy.tokenizer.encode(f"seed {seed}:")
            samples = policy.sampler.generate([prompt] * group_size, max_new_tokens=max_new_tokens,
                                              temperature=temperature, stop=None,
                                              seed=seed)
            for j, s in enumerate(samples):
                table.append(StepRecord(
                    group=g, trajectory=g * group_size + j, turn=0,
                    state_key=state_key(f"seed {seed}"),
                    reward_components={"process": 0.0, "outcome": reward(s.completion_ids)},
                    terminated=True, prompt_ids=s.prompt_ids, completion_ids=s.completion_ids,
                    logprobs=s.logprobs))
        return table

    return rollout


def fake_rollout_state_groups(
    score: Callable[[int, list[int]], float] = lambda group, ids: parity_reward(ids),
):
    """Two states per seed, ``k`` candidates at each scored by ``score(group, ids)``."""

    def rollout(make_env, policy, *, seeds, k, max_turns, max_new_tokens, temperature,
                system_prompt=None, seed=None, history_turns=None):
        table = StepTable()
        for i, seed in enumerate(seeds):
            for turn in range(2):
                group = 2 * i + turn
                prompt = policy.tokenizer.encode(f"seed {seed} turn {turn}:")
                samples = policy.sampler.generate([prompt] * k, max_new_tokens=max_new_tokens,
                                                  temperature=temperature, stop=None,
                                              seed=seed)
                for j, s in enumerate(samples):
                    table.append(StepRecord(
                        group=group, trajectory=group * k + j, turn=0,
                        state_key=state_key(f"{seed}/{turn}"),
                        reward_components={"process": score(group, s.completion_ids),
                                           "outcome": 0.0},
                        terminated=True, prompt_ids=s.prompt_ids,
                        completion_ids=s.completion_ids, logprobs=s.logprobs))
        return table

    return rollout


def weights(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}
