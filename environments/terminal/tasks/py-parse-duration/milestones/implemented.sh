export PYTHONDONTWRITEBYTECODE=1
cd /app && python3 -c 'from timeparse import parse_duration as p; assert p("1h30m") == 5400'
