"""One agent turn in the Search-R1 format: free thinking, then one ``<search>`` or ``<answer>``.

Search-R1 (and verl-agent's search env) let the model reason in plain text (often inside
``<think>...</think>``) and end the turn with exactly one ``<search>query</search>`` or
``<answer>text</answer>``. This module reads such a turn. The bare forms ``search: query`` and
``answer: text`` are accepted as well, so the canonical actions an env lists (and the
``<action>search: ...</action>`` form of the rest of agentgym) work too.

Parsing is linear in the text: each tag is looked up with ``str.find`` on one lower-cased
copy, never with a backtracking regex.

>>> parse_turn("<think>The author is needed first.</think> <search>Glass Orchard</search>")
(('search', 'Glass Orchard'), '')
>>> parse_turn("answer: 1932")
(('answer', '1932'), '')
>>> parse_turn("<search>a</search><answer>b</answer>")[1]
'a turn holds exactly one <search> or <answer>, found both'
"""

from __future__ import annotations

__all__ = ["MAX_ANSWER_CHARS", "MAX_QUERY_CHARS", "format_turn", "parse_turn"]

#: Longest query searched (characters); a longer one is refused, not cut.
MAX_QUERY_CHARS = 512
#: Longest answer scored (characters).
MAX_ANSWER_CHARS = 512
_KINDS = ("search", "answer")
_LIMITS = {"search": MAX_QUERY_CHARS, "answer": MAX_ANSWER_CHARS}
_WHAT = {"search": "query", "answer": "answer"}
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_FORMAT = "end the turn with <search>query</search> or <answer>text</answer>"


def _tagged(text: str, lowered: str, kind: str) -> tuple[str | None, str]:
    """The content of the one ``<kind>...</kind>`` in the text: (content, "") when there is
    exactly one complete tag, (None, "") when there is none, (None, why) otherwise."""
    open_tag, close_tag = f"<{kind}>", f"</{kind}>"
    start = lowered.find(open_tag)
    if start < 0:
        if lowered.find(close_tag) >= 0:
            return None, f"found </{kind}> without an opening <{kind}>"
        return None, ""
    end = lowered.find(close_tag, start)
    if end < 0:
        return None, f"found <{kind}> without a closing </{kind}>"
    if lowered.find(open_tag, start + 1) >= 0:
        return None, f"a turn holds exactly one <{kind}>...</{kind}>, found more"
    return text[start + len(open_tag) : end], ""


def _checked(kind: str, content: str) -> tuple[tuple[str, str] | None, str]:
    content = " ".join(content.split())
    if not content:
        return None, f"the {_WHAT[kind]} is empty"
    if len(content) > _LIMITS[kind]:
        return None, (
            f"the {_WHAT[kind]} is {len(content)} characters; the limit is {_LIMITS[kind]}"
        )
    return (kind, content), ""


def parse_turn(text: str) -> tuple[tuple[str, str] | None, str]:
    """``(("search" | "answer", content), "")`` or ``(None, why the turn is refused)``.

    Text before (or after) the one tag is the model's thinking and is ignored. White space
    inside the content is collapsed.

    >>> parse_turn("I know it. <answer> the  Ossa </answer>")
    (('answer', 'the Ossa'), '')
    >>> parse_turn("<search></search>")[1]
    'the query is empty'
    >>> parse_turn("just some words")[1]
    'no <search> or <answer> tag: end the turn with <search>query</search> or <answer>text</answer>'
    """
    lowered = text.translate(_ASCII_LOWER)
    found: dict[str, str] = {}
    for kind in _KINDS:
        content, error = _tagged(text, lowered, kind)
        if error:
            return None, error
        if content is not None:
            found[kind] = content
    if len(found) == 2:
        return None, "a turn holds exactly one <search> or <answer>, found both"
    if found:
        ((kind, content),) = found.items()
        return _checked(kind, content)
    bare = text.strip()
    for kind in _KINDS:
        if lowered.lstrip().startswith(f"{kind}:"):
            return _checked(kind, bare[len(kind) + 1 :])
    return None, f"no <search> or <answer> tag: {_FORMAT}"


def format_turn(kind: str, content: str) -> str:
    """The canonical (bare) action string for a search or an answer.

    >>> format_turn("search", "Glass Orchard")
    'search: Glass Orchard'
    """
    if kind not in _KINDS:
        raise ValueError(f"kind must be 'search' or 'answer', got {kind!r}")
    return f"{kind}: {content}"
