#!/usr/bin/env bash
# Installs what agentgym's browser envs need: Debian's Chromium and the browser extra's Python
# packages (the Playwright client; Pillow for screenshots as arrays).
#
# Playwright's own `playwright install` downloads a browser build from a CDN; agentgym never
# uses it. The envs launch the system Chromium at /usr/bin/chromium (override with
# AGENTGYM_CHROMIUM), so this script only needs apt and pip. Safe to run more than once.
#
#   scripts/install_browser.sh            # apt Chromium + playwright into ./.venv (or $PYTHON)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CHROMIUM="${AGENTGYM_CHROMIUM:-/usr/bin/chromium}"

if [[ -x "$CHROMIUM" ]]; then
    echo "chromium: found $CHROMIUM"
else
    SUDO=""
    if [[ "$(id -u)" != "0" ]]; then
        SUDO="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update
    $SUDO apt-get install -y --no-install-recommends chromium fonts-dejavu-core
    echo "chromium: installed $(command -v chromium)"
fi

if [[ -n "${PYTHON:-}" ]]; then
    PY="$PYTHON"
elif [[ -x "$ROOT/.venv/bin/python" ]]; then
    PY="$ROOT/.venv/bin/python"
else
    PY="$(command -v python3)"
fi

if "$PY" -c "import playwright, PIL" 2>/dev/null; then
    echo "playwright, pillow: already installed for $PY"
else
    "$PY" -m pip install "playwright>=1.40" "pillow>=10"
fi

# The check the tests rely on: the browser starts and renders a page, offline.
"$PY" - <<'PY'
import os
from playwright.sync_api import sync_playwright

exe = os.environ.get("AGENTGYM_CHROMIUM", "/usr/bin/chromium")
with sync_playwright() as p:
    # The sandbox needs user namespaces a root process in a container does not get.
    args = ["--disable-gpu"] + (["--no-sandbox"] if os.geteuid() == 0 else [])
    browser = p.chromium.launch(executable_path=exe, args=args)
    page = browser.new_page()
    page.set_content("<button>ok</button>")
    assert page.get_by_role("button").inner_text() == "ok"
    print("browser check: ok, chromium", browser.version)
    browser.close()
PY
