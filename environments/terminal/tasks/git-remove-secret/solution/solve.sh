#!/bin/bash
set -euo pipefail
cd /app
cat > payments.py <<'X'
"""Client for the payments provider."""
import os


def auth_header():
    key = os.environ.get("PAYMENTS_API_KEY")
    if not key:
        raise RuntimeError("PAYMENTS_API_KEY is not set")
    return {"Authorization": f"Bearer {key}"}


def charge_request(amount_cents):
    if amount_cents <= 0:
        raise ValueError("amount must be positive")
    return {"amount": amount_cents, "currency": "eur", "headers": auth_header()}
X
sed -i 's/sk_live_9Qm2TzR7vK4pL8xW3nB6yD1f/<your key>/' docs/setup.md
echo '.env' >> .gitignore
printf 'PAYMENTS_API_KEY=sk_live_9Qm2TzR7vK4pL8xW3nB6yD1f\n' > .env
git add payments.py docs/setup.md .gitignore
git commit --amend --no-edit
git reflog expire --expire=now --all
git gc --prune=now --quiet
