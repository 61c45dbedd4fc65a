# holds once no name ends in .jpeg (any case) and at least one .jpg exists
[ -d photos ] || exit 1
! ls photos | grep -qi '\.jpeg$' && ls photos | grep -q '\.jpg$'
