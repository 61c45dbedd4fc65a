export PYTHONDONTWRITEBYTECODE=1
cd /app && make -s check-env >/dev/null 2>&1
