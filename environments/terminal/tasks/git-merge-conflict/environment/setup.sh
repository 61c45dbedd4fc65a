#!/bin/sh
set -e
# deterministic commits: fixed author/committer and a clock that ticks one hour per commit
export GIT_AUTHOR_NAME="Dana Dev" GIT_AUTHOR_EMAIL="dana@example.com"
export GIT_COMMITTER_NAME="Dana Dev" GIT_COMMITTER_EMAIL="dana@example.com"
TICK=1704103200
commit() {
  TICK=$((TICK + 3600))
  GIT_AUTHOR_DATE="$TICK +0000" GIT_COMMITTER_DATE="$TICK +0000" git commit -q "$@"
}
cd /app
git init -q -b main .
cat > settings.ini <<'X'
[server]
host = 0.0.0.0
port = 8080
timeout = 10
X
cat > client.py <<'X'
"""Client helpers. `send` is the transport, passed in so it can be faked."""
import configparser


def load_settings(path="settings.ini"):
    parser = configparser.ConfigParser()
    parser.read(path)
    return parser["server"]


def fetch(send, url):
    return send(url)
X
printf '# client\n' > README.md
git add .
commit -m "Initial client"
git checkout -q -b feature/retry
cat > settings.ini <<'X'
[server]
host = 0.0.0.0
port = 8080
timeout = 15
retries = 5
X
cat > client.py <<'X'
"""Client helpers. `send` is the transport, passed in so it can be faked."""
import configparser


def load_settings(path="settings.ini"):
    parser = configparser.ConfigParser()
    parser.read(path)
    return parser["server"]


def fetch(send, url, retries=5):
    last = None
    for _ in range(retries):
        try:
            return send(url)
        except ConnectionError as exc:
            last = exc
    raise last
X
git add .
commit -m "Retry failed requests"
printf 'Retries: up to 5 attempts on ConnectionError.\n' > RETRY.md
git add RETRY.md
commit -m "Document retries"
git checkout -q main
cat > settings.ini <<'X'
[server]
host = 0.0.0.0
port = 8080
timeout = 30
workers = 4
X
cat > client.py <<'X'
"""Client helpers. `send` is the transport, passed in so it can be faked."""
import configparser


def load_settings(path="settings.ini"):
    parser = configparser.ConfigParser()
    parser.read(path)
    return parser["server"]


def fetch_url(send, url, timeout=30):
    return send(url, timeout=timeout)
X
git add .
commit -m "Rename fetch to fetch_url and pass a timeout"
printf '# client\n\nUse fetch_url(send, url).\n' > README.md
git add README.md
commit -m "Document fetch_url"
