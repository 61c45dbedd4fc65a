"""Vector envs: agentgym's TextVectorEnv and Gymnasium's Sync/Async vector envs.

The central property: nothing of a finished episode is lost under autoreset. Each vector run
is compared, env by env, with a plain single-env run that gets the same actions.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv
from toy_env import CounterEnv

import agentgym
from agentgym.vector import TextVectorEnv, make_vec
from agentgym.wrappers import StepBudget, wrap_chat

TOY_ID = "agentgym-test/Counter-v0"


if TOY_ID not in gym.registry:
    gym.register(TOY_ID, entry_point=CounterEnv)


def env_fns() -> list:
    """Three envs whose episodes end at different steps: goals 1 and 3, and a step budget."""
    return [
        lambda: CounterEnv(goal=1),
        lambda: CounterEnv(goal=3),
        lambda: StepBudget(CounterEnv(goal=50), max_steps=2),
    ]


def schedule(steps: int, num_envs: int) -> list[list[str]]:
    """A fixed mix of good, neutral and invalid actions."""
    pattern = ["inc", "inc", "jump", "inc", "dec", "inc", "inc", "inc"]
    return [[pattern[(t + i) % len(pattern)] for i in range(num_envs)] for t in range(steps)]


SEED = 11
STEPS = 12


def reference_same_step(index: int, actions: list[list[str]]) -> list[tuple]:
    """What env `index` alone does: every step is taken, a finished episode resets at once."""
    env = env_fns()[index]()
    obs, _ = env.reset(seed=SEED + index)
    records = []
    for row in actions:
        obs, reward, term, trunc, info = env.step(row[index])
        record = (obs, reward, term, trunc, info["success"], info["reward_components"])
        if term or trunc:
            obs, _ = env.reset()
        records.append((*record, obs))
    return records


def reference_next_step(index: int, actions: list[list[str]]) -> list[tuple]:
    """Env `index` alone under NEXT_STEP: the step after an ending resets instead of acting."""
    env = env_fns()[index]()
    env.reset(seed=SEED + index)
    records: list[tuple] = []
    pending_reset = False
    for row in actions:
        if pending_reset:
            obs, _ = env.reset()
            records.append(("reset", obs))
            pending_reset = False
            continue
        obs, reward, term, trunc, info = env.step(row[index])
        records.append(("step", obs, reward, term, trunc, info["success"]))
        pending_reset = term or trunc
    return records


# ---------------------------------------------------------------------------- TextVectorEnv
def test_text_vector_env_types_and_seeding() -> None:
    envs = TextVectorEnv(env_fns())
    obs, infos = envs.reset(seed=SEED)
    assert isinstance(obs, list) and isinstance(infos, list) and len(obs) == len(infos) == 3
    for i, text in enumerate(obs):
        assert text == env_fns()[i]().reset(seed=SEED + i)[0]
    assert envs.observation_space.contains(obs)
    obs, rewards, terminated, truncated, infos = envs.step(["inc", "dec", "jump"])
    assert all(isinstance(o, str) for o in obs) and all(isinstance(d, dict) for d in infos)
    assert rewards.dtype == np.float64 and rewards.tolist() == [2.0, 0.0, -1.0]
    assert terminated.dtype == np.bool_ and terminated.tolist() == [True, False, False]
    assert truncated.dtype == np.bool_ and truncated.tolist() == [False, False, False]
    # A seed list seeds each env as given.
    obs, _ = envs.reset(seed=[5, None, 7])
    assert obs[0] == env_fns()[0]().reset(seed=5)[0]
    assert obs[2] == env_fns()[2]().reset(seed=7)[0]
    envs.close()


def test_text_vector_env_loses_nothing_on_autoreset() -> None:
    actions = schedule(STEPS, 3)
    envs = TextVectorEnv(env_fns())
    envs.reset(seed=SEED)
    got: list[list[tuple]] = [[], [], []]
    for row in actions:
        obs, rewards, terminated, truncated, infos = envs.step(row)
        for i in range(3):
            if terminated[i] or truncated[i]:
                final_obs, final = infos[i]["final_obs"], infos[i]["final_info"]
                assert infos[i]["step"] == 0  # the reset info of the new episode
            else:
                assert "final_obs" not in infos[i] and "final_info" not in infos[i]
                final_obs, final = obs[i], infos[i]
            got[i].append(
                (
                    final_obs,
                    rewards[i],
                    bool(terminated[i]),
                    bool(truncated[i]),
                    final["success"],
                    final["reward_components"],
                    obs[i],
                )
            )
    for i in range(3):
        assert got[i] == reference_same_step(i, actions)
    # The schedule really exercises both kinds of ending.
    assert any(r[2] for r in got[0]) and any(r[3] for r in got[2])
    assert any(r[4] for r in got[1])
    envs.close()


def test_text_vector_env_bad_input() -> None:
    with pytest.raises(ValueError):
        TextVectorEnv([])
    with pytest.raises(TypeError):
        TextVectorEnv(["not callable"])  # type: ignore[list-item]
    envs = TextVectorEnv(env_fns())
    with pytest.raises(gym.error.ResetNeeded):
        envs.step(["inc"] * 3)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="one action per env"):
        envs.step(["inc", "inc"])
    with pytest.raises(ValueError, match="one action per env"):
        envs.step("inc")
    with pytest.raises(ValueError):
        envs.reset(seed=[1, 2])
    with pytest.raises(TypeError):
        envs.reset(seed="1")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        envs.reset(seed=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        envs.reset(seed=[1, -2, 3])  # the env's own seed check
    envs.close()


def test_text_vector_env_close_is_idempotent() -> None:
    envs = TextVectorEnv(env_fns())
    envs.reset(seed=0)
    envs.close()
    envs.close()
    assert envs.closed
    assert all(env.unwrapped._closed for env in envs.envs)
    with pytest.raises(gym.error.ClosedEnvironmentError):
        envs.step(["inc"] * 3)
    with pytest.raises(gym.error.ClosedEnvironmentError):
        envs.reset()
    with TextVectorEnv(env_fns()) as ctx:
        ctx.reset(seed=0)
    assert ctx.closed


def test_text_vector_env_call_and_render() -> None:
    envs = TextVectorEnv([lambda: CounterEnv(render_mode="ansi")] * 2)
    obs, _ = envs.reset(seed=3)
    assert envs.call("oracle_actions") == [["inc"], ["inc"]]
    assert envs.call("score_actions", ["inc", "dec", "x"]) == [[1.0, 0.0, -1.0]] * 2
    assert envs.call("goal") == [3, 3]
    assert envs.render() == obs
    states = envs.call("get_state")
    envs.step(["inc", "inc"])
    for env, state in zip(envs.envs, states, strict=True):
        env.unwrapped.set_state(state)
    assert envs.render() == obs
    envs.close()


def test_make_vec_helper() -> None:
    envs = make_vec(TOY_ID, 2, goal=4, wrappers=[lambda e: wrap_chat(e, turns=1)])
    obs, infos = envs.reset(seed=9)
    assert envs.num_envs == 2 and envs.call("goal") == [4, 4]
    assert obs[1] == gym.make(TOY_ID, goal=4).reset(seed=10)[0]
    assert [len(info["messages"]) for info in infos] == [2, 2]
    _, rewards, _, _, infos = envs.step(["inc", "<action>inc</action>"])
    assert rewards.tolist() == [-1.0, 1.0]  # the chat stack requires the tag
    assert infos[0]["history"][0]["action"] == "inc"
    assert repr(envs) == "TextVectorEnv(agentgym-test/Counter-v0, num_envs=2)"
    envs.close()
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValueError):
            make_vec(TOY_ID, bad)
    with pytest.raises(ValueError):
        make_vec(TOY_ID, 2, goal=1, reward_mode="bogus").reset()


# ---------------------------------------------------------------------------- Gymnasium vectors
def _gym_vector(kind: str, mode: AutoresetMode) -> gym.vector.VectorEnv:
    if kind == "sync":
        return SyncVectorEnv(env_fns(), autoreset_mode=mode)
    return AsyncVectorEnv(env_fns(), shared_memory=False, autoreset_mode=mode)


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_gymnasium_vector_next_step_loses_nothing(kind: str) -> None:
    actions = schedule(STEPS, 3)
    envs = _gym_vector(kind, AutoresetMode.NEXT_STEP)
    try:
        obs, _ = envs.reset(seed=SEED)
        assert isinstance(obs, tuple) and len(obs) == 3  # Text batches as a Tuple
        got: list[list[tuple]] = [[], [], []]
        ended = [False] * 3
        for row in actions:
            obs, rewards, terminated, truncated, infos = envs.step(tuple(row))
            for i in range(3):
                if ended[i]:
                    # The step after an ending resets: no reward, no flags, no action applied.
                    assert rewards[i] == 0.0 and not terminated[i] and not truncated[i]
                    got[i].append(("reset", obs[i]))
                else:
                    got[i].append(
                        (
                            "step",
                            obs[i],
                            rewards[i],
                            bool(terminated[i]),
                            bool(truncated[i]),
                            bool(infos["success"][i]),
                        )
                    )
                ended[i] = bool(terminated[i] or truncated[i])
        for i in range(3):
            assert got[i] == reference_next_step(i, actions)
        assert any(r[0] == "reset" for r in got[0]) and any(r[0] == "reset" for r in got[2])
    finally:
        envs.close()


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_gymnasium_vector_same_step_loses_nothing(kind: str) -> None:
    actions = schedule(STEPS, 3)
    envs = _gym_vector(kind, AutoresetMode.SAME_STEP)
    try:
        envs.reset(seed=SEED)
        got: list[list[tuple]] = [[], [], []]
        for row in actions:
            obs, rewards, terminated, truncated, infos = envs.step(tuple(row))
            for i in range(3):
                if terminated[i] or truncated[i]:
                    assert infos["_final_obs"][i] and infos["_final_info"][i]
                    final = infos["final_info"]
                    final_obs = infos["final_obs"][i]
                    success = bool(final["success"][i])
                    components = {
                        k: float(final["reward_components"][k][i]) for k in ("process", "outcome")
                    }
                else:
                    assert "_final_obs" not in infos or not infos["_final_obs"][i]
                    final_obs, success = obs[i], bool(infos["success"][i])
                    components = {
                        k: float(infos["reward_components"][k][i]) for k in ("process", "outcome")
                    }
                got[i].append(
                    (
                        final_obs,
                        rewards[i],
                        bool(terminated[i]),
                        bool(truncated[i]),
                        success,
                        components,
                        obs[i],
                    )
                )
        for i in range(3):
            assert got[i] == reference_same_step(i, actions)
    finally:
        envs.close()


def test_gymnasium_make_vec_toy() -> None:
    envs = gym.make_vec(TOY_ID, num_envs=2, vectorization_mode="sync", goal=1)
    try:
        obs, _ = envs.reset(seed=4)
        assert obs == tuple(gym.make(TOY_ID, goal=1).reset(seed=s)[0] for s in (4, 5))
        _, rewards, terminated, _, _ = envs.step(("inc", "dec"))
        assert rewards.tolist() == [2.0, 0.0] and terminated.tolist() == [True, False]
    finally:
        envs.close()


# ---------------------------------------------------------------------------- the real games
@pytest.mark.parametrize("env_id", agentgym.env_ids())
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_make_vec_registered_games(env_id: str, mode: str) -> None:
    vector_kwargs = {"shared_memory": False} if mode == "async" else {}
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode, vector_kwargs=vector_kwargs)
    try:
        obs, _ = envs.reset(seed=21)
        assert obs == tuple(gym.make(env_id).reset(seed=21 + i)[0] for i in range(2))
        obs, rewards, terminated, truncated, infos = envs.step(("<action></action>",) * 2)
        assert all(isinstance(o, str) and o for o in obs)
        assert infos["valid_action"].tolist() == [False, False]
    finally:
        envs.close()


@pytest.mark.parametrize("env_id", agentgym.env_ids())
def test_text_vector_env_registered_games_autoreset(env_id: str) -> None:
    envs = make_vec(env_id, 2)
    obs, _ = envs.reset(seed=[3, 8])
    assert obs == [gym.make(env_id).reset(seed=s)[0] for s in (3, 8)]
    ended = 0
    for _ in range(200):
        actions = [best[0] if best else "?" for best in envs.call("oracle_actions")]
        obs, _, terminated, truncated, infos = envs.step(actions)
        for i in range(2):
            if terminated[i] or truncated[i]:
                ended += 1
                assert isinstance(infos[i]["final_obs"], str)
                assert "reward_components" in infos[i]["final_info"]
        if ended >= 2:
            break
    assert ended >= 2
    envs.close()


def test_gymnasium_sync_vector_with_chat_stack() -> None:
    envs = gym.make_vec(
        TOY_ID, num_envs=2, vectorization_mode="sync", wrappers=[lambda e: wrap_chat(e, turns=2)]
    )
    try:
        obs, infos = envs.reset(seed=0)
        assert [m["role"] for m in infos["messages"][1]] == ["system", "user"]
        _, rewards, _, _, infos = envs.step(("<action>inc</action>", "inc"))
        assert rewards.tolist() == [1.0, -1.0]
        assert infos["history"][1][0]["action_error"].startswith("no <action>")
        assert infos["messages"][0][-2] == {"role": "assistant", "content": "<action>inc</action>"}
    finally:
        envs.close()
