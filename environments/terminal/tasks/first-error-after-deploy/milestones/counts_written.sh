[ -f errors_after_deploy.txt ] && grep -Eqx 'api\.log [0-9]+' errors_after_deploy.txt \
  && grep -Eqx 'worker\.log [0-9]+' errors_after_deploy.txt
