export PYTHONDONTWRITEBYTECODE=1
git -C /app show main:settings.ini | grep -qx 'retries = 5' && git -C /app show main:settings.ini | grep -qx 'timeout = 30' && ! git -C /app show main:settings.ini | grep -q '^<<<<<<<'
