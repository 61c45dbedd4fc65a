"""Pull the action out of free model text.

Models are asked to answer ``<action>...</action>``. Envs accept either that tagged form
(the last complete tag wins, so a model may think aloud first) or bare action text.

>>> extract_action("I will push the box. <action>up</action>")
('up', '')
>>> extract_action("left")
('left', '')
>>> extract_action("thinking... <action>up", require_tag=True)
('', 'found <action> without a closing </action>')
"""

from __future__ import annotations

import re

ACTION_TAG = "action"
_TAGGED = re.compile(r"<action>(.*?)</action>", re.IGNORECASE | re.DOTALL)

__all__ = ["ACTION_TAG", "extract_action", "format_action"]


def extract_action(text: str, *, require_tag: bool = False) -> tuple[str, str]:
    """Return ``(action, error)``; exactly one of them is empty.

    With ``require_tag`` the text must contain ``<action>...</action>``; without it, bare text
    (stripped) is taken as the action when no tag is present.
    """
    if "<" not in text and not require_tag:  # the common bare action: skip the regex
        action = text.strip()
        return (action, "") if action else ("", "the action is empty")
    found = _TAGGED.findall(text)
    if found:
        action = found[-1].strip()
        if not action:
            return "", "the <action></action> tag is empty"
        return action, ""
    lowered = text.lower()
    if "<action>" in lowered:
        return "", "found <action> without a closing </action>"
    if require_tag:
        return "", "no <action>...</action> tag found in the text"
    action = text.strip()
    if not action:
        return "", "the action is empty"
    return action, ""


def format_action(action: str) -> str:
    """Wrap an action in the tag models are asked to use."""
    return f"<{ACTION_TAG}>{action}</{ACTION_TAG}>"
