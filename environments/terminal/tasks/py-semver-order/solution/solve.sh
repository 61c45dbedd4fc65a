#!/bin/bash
set -euo pipefail
cd /app
cat > semverlib/version.py <<'X'
"""Semantic versions (https://semver.org, 2.0.0)."""
import functools
import re

_NUM = r"(?:0|[1-9][0-9]*)"
_PRE_ID = r"(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
_BUILD_ID = r"[0-9A-Za-z-]+"
_RE = re.compile(
    rf"({_NUM})\.({_NUM})\.({_NUM})"
    rf"(?:-({_PRE_ID}(?:\.{_PRE_ID})*))?"
    rf"(?:\+({_BUILD_ID}(?:\.{_BUILD_ID})*))?",
    re.ASCII,
)


def _pre_key(ident):
    # numeric identifiers sort before alphanumeric ones, and numerically among themselves
    return (0, int(ident), "") if ident.isdigit() else (1, 0, ident)


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
        match = _RE.fullmatch(text) if isinstance(text, str) else None
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
        # no pre-release ranks above any pre-release of the same core version;
        # tuple comparison gives "more identifiers wins when all shared ones are equal"
        pre = (1,) if not self.prerelease else (0, tuple(_pre_key(i) for i in self.prerelease))
        return (self.major, self.minor, self.patch, pre)

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
X
python3 -m pytest -q -p no:cacheprovider tests
