[ -f top10.txt ] && [ "$(head -n 1 top10.txt)" = "971 the" ]
