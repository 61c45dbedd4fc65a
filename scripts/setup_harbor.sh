#!/usr/bin/env bash
# Create .venv-harbor with PyPI's harbor (Terminal-Bench 2's harness) to check that the bundled
# terminal tasks load in Harbor's own loader and pass `harbor lint`. A venv of its own: Harbor
# needs Python >= 3.12 (pyenv's 3.12 here; set PYTHON to use another) and pins its own
# dependencies. About a minute to create; an existing venv costs a second.
#
#   bash scripts/setup_harbor.sh && .venv/bin/pytest tests/terminal/test_harbor_compat.py
#   .venv-harbor/bin/harbor lint environments/terminal/tasks/*/
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-harbor
version=0.25.0
check="import harbor.lint, importlib.metadata as m; from harbor.models.task.task import Task
assert m.version('harbor') == '$version', m.version('harbor')"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$check" > /dev/null 2>&1; then
    exit 0
fi
python="${PYTHON:-}"
if [ -z "$python" ]; then
    for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3 "$(command -v python3.12 || true)" \
            "$(command -v python3 || true)"; do
        if [ -x "$candidate" ] && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then
            python="$candidate"
            break
        fi
    done
fi
if [ -z "$python" ]; then
    echo "no Python >= 3.12 found for $venv (Harbor needs one); set PYTHON=/path/to/python3.12" >&2
    exit 1
fi
echo "creating $venv (harbor==$version with $python, for the Terminal-v0 Harbor check)"
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "harbor==$version"
"$venv/bin/python" -c "$check"
