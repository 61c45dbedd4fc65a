# holds once no name in photos/ has an uppercase letter or a space
[ -d photos ] || exit 1
! ls photos | grep -q '[A-Z ]'
