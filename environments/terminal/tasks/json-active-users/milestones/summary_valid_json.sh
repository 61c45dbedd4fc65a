[ -f summary.json ] && jq -e 'has("active") and has("inactive")' summary.json >/dev/null
