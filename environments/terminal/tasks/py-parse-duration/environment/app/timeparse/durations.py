"""Human-readable durations such as "1h30m" or "01:30:00"."""

UNITS = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))


def format_duration(seconds: int) -> str:
    """Format whole seconds compactly: format_duration(5400) == "1h30m"."""
    if not isinstance(seconds, int) or isinstance(seconds, bool):
        raise TypeError("seconds must be an int")
    if seconds == 0:
        return "0s"
    sign = "-" if seconds < 0 else ""
    rest = abs(seconds)
    parts = []
    for unit, size in UNITS:
        count, rest = divmod(rest, size)
        if count:
            parts.append(f"{count}{unit}")
    return sign + "".join(parts)


def parse_duration(text: str) -> int:
    """Parse a duration into whole seconds. See SPEC.md."""
    raise NotImplementedError
