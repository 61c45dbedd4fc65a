#!/bin/bash
set -euo pipefail
cd /app
git merge feature/retry || true   # conflicts expected; resolved below
cat > settings.ini <<'X'
[server]
host = 0.0.0.0
port = 8080
timeout = 30
workers = 4
retries = 5
X
cat > client.py <<'X'
"""Client helpers. `send` is the transport, passed in so it can be faked."""
import configparser


def load_settings(path="settings.ini"):
    parser = configparser.ConfigParser()
    parser.read(path)
    return parser["server"]


def fetch_url(send, url, timeout=30, retries=5):
    last = None
    for _ in range(retries):
        try:
            return send(url, timeout=timeout)
        except ConnectionError as exc:
            last = exc
    raise last
X
git add settings.ini client.py
git commit --no-edit
