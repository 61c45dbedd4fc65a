export PYTHONDONTWRITEBYTECODE=1
d=$(mktemp -d) && cp -r /app/. "$d" && cd "$d" && rm -rf build && make -s build/report.txt >/dev/null 2>&1 && grep -q '^east: 4 sales' build/report.txt; rc=$?; cd /; rm -rf "$d"; exit $rc
