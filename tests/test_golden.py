"""Golden episodes: fixed seeds must give the same episodes on every machine, forever.

Each case stores the hash of the first observations of three seeds and of a scripted
episode (always the ``k``-th available action, so only the env's own randomness decides
it). A NumPy release that changed a stream, a platform difference, or an unintended change
to a game's text or rules fails here. An intended change regenerates the table:

    .venv/bin/python tests/test_golden.py      # prints GOLDEN for this file

Browser mode is left out: its parity with text mode is tested on rewards instead.
"""

from __future__ import annotations

import hashlib
import json
import sys

import gymnasium as gym
import pytest

import agentgym

SEEDS = (0, 1, 2)
SCRIPT_STEPS = 12


def _cases() -> list[tuple[str, str, dict]]:
    cases = []
    for entry in agentgym.ENVIRONMENTS:
        for kwargs in ({}, *entry.variants):
            if kwargs.get("mode") == "browser":
                continue
            name = entry.id.split("/")[1] + "".join(f"-{k}={v}" for k, v in kwargs.items())
            cases.append((name, entry.id, kwargs))
    return cases


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


def fingerprint(env_id: str, kwargs: dict) -> dict[str, str]:
    """Hashes of the first observations and of one scripted episode per seed."""
    env = gym.make(env_id, **kwargs)
    firsts, episodes = [], []
    for seed in SEEDS:
        obs, info = env.reset(seed=seed)
        firsts.append(obs)
        steps = []
        for k in range(SCRIPT_STEPS):
            legal = info["available_actions"]
            action = legal[(seed + k) % len(legal)] if legal else "noop"
            obs, reward, terminated, truncated, info = env.step(action)
            steps.append([action, obs, reward, terminated, truncated, info])
            if terminated or truncated:
                break
        episodes.append(steps)
    env.close()
    return {"first_observations": _digest(firsts), "scripted_episodes": _digest(episodes)}


# Regenerate with `python tests/test_golden.py` after an intended change to a game.
GOLDEN: dict[str, dict[str, str]] = {
    "Sokoban-v0": {
        "first_observations": "3fab1b3ddb01d1f7",
        "scripted_episodes": "03301a854807687d",
    },
    "Sokoban-v0-size=8-boxes=2": {
        "first_observations": "229e205d55d554ce",
        "scripted_episodes": "0690c5d0de0bbd80",
    },
    "Sokoban-v0-oracle=solvable": {
        "first_observations": "3fab1b3ddb01d1f7",
        "scripted_episodes": "03301a854807687d",
    },
    "Sokoban-v0-preset=vpr": {
        "first_observations": "3fab1b3ddb01d1f7",
        "scripted_episodes": "1880c9c8ffd00487",
    },
    "Sudoku-v0": {
        "first_observations": "9bca21bee3e7d7a4",
        "scripted_episodes": "d6c58747be6b3e48",
    },
    "Sudoku-v0-size=4": {
        "first_observations": "41263672bc1b1ad9",
        "scripted_episodes": "74e25f184469658d",
    },
    "Sudoku-v0-preset=vpr": {
        "first_observations": "9bca21bee3e7d7a4",
        "scripted_episodes": "598578dc2780f498",
    },
    "Sudoku-v0-wrong_digit_ends=False": {
        "first_observations": "9bca21bee3e7d7a4",
        "scripted_episodes": "e0707579c970b4ea",
    },
    "Minesweeper-v0": {
        "first_observations": "64b30dd7fb72e07b",
        "scripted_episodes": "1452f1a7ce0b6ed7",
    },
    "Minesweeper-v0-rows=9-cols=9-mines=10": {
        "first_observations": "6132aa331d419734",
        "scripted_episodes": "f7b433bd95b07745",
    },
    "Minesweeper-v0-preset=vpr": {
        "first_observations": "809a5c7fbcb2e0b0",
        "scripted_episodes": "955e52176b064151",
    },
    "TicTacToe-v0": {
        "first_observations": "bdb56e6f2129dbf5",
        "scripted_episodes": "6d2fee33e8d45c58",
    },
    "TicTacToe-v0-opponent=optimal": {
        "first_observations": "bdb56e6f2129dbf5",
        "scripted_episodes": "3295211cd8e419e3",
    },
    "TicTacToe-v0-opponent=optimal-agent_first=False": {
        "first_observations": "93fa3cf45eff9fa2",
        "scripted_episodes": "5b7a3ee145fc66b3",
    },
    "TicTacToe-v0-preset=vpr": {
        "first_observations": "0f0b93c50dbb79af",
        "scripted_episodes": "9cdf8dd6a07b78e5",
    },
    "WebShop-v0": {
        "first_observations": "ee80b47c13477dca",
        "scripted_episodes": "e9a615af91921294",
    },
    "WebShop-v0-num_products=2000-split=train": {
        "first_observations": "821573210f5f82b2",
        "scripted_episodes": "4678625a2d69c89f",
    },
    "WebShop-v0-num_products=2000-gamma=0.9-max_steps=8": {
        "first_observations": "dbc23f86426747cb",
        "scripted_episodes": "64c69824f72b7814",
    },
    "Negotiation-v0": {
        "first_observations": "a46a511a57c2e8b3",
        "scripted_episodes": "9e3b19e4b69c63ff",
    },
    "Negotiation-v0-role=seller-opponent=tough": {
        "first_observations": "60db8a0708c5e926",
        "scripted_episodes": "88eeecdcc8952c21",
    },
    "Negotiation-v0-role=random-opponent=random": {
        "first_observations": "1c91437c1883c3b7",
        "scripted_episodes": "8ef915f0cc93048c",
    },
    "Negotiation-v0-opponent=tit-for-tat-max_rounds=4": {
        "first_observations": "9c452b48210ebef4",
        "scripted_episodes": "43cb0e3e495026ce",
    },
    "BazaarB2C-v0": {
        "first_observations": "19755dd434c21447",
        "scripted_episodes": "e3e87be7dcc1357a",
    },
    "BazaarB2C-v0-strategies=amplifier": {
        "first_observations": "19755dd434c21447",
        "scripted_episodes": "da36eb75751c6850",
    },
    "BazaarB2C-v0-firms=2-strategies=undercutter": {
        "first_observations": "c0725f4e3a561119",
        "scripted_episodes": "507b36686e118c02",
    },
    "BazaarB2C-v0-firms=8-rate=50-capacity=20": {
        "first_observations": "bf34aac6223214ff",
        "scripted_episodes": "bdb8f3eb0a741ce4",
    },
    "BazaarC2C-v0": {
        "first_observations": "fa8006b6ec80b40f",
        "scripted_episodes": "f8d9e646bab6008c",
    },
    "BazaarC2C-v0-sybils=6": {
        "first_observations": "5060d890c4ff8c80",
        "scripted_episodes": "66edfd5ccb145f74",
    },
    "BazaarC2C-v0-sybils=9": {
        "first_observations": "dc21b9034addf760",
        "scripted_episodes": "01d7164e361a143d",
    },
    "BazaarC2C-v0-role=seller": {
        "first_observations": "41e5506f90a46522",
        "scripted_episodes": "af455c013343dfbf",
    },
    "Household-v0": {
        "first_observations": "03398d9b411d7cc5",
        "scripted_episodes": "bc9216f5d16d7ceb",
    },
    "Household-v0-task_type=look_at_obj_in_light-split=seen": {
        "first_observations": "18abcbc1ae656865",
        "scripted_episodes": "548f1a67fd2889a3",
    },
    "Household-v0-task_type=pick_heat_then_place_in_recep-split=unseen": {
        "first_observations": "e95b7a1f40511f73",
        "scripted_episodes": "8a2a8f00c8785b14",
    },
    "Household-v0-task_type=pick_two_obj_and_place-gamma=0.95": {
        "first_observations": "ebbdfdbb3280d82c",
        "scripted_episodes": "77e33d5913b1db23",
    },
    "Terminal-v0": {
        "first_observations": "7b2ccaff3f34f6ed",
        "scripted_episodes": "2b4625d54af21336",
    },
    "SearchQA-v0": {
        "first_observations": "740897db4b8df31b",
        "scripted_episodes": "45ab6cf540a4f03b",
    },
    "SearchQA-v0-min_hops=3": {
        "first_observations": "32b7e9fe10a1cb0f",
        "scripted_episodes": "1c1aa761aba04c87",
    },
    "SearchQA-v0-namesakes=True-min_hops=2": {
        "first_observations": "7dd378c99ad2eff5",
        "scripted_episodes": "e87270cd7d229000",
    },
    "SearchQA-v0-described=True-min_hops=2": {
        "first_observations": "42eefa08dea12176",
        "scripted_episodes": "c6e5c98c727fa756",
    },
    "SearchQA-v0-paraphrase=True-min_hops=2": {
        "first_observations": "ec570668f5ca470e",
        "scripted_episodes": "95a24309ae1f03e3",
    },
    "SearchQA-v0-comparison=True": {
        "first_observations": "80bccf7b2cb93959",
        "scripted_episodes": "7dbc303d23e906e9",
    },
    "SearchQA-v0-corpus=example": {
        "first_observations": "8d10057c94b14fce",
        "scripted_episodes": "967c31fa59c79bce",
    },
    "Workplace-v0": {
        "first_observations": "306f62c5146030c3",
        "scripted_episodes": "a7fcb33bbd6248e5",
    },
    "Workplace-v0-domain=retail-split=test": {
        "first_observations": "ef0076730ef0f334",
        "scripted_episodes": "f4e462f2bb086411",
    },
    "Workplace-v0-domain=helpdesk-gamma=0.95": {
        "first_observations": "5b49e95fbb75f8a3",
        "scripted_episodes": "df40c97da0ccfa89",
    },}


@pytest.mark.parametrize(("name", "env_id", "kwargs"), _cases(), ids=[c[0] for c in _cases()])
def test_fixed_seeds_give_the_golden_episodes(name, env_id, kwargs):
    assert name in GOLDEN, f"no golden hashes for {name}; regenerate the table"
    assert fingerprint(env_id, kwargs) == GOLDEN[name]


if __name__ == "__main__":
    table = {name: fingerprint(env_id, kwargs) for name, env_id, kwargs in _cases()}
    sys.stdout.write("GOLDEN: dict[str, dict[str, str]] = {\n")
    for name, hashes in table.items():
        sys.stdout.write(f'    "{name}": {{\n')
        for key, value in hashes.items():
            sys.stdout.write(f'        "{key}": "{value}",\n')
        sys.stdout.write("    },\n")
    sys.stdout.write("}\n")
