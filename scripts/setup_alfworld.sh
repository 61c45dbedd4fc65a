#!/usr/bin/env bash
# Create .venv-alfworld with PyPI's alfworld and textworld (ALFWorld's PDDL domain and
# TextWorld's PDDL engine) for the Household-v0 cross-check. A venv of its own: alfworld pins
# numpy and pulls spaCy, which must not move .venv's versions. textworld builds Fast Downward
# from source (~80 s on 2 cores); an existing venv costs a second.
#
#   bash scripts/setup_alfworld.sh && \
#     AGENTGYM_ALFWORLD_PYTHON=.venv-alfworld/bin/python .venv/bin/pytest tests/household/test_pddl_crosscheck.py
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-alfworld
python="${PYTHON:-python3}"
check='import alfworld, textworld, textworld.envs.pddl, os; import alfworld.info'
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$check" > /dev/null 2>&1; then
    exit 0
fi
echo "creating $venv (alfworld + textworld, for the Household-v0 PDDL cross-check)"
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "alfworld>=0.4.2,<0.5" "textworld>=1.7,<1.8"
"$venv/bin/python" -c "$check"
