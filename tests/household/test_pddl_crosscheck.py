"""The planner's plans, replayed through ALFWorld's own PDDL domain in TextWorld's engine.

Needs the ``alfworld`` extra (PyPI ``alfworld`` + ``textworld``) in this interpreter, an
interpreter that has it in ``$AGENTGYM_ALFWORLD_PYTHON``, or ``.venv-alfworld`` (made by
``scripts/setup_alfworld.sh``, which CI's ``scripts/test.sh`` runs); skipped, with the reason,
otherwise.
``AGENTGYM_CROSSCHECK_SEEDS=N`` checks N seeds per task type and split (default 1).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agentgym.environments.household.generator import SPLITS, generate
from agentgym.environments.household.pddl import pddl_command, problem
from agentgym.environments.household.planner import Planner
from agentgym.environments.household.tasks import TASK_TYPES
from agentgym.environments.household.world import (
    NOWHERE,
    apply,
    command,
    legal_actions,
    start_state,
)

#: Our commands that change the state (the replay compares these with ALFWorld's).
VERBS = ("go to ", "open ", "close ", "take ", "move ", "heat ", "cool ", "clean ", "use ")

REPLAY = Path(__file__).with_name("alfworld_replay.py")


#: Where scripts/setup_alfworld.sh (run by scripts/test.sh) puts alfworld and textworld.
ALFWORLD_VENV_PYTHON = Path(__file__).resolve().parents[2] / ".venv-alfworld" / "bin" / "python"


def _interpreter() -> str | None:
    if importlib.util.find_spec("alfworld") and importlib.util.find_spec("textworld"):
        return sys.executable
    if os.environ.get("AGENTGYM_ALFWORLD_PYTHON"):
        return os.environ["AGENTGYM_ALFWORLD_PYTHON"]
    return str(ALFWORLD_VENV_PYTHON) if ALFWORLD_VENV_PYTHON.exists() else None


# slow: a second interpreter (.venv-alfworld) plans every task (~25 s of CPU)
@pytest.mark.slow
def test_oracle_plans_reach_the_goal_in_alfworlds_pddl_domain(tmp_path):
    python = _interpreter()
    if python is None:
        pytest.skip("SKIPPED CROSS-CHECK: the alfworld extra is not installed (pip install "
                    "'agentgym[alfworld]', run scripts/setup_alfworld.sh, or set "
                    "AGENTGYM_ALFWORLD_PYTHON to a Python that "
                    "has alfworld and textworld)")
    seeds = int(os.environ.get("AGENTGYM_CROSSCHECK_SEEDS", "1"))
    cases = []
    for task_type in TASK_TYPES:
        for split in SPLITS:
            for seed in range(seeds):
                episode = generate(np.random.default_rng(seed), split=split, task_type=task_type)
                scene = episode.scene
                state = start_state(scene, episode.where)
                plan = Planner(scene, episode.task).plan(state)
                assert plan
                admissible, here = [], []
                for action in plan:
                    texts = [command(scene, a) for a in legal_actions(scene, state)]
                    admissible.append([pddl_command(t) for t in texts if t.startswith(VERBS)])
                    here.append(None if state.loc == NOWHERE
                                else pddl_command(scene.receptacles[state.loc]))
                    state, _ = apply(scene, state, action)
                cases.append({
                    "problem": problem(scene, episode.where, episode.task),
                    "plan": [pddl_command(command(scene, a)) for a in plan],
                    "admissible": admissible,
                    "here": here,
                    "label": f"{task_type}/{split}/{seed}",
                })
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(cases))
    # TextWorld loads each problem through Fast Downward's translator: ~2 s a task on one
    # free core, so the limit grows with the number of tasks.
    proc = subprocess.run([python, str(REPLAY), str(path)], capture_output=True, text=True,
                          timeout=120 + 30 * len(cases))
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(results) == len(cases), proc.stderr[-2000:]
    for case, result in zip(cases, results, strict=True):
        assert result["admissible"], (case["label"], result["missing"])
        assert not result["early"], (case["label"], "the goal held before the plan ended")
        assert result["won"], case["label"]
        # The same state-changing commands are admissible at every step of the plan.
        assert result["differ"] is None, (case["label"], result["differ"])
