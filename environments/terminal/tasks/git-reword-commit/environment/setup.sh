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
printf 'ROUTES = {}\n' > api.py
git add . ; commit -m "Start the API"
printf 'ROUTES = {"/items": "list_items"}\n' > api.py
git add . ; commit -m "Add the list endpoint"
printf 'def list_items(page=1, per_page=20):\n    return {"page": page, "per_page": per_page}\n' > handlers.py
git add . ; commit -m "Add pagnation to list endpoint" -m "Closes #12."
printf '# api\n' > README.md
git add . ; commit -m "Add README"
printf '# api\n\nGET /items?page=N\n' > README.md
git add . ; commit -m "Document paging"
printf 'ROUTES = {"/items": "list_items", "/health": "health"}\n' > api.py
git add . ; commit -m "Add health route"
