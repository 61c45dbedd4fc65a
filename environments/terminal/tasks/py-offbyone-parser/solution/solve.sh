#!/bin/bash
set -euo pipefail
cd /app
sed -i \
  -e 's/end = int(b) if b else total - 1/end = int(b) if b else total/' \
  -e 's/pages.update(range(start, end))/pages.update(range(start, end + 1))/' \
  -e 's/if page < 1 or page >= total:/if page < 1 or page > total:/' \
  -e 's/return \[lines\[page\] for page/return [lines[page - 1] for page/' \
  -e 's/range(0, len(items) - size, size)/range(0, len(items), size)/' \
  pagesel/ranges.py
python3 -m pytest -q -p no:cacheprovider tests
python3 -m doctest pagesel/ranges.py && echo doctests ok
