[ -f answer.txt ] && head -n 1 answer.txt | grep -Eqx '(api|worker)\.log'
