[ -d sorted ] && [ -z "$(find inbox -type f 2>/dev/null)" ]
