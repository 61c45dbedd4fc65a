"""Ray env pools: RayVectorEnv must give the local vector env's exact results.

Every test runs on one local Ray instance (loopback, 2 CPUs, no dashboard) started once for
the module and shut down after it; the actors of the shared pool are started once too, since
each actor is a new worker process. Skipped when Ray is not installed.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'agentgym[ray]')")

import agentgym  # noqa: E402,F401  (registers the ids)
from agentgym.distributed import EnvHost, EnvPool, RayVectorEnv  # noqa: E402
from agentgym.distributed import pool as pool_module  # noqa: E402
from agentgym.vector import make_vec  # noqa: E402
from agentgym.wrappers import wrap_chat  # noqa: E402

# The tests that start Ray (about 15 s before the first one runs) are marked slow: CI runs
# them, the fast lane keeps only the checks that need no cluster.

# Half a CPU per actor: the shared pool (2 actors) and one own pool (2 actors) fit in 2 CPUs.
ACTOR_CPUS = 0.5


@pytest.fixture(scope="module")
def ray_instance() -> Any:
    if ray.is_initialized():
        pytest.skip("Ray is already initialised in this process by someone else")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=100 * 2**20,
    )
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def pool(ray_instance: Any) -> Any:
    with EnvPool(2, num_cpus=ACTOR_CPUS) as p:
        yield p


def assert_same_step(remote: tuple, local: tuple) -> None:
    obs_r, rew_r, term_r, trunc_r, info_r = remote
    obs_l, rew_l, term_l, trunc_l, info_l = local
    assert obs_r == obs_l
    assert rew_r.dtype == np.float64 and term_r.dtype == np.bool_ and trunc_r.dtype == np.bool_
    np.testing.assert_array_equal(rew_r, rew_l)
    np.testing.assert_array_equal(term_r, term_l)
    np.testing.assert_array_equal(trunc_r, trunc_l)
    assert info_r == info_l


GAMES = [
    # id, kwargs, seed (int or per-env list); small max_steps force truncation autoresets.
    ("agentgym/TicTacToe-v0", {}, 11),
    ("agentgym/Sudoku-v0", {"max_steps": 4}, [5, 8, 9, 2, 7]),
    ("agentgym/Minesweeper-v0", {}, 3),
    ("agentgym/Sokoban-v0", {"max_steps": 6}, 21),
]


@pytest.mark.slow  # a local Ray instance and its actor processes
@pytest.mark.parametrize(("env_id", "kwargs", "seed"), GAMES, ids=[g[0] for g in GAMES])
def test_same_results_as_local_vector_env(
    pool: EnvPool, env_id: str, kwargs: dict, seed: Any
) -> None:
    """Same seeds and actions (oracle moves, with an invalid one now and then) -> same values."""
    num_envs = 5
    local = make_vec(env_id, num_envs, **kwargs)
    remote = RayVectorEnv(env_id, num_envs, actors=pool, **kwargs)
    try:
        assert remote.single_action_space == local.single_action_space
        assert remote.metadata == local.metadata
        assert remote.reset(seed=seed) == local.reset(seed=seed)
        ended = 0
        for t in range(14):
            oracle = local.call("oracle_actions")
            assert remote.call("oracle_actions") == oracle
            actions = [
                "<action>nonsense</action>" if (t + i) % 5 == 4 or not best else best[0]
                for i, best in enumerate(oracle)
            ]
            step_r, step_l = remote.step(actions), local.step(actions)
            assert_same_step(step_r, step_l)
            ended += int(np.sum(step_l[2] | step_l[3]))
        assert ended > 0, "no episode ended: the autoreset path was not exercised"
    finally:
        remote.close()
        local.close()


@pytest.mark.slow  # a local Ray instance and its actor processes
def test_autoreset_keeps_final_obs_and_info(pool: EnvPool) -> None:
    """An ending step carries final_obs / final_info, and the next obs is a new episode's."""
    remote = RayVectorEnv("agentgym/Sudoku-v0", 3, actors=pool, max_steps=1)
    try:
        first, _ = remote.reset(seed=0)
        obs, _, terminated, truncated, infos = remote.step(["<action>x</action>"] * 3)
        assert list(truncated | terminated) == [True, True, True]
        for i in range(3):
            assert "final_obs" in infos[i] and "final_info" in infos[i]
            assert infos[i]["final_obs"] != obs[i]
    finally:
        remote.close()


@pytest.mark.slow  # a local Ray instance and its actor processes
def test_call_get_set_and_score_actions(pool: EnvPool) -> None:
    env_id = "agentgym/TicTacToe-v0"
    local = make_vec(env_id, 4)
    remote = RayVectorEnv(env_id, 4, actors=pool)
    try:
        _, infos_l = local.reset(seed=2)
        _, infos_r = remote.reset(seed=2)
        states = remote.call("get_state")
        assert states == local.call("get_state")
        legal = [(info["available_actions"],) for info in infos_r]
        assert remote.call_each("score_actions", legal) == [
            env.unwrapped.score_actions(args[0])
            for env, args in zip(local.envs, legal, strict=True)
        ]
        assert remote.call("max_steps") == local.call("max_steps")  # an attribute, not a call
        # Move every env on, then restore each its own snapshot: the steps replay exactly.
        moves = [best[0] for best in remote.call("oracle_actions")]
        after = remote.step(moves)
        remote.call_each("set_state", [(s,) for s in states])
        assert_same_step(remote.step(moves), after)
    finally:
        remote.close()
        local.close()


@pytest.mark.slow  # a local Ray instance and its actor processes
def test_wrappers_run_on_the_workers(pool: EnvPool) -> None:
    local = make_vec("agentgym/TicTacToe-v0", 2, wrappers=[wrap_chat])
    remote = RayVectorEnv("agentgym/TicTacToe-v0", 2, actors=pool, wrappers=[wrap_chat])
    try:
        obs_r, infos_r = remote.reset(seed=4)
        assert (obs_r, infos_r) == local.reset(seed=4)
        assert [len(info["messages"]) for info in infos_r] == [2, 2]
    finally:
        remote.close()
        local.close()


@pytest.mark.slow  # a local Ray instance and its actor processes
def test_placement_spreads_envs_over_the_actors(pool: EnvPool) -> None:
    assert pool.sessions() == [0, 0]
    a = RayVectorEnv("agentgym/TicTacToe-v0", 5, actors=pool)
    b = RayVectorEnv("agentgym/TicTacToe-v0", 1, actors=pool)
    try:
        assert pool.sessions() == [3, 3]  # b goes to the less-loaded second actor
        assert [blk.count for blk in a._blocks] == [3, 2]
    finally:
        a.close()
        b.close()
    assert pool.sessions() == [0, 0]


@pytest.mark.slow  # a local Ray instance and its actor processes
def test_close_of_an_own_pool_kills_its_actors(ray_instance: Any) -> None:
    envs = RayVectorEnv("agentgym/TicTacToe-v0", 4, actors=2, num_cpus_per_actor=ACTOR_CPUS)
    actors = envs.actors
    assert len(actors) == 2
    envs.reset(seed=0)
    envs.close()
    envs.close()  # idempotent
    for actor in actors:
        with pytest.raises(ray.exceptions.RayActorError):
            ray.get(actor.ping.remote(), timeout=30)
    with pytest.raises(gym.error.ClosedEnvironmentError):
        envs.step(["<action>1</action>"] * 4)
    # The actors' CPUs come back to the cluster (Ray frees them asynchronously).
    deadline = time.monotonic() + 20
    while ray.available_resources().get("CPU", 0) < 2 - 2 * ACTOR_CPUS - 1e-9:
        assert time.monotonic() < deadline, ray.available_resources()
        time.sleep(0.1)


@pytest.mark.slow  # a local Ray instance and its actor processes
def test_shared_pool_survives_a_vector_env_close(pool: EnvPool) -> None:
    envs = RayVectorEnv("agentgym/TicTacToe-v0", 2, actors=pool)
    envs.close()
    assert pool.sessions() == [0, 0]
    assert all(isinstance(pid, int) for pid in ray.get([a.ping.remote() for a in pool.actors]))


def one_line_error(exc_type: type, fn: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(exc_type) as info:
        fn(*args, **kwargs)
    message = str(info.value)
    assert "\n" not in message, message
    return message


@pytest.mark.slow  # a local Ray instance and its actor processes
def test_bad_input_is_one_line(pool: EnvPool) -> None:
    make = RayVectorEnv
    assert "num_envs" in one_line_error(ValueError, make, "agentgym/TicTacToe-v0", 0, actors=pool)
    assert "unknown env id" in one_line_error(ValueError, make, "agentgym/Nope-v0", 2, actors=pool)
    assert "bogus" in one_line_error(
        ValueError, make, "agentgym/TicTacToe-v0", 2, actors=pool, bogus=1
    )
    assert "actors" in one_line_error(TypeError, make, "agentgym/TicTacToe-v0", 2, actors="x")
    assert "num_actors" in one_line_error(ValueError, EnvPool, 0)
    envs = make("agentgym/TicTacToe-v0", 2, actors=pool)
    try:
        with pytest.raises(gym.error.ResetNeeded):
            envs.step(["<action>1</action>"] * 2)
        envs.reset(seed=0)
        assert "one action per env" in one_line_error(ValueError, envs.step, ["a"])
        assert "seed list" in one_line_error(ValueError, envs.reset, seed=[1])
        # An env's own error on a worker arrives as that error, not Ray's wrapped report.
        assert "snapshot" in one_line_error(ValueError, envs.call, "set_state", b"junk")
    finally:
        envs.close()
    assert pool.sessions() == [0, 0]


def test_ray_not_initialised_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    message = one_line_error(RuntimeError, pool_module.require_ray)
    assert "ray.init()" in message and "address='auto'" in message


def test_env_host_works_without_ray() -> None:
    host = EnvHost()
    info = host.open("g", "agentgym/TicTacToe-v0", 2, {}, [])
    assert info["name"].startswith("TextVectorEnv(")
    obs, _ = host.reset("g", [0, 1], None)
    with make_vec("agentgym/TicTacToe-v0", 2) as local:
        assert obs == local.reset(seed=0)[0]
    host.close("g")
    assert host.sessions() == 0
    with pytest.raises(KeyError):
        host.step("g", ["x", "y"])


def test_ray_not_installed_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` raise ImportError
    message = one_line_error(ImportError, pool_module.require_ray)
    assert "pip install 'agentgym[ray]'" in message
