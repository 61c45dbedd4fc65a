[ -s names.txt ] && ! grep -q '"' names.txt
