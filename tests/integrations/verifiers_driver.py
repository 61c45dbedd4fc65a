"""Plays agentgym episodes through verifiers' own API; run by .venv-verifiers' python.

``python verifiers_driver.py SPEC.json`` with SPEC = ``{"server_url", "max_turns", "rollouts",
"runs": [{"env_id", "reward", "scripts": {seed: [action, ...]}}, ...]}`` builds
``agentgym.integrations.verifiers.environment(...)`` per run and runs each seed's task
``rollouts`` times with ``Env.run_episode`` (verifiers' interception server, its eval client,
the default chat harness); a run with ``"via": "openenv"`` uses verifiers' own OpenEnv taskset
on ``{server_url}/openenv/{env_id}`` instead. The model is a scripted OpenAI-compatible server
on a loopback port: its n-th reply in a conversation is the seed's n-th action. Prints one JSON
line: per episode the recorded per-step rewards, the trace's reward, metrics, turns and the
first user turn.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import verifiers
import verifiers.v1 as vf

from agentgym.integrations.verifiers import environment


class ScriptedModel(ThreadingHTTPServer):
    """``POST /v1/chat/completions``: the script's reply for the conversation's next turn."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script: list[str] = []
        self.calls = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: ScriptedModel

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        script = self.server.script
        reply = script[turn] if turn < len(script) else "no more moves"
        self.server.calls += 1
        data = json.dumps({
            "id": f"scripted-{self.server.calls}", "object": "chat.completion",
            "created": int(time.time()), "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": reply}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _first_user_turn(trace: vf.Trace) -> str:
    for message in trace.messages:
        if message.role == "user":
            return str(message.content)
    return ""


def _openenv_env(spec: dict[str, Any], run: dict[str, Any], seeds: list[int]) -> vf.Env:
    """verifiers' own OpenEnv taskset and env on ``{server_url}/openenv/{env_id}``."""
    from verifiers.v1.tasksets.openenv.taskset import OpenEnvConfig, OpenEnvEnv, OpenEnvEnvConfig

    from agentgym.integrations.verifiers import ChatHarnessConfig

    taskset = OpenEnvConfig(id="openenv", base_url=f"{spec['server_url']}/openenv/{run['env_id']}",
                            resets=[{"seed": seed} for seed in seeds])
    player = vf.AgentConfig(harness=ChatHarnessConfig(id="agentgym-verifiers"),
                            runtime=vf.SubprocessConfig(), max_turns=spec["max_turns"])
    return OpenEnvEnv(OpenEnvEnvConfig(taskset=taskset, player=player))


async def play(spec: dict[str, Any], run: dict[str, Any],
               model: ScriptedModel) -> list[dict[str, Any]]:
    scripts = {int(seed): actions for seed, actions in run["scripts"].items()}
    if run.get("via") == "openenv":
        env = _openenv_env(spec, run, sorted(scripts))
    else:
        env = environment(
            run["env_id"], seeds=sorted(scripts), reward=run["reward"],
            server_url=spec.get("server_url"),
            player=vf.AgentConfig(runtime=vf.SubprocessConfig(), max_turns=spec["max_turns"]))
    ctx = vf.ModelContext(model="scripted", client=vf.EvalClientConfig(
        base_url=model.url, api_key_var="AGENTGYM_TEST_MODEL_KEY"))
    episodes = []
    async with env.serving():
        for task in env.taskset:
            seed = task.data.seed if run.get("via") != "openenv" else task.data.reset["seed"]
            model.script = scripts[seed]
            for _ in range(spec["rollouts"]):
                episode = await env.run_episode(task, ctx)
                trace = episode.traces[0]
                episodes.append({
                    "env_id": run["env_id"], "reward_mode": run["reward"],
                    "via": run.get("via", "adapter"), "seed": seed, "ok": episode.ok,
                    "errors": [e.message for e in episode.errors + trace.errors],
                    "rewards": trace.info.get("agentgym", {}).get("rewards"),
                    "ended": trace.info.get("agentgym", {}).get("ended"),
                    "trace_reward": trace.reward,
                    "reward_names": sorted(trace.rewards),
                    "metrics": trace.metrics, "turns": trace.num_turns,
                    "first_user_turn": _first_user_turn(trace),
                    "system": trace.messages[0].content if trace.messages
                    and trace.messages[0].role == "system" else None,
                })
    return episodes


def main() -> None:
    spec = json.loads(Path(sys.argv[1]).read_text())
    model = ScriptedModel()
    threading.Thread(target=model.serve_forever, daemon=True).start()
    try:
        episodes = [episode for run in spec["runs"]
                    for episode in asyncio.run(play(spec, run, model))]
    finally:
        model.shutdown()
    print(json.dumps({"episodes": episodes, "model_calls": model.calls,
                      "verifiers": verifiers.__version__}))


if __name__ == "__main__":
    main()
