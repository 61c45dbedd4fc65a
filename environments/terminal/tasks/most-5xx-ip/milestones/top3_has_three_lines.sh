[ -f top3.txt ] && [ "$(grep -Ec '^[0-9]+ [0-9.]+$' top3.txt)" -eq 3 ]
