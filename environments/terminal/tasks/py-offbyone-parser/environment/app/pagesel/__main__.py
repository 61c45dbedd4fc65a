"""python3 -m pagesel SPEC FILE: print the lines of FILE selected by SPEC (1-based)."""
import sys

from .ranges import select


def main(argv):
    if len(argv) != 2:
        print("usage: python3 -m pagesel SPEC FILE", file=sys.stderr)
        return 2
    spec, path = argv
    with open(path) as fh:
        lines = fh.read().splitlines()
    try:
        chosen = select(lines, spec)
    except ValueError as exc:
        print(f"pagesel: {exc}", file=sys.stderr)
        return 1
    for line in chosen:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
