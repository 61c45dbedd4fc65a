"""The OpenAI-compatible endpoint agent against a fake chat-completions server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator

import gymnasium as gym
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from test_cli import COUNTER, register_toys

from agentgym.agents import make_agent
from agentgym.agents.endpoint import EndpointAgent
from agentgym.evaluation import evaluate, run_episode

register_toys()


class FakeServer:
    """Answers each request with the next behaviour of ``script`` ("ok" once it runs out)."""

    def __init__(self) -> None:
        self.script: list[str] = []
        self.requests: list[dict] = []
        self.headers: list[dict] = []

    async def complete(self, request: Request) -> Response:
        self.requests.append(json.loads(await request.body()))
        self.headers.append(dict(request.headers))
        behaviour = self.script.pop(0) if self.script else "ok"
        reply = {"choices": [{"message": {"role": "assistant", "content": "I add. <action>inc"},
                              "finish_reason": "stop"}],
                 "usage": {"prompt_tokens": 11, "completion_tokens": 4, "total_tokens": 15}}
        if behaviour == "slow":
            await asyncio.sleep(1.0)
        elif behaviour == "garbage":
            return PlainTextResponse("<html>bad gateway</html>")
        elif behaviour == "no-choices":
            return JSONResponse({"choices": []})
        elif behaviour == "search":  # Search-R1 style, cut at the </search> stop string
            reply["choices"][0]["message"]["content"] = "I look it up. <search>Ulm river"
        elif behaviour == "no-usage":
            del reply["usage"]
        elif behaviour.isdigit():
            return JSONResponse({"error": {"message": "nope"}}, status_code=int(behaviour))
        return JSONResponse(reply)


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[FakeServer, str]]:
    fake = FakeServer()
    app = Starlette(routes=[Route("/v1/chat/completions", fake.complete, methods=["POST"])])
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="error", lifespan="off")
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not uv.started and time.monotonic() < deadline:
        time.sleep(0.02)
    yield fake, f"http://127.0.0.1:{port}/v1"
    uv.should_exit = True
    thread.join(5)
    sock.close()


@pytest.fixture
def fake(server):
    fake, url = server
    fake.script.clear()
    fake.requests.clear()
    fake.headers.clear()
    return fake, url


def agent(url: str, **options) -> EndpointAgent:
    return EndpointAgent(base_url=url, model="fake-model", timeout=0.3, retries=2, backoff=0.01,
                         **options)


def test_episode_over_the_endpoint_sends_the_chat_and_reads_usage(fake):
    server, url = fake
    env = gym.make(COUNTER, goal=2)
    result = run_episode(env, agent(url, temperature=0.0), seed=4, agent_seed=9)
    assert result.success and result.steps == 2
    # The server cut the stop string; the agent put it back so the env reads the tag.
    assert result.trace[0].raw_text == result.trace[0].action == "I add. <action>inc</action>"
    assert (result.prompt_tokens, result.completion_tokens) == (22, 8)
    first, second = server.requests
    assert first["stop"] == ["</action>"] and first["model"] == "fake-model"
    assert first["temperature"] == 0.0 and first["max_tokens"] == 64
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert second["messages"][2]["content"] == "I add. <action>inc</action>"
    assert first["messages"][0]["content"] == env.unwrapped.system_prompt()
    assert first["seed"] != second["seed"]  # per-turn seeds derived from the agent seed


def test_config_comes_from_env_vars_and_the_key_is_sent_not_recorded(fake, monkeypatch):
    server, url = fake
    monkeypatch.setenv("AGENTGYM_LLM_BASE_URL", url)
    monkeypatch.setenv("AGENTGYM_LLM_MODEL", "from-env")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    report = evaluate(COUNTER, "openai", episodes=1, progress=False,
                      agent_options={"max_new_tokens": 8})
    assert report.agent["base_url"] == url and report.agent["model"] == "from-env"
    assert "sk-test" not in json.dumps(report.to_json())
    assert server.headers[0]["authorization"] == "Bearer sk-test"
    assert server.requests[0]["max_tokens"] == 8


def test_missing_server_or_model_is_a_one_line_error(monkeypatch):
    for var in ("AGENTGYM_LLM_BASE_URL", "OPENAI_BASE_URL", "AGENTGYM_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ValueError, match="needs a server: set AGENTGYM_LLM_BASE_URL"):
        make_agent("openai", model="m")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    with pytest.raises(ValueError, match="needs a model name: set AGENTGYM_LLM_MODEL"):
        make_agent("openai")
    with pytest.raises(ValueError, match="base_url must start with http"):
        make_agent("openai", base_url="127.0.0.1:8000", model="m")


@pytest.mark.parametrize("behaviour", ["slow", "garbage", "no-choices", "503", "429"])
def test_transient_errors_are_retried_then_the_reply_is_used(fake, behaviour):
    server, url = fake
    server.script[:] = [behaviour, behaviour]
    env = gym.make(COUNTER, goal=1)
    result = run_episode(env, agent(url), seed=0)
    assert not result.failed and result.success
    assert len(server.requests) == 3  # two failures, then the good reply


@pytest.mark.parametrize(("behaviour", "reason"), [
    ("slow", "no reply within 0.3 s (after 3 attempts)"),
    ("garbage", "the reply is not JSON"),
    ("no-choices", "the reply has no choices"),
    ("500", "HTTP 500"),
])
def test_persistent_errors_fail_the_episode_with_the_reason(fake, behaviour, reason):
    server, url = fake
    server.script[:] = ["ok"] + [behaviour] * 3
    report = evaluate(COUNTER, agent(url), episodes=1, progress=False,
                      env_kwargs={"goal": 3})
    episode = report.episodes[0]
    assert episode.failed and reason in episode.failure and url in episode.failure
    assert episode.steps == 1 and len(episode.trace) == 1  # the step done before is kept
    assert len(server.requests) == 4
    assert report.summary["failed_episodes"] == 1


def test_client_errors_fail_at_once(fake):
    server, url = fake
    server.script[:] = ["401"]
    result = run_episode(gym.make(COUNTER), agent(url), seed=0)
    assert result.failed and "HTTP 401" in result.failure and "attempts" not in result.failure
    assert len(server.requests) == 1


def test_a_server_without_usage_counts_nothing_and_says_so(fake):
    server, url = fake
    server.script[:] = ["no-usage"]
    with pytest.warns(UserWarning, match="sends no usage: token counts are 0"):
        result = run_episode(gym.make(COUNTER, goal=1), agent(url), seed=0)
    assert result.success and (result.prompt_tokens, result.completion_tokens) == (0, 0)


def test_unreachable_server_fails_after_retries():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    result = run_episode(gym.make(COUNTER), agent(f"http://127.0.0.1:{port}/v1"), seed=0)
    assert result.failed and "ConnectError" in result.failure
    assert "after 3 attempts" in result.failure


def test_an_env_with_its_own_tags_gets_its_own_stop_strings(fake):
    server, url = fake
    server.script = ["search"]
    env = gym.make("agentgym/SearchQA-v0")
    observation, info = env.reset(seed=0)
    player = agent(url)
    player.reset(env, seed=0)
    action = player.act(observation, info)
    assert server.requests[0]["stop"] == ["</search>", "</answer>", "</action>"]
    assert action == "I look it up. <search>Ulm river</search>"  # the cut tag put back
    _, _, _, _, info = env.step(action)
    assert info["valid_action"], info["action_error"]
