[ -s error_counts.txt ] && grep -Eq '^[a-z-]+ [0-9]+$' error_counts.txt
