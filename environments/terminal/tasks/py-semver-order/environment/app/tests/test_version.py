import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from semverlib import Version


def test_parse_and_str():
    v = Version.parse("1.2.3-rc.1+build.5")
    assert (v.major, v.minor, v.patch) == (1, 2, 3)
    assert v.prerelease == ("rc", "1") and v.build == ("build", "5")
    assert str(v) == "1.2.3-rc.1+build.5"


def test_core_order():
    assert Version.parse("1.9.0") < Version.parse("1.10.0")


def test_release_after_prerelease():
    assert Version.parse("1.0.0-rc.1") < Version.parse("1.0.0")
