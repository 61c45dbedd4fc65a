"""What a family declares about its rewards so :mod:`agentgym.audit` can attack them.

A family writes one :class:`AuditSpec` per id in an ``audit.py`` module next to its env and
calls :func:`register_audit`. :func:`audit_spec` finds it without the family being imported
first: for an entry point ``pkg.family.env:Cls`` it imports ``pkg.family.audit``. A user's own
env registers its spec from the module that ``agentgym audit --import MODULE`` loads.

>>> from agentgym.audit.spec import AuditSpec, register_audit, audit_spec
>>> register_audit("doc/Example-v0", AuditSpec(public_info=frozenset({"score"})))
>>> sorted(audit_spec("doc/Example-v0").public_info)
['score']
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from agentgym.agents.base import Agent

__all__ = ["AuditSpec", "audit_spec", "register_audit", "registered_specs"]

#: A policy an auditor plays: a fresh :class:`Agent` per call.
PolicyFactory = Callable[[], Agent]


@dataclass(frozen=True)
class AuditSpec:
    """A family's declarations, each read by one audit check.

    * ``references``: the honest policies (agent names for :func:`agentgym.agents.make_agent`,
      or agent factories); per seed, the best return among them is what no exploit may reach
      with less success.
    * ``exploits``: the family's own exploit policies by name (the ones its red-teams found).
    * ``public_info``: the ``info`` keys (besides the contract's) an agent may read before the
      episode ends. Any other key seen before the end fails the audit.
    * ``success_threshold``: the outcome every successful episode reaches at least.
      ``success_note`` says why, where the threshold is not simply "the task's full outcome".
    * ``potential`` / ``gamma``: declared potential-based shaping. Every step's process
      reward, less the invalid penalty, must equal ``gamma(env) * potential(after) -
      potential(before)``. Left ``None``, the audit reads the env's own shaping hook where
      it declares one (:meth:`agentgym.core.TextEnv._shaping_potential`, with the env's ``gamma``
      and the base's end rule: the last potential is the outcome), which is how WebShop,
      Household and Terminal declare theirs.
    * ``templates``: action forms with ``{}`` where the grammar takes a free argument
      (``"offer({})"``, ``"<answer>{}</answer>"``); the extreme-argument and info-peeking
      policies fill them.
    * ``moves``: extra candidate actions in a state where ``info["available_actions"]`` does
      not enumerate them (price grids, queries); the search adversary branches on these too.
    * ``stop_actions``: actions that end or submit at once (``"click[buy now]"``).
    * ``kwargs``: what the audit plays by default where the id's defaults are slow to audit
      (a shorter market); ``-k`` overrides them and the report records what ran.
    * ``needs(kwargs)``: why the id cannot be audited here with these kwargs, or ""
      (Terminal-v0 without Docker, WebShop's browser mode without Chromium).
    """

    references: tuple[str | PolicyFactory, ...] = ("oracle",)
    exploits: Mapping[str, PolicyFactory] = field(default_factory=dict)
    public_info: frozenset[str] = frozenset()
    success_threshold: float = 1.0
    success_note: str = ""
    potential: Callable[[Any], float] | None = None
    gamma: Callable[[Any], float] = field(default=lambda env: 1.0)
    templates: tuple[str, ...] = ()
    moves: Callable[[Any, dict[str, Any]], list[str]] | None = None
    stop_actions: tuple[str, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    needs: Callable[[dict[str, Any]], str] = field(default=lambda kwargs: "")

    def __post_init__(self) -> None:
        if not self.references:
            raise ValueError("an AuditSpec needs at least one honest reference policy")
        object.__setattr__(self, "exploits", MappingProxyType(dict(self.exploits)))
        object.__setattr__(self, "public_info", frozenset(self.public_info))
        object.__setattr__(self, "kwargs", MappingProxyType(dict(self.kwargs)))


_SPECS: dict[str, AuditSpec] = {}


def register_audit(env_id: str, spec: AuditSpec) -> None:
    """Declare ``spec`` as what ``agentgym audit env_id`` reads (a later call replaces it)."""
    if not isinstance(spec, AuditSpec):
        raise TypeError(f"register_audit wants an AuditSpec, got {type(spec).__name__}")
    _SPECS[env_id] = spec


def registered_specs() -> dict[str, AuditSpec]:
    """Every spec registered so far, by id (families load theirs on first lookup)."""
    return dict(_SPECS)


def audit_spec(env_id: str) -> AuditSpec | None:
    """The spec ``env_id`` declares, importing its family's ``audit`` module if needed.

    None when neither the id's module nor its family declares one (the audit then runs only
    the generic policies and says so).
    """
    if env_id not in _SPECS:
        for module in _audit_modules(env_id):
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as exc:
                if exc.name is None or not module.startswith(exc.name):
                    raise  # the audit module exists but imports something missing
            if env_id in _SPECS:
                break
    return _SPECS.get(env_id)


def _audit_modules(env_id: str) -> list[str]:
    """Where a family's audit module would live: beside the entry point's module."""
    import gymnasium as gym

    if env_id not in gym.registry:
        return []
    entry = gym.registry[env_id].entry_point
    target = getattr(entry, "entry_point", entry)  # agentgym's EnvCreator keeps the string
    if not isinstance(target, str):
        target = f"{getattr(target, '__module__', '')}:"
    module = target.partition(":")[0]
    if not module:
        return []
    try:
        is_package = hasattr(importlib.import_module(module), "__path__")
    except ImportError:
        return []
    parent = module if is_package else module.rpartition(".")[0]
    return [f"{parent}.audit"] if parent else []
