export PYTHONDONTWRITEBYTECODE=1
git -C /app log --format=%s main | grep -qx 'Add pagination to the list endpoint'
