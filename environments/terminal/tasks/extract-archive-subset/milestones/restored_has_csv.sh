# holds once some csv file was restored into restored/
[ -n "$(find restored -name '*.csv' 2>/dev/null)" ]
