"""Rollouts: episode groups (GRPO) and scored state groups (VPR), checked against a replay of
the same actions on fresh envs, with the tiny random model and with scripted policies."""

from __future__ import annotations

import os
import sys
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import agentgym  # noqa: F401  (registers the ids)
from agentgym.llm import ChatTokens, Sample, TransformersSampler, byte_tokenizer, tiny_random_model
from agentgym.trainers.records import state_key
from agentgym.trainers.rollout import Policy, rollout_groups, rollout_state_groups
from agentgym.wrappers.chat import render_user, system_prompt_for

TICTACTOE = ("agentgym/TicTacToe-v0", {})
SUDOKU4 = ("agentgym/Sudoku-v0", {"size": 4})


def maker(env_id: str, kwargs: dict[str, Any], **extra: Any):
    return lambda: gym.make(env_id, **kwargs, **extra)


@pytest.fixture(scope="module")
def tiny_policy():
    tok = byte_tokenizer()
    return Policy(TransformersSampler(tiny_random_model(tok, seed=0), tok), tok)


class ScriptedSampler:
    """A sampler whose completions ``reply(call, row)`` chooses; it records every prompt."""

    def __init__(self, tokenizer: Any, reply) -> None:
        self.tokenizer, self.reply, self.calls = tokenizer, reply, []

    def generate(self, prompts, *, max_new_tokens, temperature=1.0, top_p=1.0,
                 stop="</action>", seed=None):
        call = len(self.calls)
        self.calls.append([list(p) for p in prompts])
        samples = []
        for row, prompt in enumerate(prompts):
            text = self.reply(call, row)
            ids = self.tokenizer.encode(text)
            samples.append(Sample(list(prompt), ids, [-0.25] * len(ids), text, True, "stop"))
        return samples

    def sync(self, model) -> None:
        pass


def replay(table, make_env, seeds, tokenizer, max_turns, system=None, history_turns=None):
    """Play each trajectory's decoded completions on a fresh env and compare row by row."""
    for trajectory, rows in table.by_trajectory().items():
        env = make_env()
        observation, info = env.reset(seed=seeds[rows[0].group])
        chat = ChatTokens(tokenizer, system if system is not None else system_prompt_for(env),
                          history_turns=history_turns)
        chat.add_user(render_user(observation))
        for index, row in enumerate(rows):
            assert row.state_key == state_key(observation), (trajectory, row.turn)
            assert row.prompt_ids == chat.prompt_ids(), (trajectory, row.turn)
            text = tokenizer.decode(row.completion_ids, skip_special_tokens=True)
            observation, _, terminated, truncated, info = env.step(text)
            assert row.reward_components == info["reward_components"], (trajectory, row.turn)
            assert row.terminated == terminated
            cut = index == max_turns - 1 and not terminated
            assert row.truncated == (truncated or cut)
            chat.add_assistant(row.completion_ids)
            if not row.ended:
                chat.add_user(render_user(observation, info["action_error"]))
        assert rows[-1].ended
        env.close()


def check_groups(table, n_seeds, group_size):
    groups = table.by_group()
    assert list(groups) == list(range(n_seeds))
    for group, rows in groups.items():
        trajectories = rows.by_trajectory()
        assert len(trajectories) == group_size
        assert set(trajectories) == set(range(group * group_size, (group + 1) * group_size))
        # Same seed, same start: the first states of a group are one state.
        assert len({t[0].state_key for t in trajectories.values()}) == 1
        for t in trajectories.values():
            assert [r.turn for r in t] == list(range(len(t)))


@pytest.mark.parametrize(("env", "max_turns"), [(TICTACTOE, 3), (SUDOKU4, 2)],
                         ids=["tictactoe", "sudoku4"])
def test_rollout_groups_with_the_tiny_model_match_a_replay(tiny_policy, env, max_turns):
    make_env, seeds, system = maker(*env), [0, 1], "Answer <action>MOVE</action>."
    settings = dict(seeds=seeds, group_size=3, max_turns=max_turns, max_new_tokens=12,
                    temperature=1.0, system_prompt=system, seed=5)
    table = rollout_groups(make_env, tiny_policy, **settings)
    check_groups(table, len(seeds), 3)
    replay(table, make_env, seeds, tiny_policy.tokenizer, max_turns, system)
    stats = table.stats
    assert len(stats.valid_action) == len(stats.committed) == len(table)
    assert stats.generated_tokens == sum(len(r.completion_ids) for r in table)
    assert 0.0 < stats.env_time_share < 1.0 and stats.generation_seconds > 0
    assert len(stats.episode_success) == 6
    assert all(len(r.logprobs) == len(r.completion_ids) > 0 for r in table)
    assert rollout_groups(make_env, tiny_policy, **settings) == table


def cycling_moves(call, row):
    moves = ["<action>1 1</action>", "<action>2 2</action>", "go <action>3 3</action>",
             "<action>1 3</action>", "no move", "<action>3 1</action>", "<action>2 1</action>",
             "<action>1 2</action>", "<action>3 2</action>", "<action>2 3</action>"]
    return moves[(3 * row + call) % len(moves)]


def test_rollout_groups_with_scripted_moves_record_what_the_env_paid():
    tok = byte_tokenizer()
    sampler = ScriptedSampler(tok, cycling_moves)
    make_env, seeds = maker(*TICTACTOE), [3, 4, 5]
    table = rollout_groups(make_env, Policy(sampler, tok), seeds=seeds, group_size=2,
                           max_turns=9, max_new_tokens=16, seed=0)
    check_groups(table, len(seeds), 2)
    replay(table, make_env, seeds, tok, 9)
    # The script wins, loses and errs: the table holds a spread of what the env paid.
    assert len(set(table.rewards().tolist())) >= 3
    assert table.stats.valid_action.count(False) >= 1 and table.stats.valid_action.count(True) > 3
    # Every generate call batched all the episodes still running.
    running = [len(c) for c in sampler.calls]
    assert running[0] == 6 and running == sorted(running, reverse=True)


def oracle_path(make_env, seed, max_turns):
    """Per state on the oracle's path: [worse move, garbage, best, best again] and what the
    env says about them (their scores; the step's info for the best)."""
    env = make_env()
    observation, info = env.reset(seed=seed)
    path = []
    for _ in range(max_turns):
        base = env.unwrapped
        best = base.oracle_actions()[0]
        # The best move's cell with each digit: the wrong digits score below it.
        cell = best.rsplit(" ", 1)[0]
        digits = [f"{cell} {d}" for d in range(1, 5)]
        worse = digits[int(np.argmin(base.score_actions(digits)))]
        texts = [f"<action>{worse}</action>", "I do not know", f"<action>{best}</action>",
                 f"again <action>{best}</action>"]
        scores = base.score_actions(texts)
        assert scores[0] < scores[2] == scores[3]  # the first best is index 2
        key = state_key(observation)
        observation, _, terminated, truncated, info = env.step(texts[2])
        path.append({"texts": texts, "scores": scores, "key": key, "info": info,
                     "ended": (terminated, truncated)})
        if terminated or truncated:
            break
    env.close()
    return path


def test_rollout_state_groups_commit_the_best_scored_candidate():
    tok = byte_tokenizer()
    make_env, k = maker(*SUDOKU4), 4
    path = oracle_path(make_env, 0, 12)
    sampler = ScriptedSampler(tok, lambda call, row: path[call]["texts"][row])
    table = rollout_state_groups(make_env, Policy(sampler, tok), seeds=[0], k=k, max_turns=12,
                                 max_new_tokens=16, seed=0)
    assert path[-1]["ended"] == (True, False) and path[-1]["info"]["success"]
    assert len(table) == k * len(path)
    assert table.column("group").tolist() == [g for g in range(len(path)) for _ in range(k)]
    assert table.column("trajectory").tolist() == list(range(len(table)))
    assert set(table.column("turn").tolist()) == {0}
    stats = table.stats
    assert stats.committed == [False, False, True, False] * len(path)
    assert stats.episode_turn == [t for t in range(len(path)) for _ in range(k)]
    assert stats.episode_success == [True] and stats.valid_action == [True] * len(path)
    for group, rows in table.by_group().items():
        state = path[group]
        assert [r.process for r in rows] == state["scores"]
        assert {r.state_key for r in rows} == {state["key"]}
        assert rows[2].reward_components == state["info"]["reward_components"]
        assert [r.reward_components["outcome"] for r in rows[:2]] == [0.0, 0.0]
        assert [tok.decode(r.completion_ids) for r in rows] == state["texts"]
        assert len({tuple(r.prompt_ids) for r in rows}) == 1  # k samples of one prompt
    assert [r.ended for r in table][-2] and sum(r.ended for r in table) == 1
    # The next state's prompt continues from the committed candidate's ids.
    prompts = [table[g * k].prompt_ids for g in range(len(path))]
    for g in range(len(path) - 1):
        committed = table[g * k + 2]
        assert prompts[g + 1][: len(prompts[g]) + len(committed.completion_ids)] == (
            prompts[g] + committed.completion_ids
        )


def test_rollout_state_groups_with_the_tiny_model_batch_every_episode(tiny_policy):
    make_env, seeds, k = maker(*TICTACTOE), [0, 1, 2], 3
    table = rollout_state_groups(make_env, tiny_policy, seeds=seeds, k=k, max_turns=2,
                                 max_new_tokens=10, temperature=1.0, seed=1)
    assert len(table) % k == 0 and len(table.by_group()) == len(table) // k
    for rows in table.by_group().values():
        assert len(rows) == k and len({r.state_key for r in rows}) == 1
    assert sum(table.stats.committed) == len(table) // k
    # The first groups are the start states, seed by seed: each candidate's process reward
    # is the env's score of its decoded text there.
    assert table.stats.episode_turn[: k * len(seeds)] == [0] * (k * len(seeds))
    for group, seed in enumerate(seeds):
        rows = table.by_group()[group]
        env = make_env()
        observation, _ = env.reset(seed=seed)
        texts = [tiny_policy.tokenizer.decode(r.completion_ids, skip_special_tokens=True)
                 for r in rows]
        assert [r.process for r in rows] == env.unwrapped.score_actions(texts)
        assert rows[0].state_key == state_key(observation)
        env.close()
    assert table == rollout_state_groups(make_env, tiny_policy, seeds=seeds, k=k, max_turns=2,
                                         max_new_tokens=10, temperature=1.0, seed=1)


class NoOracleEnv(gym.Env):
    observation_space = gym.spaces.Text(64)
    action_space = gym.spaces.Text(64)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return "state", {}

    def step(self, action):
        return "state", 0.0, True, False, {"reward_components": {"process": 0.0, "outcome": 0.0}}


def refuse(call, row):
    raise AssertionError("generation started before the input was checked")


def test_bad_state_group_input_is_refused_before_any_generation():
    tok = byte_tokenizer()
    policy = Policy(ScriptedSampler(tok, refuse), tok)
    with pytest.raises(ValueError, match="k must be an int >= 2"):
        rollout_state_groups(maker(*TICTACTOE), policy, seeds=[0], k=1, max_turns=1,
                             max_new_tokens=4)
    with pytest.raises(ValueError, match="no score_actions oracle") as caught:
        rollout_state_groups(NoOracleEnv, policy, seeds=[0], k=2, max_turns=1, max_new_tokens=4)
    assert "\n" not in str(caught.value)
    with pytest.raises(ValueError, match="seeds must list"):
        rollout_groups(maker(*TICTACTOE), policy, seeds=[], group_size=2, max_turns=1,
                       max_new_tokens=4)
    with pytest.raises(ValueError, match="group_size"):
        rollout_groups(maker(*TICTACTOE), policy, seeds=[0], group_size=0, max_turns=1,
                       max_new_tokens=4)


def test_a_remote_env_rolls_out_exactly_as_a_local_one():
    pytest.importorskip("starlette")
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "server"))
    from server_support import ServerProcess

    tok = byte_tokenizer()
    server = ServerProcess(("agentgym/TicTacToe-v0",)).start()
    try:
        tables = []
        for extra in ({}, {"server_url": server.url}):
            make_env = maker(*TICTACTOE, **extra)
            policy = Policy(ScriptedSampler(tok, cycling_moves), tok)
            groups = rollout_groups(make_env, policy, seeds=[0, 1], group_size=2, max_turns=9,
                                    max_new_tokens=16)
            policy = Policy(ScriptedSampler(tok, cycling_moves), tok)
            states = rollout_state_groups(make_env, policy, seeds=[0, 1], k=3, max_turns=9,
                                          max_new_tokens=16)
            tables.append((groups, states))
    finally:
        server.stop()
    (local_groups, local_states), (remote_groups, remote_states) = tables
    assert len(local_groups) > 4 and remote_groups == local_groups
    assert len(local_states) > 6 and remote_states == local_states


@pytest.mark.parametrize("state_groups", [False, True], ids=["groups", "state_groups"])
def test_max_prompt_tokens_ends_episodes_before_the_context_overflows(state_groups):
    tok = byte_tokenizer()
    make_env, system = maker(*TICTACTOE), "Play."
    first = ChatTokens(tok, system)
    observation, _ = make_env().reset(seed=0)
    first.add_user(render_user(observation))
    limit = len(first.prompt_ids()) + 700  # room for about one more turn of ~450 tokens
    policy = Policy(ScriptedSampler(tok, cycling_moves), tok)
    settings = dict(seeds=[0, 1], max_turns=9, max_new_tokens=16, system_prompt=system,
                    max_prompt_tokens=limit)
    if state_groups:
        table = rollout_state_groups(make_env, policy, k=2, **settings)
    else:
        table = rollout_groups(make_env, policy, group_size=2, **settings)
    assert max(len(r.prompt_ids) for r in table) <= limit
    assert max(table.stats.episode_turn) == 1  # two turns fit, the third would not
    ended = [r for r in table if r.ended]
    assert ended and all(r.truncated and not r.terminated for r in ended)
    with pytest.raises(ValueError, match=r"first prompt has \d+ tokens, over max_prompt"):
        rollout_groups(make_env, policy, group_size=2, **{**settings, "max_prompt_tokens": 10})


def test_rows_take_the_envs_canonical_state_key_where_it_gives_one():
    # Household's observation carries the last command's feedback, its info["state_key"] does
    # not: "look" twice shows two texts of one state, and GiGPO must group them as one.
    tok = byte_tokenizer()
    make_env = maker("agentgym/Household-v0", {})
    sampler = ScriptedSampler(tok, lambda call, row: "<action>look</action>")
    table = rollout_groups(make_env, Policy(sampler, tok), seeds=[0], group_size=2,
                           max_turns=3, max_new_tokens=8, seed=0)
    env = make_env()
    observation, info = env.reset(seed=0)
    keys = [info["state_key"]]
    observations = [observation]
    for _ in range(2):
        observation, _, _, _, info = env.step("look")
        keys.append(info["state_key"])
        observations.append(observation)
    rows = table.by_trajectory()[0]
    assert [r.state_key for r in rows] == keys[:3]
    assert keys[1] == keys[2] and observations[0] != observations[1]
    # Envs without one keep the observation digest (the replay test above checks that).


def test_rollouts_stop_sampling_at_the_envs_own_stop_strings():
    tok = byte_tokenizer()
    stops = []

    class Recording(ScriptedSampler):
        def generate(self, prompts, **kwargs):
            stops.append(kwargs.get("stop"))
            return super().generate(prompts, **kwargs)

    sampler = Recording(tok, lambda call, row: "<search>river</search>")
    rollout_groups(maker("agentgym/SearchQA-v0", {}), Policy(sampler, tok), seeds=[0],
                   group_size=1, max_turns=1, max_new_tokens=8, seed=0)
    rollout_groups(maker(*TICTACTOE), Policy(sampler, tok), seeds=[0], group_size=1,
                   max_turns=1, max_new_tokens=8, seed=0)
    assert stops == [("</search>", "</answer>", "</action>"), ("</action>",)]


@pytest.mark.parametrize("history", [0, 1])
def test_a_history_window_bounds_every_prompt(history):
    tok = byte_tokenizer()
    policy = Policy(ScriptedSampler(tok, cycling_moves), tok)
    make_env, seeds, system = maker(*TICTACTOE), [0, 1], "Answer <action>MOVE</action>."
    table = rollout_groups(make_env, policy, seeds=seeds, group_size=2, max_turns=4,
                           max_new_tokens=12, system_prompt=system, seed=0,
                           history_turns=history)
    replay(table, make_env, seeds, tok, 4, system, history_turns=history)
    user_turns = [tok.decode(r.prompt_ids).count("<|im_start|>user") for r in table]
    assert max(user_turns) == history + 1 and user_turns.count(1) >= len(seeds) * 2
    assert all(tok.decode(r.prompt_ids).count(system) == 1 for r in table)
    vpr = rollout_state_groups(make_env, policy, seeds=seeds, k=2, max_turns=3,
                               max_new_tokens=12, system_prompt=system, seed=0,
                               history_turns=history)
    assert max(tok.decode(r.prompt_ids).count("<|im_start|>user") for r in vpr) == history + 1
