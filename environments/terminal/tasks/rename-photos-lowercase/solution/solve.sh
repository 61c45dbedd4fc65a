#!/usr/bin/env bash
set -euo pipefail
cd /app/photos
for f in *; do
  new=$(printf '%s' "$f" | tr 'A-Z ' 'a-z_' | sed 's/\.jpeg$/.jpg/')
  if [ "$f" != "$new" ]; then mv -- "$f" "$new"; fi
done
