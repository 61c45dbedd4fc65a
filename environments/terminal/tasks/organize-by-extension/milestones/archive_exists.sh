[ -f sorted.tar.gz ] && tar -tzf sorted.tar.gz >/dev/null 2>&1
