"""Answer scoring and the process reward against hand-computed values."""

from __future__ import annotations

import pytest

from agentgym.environments.searchqa.metrics import exact_match, f1_score, normalize_answer
from agentgym.environments.searchqa.rewards import gold_share, search_gain


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("The Eiffel Tower", "eiffel tower"),
        ("  a   Cat, an Owl & the Moon! ", "cat owl moon"),
        ("Theatre", "theatre"),  # "the" inside a word stays
        ("U.S.A.", "usa"),
        ("", ""),
    ],
)
def test_normalisation_lowercases_and_strips_punctuation_articles_spaces(text, normal):
    assert normalize_answer(text) == normal


def test_exact_match_takes_the_best_gold_answer():
    assert exact_match("the danube", ["Vistula", "Danube"]) == 1.0
    assert exact_match("Danube river", ["Danube"]) == 0.0
    assert exact_match("", ["Danube"]) == 0.0


def test_f1_by_hand():
    # guess: {lord, byron, poet} vs gold {lord, byron}: p = 2/3, r = 1, f1 = 0.8
    assert f1_score("Lord Byron, poet", ["Lord Byron"]) == pytest.approx(0.8)
    # repeated tokens count by multiplicity: "a a b" vs "a b" -> common 2, p 2/3, r 1
    assert f1_score("x x y", ["x y"]) == pytest.approx(0.8)
    assert f1_score("Dodoma", ["Dar es Salaam", "Dodoma"]) == 1.0
    assert f1_score("Paris", ["Lyon"]) == 0.0
    assert f1_score("the", ["a"]) == 1.0  # both normalise to nothing


def test_process_reward_is_the_share_of_new_gold_passages():
    gold = {3, 8, 11}
    assert search_gain(gold, [], [3, 4, 5]) == pytest.approx(1 / 3)
    assert search_gain(gold, [3], [3, 8, 11]) == pytest.approx(2 / 3)
    assert search_gain(gold, [3, 8, 11], [3, 8, 11]) == 0.0  # nothing new
    assert search_gain(set(), [], [1, 2]) == 0.0  # no gold passages: no process reward
    assert gold_share(gold, [3, 11, 99]) == pytest.approx(2 / 3)


def test_gains_along_an_episode_sum_to_the_final_share():
    gold, retrieved, total = {1, 2, 3, 4}, [], 0.0
    for results in ([9, 1], [1, 2], [2, 1], [7, 4]):
        total += search_gain(gold, retrieved, results)
        retrieved += [r for r in results if r not in retrieved]
    assert total == pytest.approx(gold_share(gold, retrieved)) == pytest.approx(0.75)
