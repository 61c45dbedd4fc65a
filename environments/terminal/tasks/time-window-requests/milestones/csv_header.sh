[ -f window.csv ] && [ "$(head -n 1 window.csv)" = "path,count" ] && [ "$(wc -l < window.csv)" -gt 1 ]
