[ -s emails.txt ] && ! grep -q '[A-Z]' emails.txt && grep -q '@' emails.txt
