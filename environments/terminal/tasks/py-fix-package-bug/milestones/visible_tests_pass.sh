export PYTHONDONTWRITEBYTECODE=1
cd /app && PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python3 -m pytest -q -p no:cacheprovider tests >/dev/null 2>&1
