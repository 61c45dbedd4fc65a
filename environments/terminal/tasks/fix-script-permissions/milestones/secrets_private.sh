[ "$(stat -c %a config/secrets.env)" = 600 ]
