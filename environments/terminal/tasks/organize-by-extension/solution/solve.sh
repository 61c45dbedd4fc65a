#!/usr/bin/env bash
set -euo pipefail
cd /app
mkdir -p sorted
find inbox -type f -print0 | while IFS= read -r -d '' f; do
  base=${f##*/}
  stem=${base#?}
  if [[ "$stem" == *.* ]]; then ext=${base##*.}; ext=${ext,,}; else ext=noext; fi
  mkdir -p "sorted/$ext"
  if [ -e "sorted/$ext/$base" ]; then rm -- "$f"; else mv -- "$f" "sorted/$ext/$base"; fi
done
tar -czf sorted.tar.gz sorted
