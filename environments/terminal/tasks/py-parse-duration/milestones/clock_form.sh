export PYTHONDONTWRITEBYTECODE=1
cd /app && python3 -c 'from timeparse import parse_duration as p; assert p("1:02:03") == 3723 and p("-2m") == -120'
