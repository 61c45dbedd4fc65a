export PYTHONDONTWRITEBYTECODE=1
git -C /app rev-parse --verify -q refs/heads/feature/friendly-greeting >/dev/null
