"""Runs in NeMo Gym's venv (scripts/setup_frameworks.sh): plays scripted episodes through
``AgentgymGymnasiumServer``'s FastAPI app, the way ``gymnasium_agent`` drives a resources
server (``/reset`` with the row, ``/step`` with each model response, one session cookie per
rollout), and prints what each step answered as JSON.

stdin: ``{"server_urls": [null, URL...], "cases": [{"env_id", "seed", "reward", "actions"}],
"checks": ENV_ID}`` (null: the env in the server's process). stdout (last line): ``{"version",
"runs": {"local" | URL: [{"reset", "steps", "after_end_status"} per case]}, "checks": {...}}``.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
from unittest.mock import MagicMock

from fastapi.testclient import TestClient
from nemo_gym.openai_utils import (
    NeMoGymResponse,
    NeMoGymResponseOutputMessage,
    NeMoGymResponseOutputText,
)
from nemo_gym.server_utils import ServerClient

from agentgym.integrations.nemo_gym import (
    AgentgymGymnasiumServer,
    AgentgymServerConfig,
    dataset_rows,
)


def response(text: str) -> dict:
    """A model's reply as NeMo Gym's agent posts it to ``/step``."""
    message = NeMoGymResponseOutputMessage(
        id="msg", role="assistant", status="completed", type="message",
        content=[NeMoGymResponseOutputText(annotations=[], text=text, type="output_text")])
    return NeMoGymResponse(id="r", created_at=0.0, model="scripted", object="response",
                           output=[message], parallel_tool_calls=True, tool_choice="auto",
                           tools=[]).model_dump(mode="json")


def server(env_id: str, reward: str, server_url: str | None) -> AgentgymGymnasiumServer:
    config = AgentgymServerConfig(host="127.0.0.1", port=0, entrypoint="app.py",
                                  name="agentgym", env_id=env_id, reward=reward,
                                  server_url=server_url)
    return AgentgymGymnasiumServer(config=config, server_client=MagicMock(spec=ServerClient))


def play(case: dict, server_url: str | None) -> dict:
    app = server(case["env_id"], case["reward"], server_url).setup_webserver()
    row = dataset_rows(case["env_id"], [case["seed"]], system="Play.")[0]
    with TestClient(app) as client:
        reset = client.post("/reset", json=row)
        reset.raise_for_status()
        steps = []
        for action in case["actions"]:
            answer = client.post("/step", json={**row, "response": response(action)})
            answer.raise_for_status()
            body = answer.json()
            steps.append({"observation": body["observation"], "reward": body["reward"],
                          "terminated": body["terminated"], "truncated": body["truncated"],
                          "success": body["info"]["success"],
                          "reward_components": body["info"]["reward_components"],
                          "episode": body["info"].get("episode")})
            if body["terminated"] or body["truncated"]:
                break
        # The episode ended: the server closed the session's env (GymnasiumServer's rule).
        after = client.post("/step", json={**row, "response": response(case["actions"][0])})
    return {"reset": reset.json(), "steps": steps, "after_end_status": after.status_code}


def checks(env_id: str, server_url: str | None) -> dict:
    """Misuse a client may attempt: a step before any reset, a bad seed; sessions isolated."""
    app = server(env_id, "both", server_url).setup_webserver()
    row = dataset_rows(env_id, [0], system="Play.")[0]
    out = {}
    with TestClient(app) as a, TestClient(app) as b:
        out["step_before_reset"] = a.post("/step", json={**row, "response": response("1 1")}
                                          ).status_code
        out["string_seed"] = a.post("/reset", json={**row, "seed": "0"}).status_code
        out["negative_seed"] = a.post("/reset", json={**row, "seed": -1}).status_code
        a.post("/reset", json=row).raise_for_status()
        b.post("/reset", json={**row, "seed": 1}).raise_for_status()
        # Session a plays a move; b's board must not see it.
        a.post("/step", json={**row, "response": response("1 1")}).raise_for_status()
        b_step = b.post("/step", json={**row, "response": response("1 1")}).json()
        out["b_first_move_valid"] = b_step["info"]["valid_action"]
    return out


def main() -> None:
    payload = json.load(sys.stdin)
    result = {"version": importlib.metadata.version("nemo-gym"), "runs": {}, "checks": {}}
    for url in payload["server_urls"]:  # None: the env in the server's own process
        result["runs"][url or "local"] = [play(case, url) for case in payload["cases"]]
        result["checks"][url or "local"] = checks(payload["checks"], url)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
