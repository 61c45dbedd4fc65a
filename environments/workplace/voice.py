"""The LLM user (``user="llm"``): a model behind an OpenAI-compatible endpoint words the
scripted user's replies.

The scripted user (:mod:`.user`) still decides everything that is scored: which private facts
it reveals, which changes it confirms, which device steps it carries out. The model only
rewords a reply, in the voice of a customer with the task's request. So a conversation reads
less like templates, and the reward stays exactly what the scripted user allows: no wording
an agent finds can talk the model into confirming a change or revealing a fact (the attack an
LLM user invites).

A rewording is used only when it keeps what the agent must read. Every token of the scripted
reply that holds a digit or an ``@`` (ids, amounts, dates, emails) must appear in it, and so
must every fact the reply revealed. A confirmation or a refusal is never reworded, because its
yes or no is the decision. Otherwise the scripted wording goes out, and so does it when the
endpoint fails; ``info["user_fallbacks"]`` counts both.

The model's words vary between runs, so such an episode is not reproducible:
``info["user"] = "llm"`` and ``info["deterministic"] = False``. ``user`` is an operator-only
kwarg, so a server client or a leaderboard bundle cannot set it, and the replay never meets it.

>>> kept("Your order o-1042 ships on 2026-12-09.", "It ships o-1042, 2026-12-09.", [])
True
>>> kept("Your order o-1042 ships on 2026-12-09.", "It ships soon.", [])
False
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .user import NO, YES, mentions

__all__ = ["LLMVoice", "kept"]

#: Tokens the agent must read verbatim: anything with a digit or an @ (ids, sums, emails).
_EXACT = re.compile(r"[\w.@+-]*[\d@][\w.@+-]*")
#: The longest rewording kept (the scripted replies are one or two sentences).
MAX_REPLY = 600


def kept(scripted: str, reworded: str, facts: Sequence[Any]) -> bool:
    """Whether ``reworded`` keeps every exact token of ``scripted`` and mentions each of
    ``facts`` (values the scripted reply revealed)."""
    tokens = [t.strip(".,;:!?-") for t in _EXACT.findall(scripted)]
    # Whole tokens: "o-10423" does not keep "o-1042".
    return (all(re.search(rf"(?<![\w@]){re.escape(t)}(?![\w@])", reworded, re.IGNORECASE)
                for t in tokens if t)
            and all(mentions(reworded, f) for f in facts))


class LLMVoice:
    """Rewords the scripted user's replies through an ``EndpointAgent``'s :meth:`chat`."""

    def __init__(self, base_url: str, model: str, *, temperature: float = 0.7) -> None:
        from agentgym.agents.endpoint import EndpointAgent

        try:
            self.agent = EndpointAgent(base_url=base_url or None, model=model or None,
                                       temperature=temperature, max_new_tokens=160, retries=1,
                                       backoff=0.5, timeout=30.0)
        except ValueError as exc:  # say it in the env's own terms, not the agent's flags
            raise ValueError(
                f'user="llm" needs an OpenAI-compatible endpoint and a model: set '
                f"user_base_url= and user_model= (or $AGENTGYM_LLM_BASE_URL and "
                f"$AGENTGYM_LLM_MODEL); {exc}") from None
        self.fallbacks = 0

    def reword(self, request: str, said: str, scripted: str, facts: Sequence[Any]) -> str:
        """The reply to send: the model's rewording of ``scripted`` (the agent wrote ``said``;
        the customer wants ``request``), or ``scripted`` itself when the rewording is not
        :func:`kept`, is a decision, or the endpoint fails."""
        if scripted in YES or scripted in NO:
            return scripted
        from agentgym.agents.base import AgentFailure

        messages = [
            {"role": "system", "content": (
                "You are a customer writing to a service agent. Your request: "
                f"{request}\nRewrite the reply you are given in your own words, as this "
                "customer, in one or two sentences. Keep every id, number, date, email and "
                "name exactly as written. Add no facts, and agree to or refuse nothing.")},
            {"role": "user", "content": f"The agent wrote: {said}\n\nYour reply, to reword: "
                                        f"{scripted}"},
        ]
        try:
            text = " ".join(self.agent.chat(messages).split())[:MAX_REPLY]
        except AgentFailure:
            text = ""
        if text and kept(scripted, text, facts):
            return text
        self.fallbacks += 1
        return scripted

    def close(self) -> None:
        self.agent.close()
