#!/usr/bin/env bash
# Create .venv (Python >= 3.11) and install agentgym editable with the extras in $1
# (default "dev"). Safe to re-run: an up-to-date venv costs a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-dev}"
python="${PYTHON:-python3}"

if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "agentgym needs Python >= 3.11; $python is $("$python" --version 2>&1)" >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    echo "creating .venv with $("$python" --version)"
    "$python" -m venv .venv
    .venv/bin/python -m pip install -qq --upgrade pip
fi
# PyPI's `openenv` continues `openenv-core` (stopped at 0.3.0) and ships the same files: beside
# it, installing one overwrites the other's files and uninstalling either deletes them. A .venv
# from before the rename drops both here; the install below brings `openenv` back alone.
if .venv/bin/python -m pip show --quiet openenv-core > /dev/null 2>&1; then
    echo "removing openenv-core from .venv (renamed: PyPI's openenv replaces it)"
    .venv/bin/python -m pip uninstall --quiet --yes openenv-core openenv > /dev/null 2>&1 || true
fi
echo "installing agentgym[$extras] into .venv"
# -qq: errors only. With one -q, pip still relays setuptools' "Editable installation ... be
# careful with folders in your working directory" block on every install (its meta path
# finder, which the package_dir mapping of environments/, leaderboard/, trainers/ needs).
.venv/bin/python -m pip install -qq --disable-pip-version-check -e ".[$extras]"
