"""Range specifications, as in a print dialog: "1-3,5,9-"."""


def parse_ranges(spec, total):
    """Page numbers selected by `spec` out of pages 1..total, sorted, without duplicates.

    `spec` is a comma-separated list of items: "N" (page N), "A-B" (pages A to B, both
    included), "A-" (page A to the last page), "-B" (the first page to page B). Whitespace
    around items is ignored. Every page must satisfy 1 <= page <= total, and A <= B;
    otherwise ValueError.

    >>> parse_ranges("1-3,5", 10)
    [1, 2, 3, 5]
    >>> parse_ranges("8-", 10)
    [8, 9, 10]
    """
    pages = set()
    for item in spec.split(","):
        item = item.strip()
        if "-" in item:
            a, b = item.split("-")
            start = int(a) if a else 1
            end = int(b) if b else total - 1
            if start > end:
                raise ValueError(f"empty range: {item!r}")
            pages.update(range(start, end))
        else:
            pages.add(int(item))
    for page in pages:
        if page < 1 or page >= total:
            raise ValueError(f"page {page} out of range 1..{total}")
    return sorted(pages)


def select(lines, spec):
    """The items of `lines` at the 1-based positions selected by `spec`.

    >>> select(["a", "b", "c"], "1,3")
    ['a', 'c']
    """
    return [lines[page] for page in parse_ranges(spec, len(lines))]


def chunk(items, size):
    """Split `items` into consecutive lists of `size` items; the last one may be shorter.

    >>> chunk([1, 2, 3, 4, 5], 2)
    [[1, 2], [3, 4], [5]]
    """
    if size < 1:
        raise ValueError("size must be >= 1")
    return [items[i:i + size] for i in range(0, len(items) - size, size)]
