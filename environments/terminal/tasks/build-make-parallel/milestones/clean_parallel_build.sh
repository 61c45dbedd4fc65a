export PYTHONDONTWRITEBYTECODE=1
d=$(mktemp -d) && cp -r /app/. "$d" && cd "$d" && rm -rf build && make -s -j8 >/dev/null 2>&1 && grep -q '^TOTAL 92.19$' build/report.txt; rc=$?; cd /; rm -rf "$d"; exit $rc
