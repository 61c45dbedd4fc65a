export PYTHONDONTWRITEBYTECODE=1
! git -C /app log --format=%s main | grep -q pagnation && test "$(git -C /app rev-list --count main)" -eq 6
