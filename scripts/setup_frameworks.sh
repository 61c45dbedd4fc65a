#!/usr/bin/env bash
# Create (or reuse) the venvs of the RL frameworks whose adapters are tested against their real
# packages but whose pins conflict with agentgym's own: NeMo Gym and verl. SkyRL-Gym has no
# conflict and comes with `agentgym[dev]` into .venv.
#
#   bash scripts/setup_frameworks.sh            # both
#   bash scripts/setup_frameworks.sh nemo-gym   # one: nemo-gym | verl
#
# The venvs live in the machine's agentgym cache (`agentgym.cache.cache_dir("venvs")`:
# $AGENTGYM_CACHE/venvs, else $XDG_CACHE_HOME/agentgym/venvs or ~/.cache/agentgym/venvs), one
# folder per framework version, so every checkout on the machine (CI's fresh clone included)
# reuses them: building one costs minutes, reusing it seconds (agentgym itself is re-installed
# editable from this checkout, without its dependencies, when the venv points elsewhere).
# tests/integrations/framework_venvs.py finds them the same way; $AGENTGYM_NEMO_GYM_PYTHON /
# $AGENTGYM_VERL_PYTHON name another interpreter.
#
# Bent requirements (docs/frameworks.md says why):
# - nemo-gym 0.7.0 declares Requires-Python >= 3.13.14; the newest 3.13 here is pyenv's 3.13.0,
#   so it is installed with --ignore-requires-python (its code needs no 3.13.14 feature).
# - verl 0.9.1 needs Python < 3.13 and torch; the venv uses Python 3.11 and torch 2.13.0's CPU
#   wheel, the project's own torch (verl's `cpu` extra would pin torch 2.11.0).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
NEMO_GYM_VERSION=0.7.0
VERL_VERSION=0.9.1
TORCH_VERSION=2.13.0+cpu
# What verl.experimental.agent_loop imports beyond verl's base requirements (its `verl-core`
# extra lists them among GPU-only packages: torchcodec, nvtx, TransferQueue).
VERL_CORE="cachetools fastapi uvicorn pyzmq msgspec"

if [ ! -x .venv/bin/python ]; then
    echo "setup_frameworks.sh needs .venv (bash scripts/setup.sh dev first)" >&2
    exit 1
fi
root="$(.venv/bin/python -c 'from agentgym.cache import cache_dir; print(cache_dir("venvs"))')"
mkdir -p "$root"

# find_python MIN MAX: a Python >= MIN and < MAX (pyenv's first, then the PATH's); $PYTHON wins.
find_python() {
    local lo="$1" hi="$2" candidate
    if [ -n "${PYTHON:-}" ]; then echo "$PYTHON"; return 0; fi
    for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/*/bin/python3 \
            "$(command -v python3.13 || true)" "$(command -v python3.12 || true)" \
            "$(command -v python3.11 || true)" "$(command -v python3 || true)"; do
        if [ -x "$candidate" ] && "$candidate" -c "import sys
lo, hi = tuple(map(int, '$lo'.split('.'))), tuple(map(int, '$hi'.split('.')))
sys.exit(not (lo <= sys.version_info[:2] < hi))"; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

# ensure NAME CHECK PY_MIN PY_MAX DIST VERSION INSTALL...: reuse $root/NAME when it was built
# completely with DIST==VERSION, else build it afresh with INSTALL (pip arguments) and run
# CHECK (imports) in it; then point its agentgym at this checkout.
ensure() {
    local name="$1" check="$2" lo="$3" hi="$4" dist="$5" version="$6"
    shift 6
    local venv="$root/$name" python start
    # Reuse: .complete (written last, so an interrupted build never looks cached) and the
    # framework's version, read from metadata without importing it (verl's import takes ~20 s).
    if ! { [ -f "$venv/.complete" ] && "$venv/bin/python" -c "import importlib.metadata as m
assert m.version('$dist') == '$version'" > /dev/null 2>&1; }; then
        python="$(find_python "$lo" "$hi")" || {
            echo "no Python >= $lo, < $hi found for $name; set PYTHON=/path/to/python" >&2
            return 1
        }
        start=$(date +%s)
        echo "creating $venv with $("$python" --version) (first build: minutes)"
        rm -rf "$venv"
        "$python" -m venv "$venv" || return 1
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip \
            || return 1
        # pytest + pytest-benchmark: benchmarks/test_bench_adapters_rl_frameworks.py runs here.
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@" \
            "pytest>=8" "pytest-benchmark>=4" -e "$repo[server]" 2>&1 \
            | { grep -v "is ignored: it is neither a file nor a directory" || true; }
        "$venv/bin/python" -c "$check" || return 1
        touch "$venv/.complete"
        echo "$name built in $(( $(date +%s) - start )) s"
    fi
    # The cached venv may hold another checkout's agentgym (editable): point it at this one.
    local here
    here="$("$venv/bin/python" -c 'import agentgym, os
print(os.path.dirname(os.path.dirname(os.path.realpath(agentgym.__file__))))' 2>/dev/null || true)"
    if [ "$here" != "$repo" ]; then
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
            -e "$repo" > /dev/null 2>&1 || return 1
    fi
    echo "$name: $venv/bin/python"
}

nemo_gym() {
    ensure "nemo-gym-$NEMO_GYM_VERSION" \
        "import importlib.metadata as m, agentgym.remote
from resources_servers.gymnasium import GymnasiumServer
assert m.version('nemo-gym') == '$NEMO_GYM_VERSION', m.version('nemo-gym')" \
        3.13 3.14 nemo-gym "$NEMO_GYM_VERSION" --ignore-requires-python "nemo-gym==$NEMO_GYM_VERSION"
}

verl() {
    ensure "verl-$VERL_VERSION" \
        "import importlib.metadata as m, agentgym.remote, torch
from verl.experimental.agent_loop import AgentLoopBase
assert m.version('verl') == '$VERL_VERSION', m.version('verl')
assert torch.__version__ == '$TORCH_VERSION', torch.__version__" \
        3.11 3.13 verl "$VERL_VERSION" "torch==$TORCH_VERSION" "verl==$VERL_VERSION" $VERL_CORE
}

status=0
for framework in "${@:-nemo-gym verl}"; do
    for f in $framework; do
        case "$f" in
            nemo-gym) nemo_gym || status=1 ;;
            verl) verl || status=1 ;;
            *) echo "unknown framework $f (nemo-gym | verl)" >&2; exit 2 ;;
        esac
    done
done
exit "$status"
