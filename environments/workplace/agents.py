"""The scripted heuristic of ``agentgym/Workplace-v0``: ask, read, propose, act, tell, end.

It reads only what an LLM sees (the observation and ``available_actions``): it asks every
listed question once, makes every listed read call once, sends every listed device
instruction once, then proposes the listed changes one at a time until the user says yes,
makes the change the user confirmed, tells the user any result to tell, and ends. It never
repeats an instruction after a change, so it fails a laptop that needs a new VPN profile
installed after the reissue: a baseline, not an oracle.

>>> from agentgym.environments.workplace.env import WorkplaceEnv
>>> env = WorkplaceEnv(domain="retail")
>>> obs, info = env.reset(seed=0)
>>> agent = HeuristicAgent()
>>> agent.reset(env, seed=0)
>>> while True:
...     obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
...     if terminated or truncated:
...         break
>>> info["success"]
True
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from agentgym.agents.base import Agent

from .tasks import END
from .user import NO

__all__ = ["HeuristicAgent"]

_CONFIRM = "<message>To confirm: "
_CHANGES = re.compile(r"Before any change \(([a-z_, ]+)\)")


class HeuristicAgent(Agent):
    """Ask, read, instruct, propose until yes, change, tell, end (see the module)."""

    name: ClassVar[str] = "workplace-heuristic"

    def reset(self, env: Any, *, seed: int | None = None) -> None:
        self.sent: list[str] = []
        self.confirmed: list[str] = []
        self.proposed: str | None = None
        # The change tools, as the policy in the system prompt names them.
        found = _CHANGES.search(getattr(env.unwrapped, "rules", ""))
        self.changes = {n.strip() for n in found.group(1).split(",")} if found else set()

    def act(self, observation: str, info: dict[str, Any]) -> str:
        listed = list(info.get("available_actions") or [])
        if self.proposed is not None:
            refused = any(no in observation for no in NO)
            if not refused and "User:" in observation:
                self.confirmed.append(self.proposed)
            self.proposed = None
        action = self._choose(listed)
        self.sent.append(action)
        if action.startswith(_CONFIRM):
            self.proposed = action
        return action

    def _choose(self, listed: list[str]) -> str:
        fresh = [a for a in listed if a not in self.sent]
        for kind in ("<message>Could", "<message>What", "<message>Which", "<message>How"):
            for action in fresh:
                if action.startswith(kind):
                    return action
        for action in fresh:  # read calls
            if action.startswith("<tool_call>") and action != END and not self._is_write(
                    action):
                return action
        for action in fresh:  # device instructions, after the diagnostics (policy rule 3)
            if action.startswith("<message>Please"):
                return action
        for confirm in self.confirmed:
            call = self._call_for(confirm, listed)
            if call and call not in self.sent:
                return call
        for action in fresh:
            if action.startswith("<message>For your records"):
                return action
        if not self.confirmed:
            for action in fresh:
                if action.startswith(_CONFIRM):
                    return action
        return END

    def _is_write(self, call: str) -> bool:
        return json.loads(call[len("<tool_call>"):-len("</tool_call>")])["name"] in self.changes

    @staticmethod
    def _matches(call: str, confirm: str) -> bool:
        data = json.loads(call[len("<tool_call>"):-len("</tool_call>")])
        detail = ", ".join(f"{k} {v}" for k, v in data["arguments"].items())
        return f"({detail})" in confirm

    def _call_for(self, confirm: str, listed: list[str]) -> str | None:
        return next((a for a in listed if a.startswith("<tool_call>") and a != END
                     and self._matches(a, confirm)), None)
