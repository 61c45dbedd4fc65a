export PYTHONDONTWRITEBYTECODE=1
d=$(mktemp -d) && cp -r /app/. "$d" && rm -rf "$d/out" && test -x /app/build.sh && bash "$d/build.sh" >/dev/null 2>&1 && test -f "$d/out/bundle/docs/user guide.txt"; rc=$?; rm -rf "$d"; exit $rc
