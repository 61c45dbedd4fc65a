export PYTHONDONTWRITEBYTECODE=1
cd /app && python3 -c 'from pagesel import parse_ranges as p; assert p("1-3,5", 10) == [1, 2, 3, 5] and p("8-", 10) == [8, 9, 10]'
