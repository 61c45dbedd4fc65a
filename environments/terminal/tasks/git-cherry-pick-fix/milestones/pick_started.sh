export PYTHONDONTWRITEBYTECODE=1
test -e /app/.git/CHERRY_PICK_HEAD || git -C /app log -1 --format=%B release/1.2 | grep -q 'cherry picked from commit'
