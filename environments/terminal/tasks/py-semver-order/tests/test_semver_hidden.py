"""Hidden tests for py-semver-order (Semantic Versioning 2.0.0)."""
import itertools
import sys

import pytest

sys.path.insert(0, "/app")

from semverlib import Version, sort_versions

P = Version.parse


def test_parsing_valid_and_invalid():
    for text in ("0.0.0", "1.2.3", "10.20.30", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-0.3.7",
                 "1.0.0-x.7.z.92", "1.0.0-x-y-z.--", "1.0.0+20130313144700",
                 "1.0.0-beta+exp.sha.5114f85", "1.0.0+21AF26D3----117B344092BD", "1.0.0-0a.00a",
                 "1.1.2+meta.001"):
        v = P(text)
        assert str(v) == text
    v = P("1.0.0-rc.1+b.007")
    assert (v.major, v.minor, v.patch, v.prerelease, v.build) == (
        1, 0, 0, ("rc", "1"), ("b", "007"))
    for text in ("01.2.3", "1.02.3", "1.2.03", "1.2", "1.2.3.4", "v1.2.3", " 1.2.3", "1.2.3 ",
                 "1.2.3-", "1.2.3+", "1.2.3-alpha..1", "1.2.3-alpha.01", "1.2.3-00",
                 "1.2.3+a..b", "1.2.3-al_pha", "1.2.3-+b", "-1.2.3", "1.2.3\n", "1.2.\u0663"):
        with pytest.raises(ValueError):
            P(text)


def test_spec_precedence_chain():
    chain = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta",
             "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1-0", "1.0.1",
             "1.9.0", "1.10.0", "1.11.0", "2.0.0"]
    for low, high in itertools.pairwise(chain):
        assert P(low) < P(high), (low, high)
        assert P(high) > P(low) and P(low) <= P(high) and not P(high) <= P(low)


def test_identifier_rules():
    assert P("1.0.0-2") < P("1.0.0-10") < P("1.0.0-a")
    assert P("1.0.0-alpha.9") < P("1.0.0-alpha.10") < P("1.0.0-alpha.a")
    assert P("1.0.0-B") < P("1.0.0-a")  # ASCII: upper case sorts first
    assert P("1.0.0-1") < P("1.0.0-1.0") < P("1.0.0-1.0.0")
    assert P("1.0.0-alpha-2") > P("1.0.0-alpha")


def test_build_metadata_ignored():
    assert P("1.0.0+a") == P("1.0.0+b")
    assert hash(P("1.0.0+a")) == hash(P("1.0.0"))
    assert P("1.0.0-rc.1+zzz") < P("1.0.0+aaa")
    assert not P("1.0.0+b") < P("1.0.0+a") and not P("1.0.0+a") < P("1.0.0+b")
    assert len({P("2.0.0+x"), P("2.0.0+y"), P("2.0.0")}) == 1
    assert P("1.0.0") != P("1.0.0-0")


def test_sort_versions():
    given = ["1.0.0", "1.0.0-rc.1", "1.0.0+b2", "0.9.12", "1.0.0-alpha.10", "1.0.0-alpha.9",
             "1.0.0+b1", "0.10.0", "1.0.0-alpha"]
    assert sort_versions(given) == ["0.9.12", "0.10.0", "1.0.0-alpha", "1.0.0-alpha.9",
                                    "1.0.0-alpha.10", "1.0.0-rc.1", "1.0.0", "1.0.0+b2",
                                    "1.0.0+b1"]
