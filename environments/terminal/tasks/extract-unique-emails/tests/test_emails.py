from pathlib import Path

OUT = Path("/app/emails.txt")
EXPECTED = ['alice.trent@uni-berlin.de',
 'alice_peggy@corp.acme.io',
 'bob_alice@uni-berlin.de',
 'carol12@uni-berlin.de',
 'dave_heidi@corp.acme.io',
 'erin+dev@shop.co.uk',
 'erin98@shop.co.uk',
 'frank73@example.com',
 'frank@corp.acme.io',
 'grace.sybil@uni-berlin.de',
 'judy_carol@corp.acme.io',
 'judy_frank@uni-berlin.de',
 'judy_peggy@mail.example.org',
 'mallory@mail.example.org',
 'olivia+dev@shop.co.uk',
 'olivia+news@example.com',
 'peggy+dev@example.com',
 'rupert67@uni-berlin.de',
 'rupert@example.com',
 'sybil+billing@example.com',
 'sybil3@mail.example.org',
 'sybil_ivan@shop.co.uk',
 'trent.trent@shop.co.uk',
 'trent15@shop.co.uk',
 'trent54@corp.acme.io',
 'trent_mallory@example.com',
 'victor_ivan@example.com',
 'walter33@corp.acme.io',
 'walter@example.com',
 'yvonne+news@uni-berlin.de',
 'yvonne@uni-berlin.de']


def lines():
    return OUT.read_text().splitlines()


def test_count_of_distinct_addresses():
    assert len(lines()) == len(EXPECTED)


def test_lowercase_unique_sorted():
    got = lines()
    assert got and got == sorted(set(got)) and all(x == x.lower() for x in got)


def test_tagged_and_subdomain_addresses_found():
    got = set(lines())
    tricky = [e for e in EXPECTED if "+" in e or e.count(".") >= 3]
    assert tricky and all(e in got for e in tricky)


def test_no_non_addresses():
    got = lines()
    assert got and not [x for x in got if x.endswith(".") or "localhost" in x or "@" not in x]


def test_exact_list():
    assert lines() == EXPECTED
