#!/usr/bin/env bash
set -euo pipefail
cd /app
grep -ohE '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}' messages/*.txt \
  | tr 'A-Z' 'a-z' | LC_ALL=C sort -u > emails.txt
