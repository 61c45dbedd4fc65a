"""Pull the action out of free model text.

Models are asked to answer ``<action>...</action>``. Envs accept either that tagged form
(the last complete tag wins, so a model may think aloud first) or bare action text.

Extraction is linear in the text: the length is checked first, then one lower-cased copy is
searched from the end for the last ``</action>`` and the ``<action>`` before it. (A regex
``findall`` over many tags was quadratic: 256 KB of tags took about 40 s.)

A sampler should stop generating at ``</action>``: anything a model rambles after a good tag
can contain another, complete tag, and that later one is the action.

>>> extract_action("I will push the box. <action>up</action>")
('up', '')
>>> extract_action("left")
('left', '')
>>> extract_action("thinking... <action>up", require_tag=True)
('', 'found <action> without a closing </action>')
"""

from __future__ import annotations

ACTION_TAG = "action"
OPEN_TAG = f"<{ACTION_TAG}>"
CLOSE_TAG = f"</{ACTION_TAG}>"
#: Longest model text :func:`extract_action` reads; longer text is refused before any search.
MAX_TEXT_LENGTH = 65_536
# ASCII-only lower-casing keeps every index of the text (str.lower can change the length).
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

__all__ = [
    "ACTION_TAG",
    "CLOSE_TAG",
    "MAX_TEXT_LENGTH",
    "OPEN_TAG",
    "extract_action",
    "format_action",
]


def extract_action(
    text: str, *, require_tag: bool = False, max_length: int | None = None
) -> tuple[str, str]:
    """Return ``(action, error)``; exactly one of them is empty.

    With ``require_tag`` the text must contain ``<action>...</action>``; without it, bare text
    (stripped) is taken as the action when no tag is present. Text longer than
    :data:`MAX_TEXT_LENGTH` and an action longer than ``max_length`` (when given) are refused.

    >>> extract_action("<action>a</action> then <ACTION> b </Action>")
    ('b', '')
    >>> extract_action("x" * 20, max_length=8)
    ('', 'the action is 20 characters; the limit is 8')
    """
    if len(text) > MAX_TEXT_LENGTH:
        return "", f"the text is {len(text)} characters; the limit is {MAX_TEXT_LENGTH}"
    if "<" in text:
        lowered = text.translate(_ASCII_LOWER)
        end = lowered.rfind(CLOSE_TAG)
        start = lowered.rfind(OPEN_TAG, 0, end) if end >= 0 else -1
        if start >= 0:
            action = text[start + len(OPEN_TAG) : end].strip()
            if not action:
                return "", "the <action></action> tag is empty"
            return _bounded(action, max_length)
        if OPEN_TAG in lowered:
            return "", "found <action> without a closing </action>"
    if require_tag:
        return "", "no <action>...</action> tag found in the text"
    return _bounded(text.strip(), max_length)


def _bounded(action: str, max_length: int | None) -> tuple[str, str]:
    if not action:
        return "", "the action is empty"
    if max_length is not None and len(action) > max_length:
        return "", f"the action is {len(action)} characters; the limit is {max_length}"
    return action, ""


def format_action(action: str) -> str:
    """Wrap an action in the tag models are asked to use."""
    return f"{OPEN_TAG}{action}{CLOSE_TAG}"
