"""Evaluation metrics, defined once: what ``agentgym eval`` prints and the leaderboard recomputes.

Every metric is a pure function of the episode records of a results file (schema
``agentgym.eval/2``, see :mod:`agentgym.evaluation`), so the validator recomputes a summary
from replayed episodes with the same code that wrote it. Rates are fractions in [0, 1]; the
standard errors are of the mean over episodes (``std(ddof=1) / sqrt(n)``, 0 for one episode).

* ``success_rate``: share of episodes with ``success`` (a failed episode is not a success).
* ``score``: the number a family's papers quote, 0-100. WebShop: the mean outcome reward (its
  ``R`` at Buy Now, 0 when the budget runs out) times 100, as in Yao et al. (2022); every other
  family: the success rate times 100.
* ``pass^k`` (tau-bench): per task with ``c`` successes in ``n`` trials, ``C(c, k) / C(n, k)``,
  the chance that ``k`` trials drawn without replacement all succeed; averaged over tasks, for
  ``k = 1 .. trials``. ``pass^1`` is the success rate.
* ``mean_process_return`` / ``mean_outcome_return``: per-episode sums of the reward parts.
* ``mean_steps``, ``invalid_action_rate`` (invalid steps over all steps), ``truncated_rate``,
  ``failed_episodes`` (the agent gave up, e.g. an endpoint that kept failing).
* ``mean_prompt_tokens``, ``mean_completion_tokens``, ``mean_tokens``: per episode.
* Where episodes carry them in ``extras``: ``success_by_task_type`` (Household) and
  ``mean_f1`` / ``exact_match`` (SearchQA).

>>> eps = [{"task": 0, "success": True, "outcome_return": 1.0}, {"task": 0, "success": False},
...        {"task": 1, "success": True}, {"task": 1, "success": True}]
>>> s = summarise(eps, trials=2)
>>> s["success_rate"], s["pass^1"], s["pass^2"]
(0.75, 0.75, 0.5)
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "EXTRA_INFO_KEYS",
    "FAMILY_SCORES",
    "episode_extras",
    "family_score",
    "mean_se",
    "pass_hat_k",
    "summarise",
]

#: How each family's ``score`` is computed from a summary (default: success rate x 100).
FAMILY_SCORES: dict[str, str] = {"webshop": "mean_outcome_return"}
#: Keys of an episode's last ``info`` that an episode record keeps as ``extras`` (the env
#: reports them; :func:`summarise` reads them). Replays recompute them the same way.
EXTRA_INFO_KEYS = ("task_type", "f1", "exact_match")


def episode_extras(info: Mapping[str, Any]) -> dict[str, Any]:
    """The ``extras`` of an episode whose last step returned ``info``.

    >>> episode_extras({"task_type": "heat", "success": True, "f1": 1})
    {'task_type': 'heat', 'f1': 1.0}
    """
    extras: dict[str, Any] = {}
    for key in EXTRA_INFO_KEYS:
        if key in info:
            value = info[key]
            extras[key] = str(value) if key == "task_type" else float(value)
    return extras


def pass_hat_k(c: int, n: int, k: int) -> float:
    """``C(c, k) / C(n, k)``: chance that ``k`` of ``n`` trials, ``c`` of them successes, all pass.

    >>> pass_hat_k(3, 4, 2), pass_hat_k(1, 4, 2), pass_hat_k(4, 4, 4)
    (0.5, 0.0, 1.0)
    """
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass^k needs 0 <= c <= n and 1 <= k <= n, got c={c} n={n} k={k}")
    return math.comb(c, k) / math.comb(n, k)


def mean_se(values: Sequence[float]) -> tuple[float, float]:
    """Mean and its standard error (0 for fewer than two values).

    >>> mean_se([1.0, 0.0, 1.0, 0.0])
    (0.5, 0.28867513459481287)
    """
    if not values:
        raise ValueError("no values")
    n = len(values)
    mean = math.fsum(values) / n
    if n < 2:
        return mean, 0.0
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


def family_score(family: str | None, summary: Mapping[str, Any]) -> float:
    """The family's headline ``score`` (0-100) from a summary's means.

    >>> family_score("webshop", {"mean_outcome_return": 0.25, "success_rate": 0.1})
    25.0
    >>> family_score("games", {"mean_outcome_return": 3.0, "success_rate": 0.5})
    50.0
    """
    return 100.0 * float(summary[FAMILY_SCORES.get(family or "", "success_rate")])


def _pass_hat(episodes: Sequence[Mapping[str, Any]], trials: int) -> dict[str, float]:
    by_task: dict[Any, list[bool]] = defaultdict(list)
    for ep in episodes:
        by_task[ep.get("task", ep.get("seed"))].append(bool(ep.get("success", False)))
    out = {}
    for k in range(1, trials + 1):
        # A task with fewer trials than k (an incomplete run) cannot say anything about pass^k.
        values = [pass_hat_k(sum(s), len(s), k) for s in by_task.values() if len(s) >= k]
        out[f"pass^{k}"] = math.fsum(values) / len(values) if values else 0.0
    return out


def summarise(
    episodes: Sequence[Mapping[str, Any]], *, trials: int = 1, family: str | None = None
) -> dict[str, Any]:
    """The summary of a run from its episode records (missing numeric fields count as 0).

    Raises:
        ValueError: no episodes, or ``trials < 1``.
    """
    if not episodes:
        raise ValueError("no episodes to summarise")
    if trials < 1:
        raise ValueError(f"trials must be >= 1, got {trials}")

    def field(name: str) -> list[float]:
        return [float(ep.get(name, 0.0)) for ep in episodes]

    n = len(episodes)
    success, success_se = mean_se([float(bool(ep.get("success", False))) for ep in episodes])
    ret, ret_se = mean_se(field("episode_return"))
    steps = field("steps")
    total_steps = math.fsum(steps)
    prompt, completion = field("prompt_tokens"), field("completion_tokens")
    summary: dict[str, Any] = {
        "episodes": n,
        "tasks": len({ep.get("task", ep.get("seed")) for ep in episodes}),
        "trials": trials,
        "success_rate": success,
        "success_rate_se": success_se,
        "mean_return": ret,
        "mean_return_se": ret_se,
        "mean_process_return": mean_se(field("process_return"))[0],
        "mean_outcome_return": mean_se(field("outcome_return"))[0],
        "mean_steps": total_steps / n,
        "invalid_action_rate": math.fsum(field("invalid_actions")) / total_steps
        if total_steps else 0.0,
        "truncated_rate": sum(bool(ep.get("truncated", False)) for ep in episodes) / n,
        "failed_episodes": sum(bool(ep.get("failed", False)) for ep in episodes),
        "mean_prompt_tokens": math.fsum(prompt) / n,
        "mean_completion_tokens": math.fsum(completion) / n,
        "mean_tokens": (math.fsum(prompt) + math.fsum(completion)) / n,
    }
    summary.update(_pass_hat(episodes, trials))
    summary["score"] = family_score(family, summary)
    extras = [ep.get("extras") or {} for ep in episodes]
    by_type: dict[str, list[float]] = defaultdict(list)
    for ep, extra in zip(episodes, extras, strict=True):
        if "task_type" in extra:
            by_type[str(extra["task_type"])].append(float(bool(ep.get("success", False))))
    if by_type:
        summary["success_by_task_type"] = {
            t: math.fsum(v) / len(v) for t, v in sorted(by_type.items())
        }
    for key, name in (("f1", "mean_f1"), ("exact_match", "exact_match")):
        values = [float(extra[key]) for extra in extras if key in extra]
        if values:
            summary[name] = math.fsum(values) / len(values)
    return summary
