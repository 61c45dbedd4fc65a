export PYTHONDONTWRITEBYTECODE=1
cd /app && python3 -c 'from pagesel import select, chunk; assert select(["a", "b", "c"], "1,3") == ["a", "c"] and chunk([1, 2, 3], 2) == [[1, 2], [3]]'
