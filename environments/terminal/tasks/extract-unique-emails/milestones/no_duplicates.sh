[ -s emails.txt ] && [ -z "$(sort emails.txt | uniq -d)" ]
