"""Every docstring example in the library runs and prints what it says.

Public API carries a runnable example; this keeps each one true. Modules are imported by
name, so one whose optional dependency is missing fails here rather than being skipped.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
import shutil

import pytest

PACKAGES = ("agentgym", "agentgym.environments", "agentgym.trainers", "agentgym.leaderboard")


def library_modules() -> list[str]:
    names = set()
    for package in PACKAGES:
        path = importlib.import_module(package).__path__
        names.update(info.name for info in pkgutil.walk_packages(path, prefix=f"{package}."))
    names.update(PACKAGES[1:])
    kept = []
    for name in names:
        # The in-container runner is a script run by the sandbox's own python, not a module.
        if name.endswith(".__main__") or name == "agentgym.sandbox.runner" or name in OWN_VENV:
            continue
        kept.append(name)
    return sorted(kept)


#: Modules whose examples need what an install may lack: a module and a program on PATH.
NEEDS = {"agentgym.environments.household.twx": ("textworld_express", "java")}
#: Modules whose framework lives in a venv of its own: their examples run in that venv
#: (tests/integrations/test_verifiers_adapter.py runs agentgym.integrations.verifiers' there).
OWN_VENV = {"agentgym.integrations.verifiers"}


@pytest.mark.parametrize("name", library_modules())
def test_docstring_examples(name):
    if name in NEEDS:
        module_name, program = NEEDS[name]
        if importlib.util.find_spec(module_name) is None or shutil.which(program) is None:
            pytest.skip(f"SKIPPED {name} examples: {module_name} or {program} is absent")
    module = importlib.import_module(name)
    results = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                              verbose=False, report=True)
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples failed in {name}"
