from pathlib import Path

APP = Path("/app")
TOP3 = ['23 203.0.113.7', '17 172.16.5.5', '12 10.0.0.87']


def test_answer_is_the_top_5xx_ip():
    assert (APP / "answer.txt").read_text().strip() == TOP3[0].split()[1]


def test_answer_is_only_the_address():
    assert (APP / "answer.txt").read_text().splitlines() == [TOP3[0].split()[1]]


def test_top3_addresses():
    got = (APP / "top3.txt").read_text().splitlines()
    assert [line.split()[-1] for line in got] == [t.split()[1] for t in TOP3]


def test_top3_exact_counts():
    assert (APP / "top3.txt").read_text().splitlines() == TOP3
