export PYTHONDONTWRITEBYTECODE=1
d=$(mktemp -d) && cp -r /app/. "$d" && rm -rf "$d/out" && test -x /app/build.sh && bash "$d/build.sh" >/dev/null 2>&1 && cd "$d/out/bundle" && sha256sum -c SHA256SUMS >/dev/null 2>&1; rc=$?; cd /; rm -rf "$d"; exit $rc
