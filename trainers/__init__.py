"""Reference trainers, installed as ``agentgym.trainers``.

The pure pieces every trainer shares (NumPy only):

* :mod:`agentgym.trainers.records`: :class:`StepRecord` / :class:`StepTable`, the flat table
  of step records a rollout produces (group, trajectory, turn, state key, reward components,
  end flags, prompt and completion token ids, sampler log-probs), saved as JSONL;
* :mod:`agentgym.trainers.advantages`: GRPO, Dr.GRPO, discounted returns, GiGPO, VPR and the
  zero-spread group fraction, as pure functions;
* :mod:`agentgym.trainers.config`: the run configs (TOML + command-line overrides).

The torch parts, imported when first used (so ``import agentgym.trainers`` stays light):

* :mod:`agentgym.trainers.loss`: the clipped-ratio policy loss and token log-probs
  (``policy_loss``, ``sequence_logprobs``, ``collate`` are also attributes of the package);
* the trainers :mod:`agentgym.trainers.grpo` (GiGPO too), :mod:`agentgym.trainers.vpr` and
  :mod:`agentgym.trainers.sft`, each a ``train(cfg)`` read top to bottom; checkpoints in
  :mod:`~agentgym.trainers.checkpoint`, metrics and plots in :mod:`~agentgym.trainers.metrics`,
  ``agentgym train`` in :mod:`~agentgym.trainers.cli`.

The advantage functions ``grpo`` and ``vpr`` are not package attributes: those names are
the trainer modules. Import them from :mod:`agentgym.trainers.advantages`.

>>> from agentgym.trainers import dr_grpo, zero_spread_fraction
>>> dr_grpo([1.0, 0.0], [0, 0]).tolist(), zero_spread_fraction([1.0, 1.0], [0, 0])
([0.5, -0.5], 1.0)
"""

from typing import TYPE_CHECKING, Any

from .advantages import (
    VPRAdvantages,
    discounted_returns,
    dr_grpo,
    gigpo,
    zero_spread_fraction,
)
from .config import GRPOConfig, SFTConfig, VPRConfig, load_config
from .records import StepRecord, StepTable, state_key

if TYPE_CHECKING:  # at run time __getattr__ imports them on first use (they need torch)
    from .loss import collate, policy_loss, sequence_logprobs

__all__ = [
    "GRPOConfig",
    "SFTConfig",
    "StepRecord",
    "StepTable",
    "VPRAdvantages",
    "VPRConfig",
    "collate",
    "discounted_returns",
    "dr_grpo",
    "gigpo",
    "load_config",
    "policy_loss",
    "sequence_logprobs",
    "state_key",
    "zero_spread_fraction",
]

_LAZY = {"collate", "policy_loss", "sequence_logprobs"}


def __getattr__(name: str) -> Any:
    # The loss needs torch; importing it only when asked keeps `agentgym --help` fast.
    if name in _LAZY:
        from . import loss

        return getattr(loss, name)
    raise AttributeError(f"module 'agentgym.trainers' has no attribute {name!r}")
