"""Hidden tests for py-semver-order (Semantic Versioning 2.0.0).

The agent's package runs through agentgym_harness (as the agent, in a child process): the
snippets below only build Version objects from the inputs and report what they did; every
answer is compared here."""
import itertools
import random

import agentgym_harness as agent

PRELUDE = """
from semverlib import Version
P = Version.parse
"""


def run(source: str):
    return agent.python(PRELUDE + source)


def compare(pairs, ops=("<",)):
    """For each (a, b) in pairs: [bool(P(a) op P(b)) for op in ops], computed by the agent."""
    checks = "[" + ", ".join(f"bool(P(a) {op} P(b))" for op in ops) + "]"
    return run(f"result = [{checks} for a, b in {list(pairs)!r}]")


ORDER_OPS = ("<", ">", "<=", ">=", "==", "!=")


def check_both_ways(ascending, seed):
    """Each (low, high) of ``ascending`` is sent as (low, high) and as (high, low), shuffled;
    the answers to every operator are worked out here from which side is the lower."""
    items = [(lo, hi, True) for lo, hi in ascending] + [(hi, lo, False) for lo, hi in ascending]
    random.Random(seed).shuffle(items)
    got = compare([(a, b) for a, b, _ in items], ORDER_OPS)
    for (a, b, a_lower), answers in zip(items, got, strict=True):
        assert answers == [a_lower, not a_lower, a_lower, not a_lower, False, True], (a, b)


def test_parsing_valid_and_invalid():
    valid = ("0.0.0", "1.2.3", "10.20.30", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-0.3.7",
             "1.0.0-x.7.z.92", "1.0.0-x-y-z.--", "1.0.0+20130313144700",
             "1.0.0-beta+exp.sha.5114f85", "1.0.0+21AF26D3----117B344092BD", "1.0.0-0a.00a",
             "1.1.2+meta.001")
    assert run(f"result = [str(P(t)) for t in {valid!r}]") == list(valid)
    assert run('v = P("1.0.0-rc.1+b.007")\n'
               "result = (v.major, v.minor, v.patch, v.prerelease, v.build)") == (
        1, 0, 0, ("rc", "1"), ("b", "007"))
    invalid = ("01.2.3", "1.02.3", "1.2.03", "1.2", "1.2.3.4", "v1.2.3", " 1.2.3", "1.2.3 ",
               "1.2.3-", "1.2.3+", "1.2.3-alpha..1", "1.2.3-alpha.01", "1.2.3-00",
               "1.2.3+a..b", "1.2.3-al_pha", "1.2.3-+b", "-1.2.3", "1.2.3\n", "1.2.\u0663")
    outcomes = run(
        "result = []\n"
        f"for t in {invalid!r}:\n"
        "    try:\n"
        "        P(t)\n"
        "        result.append(None)\n"
        "    except Exception as exc:\n"
        "        result.append([c.__name__ for c in type(exc).__mro__"
        " if c.__module__ == 'builtins'])\n")
    for text, kinds in zip(invalid, outcomes, strict=True):
        assert kinds is not None and "ValueError" in kinds, f"{text!r} parsed: {kinds}"


def test_spec_precedence_chain():
    chain = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta",
             "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1-0", "1.0.1",
             "1.9.0", "1.10.0", "1.11.0", "2.0.0"]
    pairs = list(itertools.pairwise(chain))
    # neighbours both ways round, and a few pairs further apart
    far = [(chain[i], chain[j]) for i, j in ((0, 13), (2, 7), (4, 9), (6, 8), (1, 10))]
    check_both_ways(pairs + far, seed=20240501)


def test_identifier_rules():
    ascending = [("1.0.0-2", "1.0.0-10"), ("1.0.0-10", "1.0.0-a"),
                 ("1.0.0-alpha.9", "1.0.0-alpha.10"), ("1.0.0-alpha.10", "1.0.0-alpha.a"),
                 ("1.0.0-B", "1.0.0-a"),  # ASCII: upper case sorts first
                 ("1.0.0-1", "1.0.0-1.0"), ("1.0.0-1.0", "1.0.0-1.0.0")]
    check_both_ways([*ascending, ("1.0.0-alpha", "1.0.0-alpha-2")], seed=12)


def test_build_metadata_ignored():
    got = run('result = [bool(P("1.0.0+a") == P("1.0.0+b")), hash(P("1.0.0+a")),'
              ' hash(P("1.0.0")), bool(P("1.0.0-rc.1+zzz") < P("1.0.0+aaa")),'
              ' bool(P("1.0.0+b") < P("1.0.0+a")), bool(P("1.0.0+a") < P("1.0.0+b")),'
              ' len({P("2.0.0+x"), P("2.0.0+y"), P("2.0.0")}),'
              ' bool(P("1.0.0") != P("1.0.0-0"))]')
    equal, hash_a, hash_plain, rc_first, b_lt_a, a_lt_b, distinct, not_equal = got
    assert equal is True
    assert hash_a == hash_plain
    assert rc_first is True
    assert b_lt_a is False and a_lt_b is False
    assert distinct == 1
    assert not_equal is True


def test_sort_versions():
    given = ["1.0.0", "1.0.0-rc.1", "1.0.0+b2", "0.9.12", "1.0.0-alpha.10", "1.0.0-alpha.9",
             "1.0.0+b1", "0.10.0", "1.0.0-alpha"]
    # precedence rank of each version: equal ranks keep their input order
    rank = {"0.9.12": 0, "0.10.0": 1, "1.0.0-alpha": 2, "1.0.0-alpha.9": 3,
            "1.0.0-alpha.10": 4, "1.0.0-rc.1": 5, "1.0.0": 6, "1.0.0+b2": 6, "1.0.0+b1": 6}
    inputs = [given, given[::-1]]
    for seed in (3, 4):
        shuffled = list(given)
        random.Random(seed).shuffle(shuffled)
        inputs.append(shuffled)
    got = agent.call_many("semverlib", "sort_versions", [(texts,) for texts in inputs])
    assert [o.error for o in got] == [None] * len(inputs), got
    assert got[0].value == [
        "0.9.12", "0.10.0", "1.0.0-alpha", "1.0.0-alpha.9", "1.0.0-alpha.10", "1.0.0-rc.1",
        "1.0.0", "1.0.0+b2", "1.0.0+b1"]
    for texts, outcome in zip(inputs, got, strict=True):
        assert outcome.value == sorted(texts, key=rank.__getitem__), texts
