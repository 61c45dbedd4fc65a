"""The browser action grammar: ``click(12)``, ``fill(7, "text")``, ``press(Enter)``, ...

Pure parsing, no browser: :func:`parse_browser_action` turns a model's text into a
:class:`BrowserAction` or one sentence saying what is wrong; :mod:`.perform` carries the
action out in a page.

>>> parse_browser_action('fill(7, "red shoes")')
(BrowserAction(verb='fill', target='7', text='red shoes'), '')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "ACTION_HELP",
    "ELEMENT_ID",
    "KEYS",
    "MAX_FILL_CHARS",
    "BrowserAction",
    "parse_browser_action",
]

#: Keys :func:`parse_browser_action` accepts for ``press``; no modifier chords, so no browser
#: shortcut (history, tabs, devtools) is reachable.
KEYS: dict[str, str] = {
    k.lower(): k
    for k in (
        "Enter", "Tab", "Escape", "Backspace", "Delete", "Space", "ArrowUp", "ArrowDown",
        "ArrowLeft", "ArrowRight", "PageUp", "PageDown", "Home", "End",
    )
}  # fmt: skip
KEYS.update({"esc": "Escape", "return": "Enter", "up": "ArrowUp", "down": "ArrowDown"})

#: The action grammar, for prompts and error messages.
ACTION_HELP = (
    'click(ID), fill(ID, "text"), press(KEY) with KEY one of Enter, Tab, Escape, Backspace, '
    "ArrowUp, ArrowDown, PageUp, PageDown, Space; scroll(up) or scroll(down); back()"
)
#: The longest text ``fill`` accepts.
MAX_FILL_CHARS = 512
#: What an element id may look like (ids go into CSS selectors: nothing else gets through).
ELEMENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_CALL = re.compile(r"^\s*([A-Za-z_]+)\s*(?:\((.*)\)|\s(.*)|)\s*$", re.DOTALL)


@dataclass(frozen=True)
class BrowserAction:
    """One parsed browser action: ``verb`` in click/fill/press/scroll/back plus its arguments.

    >>> parse_browser_action('fill(7, "red shoes")')[0]
    BrowserAction(verb='fill', target='7', text='red shoes')
    """

    verb: str
    target: str = ""
    text: str = ""

    def __str__(self) -> str:
        if self.verb == "fill":
            return f'fill({self.target}, "{self.text}")'
        if self.verb in ("click",):
            return f"click({self.target})"
        if self.verb in ("press", "scroll"):
            return f"{self.verb}({self.text})"
        return "back()"


def _unquote(arg: str) -> str:
    arg = arg.strip()
    if len(arg) >= 2 and arg[0] == arg[-1] and arg[0] in "\"'":
        inner = arg[1:-1]
        return inner.replace("\\" + arg[0], arg[0]).replace("\\\\", "\\")
    return arg


def _element_id(arg: str) -> str | None:
    arg = _unquote(arg)
    if len(arg) >= 2 and arg[0] == "[" and arg[-1] == "]":
        arg = arg[1:-1].strip()
    return arg if ELEMENT_ID.match(arg) else None


def parse_browser_action(text: str) -> tuple[BrowserAction | None, str]:
    """Parse ``click(12)``, ``fill(7, "text")``, ``press(Enter)``, ``scroll(down)``, ``back()``.

    Never raises; returns ``(None, error)`` for anything else. Lenient with case, spaces,
    quotes and brackets around ids; strict about the verb and argument count.

    >>> parse_browser_action("Click [12]")
    (BrowserAction(verb='click', target='12', text=''), '')
    >>> parse_browser_action("press(enter)")[0].text
    'Enter'
    >>> parse_browser_action("clik(3)")[1][:29]
    "unknown action 'clik'; use on"
    """
    if not isinstance(text, str):
        return None, f"action must be a string; use one of: {ACTION_HELP}"
    m = _CALL.match(text)
    if not m:
        return None, f"could not read {text[:60]!r} as an action; use one of: {ACTION_HELP}"
    verb = m.group(1).lower()
    raw = m.group(2) if m.group(2) is not None else (m.group(3) or "")
    if verb == "click":
        target = _element_id(raw)
        if target is None:
            return None, f"click needs one element id, e.g. click(12); got {raw[:40]!r}"
        return BrowserAction("click", target), ""
    if verb in ("fill", "type"):
        head, comma, rest = raw.partition(",")
        target = _element_id(head)
        if not comma or target is None:
            return (
                None,
                f'fill needs an element id and text, e.g. fill(7, "red shoes"); got {raw[:40]!r}',
            )
        value = _unquote(rest)
        if len(value) > MAX_FILL_CHARS:
            return None, f"fill text is {len(value)} characters; the limit is {MAX_FILL_CHARS}"
        if any(ch < " " and ch not in "\t" for ch in value):
            return None, "fill text must be one line of printable characters"
        return BrowserAction("fill", target, value), ""
    if verb == "press":
        key = KEYS.get(_unquote(raw).lower().replace(" ", ""))
        if key is None:
            return (
                None,
                f"press needs one key ({', '.join(sorted(set(KEYS.values())))}); got {raw[:40]!r}",
            )
        return BrowserAction("press", text=key), ""
    if verb == "scroll":
        direction = _unquote(raw).lower()
        if direction not in ("up", "down"):
            return None, f"scroll takes up or down, e.g. scroll(down); got {raw[:40]!r}"
        return BrowserAction("scroll", text=direction), ""
    if verb in ("back", "goback", "go_back"):
        if raw.strip():
            return None, "back takes no argument: back()"
        return BrowserAction("back"), ""
    return None, f"unknown action {verb[:20]!r}; use one of: {ACTION_HELP}"
