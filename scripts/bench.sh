#!/usr/bin/env bash
# Benchmarks against the peers (TextArena, gym-sokoban, reasoning-gym), then a ratio table.
#
#   scripts/bench.sh                      # everything, ~3-5 minutes on 2 cores
#   scripts/bench.sh -k sudoku            # extra args go to pytest
#   AGENTGYM_BENCH_SCALE=0.2 scripts/bench.sh   # fewer rounds, quick smoke run
#   AGENTGYM_BENCH_SLOW=1 scripts/bench.sh      # add the seconds-per-room 10x10 peers
#   VENV=/tmp/benchvenv scripts/bench.sh        # use another virtual environment
#
# The peers are installed with the project's "peers" extra into the venv (created if
# missing); they coexist with gymnasium 1.x and numpy 2.x (gym-sokoban pulls in the old
# `gym` 0.26 package next to gymnasium; nothing of ours imports it).
set -euo pipefail

cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
PY="$VENV/bin/python"

if [ ! -x "$PY" ]; then
    python3 -m venv "$VENV"
fi
if ! "$PY" -c "import agentgym, pytest_benchmark, textarena, reasoning_gym, gym_sokoban" \
        >/dev/null 2>&1; then
    "$VENV/bin/pip" install -e ".[dev,peers]"
fi

mkdir -p .benchmarks
JSON=.benchmarks/latest.json
status=0
"$VENV/bin/pytest" benchmarks/ \
    --benchmark-only \
    --benchmark-group-by=group \
    --benchmark-columns=min,median,mean,ops,rounds \
    --benchmark-max-time="${BENCH_MAX_TIME:-1.0}" \
    --benchmark-min-rounds=5 \
    --benchmark-json="$JSON" \
    -p no:cacheprovider -q -rs "$@" || status=$?

if [ -f "$JSON" ]; then
    echo
    "$PY" benchmarks/report.py "$JSON"
fi
exit "$status"
