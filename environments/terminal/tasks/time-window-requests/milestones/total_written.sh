[ -f window_total.txt ] && grep -Eqx '[0-9]+' window_total.txt
