"""Replay plans in TextWorld's PDDL engine with ALFWorld's domain (needs alfworld, textworld).

Run as a script by ``test_pddl_crosscheck.py`` under an interpreter that has both (this one,
or ``$AGENTGYM_ALFWORLD_PYTHON``); it imports nothing from agentgym. Input: a JSON list of
``{"problem": PDDL text, "plan": [commands]}``; output: one JSON line per case with whether
every command was admissible, whether the goal held before the last command, and at the end;
with ``"admissible"`` (ours, per step) also the first step whose state-changing commands differ.
"""

from __future__ import annotations

import json
import os
import sys

#: The verbs that change the state; look / examine / inventory / help only describe it.
VERBS = ("go to ", "open ", "close ", "take ", "move ", "heat ", "cool ", "clean ", "use ")


def _changing(commands, here):
    return sorted(c for c in commands if c.startswith(VERBS) and c != f"go to {here}")


def main(path: str) -> None:
    import alfworld
    from textworld.core import EnvInfos
    from textworld.envs.pddl import PddlEnv

    data = os.path.join(os.path.dirname(alfworld.__file__), "data")
    with open(os.path.join(data, "alfred.pddl")) as f:
        domain = f.read()
    with open(os.path.join(data, "alfred.twl2")) as f:
        grammar = f.read()
    with open(path) as f:
        cases = json.load(f)
    for case in cases:
        env = PddlEnv(EnvInfos(admissible_commands=True))
        env.load({"pddl_domain": domain, "grammar": grammar, "pddl_problem": case["problem"]})
        state = env.reset()
        early, missing, differ = bool(state["won"]), "", None
        for i, command in enumerate(case["plan"]):
            ours = case.get("admissible")
            if ours and differ is None:
                theirs = _changing(state["admissible_commands"], case["here"][i])
                if theirs != sorted(ours[i]):
                    differ = {"step": i, "only_ours": sorted(set(ours[i]) - set(theirs)),
                              "only_theirs": sorted(set(theirs) - set(ours[i]))}
            if command not in state["admissible_commands"]:
                missing = command
                break
            state, _, _ = env.step(command)
            if state["won"] and i < len(case["plan"]) - 1:
                early = True
        print(json.dumps({"admissible": not missing, "missing": missing, "early": early,
                          "won": bool(state["won"]) and not missing, "differ": differ}),
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
