"""What ``agentgym audit agentgym/Workplace-v0`` reads: its :class:`~agentgym.audit.AuditSpec`.

The process reward is potential-based shaping declared to :class:`~agentgym.core.TextEnv`
(``WorkplaceEnv._shaping_potential``: the share of the gold plan's cell changes reached, 0 once a
rule is broken), so the audit checks every step against that hook and its end rule;
:mod:`.exploits` holds the family's exploits.

>>> from agentgym.audit import audit_spec
>>> sorted(audit_spec("agentgym/Workplace-v0").exploits)
['guess-ids', 'tell-without-write', 'undo-redo', 'write-unconfirmed']
"""

from __future__ import annotations

from agentgym.audit import AuditSpec, register_audit

from .exploits import EXPLOITS

__all__ = ["SPEC"]

SPEC = AuditSpec(
    # The oracle plays the gold plan each task was generated from: 2.0 on every seed with
    # gamma = 1, the most there is.
    references=("oracle",),
    exploits=EXPLOITS,
    public_info=frozenset({
        # the domain the observation's first line names ("[retail support]")
        "domain",
        # the tool schemas (reset only): what the system prompt lists
        "tools",
    }),
    success_threshold=1.0,
    # Free parts of a tool call and a message: the extremes must stay invalid or harmless.
    templates=('<tool_call>{{"name": "get_order", "arguments": {{"order_id": "{}"}}}}'
               "</tool_call>", "<message>{}</message>"),
    stop_actions=('<tool_call>{"name": "end_conversation", "arguments": {}}</tool_call>',),
    kwargs={"max_steps": 20},
)

register_audit("agentgym/Workplace-v0", SPEC)
