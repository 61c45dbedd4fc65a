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
printf '# greeter\n\nA tiny greeting script.\n' > README.md
printf 'print("Hello, world!")\n' > greet.py
git add README.md greet.py
commit -m "Add greeting script"
git checkout -q -b wip
printf 'Ideas:\n- greet in French\n' > IDEAS.md
git add IDEAS.md
commit -m "Jot down ideas"
git checkout -q main
printf '# greeter\n\nA tiny greeting script.\n\nRun: python3 greet.py\n' > README.md
git add README.md
commit -m "Document usage"
