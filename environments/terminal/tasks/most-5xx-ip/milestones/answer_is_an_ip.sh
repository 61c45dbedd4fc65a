[ -f answer.txt ] && grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+' answer.txt
