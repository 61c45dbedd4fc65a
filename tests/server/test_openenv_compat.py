"""OpenEnv compatibility: OpenEnv's own clients drive agentgym envs on ``agentgym serve``.

The server runs as ``agentgym serve`` in a subprocess on a free loopback port (see
:mod:`server_support`); the clients are OpenEnv's ``GenericEnvClient`` (sync and async)
and a typed ``EnvClient`` subclass written the way OpenEnv's env packages write theirs. Each
episode is played against a local ``gym.make`` of the same id, seed and actions: observations,
rewards, done flags and info must be equal.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
from typing import Any

import gymnasium as gym
import httpx
import pytest

import agentgym  # noqa: F401 (registers the ids)
from agentgym.server.openenv import openenv_url
from agentgym.server.protocol import dumps, loads

openenv_core = pytest.importorskip(
    "openenv.core", reason="openenv is not installed (pip install 'openenv>=0.10')"
)
from openenv.core import EnvClient, GenericEnvClient  # noqa: E402
from openenv.core.client_types import StepResult  # noqa: E402
from server_support import ServerProcess  # noqa: E402

TTT, SUDOKU = "agentgym/TicTacToe-v0", "agentgym/Sudoku-v0"


@pytest.fixture(scope="module")
def openenv_server():
    proc = ServerProcess(env_ids=(TTT, SUDOKU)).start()
    yield proc
    proc.stop()


def _json(value: Any) -> Any:
    """``value`` as it looks after the wire (tuples become lists, numpy numbers plain)."""
    return loads(dumps(value))


def _action(rng: random.Random, info: dict[str, Any]) -> str:
    """A legal move mostly, sometimes an invalid one (the env's to refuse, on both sides)."""
    legal = info.get("available_actions") or []
    return rng.choice(legal) if legal and rng.random() > 0.15 else "not a move"


@dataclasses.dataclass
class TextObservation:
    text: str
    info: dict[str, Any]
    terminated: bool
    truncated: bool


class TextEnvClient(EnvClient[str, TextObservation, dict]):
    """A typed client, as an OpenEnv env package writes one: action = the move as text."""

    def _step_payload(self, action: str) -> dict[str, Any]:
        return {"text": action}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[TextObservation]:
        return StepResult(observation=TextObservation(**payload["observation"]),
                          reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> dict:
        return payload


def _play_generic(env: Any, env_id: str, seed: int, max_steps: int) -> int:
    """One seeded episode through a sync GenericEnvClient against the local env; its steps."""
    local = gym.make(env_id)
    rng = random.Random(seed)
    try:
        obs, info = local.reset(seed=seed)
        result = env.reset(seed=seed)
        assert result.observation["text"] == obs
        assert result.observation["info"] == _json(info)
        assert result.reward is None and result.done is False
        for steps in range(1, max_steps + 1):
            action = _action(rng, info)
            obs, reward, terminated, truncated, info = local.step(action)
            result = env.step({"text": action})
            assert result.observation["text"] == obs, (env_id, seed, steps, action)
            assert result.reward == float(reward)
            assert result.done is (terminated or truncated)
            assert result.observation["terminated"] is terminated
            assert result.observation["truncated"] is truncated
            assert result.observation["info"] == _json(info)
            if result.done:
                break
        assert env.state()["step_count"] == steps
        return steps
    finally:
        local.close()


@pytest.mark.parametrize("env_id", [TTT, SUDOKU])
def test_generic_client_matches_local_env(openenv_server, env_id):
    url = openenv_url(openenv_server.url, env_id)
    played = []
    with GenericEnvClient(base_url=url).sync() as env:
        for seed in range(3):  # resets on one connection: one session, new episodes
            played.append(_play_generic(env, env_id, seed, max_steps=30))
    assert sum(played) > 6


def test_typed_async_client_plays_to_the_end(openenv_server):
    async def play(seed: int) -> tuple[list[float], list[float], bool]:
        local = gym.make(TTT)
        rng = random.Random(seed)
        _, info = local.reset(seed=seed)
        want: list[float] = []
        got: list[float] = []
        async with TextEnvClient(base_url=openenv_url(openenv_server.url, TTT)) as env:
            result = await env.reset(seed=seed)
            assert result.observation.info == _json(info)
            done = False
            while not done:
                action = _action(rng, info)
                obs, reward, terminated, truncated, info = local.step(action)
                result = await env.step(action)
                assert result.observation.text == obs
                want.append(float(reward))
                got.append(result.reward)
                done = terminated or truncated
                assert result.done is done
        local.close()
        return want, got, result.observation.info["success"] == info["success"]

    async def several() -> list[tuple[list[float], list[float], bool]]:
        return await asyncio.gather(*(play(seed) for seed in (5, 6, 7)))

    for want, got, same_success in asyncio.run(several()):
        assert got == want and len(got) >= 3
        assert same_success


def test_env_kwargs_make_a_new_session_and_are_applied(openenv_server):
    url = openenv_url(openenv_server.url, TTT)
    local = gym.make(TTT, max_steps=2)
    local.reset(seed=1)
    with GenericEnvClient(base_url=url).sync() as env:
        env.reset(seed=1)
        first = env.state()["session_id"]
        env.reset(seed=1, env_kwargs={"max_steps": 2})
        assert env.state()["session_id"] != first
        for _ in range(2):
            _, reward, terminated, truncated, _ = local.step("zz")
            result = env.step({"text": "zz"})
            assert (result.reward, result.done) == (reward, terminated or truncated)
        assert result.done and result.observation["truncated"]
        assert result.observation["info"]["truncated_by"] == "max_steps"
        with pytest.raises(RuntimeError, match="FACTORY_ERROR"):
            env.reset(env_kwargs={"no_such_kwarg": 1})
    local.close()


def test_errors_are_openenv_error_messages_and_keep_the_connection(openenv_server):
    url = openenv_url(openenv_server.url, TTT)
    with GenericEnvClient(base_url=url).sync() as env:
        with pytest.raises(RuntimeError, match=r"step before reset.*EXECUTION_ERROR"):
            env.step({"text": "1 1"})
        env.reset(seed=0)
        with pytest.raises(RuntimeError, match=r"unknown field.*VALIDATION_ERROR"):
            env.step({"action": "1 1"})
        with pytest.raises(RuntimeError, match="text must be a string"):
            env.step({"text": 11})
        with pytest.raises(RuntimeError, match="seed must be an integer"):
            env.reset(seed="x")
        assert env.step({"text": "1 1"}).observation["info"]["valid_action"] is True


def test_unknown_env_id_refuses_the_connection(openenv_server):
    env = GenericEnvClient(base_url=openenv_url(openenv_server.url, "agentgym/Sokoban-v0"))
    with pytest.raises(ConnectionError):
        env.sync().connect()


def test_http_routes(openenv_server):
    url = openenv_url(openenv_server.url, SUDOKU)
    assert httpx.get(f"{url}/health").json() == {"status": "healthy"}
    schema = httpx.get(f"{url}/schema").json()
    assert schema["action"]["required"] == ["text"] and set(schema) == {
        "action", "observation", "state"}
    assert httpx.get(f"{url}/metadata").json()["name"] == SUDOKU
    assert httpx.get(f"{url}/state").json()["step_count"] == 0
    local = gym.make(SUDOKU)
    obs, info = local.reset(seed=4)
    local.close()
    reset = httpx.post(f"{url}/reset", json={"seed": 4}).json()
    assert reset["observation"]["text"] == obs and reset["done"] is False
    step = httpx.post(f"{url}/step", json={"action": {"text": "1 1 1"}})
    assert step.status_code == 400 and "/ws" in step.json()["error"]
    missing = httpx.get(f"{openenv_server.url}/openenv/agentgym/Nope-v0/health")
    assert missing.status_code == 404 and "ids:" in missing.json()["error"]


def test_sessions_close_with_the_connection(openenv_server):
    health = f"{openenv_server.url}/health"
    with GenericEnvClient(base_url=openenv_url(openenv_server.url, TTT)).sync() as env:
        env.reset(seed=0)
        assert httpx.get(health).json()["sessions"] >= 1
    deadline = time.monotonic() + 5
    while httpx.get(health).json()["sessions"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert httpx.get(health).json()["sessions"] == 0


def test_openenv_off_leaves_only_the_agentgym_routes():
    from starlette.testclient import TestClient

    from agentgym.server.app import create_app

    with TestClient(create_app([TTT], openenv=False)) as client:
        assert client.get(f"/openenv/{TTT}/health").status_code == 404
    with TestClient(create_app([TTT])) as client:
        assert client.get(f"/openenv/{TTT}/health").status_code == 200
