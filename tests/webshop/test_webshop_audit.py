"""``agentgym audit agentgym/WebShop-v0`` (text mode): the spec and a short audit.

The purchase hacks of :mod:`agentgym.environments.webshop.exploits` must each earn less than
the honest shopper, and the potential the env declares to TextEnv (read by the audit, the
spec declares none) must match every step's shaping.
"""

from __future__ import annotations

import gymnasium as gym

import agentgym  # noqa: F401  (registers the ids)
from agentgym.audit import audit_spec, run_audit
from agentgym.audit.episodes import env_shaping_potential
from agentgym.environments.webshop.audit import needs
from agentgym.environments.webshop.exploits import EXPLOITS

ENV_ID = "agentgym/WebShop-v0"


def test_the_spec_declares_the_purchase_hacks():
    spec = audit_spec(ENV_ID)
    assert spec is not None and set(spec.exploits) == set(EXPLOITS) and spec.exploits
    assert spec.potential is None and "click[Buy Now]" in spec.stop_actions
    env = gym.make(ENV_ID, num_products=2000).unwrapped
    env.reset(seed=0)
    assert env_shaping_potential(env)  # the audit reads TextEnv's hook instead
    assert needs() == "" and needs({"mode": "text"}) == ""  # text mode needs nothing


def test_a_short_audit_passes():
    report = run_audit(ENV_ID, episodes=3, budget_s=2)
    assert report.passed, [(r.name, r.detail) for r in report.failures()]
    rows = {r.name: r for r in report.rows}
    assert rows["shaping identity"].verdict == "pass"
    for name in EXPLOITS:  # each hack ends below the honest shopper
        assert rows[f"{name} (family)"].ret < report.rows[0].ret
