#!/usr/bin/env bash
# Fills .whl/ (git-ignored) with what a GPU machine without network lacks to run
# scripts/gpu_bench.sh and benchmarks/learning/run.py: agentgym's own dependencies beyond
# torch, transformers, peft and accelerate, as wheels for that machine's Python, plus an
# agentgym wheel of this checkout. Run it here (it needs PyPI), then copy the checkout with
# .whl/ to the GPU machine; gpu_bench.sh installs them from there, offline.
#   bash scripts/gpu_wheels.sh            # the GPU machine runs Python 3.12 (default)
#   GPU_PYTHON=3.11 bash scripts/gpu_wheels.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PYV="${GPU_PYTHON:-3.12}"
PY=.venv/bin/python
[[ -x "$PY" ]] || PY=python3
# The versions this checkout's venv resolved (the ones its tests ran), else the newest.
pinned() { "$PY" -c "import importlib.metadata as m, sys
try: print(f'{sys.argv[1]}=={m.version(sys.argv[1])}')
except m.PackageNotFoundError: print(sys.argv[1])" "$1"; }
mkdir -p .whl
rm -f .whl/agentgym-*.whl
for name in gymnasium farama-notifications pydantic pydantic-core annotated-types \
            typing-inspection bm25s rapidfuzz gguf; do
  "$PY" -m pip download -q --no-deps --only-binary=:all: --python-version "$PYV" \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl "$(pinned "$name")"
done
"$PY" -m pip wheel -q --no-deps --no-build-isolation -w .whl .
echo "gpu_wheels: $(ls .whl | wc -l) wheels in .whl/ ($(du -sh .whl | cut -f1)) for Python $PYV"
