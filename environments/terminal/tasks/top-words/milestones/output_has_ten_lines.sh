[ -f top10.txt ] && [ "$(grep -c '^[0-9][0-9]* [a-z][a-z]*$' top10.txt)" -eq 10 ]
