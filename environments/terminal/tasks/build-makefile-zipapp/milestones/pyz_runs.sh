export PYTHONDONTWRITEBYTECODE=1
d=$(mktemp -d) && cp -r /app/. "$d" && cd "$d" && rm -rf build dist && make >/dev/null 2>&1 && test "$(python3 dist/wc.pyz --version)" = "wordcount 1.4.0"; rc=$?; rm -rf "$d"; exit $rc
