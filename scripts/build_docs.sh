#!/usr/bin/env bash
# Build the docs site into build/site with MkDocs + Material (the `docs` extra, also in `dev`).
# First docs/tables.py rewrites the generated tables from docs/results.json; the arguments go
# to it (`bash scripts/build_docs.sh --measure` re-plays every eval behind them first, minutes).
# --strict makes a broken link, anchor or nav entry fail the build.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! .venv/bin/python -c 'import mkdocs, material' 2>/dev/null; then
    bash scripts/setup.sh docs
fi
PYTHONDONTWRITEBYTECODE=1 .venv/bin/python docs/tables.py "$@"
NO_MKDOCS_2_WARNING=1 PYTHONDONTWRITEBYTECODE=1 .venv/bin/python -m mkdocs build --strict
echo "the docs site is in build/site (open build/site/index.html)"
