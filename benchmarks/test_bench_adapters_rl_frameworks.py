"""Per-step overhead of the SkyRL-Gym, NeMo Gym and verl adapters over a local ``step``.

Groups ``adapter-<framework>-tictactoe`` and ``adapter-<framework>-webshop`` (WebShop in text
mode): one full scripted episode per round (the oracle's moves from a fixed seed), the env
reset outside the timing on both sides. The primary row is the local env's ``step``; the
adapter rows (``side="peer"``, so ``report.py`` prints local time / adapter time as the
ratio) play the same moves through the framework's own API:

* SkyRL-Gym: ``AgentgymTextEnv.step`` (made with ``skyrl_gym.make``), in this process;
* NeMo Gym: ``AgentgymGymnasiumServer.step`` awaited directly, and ``POST /step`` through the
  server's FastAPI app (Starlette's in-memory test client, session cookie included);
* verl: ``AgentgymAgentLoop.run`` for the whole episode with a scripted LLM server and the
  byte tokenizer (so the row includes verl's token merging per turn), against the local
  episode (reset included on both sides, as the loop resets inside ``run``).

NeMo Gym and verl live in their own venvs (scripts/setup_frameworks.sh); their rows run when
this file is run by that venv's python, and skip elsewhere::

    .venv/bin/python -m pytest benchmarks/test_bench_adapters_rl_frameworks.py --benchmark-only
    ~/.cache/agentgym/venvs/nemo-gym-0.7.0/bin/python -m pytest -p no:cacheprovider \
        benchmarks/test_bench_adapters_rl_frameworks.py --benchmark-only
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
from typing import Any

import pytest
from bench_common import describe, has_module, make_ours, oracle_moves, scaled

TICTACTOE, WEBSHOP = "agentgym/TicTacToe-v0", "agentgym/WebShop-v0"
GAMES = {"tictactoe": (TICTACTOE, 6), "webshop": (WEBSHOP, 2)}




def _local_row(benchmark: Any, framework: str, game: str, actions: list[str]) -> None:
    env_id, seed = GAMES[game]
    env = make_ours(env_id)

    def setup():
        env.reset(seed=seed)
        return (), {}

    def play():
        for action in actions:
            env.step(action)

    describe(benchmark, group=f"adapter-{framework}-{game}", side="agentgym",
             impl="local env.step", unit="step", per_round=len(actions), primary=True)
    benchmark.pedantic(play, setup=setup, rounds=scaled(60 if game == "tictactoe" else 20),
                       warmup_rounds=2)


# ---------------------------------------------------------------- SkyRL-Gym (this process)
@pytest.mark.skipif(not has_module("skyrl_gym"), reason="skyrl-gym is not installed")
@pytest.mark.parametrize("game", sorted(GAMES))
def test_skyrl_local_step(benchmark, game):
    _local_row(benchmark, "skyrl", game, oracle_moves(*GAMES[game]))


@pytest.mark.skipif(not has_module("skyrl_gym"), reason="skyrl-gym is not installed")
@pytest.mark.parametrize("game", sorted(GAMES))
def test_skyrl_adapter_step(benchmark, game):
    import skyrl_gym

    from agentgym.integrations.skyrl import register

    env_id, seed = GAMES[game]
    actions = oracle_moves(env_id, seed)
    env = skyrl_gym.make(register(env_id, name=f"bench-{game}"), extras={"seed": seed})

    def setup():
        env.init([])
        return (), {}

    def play():
        for action in actions:
            env.step(action)

    describe(benchmark, group=f"adapter-skyrl-{game}", side="peer", peer="skyrl-gym",
             impl=f"skyrl-gym {importlib.metadata.version('skyrl-gym')} AgentgymTextEnv.step",
             unit="step", per_round=len(actions))
    benchmark.pedantic(play, setup=setup, rounds=scaled(60 if game == "tictactoe" else 20),
                       warmup_rounds=2)


# ---------------------------------------------------------------- NeMo Gym (its venv)
needs_nemo = pytest.mark.skipif(not has_module("resources_servers.gymnasium"),
                                reason="NeMo Gym runs in its own venv (setup_frameworks.sh)")


def _nemo_server(env_id: str) -> Any:
    from unittest.mock import MagicMock

    from nemo_gym.server_utils import ServerClient

    from agentgym.integrations.nemo_gym import AgentgymGymnasiumServer, AgentgymServerConfig

    config = AgentgymServerConfig(host="127.0.0.1", port=0, entrypoint="app.py",
                                  name="agentgym", env_id=env_id)
    return AgentgymGymnasiumServer(config=config, server_client=MagicMock(spec=ServerClient))


def _nemo_response(text: str) -> Any:
    from nemo_gym.openai_utils import (
        NeMoGymResponse,
        NeMoGymResponseOutputMessage,
        NeMoGymResponseOutputText,
    )

    message = NeMoGymResponseOutputMessage(
        id="msg", role="assistant", status="completed", type="message",
        content=[NeMoGymResponseOutputText(annotations=[], text=text, type="output_text")])
    return NeMoGymResponse(id="r", created_at=0.0, model="scripted", object="response",
                           output=[message], parallel_tool_calls=True, tool_choice="auto",
                           tools=[])


@needs_nemo
@pytest.mark.parametrize("game", sorted(GAMES))
def test_nemo_local_step(benchmark, game):
    _local_row(benchmark, "nemo-gym", game, oracle_moves(*GAMES[game]))


@needs_nemo
@pytest.mark.parametrize("game", sorted(GAMES))
def test_nemo_server_step(benchmark, game):
    env_id, seed = GAMES[game]
    actions = oracle_moves(env_id, seed)
    responses = [_nemo_response(a) for a in actions]
    server = _nemo_server(env_id)
    loop = asyncio.new_event_loop()

    def setup():
        loop.run_until_complete(server.reset({"seed": seed}, "bench"))
        return (), {}

    async def steps():
        for response in responses:
            await server.step(response, {}, "bench")

    describe(benchmark, group=f"adapter-nemo-gym-{game}", side="peer", peer="nemo-gym",
             impl=f"nemo-gym {importlib.metadata.version('nemo-gym')} server.step (awaited)",
             unit="step", per_round=len(actions))
    benchmark.pedantic(lambda: loop.run_until_complete(steps()), setup=setup,
                       rounds=scaled(40 if game == "tictactoe" else 15), warmup_rounds=2)
    loop.close()


@needs_nemo
@pytest.mark.parametrize("game", sorted(GAMES))
def test_nemo_http_step(benchmark, game):
    from fastapi.testclient import TestClient

    env_id, seed = GAMES[game]
    actions = oracle_moves(env_id, seed)
    row = {"responses_create_params": {"input": []}, "seed": seed}
    bodies = [json.dumps({**row, "response": _nemo_response(a).model_dump(mode="json")})
              for a in actions]
    client = TestClient(_nemo_server(env_id).setup_webserver())

    def setup():
        client.post("/reset", json=row).raise_for_status()
        return (), {}

    def play():
        for body in bodies:
            client.post("/step", content=body, headers={"content-type": "application/json"})

    describe(benchmark, group=f"adapter-nemo-gym-{game}", side="peer", peer="nemo-gym",
             impl=f"nemo-gym {importlib.metadata.version('nemo-gym')} POST /step (ASGI)",
             unit="step", per_round=len(actions), variant="http")
    benchmark.pedantic(play, setup=setup, rounds=scaled(30 if game == "tictactoe" else 10),
                       warmup_rounds=2)
    client.close()


# ---------------------------------------------------------------- verl (its venv)
needs_verl = pytest.mark.skipif(not has_module("verl.experimental.agent_loop"),
                                reason="verl runs in its own venv (setup_frameworks.sh)")


@needs_verl
@pytest.mark.parametrize("game", sorted(GAMES))
def test_verl_local_episode(benchmark, game):
    env_id, seed = GAMES[game]
    actions = oracle_moves(env_id, seed)
    env = make_ours(env_id)

    def play():
        env.reset(seed=seed)
        for action in actions:
            env.step(action)

    describe(benchmark, group=f"adapter-verl-{game}", side="agentgym",
             impl="local reset + env.step", unit="step", per_round=len(actions), primary=True)
    benchmark.pedantic(play, rounds=scaled(30 if game == "tictactoe" else 10), warmup_rounds=1)


@needs_verl
@pytest.mark.parametrize("game", sorted(GAMES))
def test_verl_agent_loop_episode(benchmark, game):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integrations"))
    import hydra
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap, ToolListWrap
    from verl.utils.dataset.rl_dataset import RLHFDataset
    from verl_driver import ScriptedServer, trainer_config

    from agentgym.integrations.verl import dataset_rows
    from agentgym.llm.models import byte_tokenizer

    env_id, seed = GAMES[game]
    actions = oracle_moves(env_id, seed)
    tokenizer, config = byte_tokenizer(), trainer_config(16384)
    row = dataset_rows(env_id, [seed], system="Play.")[0]
    row["raw_prompt"] = row.pop("prompt")
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)

    def setup():
        agent = hydra.utils.instantiate(
            config={"_target_": "agentgym.integrations.verl.AgentgymAgentLoop"},
            trainer_config=DictConfigWrap(config), server_manager=ScriptedServer(
                tokenizer, actions), tokenizer=tokenizer, processor=None, hf_model_type=None,
            dataset_cls=RLHFDataset, data_config=DictConfigWrap(config.data),
            tools=ToolListWrap([]))
        return (agent,), {}

    describe(benchmark, group=f"adapter-verl-{game}", side="peer", peer="verl",
             impl=f"verl {importlib.metadata.version('verl')} AgentgymAgentLoop.run",
             unit="step", per_round=len(actions))
    benchmark.pedantic(lambda agent: loop.run_until_complete(agent.run({}, **row)),
                       setup=setup, rounds=scaled(20 if game == "tictactoe" else 8),
                       warmup_rounds=1)
