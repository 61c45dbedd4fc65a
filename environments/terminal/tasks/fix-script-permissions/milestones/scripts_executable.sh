# holds once every .sh under bin/ has mode 755
[ -n "$(find bin -name '*.sh')" ] || exit 1
[ -z "$(find bin -type f -name '*.sh' ! -perm 755)" ]
