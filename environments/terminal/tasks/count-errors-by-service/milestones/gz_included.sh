[ -f error_counts.txt ] && grep -q '^legacy-sync ' error_counts.txt
