[ -f answer.txt ] && grep -qx '[0-9][0-9]*\.[0-9][0-9]' answer.txt
