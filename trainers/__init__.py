"""Reference trainers, installed as ``agentgym.trainers``.

So far the pure pieces every trainer shares (NumPy only; the trainers turn them into tensors):

* :mod:`agentgym.trainers.records`: :class:`StepRecord` / :class:`StepTable`, the flat table
  of step records a rollout produces (group, trajectory, turn, state key, reward components,
  end flags, prompt and completion token ids, sampler log-probs), saved as JSONL;
* :mod:`agentgym.trainers.advantages`: GRPO, Dr.GRPO, discounted returns, GiGPO, VPR and the
  zero-spread group fraction, as pure functions.

>>> from agentgym.trainers import grpo, zero_spread_fraction
>>> grpo([1.0, 0.0], [0, 0]).round(3).tolist(), zero_spread_fraction([1.0, 1.0], [0, 0])
([1.0, -1.0], 1.0)
"""

from agentgym.trainers.advantages import (
    VPRAdvantages,
    discounted_returns,
    dr_grpo,
    gigpo,
    grpo,
    vpr,
    zero_spread_fraction,
)
from agentgym.trainers.records import StepRecord, StepTable, state_key

__all__ = [
    "StepRecord",
    "StepTable",
    "VPRAdvantages",
    "discounted_returns",
    "dr_grpo",
    "gigpo",
    "grpo",
    "state_key",
    "vpr",
    "zero_spread_fraction",
]
