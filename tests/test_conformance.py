"""The env contract, checked on every registered id and its variants.

A new env family gets all of this by adding its entry to ``agentgym.registry.ENVIRONMENTS``.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from conformance_rollouts import first_and_rollout, random_rollout
from gymnasium.utils.env_checker import check_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agentgym
from agentgym.agents import make_agent

CASES = [
    pytest.param(entry.id, kwargs, id=f"{entry.id.split('/')[1]}{'-' if kwargs else ''}"
                 + "-".join(f"{k}={v}" for k, v in kwargs.items()))
    for entry in agentgym.ENVIRONMENTS
    for kwargs in ({}, *entry.variants)
]
FAMILY = {entry.id: entry.family for entry in agentgym.ENVIRONMENTS}
#: Steps of the oracle that reach mid-episode: the terminal oracle solves a task in one
#: command and submits with the second.
ORACLE_PREFIX = {"terminal": 1}
INFO_TYPES = {
    "valid_action": bool,
    "action_error": str,
    "available_actions": list,
    "reward_components": dict,
    "success": bool,
    "verifier": dict,
    "invalid_actions": int,
    "step": int,
    "steps_left": int,
}


def make(env_id: str, kwargs: dict, **extra) -> gym.Env:
    return gym.make(env_id, **kwargs, **extra)


def check_info(info: dict) -> None:
    for key, kind in INFO_TYPES.items():
        assert key in info, f"info lacks {key!r}"
        assert isinstance(info[key], kind), f"info[{key!r}] is {type(info[key]).__name__}"
    assert info["valid_action"] == (info["action_error"] == "")
    assert {"process", "outcome"} <= set(info["reward_components"])
    assert all(isinstance(v, float) for v in info["reward_components"].values())
    assert set(info["verifier"]) >= {"name", "version"}
    assert all(isinstance(a, str) for a in info["available_actions"])
    json.dumps(info)  # servable over HTTP as it is


@pytest.mark.parametrize("env_id", agentgym.env_ids())
def test_gymnasium_env_checker_passes_with_default_kwargs(env_id):
    # What `gym.make(id)` gives a user must pass Gymnasium's own checker as it is. The checker
    # steps a sampled (so unreadable) action and calls a truncation after one step an error,
    # so no id may default to ending an episode on its first invalid action (Sokoban's VPR
    # policy, max_invalid=1, is its preset="vpr", not its default).
    env = gym.make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checker warning is a failure here
        check_env(env.unwrapped)
    env.close()


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
def test_gymnasium_env_checker_passes(env_id, kwargs):
    # Every variant, rendering too. Variants whose policy ends on the first invalid action
    # (the VPR presets) get a looser limit here, for the reason above (the policy itself is
    # checked by test_invalid_actions_follow_the_one_policy).
    env = make(env_id, {**kwargs, "max_invalid": 100}, render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checker warning is a failure here
        check_env(env.unwrapped, skip_render_check=False)
    env.close()


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
def test_reset_and_step_info_keys_and_types(env_id, kwargs):
    env = make(env_id, kwargs)
    obs, info = env.reset(seed=1)
    assert isinstance(obs, str) and obs
    assert env.observation_space.contains(obs)
    check_info(info)
    assert info["available_actions"], "a fresh episode offers actions"
    for _, obs, reward, _terminated, info_json in random_rollout(env, seed=1, steps=50):
        assert env.observation_space.contains(obs)
        assert isinstance(reward, float)
        check_info(json.loads(info_json))
    env.close()


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
def test_same_seed_same_episode_in_another_process(env_id, kwargs):
    env = make(env_id, kwargs)
    first_obs, here = first_and_rollout(env, seed=7, steps=10)
    env.close()
    script = (
        "import json, sys, gymnasium as gym, agentgym\n"
        "sys.path.insert(0, 'tests')\n"
        "from conformance_rollouts import first_and_rollout\n"
        f"env = gym.make({env_id!r}, **json.loads({json.dumps(kwargs)!r}))\n"
        "print(json.dumps(first_and_rollout(env, seed=7, steps=10)))\n"
    )
    for hash_seed in ("1", "2"):  # string hashing differs per process; output must not
        proc = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        )
        there_obs, there = json.loads(proc.stdout)
        assert there_obs == first_obs
        assert [list(step) for step in here] == there


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
def test_different_seeds_give_different_episodes(env_id, kwargs):
    env = make(env_id, kwargs)
    seeds = range(20)
    # Nearly every seed gives its own episode (first observation + a seeded random rollout,
    # from one reset).
    episodes = {json.dumps(first_and_rollout(env, seed=s, steps=6)) for s in seeds}
    assert len(episodes) >= 18, f"only {len(episodes)} distinct episodes from 20 seeds"
    # With the agent's own seed fixed, the env's seed alone still changes the episode. (Only
    # "more than one": an optimal tic-tac-toe opponent has few moves to choose between.)
    env_only = {json.dumps(first_and_rollout(env, seed=s, steps=6, agent_seed=0)) for s in seeds}
    env.close()
    assert len(env_only) > 1, "the env's seed changes nothing"


GARBAGE = st.one_of(
    st.just(""),
    st.just(" \n\t "),
    st.just("x" * 100_000),
    st.just("<action></action>"),
    st.just("<action>"),
    st.just("<action>" * 8_000),  # many tags: extraction must stay linear
    st.just("<action>x</action>" * 3_000),
    st.just("<ACTION>" * 3_500 + "</action>" * 3_500),
    st.text(alphabet=st.characters(min_codepoint=0x80), min_size=1, max_size=50),
)
ANY_TEXT = st.one_of(GARBAGE, st.text(max_size=200))


def near_miss(valid: str, data: st.DataObject) -> str:
    """A valid action with one character inserted, deleted or replaced."""
    i = data.draw(st.integers(0, len(valid)))
    kind = data.draw(st.sampled_from(["insert", "delete", "replace", "digits"]))
    ch = data.draw(st.characters(codec="utf-8"))
    if kind == "insert":
        return valid[:i] + ch + valid[i:]
    if kind == "delete":
        return valid[:i] + valid[i + 1 :]
    if kind == "replace":
        return valid[:i] + ch + valid[i + 1 :]
    return "".join("99" if c.isdigit() else c for c in valid)


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
def test_fuzzed_actions_never_raise(env_id, kwargs):
    env = make(env_id, kwargs)

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def check(data):
        obs, info = env.reset(seed=data.draw(st.integers(0, 3)))
        # Take a few real steps first so fuzzing also hits mid-episode states.
        for _ in range(data.draw(st.integers(0, 3))):
            if not info["available_actions"]:
                break
            obs, _, terminated, truncated, info = env.step(info["available_actions"][0])
            if terminated or truncated:
                obs, info = env.reset(seed=0)
        if data.draw(st.booleans()) and info["available_actions"]:
            action = near_miss(data.draw(st.sampled_from(info["available_actions"])), data)
            garbage = False
        else:
            action = data.draw(GARBAGE if data.draw(st.booleans()) else ANY_TEXT)
            garbage = True
        obs, reward, terminated, truncated, info = env.step(action)
        check_info(info)
        assert isinstance(obs, str) and obs
        if garbage and action in {"", " \n\t ", "x" * 100_000, "<action></action>", "<action>",
                                  "<action>" * 8_000}:
            assert info["valid_action"] is False
        if not info["valid_action"]:
            assert info["action_error"].strip()
            assert info["invalid_actions"] >= 1

    check()
    env.close()


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
def test_non_string_actions_are_invalid_not_errors(env_id, kwargs):
    env = make(env_id, kwargs).unwrapped  # the passive checker would warn about the type
    env.reset(seed=0)
    for bad in (None, 3, b"up", ["up"]):
        *_, info = env.step(bad)
        assert info["valid_action"] is False and "string" in info["action_error"]
        env.reset(seed=0)
    env.close()


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
def test_get_state_set_state_replays_identically(env_id, kwargs):
    env = make(env_id, kwargs)
    obs, info = env.reset(seed=3)
    for _ in range(ORACLE_PREFIX.get(FAMILY.get(env_id), 2)):  # mid-episode, not the end
        obs, _, terminated, truncated, info = env.step(env.unwrapped.oracle_actions()[0])
        assert not (terminated or truncated), "pick a seed whose episode outlasts the prefix"
    snapshot = env.unwrapped.get_state()
    rng = np.random.default_rng(0)
    first, actions = [], []
    for _ in range(30):
        legal = info["available_actions"]
        action = legal[int(rng.integers(len(legal)))] if legal else "noop"
        actions.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        first.append((obs, reward, terminated, truncated, json.dumps(info, sort_keys=True)))
        if terminated or truncated:
            break

    def replay(target: gym.Env) -> list[tuple]:
        target.unwrapped.set_state(snapshot)
        out = []
        for action in actions:
            obs, reward, terminated, truncated, info = target.step(action)
            out.append((obs, reward, terminated, truncated, json.dumps(info, sort_keys=True)))
        return out

    assert replay(env) == first
    fresh = make(env_id, kwargs).unwrapped  # a snapshot also restores into a new instance
    assert replay(fresh) == first
    fresh.close()
    env.close()


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
def test_set_state_rejects_foreign_bytes(env_id, kwargs):
    env = make(env_id, kwargs).unwrapped
    env.reset(seed=0)
    for bad in (b"", b"not json", b'{"env": "SomethingElse"}', b"[1, 2]"):
        with pytest.raises(ValueError):
            env.set_state(bad)
    env.close()


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
def test_score_actions_matches_step_and_leaves_state_unchanged(env_id, kwargs):
    env = make(env_id, kwargs).unwrapped
    obs, info = env.reset(seed=5)
    for _ in range(4):
        legal = info["available_actions"]
        candidates = [*legal[:12], "certainly not an action", ""]
        before = env.get_state()
        scores = env.score_actions(candidates)
        assert env.get_state() == before
        assert env.render() == obs or env.render() is None
        assert len(scores) == len(candidates) and all(isinstance(s, float) for s in scores)
        for action, score in zip(candidates, scores, strict=True):
            env.set_state(before)
            *_, step_info = env.step(action)
            assert step_info["reward_components"]["process"] == pytest.approx(score), action
        env.set_state(before)
        if not legal:
            break
        obs, _, terminated, truncated, info = env.step(env.oracle_actions()[0])
        if terminated or truncated:
            break
    env.close()


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
def test_oracle_actions_are_legal_and_top_scored(env_id, kwargs):
    env = make(env_id, kwargs).unwrapped
    _, info = env.reset(seed=11)
    for _ in range(6):
        best = env.oracle_actions()
        # Terminal lists harmless looks, never its reference solution (that would hand the
        # answer to every agent); its oracle is checked to be valid and top-scored all the same.
        listed = FAMILY.get(env_id) == "terminal" or set(best) <= set(info["available_actions"])
        assert best and listed
        all_scores = env.score_actions(info["available_actions"])
        if env.hidden_information:
            check_hidden_information_oracle(env, best[0], info["available_actions"], all_scores)
        else:
            # >= the best listed action; equal to it where the oracle's action is listed.
            assert env.score_actions(best[:1])[0] >= max(all_scores) - 1e-9
        _, _, terminated, truncated, info = env.step(best[0])
        assert info["valid_action"]
        if terminated or truncated:
            break
    env.close()


def check_hidden_information_oracle(env, move: str, listed: list[str], scores: list[float]):
    """The oracle rule where what a move pays depends on state the agent cannot see.

    There the best-paid move can only be told from the hidden state (which Minesweeper cell
    floods, which is a mine), so an honest oracle cannot always pick it. Instead: the env's
    ``safe_actions()`` (moves that cannot lose, by its own posterior) must be safe on the
    hidden state, and where one exists the oracle picks a safe move, never one scoring the
    worst of the listed moves (while more than one step is left to tell them apart).
    """
    safe = env.safe_actions()
    assert set(safe) <= set(listed)
    snapshot = env.get_state()
    for action in safe:
        env.set_state(snapshot)
        _, _, terminated, _, info = env.step(action)
        assert info["valid_action"] and not (terminated and not info["success"]), action
    env.set_state(snapshot)
    if safe:
        assert move in safe, (move, safe)
        if env.steps_left > 1 and max(scores) > min(scores):
            assert scores[listed.index(move)] > min(scores), (move, min(scores))


ENTRY_POINT = {entry.id: entry.entry_point for entry in agentgym.ENVIRONMENTS}
HIDDEN_CASES = [
    case for case in CASES
    if getattr(gym.envs.registration.load_env_creator(ENTRY_POINT[case.values[0]]),
               "hidden_information", False)
]


@pytest.mark.parametrize(("env_id", "kwargs"), HIDDEN_CASES)
def test_hidden_information_oracle_wins_clearly_more_than_random(env_id, kwargs):
    """Where the oracle cannot be checked move by move against the realised scores, it must
    still play clearly better than chance: its success rate over 40 seeds beats random's by
    at least 0.4."""
    env = make(env_id, kwargs)
    rates = {}
    for name in ("oracle", "random"):
        agent, wins = make_agent(name), 0
        for seed in range(40):
            obs, info = env.reset(seed=seed)
            agent.reset(env, seed=seed)
            terminated = truncated = False
            while not (terminated or truncated):
                obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
            wins += info["success"]
        rates[name] = wins / 40
    env.close()
    assert rates["oracle"] >= rates["random"] + 0.4, rates


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
@pytest.mark.parametrize("mode", agentgym.REWARD_MODES)
def test_reward_modes_read_the_same_components(env_id, kwargs, mode):
    env = make(env_id, kwargs, reward_mode=mode)
    for _, _, reward, _, info_json in random_rollout(env, seed=2, steps=20):
        parts = json.loads(info_json)["reward_components"]
        assert reward == pytest.approx(agentgym.combine_rewards(parts, mode))
    env.close()


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
def test_skipping_process_scoring_leaves_the_game_unchanged(env_id, kwargs):
    scored = make(env_id, kwargs)
    fast = make(env_id, kwargs, score_process=False)
    for seed in range(3):
        a = random_rollout(scored, seed=seed, steps=200)
        b = random_rollout(fast, seed=seed, steps=200)
        assert [(act, obs, term) for act, obs, _, term, _ in a] == [
            (act, obs, term) for act, obs, _, term, _ in b
        ]
        for (*_, info_a), (*_, info_b) in zip(a, b, strict=True):
            info_a, info_b = json.loads(info_a), json.loads(info_b)
            assert info_b["reward_components"]["process"] == 0.0
            assert info_b["verifier"]["process_scored"] is False
            assert info_a["reward_components"]["outcome"] == info_b["reward_components"]["outcome"]
            assert info_a["success"] == info_b["success"]
            assert info_a["valid_action"] == info_b["valid_action"]
    # An explicit request for scores still consults the oracle.
    obs, info = fast.reset(seed=0)
    scored.reset(seed=0)
    actions = info["available_actions"][:5]
    assert fast.unwrapped.score_actions(actions) == scored.unwrapped.score_actions(actions)
    scored.close()
    fast.close()


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
def test_random_episodes_end_and_report_success_only_at_the_end(env_id, kwargs):
    env = make(env_id, kwargs)
    for seed in range(3):
        steps = random_rollout(env, seed=seed, steps=2_000)
        last = json.loads(steps[-1][4])
        assert steps[-1][3] or "truncated_by" in last, "an episode must end by itself"
        for *_, _terminated, info_json in steps[:-1]:
            assert json.loads(info_json)["success"] is False
    env.close()


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
def test_step_after_the_end_is_answered_not_raised(env_id, kwargs):
    env = make(env_id, kwargs).unwrapped
    random_rollout(env, seed=0, steps=2_000)
    obs, reward, terminated, truncated, info = env.step("anything")
    assert (terminated or truncated) and reward == 0.0 and not info["valid_action"]
    assert "reset" in info["action_error"]
    env.close()


@pytest.mark.parametrize("env_id", agentgym.env_ids())
def test_bad_seeds_and_reward_modes_are_refused(env_id):
    env = gym.make(env_id)
    with pytest.raises(TypeError, match="seed must be an int"):
        env.reset(seed="3")
    with pytest.raises(TypeError, match="seed must be an int"):
        env.reset(seed=1.5)
    with pytest.raises(ValueError, match="non-negative"):
        env.reset(seed=-1)
    with pytest.raises(ValueError, match="reward_mode"):
        gym.make(env_id, reward_mode="sometimes")
    with pytest.raises(gym.error.ResetNeeded):
        gym.make(env_id).step("x")
    env.close()


@pytest.mark.parametrize("env_id", agentgym.env_ids())
def test_close_is_idempotent(env_id):
    env = gym.make(env_id)
    env.close()
    env.close()
    env = gym.make(env_id)
    env.reset(seed=0)
    env.close()
    env.close()


@pytest.mark.parametrize("env_id", agentgym.env_ids())
def test_system_prompt_states_rules_and_action_format(env_id):
    env = gym.make(env_id).unwrapped
    prompt = env.system_prompt()
    assert env.rules.strip(), "every env explains its rules to an LLM"
    assert "<action>" in prompt
    env.close()


# ---------------------------------------------------------------- the end rules of the contract
def scripted_rollout(
    env: gym.Env, seed: int, steps: int, oracle: bool
) -> list[tuple[bool, bool, dict]]:
    """(terminated, truncated, info) per step, playing the oracle's move or the first listed."""
    _, info = env.reset(seed=seed)
    out = []
    for _ in range(steps):
        best = (env.unwrapped.oracle_actions() if oracle else []) or info["available_actions"]
        _, _, terminated, truncated, info = env.step(best[0])
        out.append((terminated, truncated, info))
        if terminated or truncated:
            break
    return out


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
def test_running_out_of_steps_is_truncation(env_id, kwargs):
    budget = 3
    env = make(env_id, {**kwargs, "max_steps": budget})
    # The oracle rarely loses early, but may solve a game within the budget; the first
    # listed move rarely solves, but may lose. Between them some episode meets the budget.
    truncations = 0
    for seed, oracle in itertools.product(range(8), (True, False)):
        steps = scripted_rollout(env, seed, budget + 5, oracle)
        assert len(steps) <= budget, "the budget must end the episode"
        terminated, truncated, info = steps[-1]
        assert terminated != truncated, "an episode ends in exactly one way"
        if truncated:
            truncations += 1
            assert info["truncated_by"] and info["success"] is False
            assert info["steps_left"] == budget - len(steps)
        else:
            assert "truncated_by" not in info
    env.close()
    assert truncations, "no seed ran into the budget; the check saw nothing"


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
def test_invalid_actions_follow_the_one_policy(env_id, kwargs):
    env = make(env_id, {**kwargs, "invalid_penalty": -0.25, "max_invalid": 2})
    env.reset(seed=0)
    # Empty actions: "certainly not an action" is a valid shell command in Terminal-v0.
    _, reward, terminated, truncated, info = env.step("")
    assert not info["valid_action"] and info["invalid_actions"] == 1
    assert info["reward_components"]["process"] == -0.25
    assert (terminated, truncated) == (False, False)
    _, reward, terminated, truncated, info = env.step("<action></action>")
    assert (terminated, truncated, info["truncated_by"]) == (False, True, "max_invalid")
    assert info["reward_components"]["process"] == -0.25
    env.close()


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
def test_snapshots_carry_their_config_and_seed(env_id, kwargs):
    env = make(env_id, kwargs).unwrapped
    env.reset(seed=4)
    snapshot = env.get_state()
    fresh = make(env_id, kwargs).unwrapped
    fresh.set_state(snapshot)
    assert fresh.episode_seed == 4 and fresh.config() == env.config()
    other = make(env_id, {**kwargs, "max_steps": env.max_steps + 1}).unwrapped
    with pytest.raises(ValueError, match="max_steps"):
        other.set_state(snapshot)
    json.dumps(env.config())  # the config is JSON, like the rest of the snapshot
    for closing in (env, fresh, other):
        closing.close()


@pytest.mark.parametrize("env_id", agentgym.env_ids())
def test_contract_kwargs_have_explicit_defaults(env_id):
    import inspect

    entry = gym.registry[env_id].entry_point
    factory = gym.envs.registration.load_env_creator(entry) if isinstance(entry, str) else entry
    params = inspect.signature(factory).parameters
    for name in ("reward_mode", "render_mode", "score_process", "max_steps", "invalid_penalty",
                 "max_invalid"):
        assert name in params, f"{env_id} does not take {name}"
        assert params[name].default is not inspect.Parameter.empty, f"{name} has no default"
