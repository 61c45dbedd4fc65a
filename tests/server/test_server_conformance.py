"""The conformance suite (``tests/test_conformance.py``), played through RemoteEnv on a live server.

Every check of the suite that takes an env id runs here with ``gym.make(id, server_url=URL)``
in place of the local env, for the ids in :data:`server_support.REMOTE_IDS`: what passes in
process passes over the wire. ``test_same_seed_same_episode_in_another_process`` thereby also
checks that the remote episode equals the local one in a fresh process.
"""

from __future__ import annotations

import itertools
import types

import gymnasium as gym
import pytest
import test_conformance as conformance
from _pytest.mark.structures import ParameterSet
from server_support import REMOTE_IDS

import agentgym
from agentgym.remote import RemoteEnv

#: Checks about the local entry point itself, not about what an env does.
LOCAL_ONLY = {"test_contract_kwargs_have_explicit_defaults"}


def _rows(mark) -> list[tuple[list[str], tuple, str]]:
    names = mark.args[0]
    names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    rows = []
    for value in mark.args[1]:
        if isinstance(value, ParameterSet):
            values, label = tuple(value.values), value.id
        else:
            values = value if len(names) > 1 else (value,)
            label = None
        rows.append((names, tuple(values), label or "-".join(map(str, values))))
    return rows


def remote_cases() -> list:
    """(check name, its arguments) for every env-id check of the suite, on REMOTE_IDS."""
    cases = []
    for name, check in vars(conformance).items():
        if not name.startswith("test_") or name in LOCAL_ONLY or not callable(check):
            continue
        marks = [m for m in getattr(check, "pytestmark", []) if m.name == "parametrize"]
        if not marks:
            continue
        for combo in itertools.product(*(_rows(m) for m in marks)):
            args = {}
            for names, values, _ in combo:
                args.update(zip(names, values, strict=True))
            if args.get("env_id") not in REMOTE_IDS:
                continue
            label = "-".join(label for *_, label in reversed(combo))
            cases.append(pytest.param(name, args, id=f"{name[5:]}[{label}]"))
    return cases


CASES = remote_cases()


@pytest.fixture
def remote(server, monkeypatch):
    """Point the suite's ``make`` (and its ``gym.make``) at the live server."""

    def make(env_id: str, kwargs: dict, **extra) -> gym.Env:
        return gym.make(env_id, **kwargs, **extra, server_url=server.url)

    def gym_make(env_id: str, **kwargs) -> gym.Env:
        return gym.make(env_id, **kwargs, server_url=server.url)

    shim = types.SimpleNamespace(make=gym_make, error=gym.error, Env=gym.Env)
    monkeypatch.setattr(conformance, "make", make)
    monkeypatch.setattr(conformance, "gym", shim)
    return server


def test_the_remote_run_covers_the_suite():
    checks = {p.values[0] for p in CASES}
    assert len(checks) >= 20, sorted(checks)
    assert {p.values[1]["env_id"] for p in CASES} == set(REMOTE_IDS)
    # Every variant of both ids is played, as in process.
    variants = {(p.values[1]["env_id"], repr(p.values[1].get("kwargs"))) for p in CASES
                if "kwargs" in p.values[1]}
    expected = {(e.id, repr(k)) for e in agentgym.ENVIRONMENTS if e.id in REMOTE_IDS
                for k in ({}, *e.variants)}
    assert variants == expected


@pytest.mark.parametrize(("check", "args"), CASES)
def test_conformance_through_remote_env(remote, check, args):
    env = gym.make(args["env_id"], server_url=remote.url)
    assert isinstance(env.unwrapped, RemoteEnv)  # the suite below really plays remotely
    env.close()
    getattr(conformance, check)(**args)
