export PYTHONDONTWRITEBYTECODE=1
test "$(git -C /app log -1 --format=%P main | wc -w)" -eq 2
