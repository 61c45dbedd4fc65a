"""Reading one Search-R1 turn: thinking, then exactly one <search> or <answer>."""

from __future__ import annotations

import pytest

from agentgym.environments.searchqa.turns import MAX_QUERY_CHARS, format_turn, parse_turn


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("<search>Glass Orchard</search>", ("search", "Glass Orchard")),
        ("<think>I need the author first.</think>\n<search> Glass  Orchard </search>",
         ("search", "Glass Orchard")),
        ("The author was born there, so <answer>Tarsk</answer>", ("answer", "Tarsk")),
        ("<SEARCH>x y</SEARCH>", ("search", "x y")),
        ("search: Glass Orchard", ("search", "Glass Orchard")),
        ("Answer:   1932 ", ("answer", "1932")),
        ("<answer>1932</answer> (that is my final answer)", ("answer", "1932")),
    ],
)
def test_accepted_turns(text, move):
    assert parse_turn(text) == (move, "")


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("<search>a</search> <answer>b</answer>", "found both"),
        ("<answer>b</answer><search>a</search>", "found both"),
        ("<search>a</search><search>b</search>", "found more"),
        ("<search></search>", "the query is empty"),
        ("<answer>   </answer>", "the answer is empty"),
        ("<search>open only", "without a closing"),
        ("closing only</answer>", "without an opening"),
        ("I think it is Tarsk.", "no <search> or <answer> tag"),
        ("search:", "the query is empty"),
        ("<search>" + "q" * (MAX_QUERY_CHARS + 1) + "</search>", "the limit is 512"),
    ],
)
def test_refused_turns_say_why(text, error):
    move, why = parse_turn(text)
    assert move is None and error in why


def test_parsing_many_tags_stays_linear():
    # 20k opening tags: one find per tag kind, not a regex backtracking over them.
    move, why = parse_turn("<search>" * 20_000)
    assert move is None and "without a closing" in why


def test_format_turn_round_trips():
    assert parse_turn(format_turn("answer", "Lake Victoria")) == (("answer", "Lake Victoria"), "")
    with pytest.raises(ValueError, match="kind"):
        format_turn("look", "x")
