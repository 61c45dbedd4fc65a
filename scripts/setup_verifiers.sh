#!/usr/bin/env bash
# Create .venv-verifiers: PyPI's verifiers (Prime Intellect's RL environments) with this checkout's
# agentgym, for agentgym.integrations.verifiers' tests and benchmarks. A venv of its own:
# verifiers 0.4 pins mcp==2.0.0 and openai<3, which the project's .venv (openenv's fastmcp 3,
# mcp 1.x) cannot hold at the same time.
#
# Cached between runs on one machine, also across fresh clones (CI clones anew every run):
# verifiers and agentgym's own dependencies live in one venv under the agentgym cache
# ($AGENTGYM_CACHE, else $XDG_CACHE_HOME/agentgym, else ~/.cache/agentgym), named by a hash of
# what goes into it; .venv-verifiers is a small venv in the checkout that adds that one with a
# .pth file and holds only the editable agentgym. First build 10 minutes on a loaded 2-core
# machine (about 165 packages); a new clone with the cache warm 25 s; an existing venv 9 s.
#
#   bash scripts/setup_verifiers.sh && .venv/bin/python -m pytest tests/integrations/test_verifiers_adapter.py
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-verifiers
version=0.4.0
python="${PYTHON:-python3}"
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "verifiers $version needs Python >= 3.11; $python is $("$python" --version 2>&1)" >&2
    exit 1
fi
# What the cached venv holds: verifiers, the runtime and server dependencies agentgym declares
# (the [server] extra: RemoteEnv for server_url=) and the benchmark's pytest, for this Python.
# pip resolves verifiers' openenv extra to openenv 0.4.1 next to verifiers' mcp==2.0.0 pin.
spec=$("$python" - "$version" <<'EOF'
import sys, tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
deps = sorted(project["dependencies"] + project["optional-dependencies"]["server"])
# pytest and pytest-benchmark: benchmarks/test_bench_adapter_verifiers.py runs in this venv.
tools = ["setuptools>=77", "wheel", "pytest>=8", "pytest-benchmark>=4"]
# verifiers' openenv extra: its OpenEnv taskset is checked against `agentgym serve` too.
print("\n".join([f"verifiers[openenv]=={sys.argv[1]}", *tools, *deps]))
EOF
)
pyver=$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
key=$(printf '%s %s' "$pyver" "$spec" | sha256sum | cut -c1-16)
cache_root="${AGENTGYM_CACHE:-}"
if [ -z "$cache_root" ]; then
    xdg="${XDG_CACHE_HOME:-}"
    case "$xdg" in /*) cache_root="$xdg/agentgym" ;; *) cache_root="$HOME/.cache/agentgym" ;; esac
fi
deps="$cache_root/venvs/verifiers-$version-py$pyver-$key"
root=$PWD
# Run from / so that nothing resolves through the working directory: the editable install must.
check="import importlib.metadata as m, pathlib, agentgym.environments, verifiers.v1
import agentgym_verifiers  # verifiers' plugin id, a top-level module
assert m.version('verifiers') == '$version', m.version('verifiers')
assert pathlib.Path(agentgym.__file__).resolve().parent == pathlib.Path('$root/agentgym').resolve()"
# Up to date: made over this very cached venv (the key names it), and it imports.
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/agentgym-deps" 2> /dev/null)" = "$deps" ] &&
        (cd / && "$root/$venv/bin/python" -c "$check") > /dev/null 2>&1; then
    exit 0
fi
if ! "$deps/bin/python" -c "import verifiers.v1, gymnasium, starlette" > /dev/null 2>&1; then
    echo "creating $deps (verifiers==$version and agentgym's dependencies, Python $pyver)"
    mkdir -p "$cache_root/venvs"
    tmp="$deps.tmp.$$"
    rm -rf "$tmp"
    "$python" -m venv "$tmp"
    printf '%s\n' "$spec" > "$tmp/agentgym-requirements.txt"
    "$tmp/bin/python" -m pip install --quiet --disable-pip-version-check \
        -r "$tmp/agentgym-requirements.txt"
    # Built under a temporary name, so a killed build leaves nothing at the final one; its
    # scripts and pyvenv.cfg name that path, so point them at the final one after the move.
    rm -rf "$deps"
    mv "$tmp" "$deps"
    sed -i "s#$tmp#$deps#g" "$deps"/bin/* 2> /dev/null || true
    sed -i "s#$tmp#$deps#g" "$deps/pyvenv.cfg"
fi
echo "creating $venv (this checkout's agentgym over $deps)"
rm -rf "$venv"
"$python" -m venv --without-pip "$venv"
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
deps_site=$("$deps/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
# An "import" line in a .pth file runs at start-up: addsitedir also reads the cached venv's own
# .pth files (namespace packages, the editable finders), which a plain path line would not.
echo "import site; site.addsitedir('$deps_site')" > "$site/_agentgym_verifiers_deps.pth"
"$deps/bin/python" -m pip --python "$venv/bin/python" install --quiet --disable-pip-version-check \
    --no-deps --no-build-isolation -e .
(cd / && "$root/$venv/bin/python" -c "$check")
echo "$deps" > "$venv/agentgym-deps"
