export PYTHONDONTWRITEBYTECODE=1
d=$(mktemp -d) && cp -r /app/. "$d" && cd "$d" && rm -rf build dist && make >/dev/null 2>&1 && test -f dist/wc.pyz; rc=$?; rm -rf "$d"; exit $rc
