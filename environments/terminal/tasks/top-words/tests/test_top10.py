import re
from pathlib import Path

OUT = Path("/app/top10.txt")
EXPECTED = ['971 the',
 '549 of',
 '389 and',
 '272 to',
 '254 a',
 '209 in',
 '188 that',
 '170 it',
 '145 is',
 '126 was']


def lines():
    return OUT.read_text().splitlines()


def test_ten_well_formed_lines():
    # ten `<count> <word>` lines, each with the right count for its word (order aside)
    got = lines()
    assert len(got) == 10
    assert all(re.fullmatch(r"[0-9]+ [a-z]+", line) for line in got), got
    assert sorted(got) == sorted(EXPECTED)


def test_most_frequent_word():
    assert lines()[0] == EXPECTED[0]


def test_same_words_as_expected():
    assert sorted(line.split()[1] for line in lines()) == sorted(e.split()[1] for e in EXPECTED)


def test_exact_counts_and_order():
    assert lines() == EXPECTED
