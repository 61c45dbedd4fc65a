export PYTHONDONTWRITEBYTECODE=1
rev=$(cat /app/FIRST_BAD) && git -C /app cat-file -e "$rev^{commit}" && git -C /app merge-base --is-ancestor "$rev" main
