#!/usr/bin/env bash
set -euo pipefail
cd /app
tr 'A-Z' 'a-z' < book.txt | tr -cs 'a-z' '\n' | grep -v '^$' | LC_ALL=C sort | uniq -c \
  | LC_ALL=C sort -k1,1nr -k2,2 | head -n 10 | awk '{print $1, $2}' > top10.txt
