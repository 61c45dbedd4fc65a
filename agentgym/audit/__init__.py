"""``agentgym audit``: attack an env's rewards the way an RL optimiser would, before one does.

An audit plays the family's honest references, the generic exploit policies of
:mod:`agentgym.audit.policies`, the family's own exploits and a search adversary
(:mod:`agentgym.audit.search`) on the same seeds, then checks soundness, shaping, success,
``info`` and replay (:mod:`agentgym.audit.runner`). A family declares what the checks read in
an :class:`AuditSpec` registered from an ``audit.py`` beside its env.

>>> from agentgym.audit import run_audit
>>> run_audit("agentgym/Sokoban-v0", episodes=2, budget_s=0.5).passed
True
"""

from agentgym.audit.report import AuditReport, Row, load_reports, recorded_audit
from agentgym.audit.runner import run_audit
from agentgym.audit.spec import AuditSpec, audit_spec, register_audit, registered_specs

__all__ = [
    "AuditReport",
    "AuditSpec",
    "Row",
    "audit_spec",
    "load_reports",
    "recorded_audit",
    "register_audit",
    "registered_specs",
    "run_audit",
]
