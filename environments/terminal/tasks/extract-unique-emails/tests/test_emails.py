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
    # the right addresses, each once (letter case and order aside)
    got = lines()
    assert len(got) == len(EXPECTED)
    assert {x.lower() for x in got} == set(EXPECTED)


def test_lowercase_unique_sorted():
    # every address is there in lowercase, no line repeats, the lines are in byte order
    got = lines()
    assert set(EXPECTED) <= set(got)
    assert all(x == x.lower() for x in got)
    assert len(got) == len(set(got)) and got == sorted(got)


def test_tagged_and_subdomain_addresses_found():
    got = {x.lower() for x in lines()}
    tricky = [e for e in EXPECTED if "+" in e or e.count(".") >= 3]
    assert tricky and all(e in got for e in tricky)


def test_no_non_addresses():
    # nothing but the addresses (no trailing full stop, no user@localhost), none missed
    got = {x.lower() for x in lines()}
    assert got == set(EXPECTED), sorted(got ^ set(EXPECTED))


def test_exact_list():
    assert lines() == EXPECTED
