#!/usr/bin/env bash
set -euo pipefail
cd /app
awk '$9 >= 500 && $9 <= 599 {print $1}' access.log | sort | uniq -c | sort -k1,1nr -k2,2 \
  | head -n 3 | awk '{print $1, $2}' > top3.txt
head -n 1 top3.txt | cut -d' ' -f2 > answer.txt
