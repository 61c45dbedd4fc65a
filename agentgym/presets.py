"""Named configurations of an env's kwargs (``preset="vpr"`` reproduces the VPR paper's).

A preset is a table of kwarg values. :func:`apply_preset` gives every kwarg the caller left
at its signature default the preset's value, and lets a kwarg set to anything else override
it, so ``preset="vpr", max_steps=30`` is the paper's setup with a longer budget. The env's
``config()`` records the values in force, so a snapshot or a result says exactly what ran.

Passing a kwarg equal to its default cannot be told apart from not passing it: it takes the
preset's value.

>>> class Game:
...     def __init__(self, size=9, reward=1.0, max_steps=100, preset=None): ...
>>> VPR = {"vpr": {"reward": 2.0, "max_steps": 25}}
>>> given = {"size": 9, "reward": 1.0, "max_steps": 30}
>>> apply_preset(Game, "vpr", VPR, given)
{'size': 9, 'reward': 2.0, 'max_steps': 30}
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

__all__ = ["apply_preset"]


def apply_preset(
    cls: type,
    preset: str | None,
    presets: Mapping[str, Mapping[str, Any]],
    given: Mapping[str, Any],
) -> dict[str, Any]:
    """``given`` (the kwargs as passed to ``cls``) with ``preset``'s values filled in.

    Raises:
        ValueError: ``preset`` is not None or a key of ``presets``.
    """
    if preset is None:
        return dict(given)
    if not isinstance(preset, str) or preset not in presets:
        raise ValueError(f"preset must be None or one of {sorted(presets)}, got {preset!r}")
    defaults = {
        name: p.default for name, p in inspect.signature(cls.__init__).parameters.items()
    }
    out = dict(given)
    for name, value in presets[preset].items():
        if name not in defaults:
            raise KeyError(f"preset {preset!r} sets {name!r}, which {cls.__name__} does not take")
        if out.get(name, defaults[name]) == defaults[name]:
            out[name] = value
    return out
