export PYTHONDONTWRITEBYTECODE=1
test -e /app/.git/BISECT_LOG || test -e /app/FIRST_BAD
