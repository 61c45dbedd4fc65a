export PYTHONDONTWRITEBYTECODE=1
git -C /app rev-parse --verify -q refs/heads/experiment >/dev/null && ! git -C /app rev-parse --verify -q refs/heads/wip >/dev/null
