#!/bin/bash
set -euo pipefail
cd /app
cat > /tmp/check.sh <<'X'
#!/bin/sh
# 0 good, 1 bad, 125 skip (tree cannot be imported)
out=$(python3 -c 'from stats import median; print(median([4, 1, 3, 2]))' 2>/dev/null) || exit 125
[ "$out" = "2.5" ]
X

git bisect start main v1.0
git bisect run sh /tmp/check.sh   # via sh: /tmp may be mounted noexec
git rev-parse refs/bisect/bad > FIRST_BAD
git bisect reset
cat FIRST_BAD
