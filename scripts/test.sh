#!/usr/bin/env bash
# Set up .venv with the dev tools, lint, and run the whole test suite (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
.venv/bin/ruff check .
.venv/bin/python -m pytest -n 2 "$@"
