export PYTHONDONTWRITEBYTECODE=1
git -C /app show release/1.2:sizes.py | python3 -c 'import sys; ns = {}; exec(sys.stdin.read(), ns); assert ns["parse_size"]("10k") == 10240 and ns["parse_size"]("2T") == 2 * 1024 ** 4'
