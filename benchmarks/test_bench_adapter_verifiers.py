"""Per-step overhead of the verifiers adapter (``agentgym.integrations.verifiers``) over a local
``step``.

Groups ``adapter-verifiers-tictactoe`` and ``adapter-verifiers-webshop`` (WebShop in text mode):
one full scripted episode per round (the oracle's moves from a fixed seed). The primary row
is the local env's ``reset`` + ``step`` over those moves; the adapter row (``side="peer"``, so
``report.py`` prints local time / adapter time as the ratio) plays the same episode with
verifiers' ``Env.run_episode``: the interaction, one model call per turn through verifiers'
interception server and eval client to a scripted OpenAI-compatible server on loopback (the
one ``tests/integrations/verifiers_driver.py`` uses), the env step, and the trace's scoring.
The reset is in both rows, since the adapter resets inside ``run``. So the ratio is the cost
of verifiers' per-turn machinery with a model that answers at once; a real model's sampling
time comes on top of both.

verifiers lives in .venv-verifiers (``scripts/setup_verifiers.sh``); the rows run when this file
is run by that venv's python, and skip elsewhere::

    bash scripts/setup_verifiers.sh
    .venv-verifiers/bin/python -m pytest -p no:cacheprovider \\
        benchmarks/test_bench_adapter_verifiers.py --benchmark-only
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from bench_common import describe, has_module, make_ours, oracle_moves, scaled

TICTACTOE, WEBSHOP = "agentgym/TicTacToe-v0", "agentgym/WebShop-v0"
GAMES = {"tictactoe": (TICTACTOE, 6), "webshop": (WEBSHOP, 2)}



pytestmark = pytest.mark.skipif(
    not has_module("verifiers.v1"),
    reason="verifiers runs in .venv-verifiers (bash scripts/setup_verifiers.sh), not here")



@pytest.mark.parametrize("game", sorted(GAMES))
def test_verifiers_local_episode(benchmark, game):
    env_id, seed = GAMES[game]
    actions = oracle_moves(env_id, seed)
    env = make_ours(env_id)

    def play():
        env.reset(seed=seed)
        for action in actions:
            env.step(action)

    describe(benchmark, group=f"adapter-verifiers-{game}", side="agentgym",
             impl="local env.reset + env.step", unit="step", per_round=len(actions),
             primary=True)
    benchmark.pedantic(play, rounds=scaled(40 if game == "tictactoe" else 15), warmup_rounds=2)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_verifiers_adapter_episode(benchmark, game):
    import verifiers.v1 as vf

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integrations"))
    from verifiers_driver import ScriptedModel

    from agentgym.integrations.verifiers import environment

    env_id, seed = GAMES[game]
    actions = oracle_moves(env_id, seed)
    model = ScriptedModel()
    model.script = actions
    threading.Thread(target=model.serve_forever, daemon=True).start()
    env = environment(env_id, seeds=[seed])
    task = next(iter(env.taskset))
    ctx = vf.ModelContext(model="scripted", client=vf.EvalClientConfig(
        base_url=model.url, api_key_var="AGENTGYM_BENCH_MODEL_KEY"))
    loop = asyncio.new_event_loop()
    serving = env.serving()
    loop.run_until_complete(serving.__aenter__())

    def play() -> Any:
        episode = loop.run_until_complete(env.run_episode(task, ctx))
        assert episode.ok and episode.traces[0].metrics["steps"] == len(actions)

    describe(benchmark, group=f"adapter-verifiers-{game}", side="peer", peer="verifiers",
             impl=f"verifiers {importlib.metadata.version('verifiers')} Env.run_episode "
                  "(ChatHarness, scripted model)",
             unit="step", per_round=len(actions))
    try:
        benchmark.pedantic(play, rounds=scaled(10 if game == "tictactoe" else 5),
                           warmup_rounds=1)
    finally:
        loop.run_until_complete(serving.__aexit__(None, None, None))
        loop.close()
        model.shutdown()
