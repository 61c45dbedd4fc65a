"""One agent turn: a tool call or a message to the user, read strictly.

A turn holds exactly one of ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``
(the Hermes / Qwen form; the OpenAI ``tool_calls`` entry ``{"type": "function",
"function": {"name": ..., "arguments": "<JSON text>"}}`` is accepted inside the tag too) or
``<message>text</message>``. Thinking before the tag is allowed; two tags, an unclosed tag,
JSON that is not one object, extra top-level fields and arguments that are not an object are
refused with a reason.

>>> parse_turn('<tool_call>{"name": "get_order", "arguments": {"order_id": "O-1234"}}</tool_call>')
(('call', 'get_order', {'order_id': 'O-1234'}), '')
>>> parse_turn("<message>What is your email?</message>")
(('message', 'What is your email?'), '')
>>> parse_turn("<message>a</message><message>b</message>")[1]
'one action per turn: found 2 tags (a <tool_call> or a <message>, not both, not two)'
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MAX_MESSAGE", "format_call", "format_message", "parse_turn"]

MAX_MESSAGE = 1000
# Opening tags are counted first and the one closing tag is found by a forward search, so
# parsing is linear in the text: a lazy ``(.*?)</\1>`` search is quadratic on
# ``"<message>" * n`` (it rescans to the end from every opening tag).
_OPEN = re.compile(r"<(tool_call|message)>", re.IGNORECASE)
_CLOSE = {"tool_call": re.compile(r"</tool_call>", re.IGNORECASE),
          "message": re.compile(r"</message>", re.IGNORECASE)}
_MAX_JSON = 4000


def format_call(name: str, arguments: dict[str, Any]) -> str:
    """The canonical text of a tool call (what ``available_actions`` lists).

    >>> format_call("find_user", {"email": "a.b@example.com"})
    '<tool_call>{"name": "find_user", "arguments": {"email": "a.b@example.com"}}</tool_call>'
    """
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def format_message(text: str) -> str:
    """The canonical text of a message to the user."""
    return f"<message>{text}</message>"


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _read_call(body: str) -> tuple[Any, str]:
    if len(body) > _MAX_JSON:
        return None, f"the tool call is {len(body)} characters; the limit is {_MAX_JSON}"
    try:
        data = json.loads(body, parse_constant=_no_constants)
    except (ValueError, RecursionError) as exc:
        return None, f"the tool call is not valid JSON ({str(exc)[:80]})"
    if not isinstance(data, dict):
        return None, "the tool call must be a JSON object {\"name\": ..., \"arguments\": {...}}"
    if "function" in data:  # the OpenAI tool_calls entry
        extra = sorted(set(data) - {"id", "type", "function"})
        inner = data["function"]
        if extra or not isinstance(inner, dict) or data.get("type", "function") != "function":
            return None, "an OpenAI tool call is {\"type\": \"function\", \"function\": {...}}"
        data = inner
    extra = sorted(set(data) - {"name", "arguments"})
    if extra:
        return None, f"unexpected field {extra[0]!r} in the tool call; use name and arguments"
    name, arguments = data.get("name"), data.get("arguments", {})
    if not isinstance(name, str) or not name:
        return None, "the tool call needs a \"name\" string"
    if isinstance(arguments, str):  # OpenAI sends arguments as JSON text
        if len(arguments) > _MAX_JSON:
            return None, "the arguments text is too long"
        try:
            arguments = json.loads(arguments, parse_constant=_no_constants)
        except (ValueError, RecursionError):
            return None, "the arguments text is not valid JSON"
    if not isinstance(arguments, dict):
        return None, "\"arguments\" must be a JSON object"
    return ("call", name, arguments), ""


def parse_turn(text: str) -> tuple[Any, str]:
    """``(move, "")`` or ``(None, why)``; ``move`` is ``("call", name, arguments)`` or
    ``("message", text)``."""
    opens = list(_OPEN.finditer(text))
    if len(opens) > 1:
        return None, (f"one action per turn: found {len(opens)} tags (a <tool_call> or a "
                      "<message>, not both, not two)")
    if not opens:
        return None, ("no action found: answer with <tool_call>{\"name\": NAME, \"arguments\": "
                      "{...}}</tool_call> or <message>TEXT</message>")
    kind = opens[0].group(1).lower()
    close = _CLOSE[kind].search(text, opens[0].end())
    if close is None:
        return None, "a <tool_call> or <message> tag is not closed"
    body = text[opens[0].end():close.start()]
    if kind == "tool_call":
        return _read_call(body.strip())
    message = " ".join(body.split())
    if not message:
        return None, "the message is empty"
    if len(message) > MAX_MESSAGE:
        return None, f"the message is {len(message)} characters; the limit is {MAX_MESSAGE}"
    return ("message", message), ""
