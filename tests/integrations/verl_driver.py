"""Runs in verl's venv (scripts/setup_frameworks.sh): plays scripted episodes through
``AgentgymAgentLoop`` the way verl's ``AgentLoopWorker`` runs an agent loop -- the loop
registered from an agent-loop config file, built with ``hydra.utils.instantiate`` with the same
arguments, ``run(sampling_params, **row)`` awaited -- with a scripted LLM server in place of
vLLM / SGLang (each generation is the next scripted move) and agentgym's offline byte
tokenizer (ChatML). Prints what came back as JSON.

stdin: ``{"server_urls": [null, URL...], "cases": [{"env_id", "seed", "reward", "actions"}]}``
(null: the env in the driver's process). stdout (last line): ``{"version", "torch", "cuda",
"runs": {"local" | URL: [{"reward_score", "turn_scores", ...} per case]}}``.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import sys
import tempfile
from pathlib import Path

import hydra
import torch
from omegaconf import OmegaConf
from verl.experimental.agent_loop.agent_loop import (
    AgentLoopOutput,
    DictConfigWrap,
    ToolListWrap,
    _agent_loop_registry,
)
from verl.utils.dataset.rl_dataset import RLHFDataset
from verl.workers.rollout.replica import TokenOutput

from agentgym.integrations.verl import AGENT_NAME, dataset_rows
from agentgym.llm.models import byte_tokenizer

LOOP_CONFIG = f"- name: {AGENT_NAME}\n  _target_: agentgym.integrations.verl.AgentgymAgentLoop\n"


class ScriptedServer:
    """verl's LLM server client, answering each ``generate`` with the next scripted move."""

    def __init__(self, tokenizer, moves: list[str]) -> None:
        self.tokenizer, self.moves, self.prompts = tokenizer, list(moves), []

    async def generate(self, *, request_id, prompt_ids, sampling_params, **_) -> TokenOutput:
        self.prompts.append(self.tokenizer.decode(prompt_ids))
        move = self.moves.pop(0)
        ids = self.tokenizer.encode(move, add_special_tokens=False)
        ids.append(self.tokenizer.convert_tokens_to_ids("<|im_end|>"))
        return TokenOutput(token_ids=ids, log_probs=[-0.5] * len(ids), stop_reason="completed")


def trainer_config(response_length: int):
    return OmegaConf.create({
        "actor_rollout_ref": {"rollout": {"prompt_length": 8192,
                                          "response_length": response_length}},
        "data": {"apply_chat_template_kwargs": {}},
    })


async def play(case: dict, server_url: str | None, tokenizer, response_length: int) -> dict:
    config = trainer_config(response_length)
    server = ScriptedServer(tokenizer, case["actions"])
    loop = hydra.utils.instantiate(
        config=_agent_loop_registry[AGENT_NAME], trainer_config=DictConfigWrap(config),
        server_manager=server, tokenizer=tokenizer, processor=None, hf_model_type=None,
        dataset_cls=RLHFDataset, data_config=DictConfigWrap(config.data),
        tools=ToolListWrap([]))
    options = {"reward": case["reward"]}
    if server_url:
        options["server_url"] = server_url
    row = dataset_rows(case["env_id"], [case["seed"]], system="Play.", **options)[0]
    row = {**row, "raw_prompt": row.pop("prompt")}  # what RLHFDataset hands an agent loop
    output = await loop.run({"temperature": 1.0}, **row)
    assert isinstance(output, AgentLoopOutput)
    tensors = output.as_dict()  # what verl batches: rm_scores carries reward_score
    response_text = tokenizer.decode(output.response_ids)
    model_text = tokenizer.decode([t for t, m in zip(output.response_ids, output.response_mask,
                                                     strict=True) if m])
    extra = output.extra_fields
    return {
        "class": type(loop).__qualname__,
        "reward_score": output.reward_score,
        "rm_scores_sum": float(tensors["rm_scores"].sum()),
        "turn_scores": extra["turn_scores"],
        "reward_extra_info": extra["reward_extra_info"],
        "last_info": {k: extra["agentgym_info"][k] for k in ("success", "reward_components")},
        "num_turns": output.num_turns,
        "prompts": server.prompts,
        "response_text": response_text,
        "model_text": model_text,
        "mask_len": len(output.response_mask),
        "response_len": len(output.response_ids),
        "moves_left": len(server.moves),
    }


async def main_async(payload: dict) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "agent_loops.yaml")
        path.write_text(LOOP_CONFIG)
        # What AgentLoopWorker does with rollout.agent.agent_loop_config_path.
        for entry in OmegaConf.load(path):
            _agent_loop_registry[entry.name] = entry
    tokenizer = byte_tokenizer()
    runs = {}
    for url in payload["server_urls"]:  # None: the env in this process
        runs[url or "local"] = [await play(case, url, tokenizer,
                                           payload.get("response_length", 16384))
                                for case in payload["cases"]]
    return {"version": importlib.metadata.version("verl"), "torch": torch.__version__,
            "cuda": torch.cuda.is_available(), "runs": runs}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main_async(json.load(sys.stdin)))))
