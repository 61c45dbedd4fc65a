"""The scripted user: reveals private facts when asked, confirms exactly its own wanted
changes, carries out device steps it is asked for, and words every reply from seeded
templates, so the same task gives the same conversation in any process.

Which template a reply uses is a SHA-256 of (task seed, turn, what is said), never a
process-seeded ``hash()`` or a shared generator: replaying a conversation from any snapshot
gives the same words.

>>> paraphrase(7, 1, "yes", ("Yes.", "Yes, go ahead."))
'Yes.'
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["matches", "mentions", "names_only", "paraphrase", "proposal", "respond"]

_WORD = re.compile(r"[a-z0-9]+")
REVEAL = ("My {label} is {value}.", "Sure, it's {value}.", "It should be {value}.")
YES = ("Yes, please go ahead.", "Yes, I confirm.", "Correct, please do that.")
NO = ("No, that is not what I asked for.", "No, please don't do that.")
THANKS = ("Thanks, good to know.", "Great, thank you.", "Okay, noted.")
LOST = ("Sorry, I'm not sure what you need from me.", "I don't follow, what do you need?")


def paraphrase(seed: int, turn: int, kind: str, templates: Sequence[str]) -> str:
    """The template for this (seed, turn, kind): the same in every process."""
    digest = hashlib.sha256(f"{seed}:{turn}:{kind}".encode()).digest()
    return templates[int.from_bytes(digest[:4], "little") % len(templates)]


def matches(text: str, groups: tuple[tuple[str, ...], ...]) -> bool:
    """True when every word of one group is a word of ``text`` (lower-cased).

    >>> matches("What is your order number?", (("order", "id"), ("order", "number")))
    True
    """
    words = set(_WORD.findall(text.lower()))
    return any(all(w in words for w in group) for group in groups)


def mentions(text: str, value: Any) -> bool:
    """True when ``value`` stands in ``text`` as a whole token (case-insensitive).

    >>> mentions("refund of 24.50 to you", "24.50"), mentions("O-12345", "O-1234")
    (True, False)
    """
    pattern = rf"(?<![A-Za-z0-9.]){re.escape(str(value).lower())}(?![A-Za-z0-9]|\.[0-9])"
    return re.search(pattern, text.lower()) is not None


def proposal(tool: Any, arguments: dict[str, Any]) -> str:
    """The canonical confirmation request for a write: the only wording the user confirms.

    >>> from types import SimpleNamespace as NS
    >>> tool = NS(verb="cancel order", params=(NS(name="order_id"), NS(name="reason")))
    >>> proposal(tool, {"reason": "late", "order_id": "O-1234"})[:56]
    'To confirm: I will cancel order (order_id O-1234, reason'
    """
    order = [p.name for p in tool.params if p.name in arguments]
    order += [k for k in arguments if k not in order]
    detail = ", ".join(f"{k} {arguments[k]}" for k in order)
    return f"To confirm: I will {tool.verb} ({detail}). Do you confirm, yes or no?"


def names_only(text: str, value: Any) -> bool:
    """True when ``value`` is the one value of its kind that ``text`` names: every token of
    the same shape (its digits free, e.g. ``24.50`` -> any ``N.N``, ``corp-vpn-v4`` -> any
    ``corp-vpn-vN``) is ``value`` itself, so listing every candidate tells nothing.

    >>> names_only("the refund is 24.50", "24.50"), names_only("not 12.99 or 24.50", "24.50")
    (True, False)
    """
    wanted = str(value).lower()
    shape = re.sub(r"[0-9]+", "[0-9]+", re.escape(wanted))
    found = set(re.findall(rf"(?<![A-Za-z0-9.]){shape}(?![A-Za-z0-9]|\.[0-9])", text.lower()))
    return found == {wanted}


def respond(session: Any, text: str) -> str:
    """The user's reply to the agent's message ``text``; updates what the session records
    (facts revealed, changes confirmed, device steps done)."""
    session.turn += 1
    seed, turn = session.seed, session.turn
    lowered = text.lower()
    if "confirm" in set(_WORD.findall(lowered)):
        wanted = [w for w in session.wants if _proposes(session, lowered, w)]
        if not wanted:
            return paraphrase(seed, turn, "no", NO)
        for w in wanted:
            key = session.key(w.name, w.arguments)
            if key not in session.confirmed:
                session.confirmed.append(key)
        return paraphrase(seed, turn, "yes", YES)
    said = []
    for action in session.domain.user_actions:
        if session.device and matches(text, action.keywords):
            said.append(action.run(session))
            session.performed.append(action.name)
    for fact in session.domain.facts:
        value = session.facts.get(fact.name)
        if value is not None and matches(text, fact.keywords):
            said.append(paraphrase(seed, turn, fact.name, REVEAL).format(label=fact.label,
                                                                         value=value))
            if fact.name not in session.revealed:
                session.revealed.append(fact.name)
    if said:
        return " ".join(said)
    if any(mentions(text, v) for _, v in session.results):
        return paraphrase(seed, turn, "thanks", THANKS)
    return paraphrase(seed, turn, "lost", LOST)


_ID = re.compile(r"\b[a-z]{1,2}-[0-9]{3,4}\b")
# Words that turn a proposal around or add an alternative ("I will never ...", "do not
# confirm", "... or 400"); "don't" / "won't" / "can't" split into "don" / "won" / "can", "t".
_NEGATIONS = frozenset({
    "not", "no", "never", "t", "don", "dont", "won", "wont", "cannot", "cant", "refuse",
    "decline", "without", "instead", "nothing", "neither", "nor", "undo", "stop", "skip",
    "avoid", "unless", "except", "or", "either", "rather", "reverse", "revert"})


def _proposes(session: Any, lowered: str, want: Any) -> bool:
    """The message proposes exactly this change: it holds the change's canonical request
    (:func:`proposal`) once, and the rest of it names no change (no tool's verb), no id, no
    number, no choice value and no negation, so a negated request, a bundle of changes or a
    list of candidates is never a proposal."""
    tool = session.domain.tool(want.name)
    text = " ".join(lowered.split())
    canonical = " ".join(proposal(tool, want.arguments).lower().split())
    if text.count(canonical) != 1:
        return False
    rest = text.replace(canonical, " ")
    if set(_WORD.findall(rest)) & _NEGATIONS or re.search(r"[0-9]", rest) or _ID.search(rest):
        return False
    if any(t.verb and t.verb.lower() in rest for t in session.domain.tools):
        return False
    choices = {str(c).lower() for t in session.domain.tools for p in t.params for c in p.choices}
    return not any(mentions(rest, c) for c in choices)
