"""TextWorldExpress games on the contract: the conformance suite's checks, run on the TWX ids.

Needs the ``twx`` extra (PyPI ``textworld-express``) and Java; skipped, with the reason,
otherwise. The ids are not in agentgym's own table (an install without Java must not fail
the suite), so this file runs the suite's checks on them itself.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

if importlib.util.find_spec("textworld_express") is None or shutil.which("java") is None:
    pytest.skip("SKIPPED TWX: textworld-express or Java is absent (pip install "
                "'agentgym[twx]' and a Java 11+ runtime)", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import test_conformance as conformance

from agentgym.environments.household import twx

twx.register()
IDS = [f"agentgym/TWX-{name}-v0" for name in twx.GAMES]
CHECKS = [
    conformance.test_gymnasium_env_checker_passes,
    conformance.test_reset_and_step_info_keys_and_types,
    conformance.test_non_string_actions_are_invalid_not_errors,
    conformance.test_get_state_set_state_replays_identically,
    conformance.test_set_state_rejects_foreign_bytes,
    conformance.test_score_actions_matches_step_and_leaves_state_unchanged,
    conformance.test_oracle_actions_are_legal_and_top_scored,
    conformance.test_invalid_actions_follow_the_one_policy,
    conformance.test_snapshots_carry_their_config_and_seed,
]
#: The long ones (hundreds of resets through the Java server) on the quickest game only: the
#: wrapper code they exercise is the same for all three.
LONG_CHECKS = [
    conformance.test_fuzzed_actions_never_raise,
    conformance.test_skipping_process_scoring_leaves_the_game_unchanged,
    conformance.test_running_out_of_steps_is_truncation,
]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__[5:])
@pytest.mark.parametrize("env_id", IDS, ids=lambda i: i.split("/")[1])
def test_twx_ids_pass_the_conformance_checks(env_id, check):
    check(env_id, {})


@pytest.mark.parametrize("check", LONG_CHECKS, ids=lambda c: c.__name__[5:])
def test_twx_coin_collector_passes_the_long_checks(check):
    check("agentgym/TWX-CoinCollector-v0", {})


def test_gold_path_wins_and_partial_scores_are_the_process_reward():
    import gymnasium as gym

    env = gym.make("agentgym/TWX-TWC-v0", max_steps=100).unwrapped
    env.reset(seed=1)
    total, score = 0.0, 0.0
    for action in env._gold():
        *_, terminated, truncated, info = env.step(action)
        total += info["reward_components"]["process"]
        assert info["reward_components"]["process"] == pytest.approx(info["score"] - score)
        score = info["score"]
        if terminated or truncated:
            break
    assert info["success"] and total == pytest.approx(1.0)


def test_same_seed_same_game_in_another_process():
    import json
    import subprocess

    import gymnasium as gym

    script = (
        "import json, gymnasium as gym\n"
        "from agentgym.environments.household import twx\n"
        "twx.register()\n"
        "env = gym.make('agentgym/TWX-TWC-v0')\n"
        "obs, info = env.reset(seed=5)\n"
        "out = [obs]\n"
        "for k in range(4):\n"
        "    legal = info['available_actions']\n"
        "    obs, reward, terminated, truncated, info = env.step(legal[k % len(legal)])\n"
        "    out.append(obs)\n"
        "print(json.dumps(out))\n"
    )
    there = json.loads(subprocess.run([sys.executable, "-c", script], capture_output=True,
                                      text=True, check=True).stdout)
    env = gym.make("agentgym/TWX-TWC-v0")
    obs, info = env.reset(seed=5)
    here = [obs]
    for k in range(4):
        legal = info["available_actions"]
        obs, reward, terminated, truncated, info = env.step(legal[k % len(legal)])
        here.append(obs)
    assert here == there
