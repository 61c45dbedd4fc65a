[ -f bad_lines.txt ] && grep -qx 23 bad_lines.txt
