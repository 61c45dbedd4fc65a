#!/usr/bin/env bash
# Set up .venv with the dev tools and the browser mode (Debian's Chromium via apt), lint, and
# run the whole test suite (what CI runs). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev,browser
bash scripts/install_browser.sh
.venv/bin/ruff check .
.venv/bin/python -m pytest -n 2 "$@"
