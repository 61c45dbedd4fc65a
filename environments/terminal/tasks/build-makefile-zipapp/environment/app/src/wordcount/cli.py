"""Command line: wc.pyz [--version] [FILE...]"""
import sys

from .counting import count


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--version"]:
        from ._version import VERSION
        print(f"wordcount {VERSION}")
        return 0
    if not argv:
        lines, words, size = count(sys.stdin.buffer.read())
        print(f"{lines} {words} {size}")
        return 0
    for name in argv:
        with open(name, "rb") as fh:
            lines, words, size = count(fh.read())
        print(f"{lines} {words} {size} {name}")
    return 0
