"""WebShop's rule-based baseline: search the instruction, take the top hit, pick named options, buy.

``make_agent("webshop-rule")`` loads it (:mod:`agentgym.agents` names it, so this module
imports only the agent base class, never the registry). It reads only what any agent sees:
the observation and ``info`` (``webshop_actions`` for what the page offers, ``mode``), and
plays both modes: in text mode it answers ``search[...]`` / ``click[...]``; in browser mode the
same decisions become ``fill(ID, "...")`` and ``click(ID)`` with the ids read off the
accessibility tree (a search takes two steps: type the query, then click Search).

>>> from agentgym.environments.webshop.agents import RuleAgent
>>> agent = RuleAgent()
>>> agent.act("WebShop [SEP] Instruction: [SEP] i need a red mug, and price lower than "
...           "10.00 dollars [SEP] Search", {"webshop_actions": {"has_search_bar": True}})
'search[i need a red mug]'
>>> tree = ('Instruction: i need a red mug\\n\\n[1] searchbox "Search" value=""\\n'
...         '[2] button "Search"')
>>> agent.act(tree, {"mode": "browser", "webshop_actions": {"has_search_bar": True}})
'fill(1, "i need a red mug")'
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import gymnasium as gym

from agentgym.agents.base import Agent

__all__ = ["RuleAgent"]

_ASIN = re.compile(r"B0[0-9A-Z]{8}")
_FIXED = {"back to search", "< prev", "next >", "description", "features", "reviews", "buy now"}
_PRICE_CLAUSE = re.compile(r",?\s*and price lower than [0-9]+\.[0-9]{2} dollars\s*$")
# One accessibility-tree line: [id] role "name" (with \" and \\ escaped) and its state.
_TREE_LINE = re.compile(
    r'^\s*\[(?P<id>[^\]]+)\] (?P<role>\w+) "(?P<name>(?:[^"\\]|\\.)*)"(?P<rest>.*)$'
)


def _instruction(observation: str) -> str:
    """The instruction: after ``Instruction: [SEP]`` (text mode) or ``Instruction:`` (browser)."""
    m = re.search(r"Instruction: (?:\[SEP\] )?(.*?)(?: \[SEP\] |\n|$)", observation)
    return m.group(1).strip() if m else ""


def _mentions(text: str, value: str) -> bool:
    return re.search(rf"(?<![a-z0-9]){re.escape(value.lower())}(?![a-z0-9])", text) is not None


def _tree(observation: str) -> list[tuple[str, str, str, str]]:
    """``(id, role, name, rest)`` of every element line of a browser observation."""
    out = []
    for line in observation.splitlines():
        m = _TREE_LINE.match(line)
        if m:
            name = re.sub(r"\\(.)", r"\1", m.group("name"))
            out.append((m.group("id"), m.group("role"), name, m.group("rest")))
    return out


class RuleAgent(Agent):
    """The original paper's rule baseline (score 45.6 / success 9.6 there).

    Search page: search the instruction without its price clause. Results: click the first
    product. Product page: click each option value the instruction names (whole words), once,
    then ``Buy Now``. Anywhere else: go back toward a product page.

    >>> import gymnasium as gym, agentgym
    >>> env = gym.make("agentgym/WebShop-v0", num_products=2000)
    >>> agent = RuleAgent()
    >>> obs, info = env.reset(seed=0)
    >>> agent.reset(env, seed=0)
    >>> agent.act(obs, info).startswith("search[")
    True
    """

    name: ClassVar[str] = "webshop-rule"
    families: ClassVar[tuple[str, ...]] = ("webshop",)

    def __init__(self) -> None:
        self._clicked: set[str] = set()

    def reset(self, env: gym.Env | None = None, *, seed: int | None = None) -> None:
        self._clicked = set()

    def act(self, observation: str, info: dict[str, Any]) -> str:
        kind, arg = self._decide(observation, info)
        if info.get("mode") == "browser":
            return self._in_browser(kind, arg, observation)
        return f"{kind}[{arg}]"

    def _decide(self, observation: str, info: dict[str, Any]) -> tuple[str, str]:
        """The next engine action, ``("search", query)`` or ``("click", label)``."""
        actions = info.get("webshop_actions") or {}
        instruction = _instruction(observation).lower()
        if actions.get("has_search_bar"):
            return "search", _PRICE_CLAUSE.sub("", instruction).strip() or "product"
        clickables = list(actions.get("clickables") or [])
        lowered = {c.lower(): c for c in clickables}
        if "buy now" in lowered:
            for label in clickables:
                low = label.lower()
                if low in _FIXED or low in self._clicked or _ASIN.fullmatch(label):
                    continue
                if _mentions(instruction, low):
                    self._clicked.add(low)
                    return "click", label
            return "click", "Buy Now"
        for label in clickables:
            if _ASIN.fullmatch(label):
                return "click", label
        if "< prev" in lowered:
            return "click", "< Prev"
        return "click", "Back to Search"

    @staticmethod
    def _in_browser(kind: str, arg: str, observation: str) -> str:
        """The browser action for an engine action, with ids read off the tree."""
        elements = _tree(observation)
        if kind == "search":
            query = arg.replace('"', "'")
            box = next((e for e in elements if e[1] in ("searchbox", "textbox")), None)
            button = next((e for e in elements if e[1] == "button" and e[2] == "Search"), None)
            if box is None or button is None:
                return f'fill(1, "{query}")'
            typed = re.search(r'value="((?:[^"\\]|\\.)*)"', box[3])
            if typed is not None and typed.group(1) == query:
                return f"click({button[0]})"
            return f'fill({box[0]}, "{query}")'
        for agid, _role, name, _rest in elements:
            if name.lower() == arg.lower():
                return f"click({agid})"
        return "back()"
