#!/usr/bin/env bash
# The main job: set up, list the environments, and evaluate the oracle and random agents on
# every game, the oracle, rule and random agents on WebShop's 500 test goals, and the oracle
# and random agents on Terminal-v0's 10 test tasks (Docker started and the base image built
# here; skipped, saying so, where no daemon can be started). Results with per-episode step
# traces land in results/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
episodes="${EPISODES:-100}"
.venv/bin/agentgym list
for env_id in agentgym/Sokoban-v0 agentgym/Sudoku-v0 agentgym/Minesweeper-v0 agentgym/TicTacToe-v0; do
    name="${env_id#agentgym/}"
    for agent in oracle random; do
        .venv/bin/agentgym eval "$env_id" --agent "$agent" --episodes "$episodes" --seed 0 \
            --out "results/${name%-v0}-${agent}.json"
    done
done
# Seeds 0..499 play WebShop's test goals 0..499 once each (the catalog is built on first use).
for agent in oracle webshop-rule random; do
    .venv/bin/agentgym eval agentgym/WebShop-v0 --agent "$agent" --episodes 500 --seed 0 \
        --out "results/WebShop-${agent}.json"
done
# Seeds 0..9 play Terminal-v0's 10 test tasks once each, in Docker sandboxes.
if bash scripts/start_docker.sh && .venv/bin/agentgym docker build-base; then
    for agent in oracle random; do
        .venv/bin/agentgym eval agentgym/Terminal-v0 -k split='"test"' --agent "$agent" \
            --episodes 10 --seed 0 --out "results/Terminal-${agent}.json"
    done
else
    echo "Terminal-v0 skipped: no Docker daemon (see the line above)"
fi
echo "Results with step traces: results/*.json. Play a game yourself:"
echo "  .venv/bin/agentgym play agentgym/Sudoku-v0 --seed 3"
