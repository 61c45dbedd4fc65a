"""The counting itself, on bytes."""


def count(data: bytes):
    """(lines, words, bytes) of `data`, as wc counts them."""
    return data.count(b"\n"), len(data.split()), len(data)
