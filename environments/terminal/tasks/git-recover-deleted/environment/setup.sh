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
mkdir db
printf '# inventory\n' > README.md
printf 'print("inventory")\n' > app.py
git add . ; commit -m "Initial commit"
cat > db/schema.sql <<'X'
CREATE TABLE items (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL
);
X
printf 'remember to vacuum\n' > old_notes.txt
git add . ; commit -m "Add database schema"
printf 'print("inventory v2")\n' > app.py
git add . ; commit -m "Bump app banner"
cat > db/schema.sql <<'X'
CREATE TABLE items (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    qty INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE suppliers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
X
git add . ; commit -m "Add quantities and suppliers"
printf '# inventory\n\nTracks stock.\n' > README.md
git add . ; commit -m "Describe the project"
git rm -q db/schema.sql old_notes.txt
commit -m "Remove unused files"
printf 'print("inventory v3")\n' > app.py
git add . ; commit -m "Bump app banner again"
printf '# inventory\n\nTracks stock and suppliers.\n' > README.md
git add . ; commit -m "Update README"
