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
mkdir docs
printf '__pycache__/\n' > .gitignore
printf '# shop\n' > README.md
printf 'def total(prices):\n    return sum(prices)\n' > cart.py
git add . ; commit -m "Initial shop"
printf '# shop\n\nA tiny shop backend.\n' > README.md
git add . ; commit -m "Describe the shop"
cat > payments.py <<'X'
"""Client for the payments provider."""

API_KEY = "sk_live_9Qm2TzR7vK4pL8xW3nB6yD1f"


def auth_header():
    return {"Authorization": f"Bearer {API_KEY}"}


def charge_request(amount_cents):
    if amount_cents <= 0:
        raise ValueError("amount must be positive")
    return {"amount": amount_cents, "currency": "eur", "headers": auth_header()}
X
cat > docs/setup.md <<'X'
# Setup

Set the payments key before starting the server:

    export PAYMENTS_API_KEY=sk_live_9Qm2TzR7vK4pL8xW3nB6yD1f

Then run the server.
X
printf '[payments]\ncurrency = eur\n' > config.example.ini
git add . ; commit -m "Add payment client"
