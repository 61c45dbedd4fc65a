"""Checkpoints that let a run continue exactly where it stopped.

A checkpoint is one folder: ``state.pt`` holds the model's and the optimizer's state dicts,
every RNG state the run draws from (torch CPU and CUDA, NumPy's and Python's global ones,
in case a library draws from them), the number of updates done and the metrics rows logged
so far; ``config.json`` is the run's config, for people. It is written to a temporary
folder and renamed into place, so a crash mid-write leaves the previous checkpoint intact.

On CPU, ``load_checkpoint`` followed by the same loop reproduces the run bit for bit: the
trainers also reseed torch at the start of every update from ``(seed, update)``, so the
rollouts do not depend on how many numbers the previous update happened to draw.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import torch

__all__ = ["capture_rng", "load_checkpoint", "restore_rng", "save_checkpoint"]


def capture_rng() -> dict[str, Any]:
    """Every global RNG state a training step may draw from."""
    state: dict[str, Any] = {
        "torch": torch.get_rng_state(),
        "numpy": np.random.get_state(),
        "python": random.getstate(),
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng(state: dict[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    np.random.set_state(state["numpy"])
    random.setstate(state["python"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def save_checkpoint(
    folder: str | Path,
    *,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    step: int,
    config: dict[str, Any],
    metrics: list[dict[str, Any]],
) -> Path:
    """Write ``folder`` (replacing an older checkpoint there) and return it."""
    folder = Path(folder)
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    torch.save(
        {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "rng": capture_rng(),
            "step": step,
            "metrics": metrics,
        },
        tmp / "state.pt",
    )
    (tmp / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    old = folder.with_name(folder.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if folder.exists():
        folder.rename(old)
    tmp.rename(folder)
    shutil.rmtree(old, ignore_errors=True)
    return folder


def load_checkpoint(
    folder: str | Path, *, model: torch.nn.Module, optimizer: torch.optim.Optimizer
) -> tuple[int, list[dict[str, Any]]]:
    """Load a checkpoint into ``model`` and ``optimizer``, restore the RNGs.

    Returns ``(updates done, metrics rows so far)``.
    """
    path = Path(folder) / "state.pt"
    if not path.is_file():
        raise ValueError(f"no checkpoint at {path} to resume from (drop --resume)")
    state = torch.load(path, map_location="cpu", weights_only=False)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    restore_rng(state["rng"])
    return int(state["step"]), list(state["metrics"])
