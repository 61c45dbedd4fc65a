"""Semantic versions (https://semver.org, 2.0.0)."""
import functools
import re

_RE = re.compile(
    r"(\d+)\.(\d+)\.(\d+)"
    r"(?:-([0-9A-Za-z.-]*))?"
    r"(?:\+([0-9A-Za-z.-]*))?"
)


@functools.total_ordering
class Version:
    """A parsed version: Version.parse("1.2.3-rc.1+build.5")."""

    def __init__(self, major, minor, patch, prerelease=(), build=()):
        self.major = major
        self.minor = minor
        self.patch = patch
        self.prerelease = tuple(prerelease)
        self.build = tuple(build)

    @classmethod
    def parse(cls, text):
        match = _RE.fullmatch(text)
        if not match:
            raise ValueError(f"not a semantic version: {text!r}")
        major, minor, patch, pre, build = match.groups()
        return cls(int(major), int(minor), int(patch),
                   pre.split(".") if pre else (), build.split(".") if build else ())

    def __str__(self):
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            text += "-" + ".".join(self.prerelease)
        if self.build:
            text += "+" + ".".join(self.build)
        return text

    def __repr__(self):
        return f"Version.parse({str(self)!r})"

    def _key(self):
        return (self.major, self.minor, self.patch, self.prerelease, self.build)

    def __eq__(self, other):
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() == other._key()

    def __lt__(self, other):
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() < other._key()

    def __hash__(self):
        return hash(self._key())


def sort_versions(texts):
    """Sort version strings by precedence, lowest first; equal precedence keeps input order."""
    return sorted(texts, key=Version.parse)
