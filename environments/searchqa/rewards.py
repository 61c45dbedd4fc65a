"""The process reward: a potential on the share of gold passages retrieved so far.

With potential ``phi(s) = |gold & retrieved| / |gold|`` a search earns
``phi(after) - phi(before)`` (gamma = 1), so the process rewards of an episode sum to the
final share and cannot be farmed: a repeated query, a search that finds nothing new and the
answer earn 0. A question without gold passages (a question file without ``gold_ids``) has
no process reward.

>>> search_gain({4, 9}, retrieved=[1, 4], results=[9, 4, 2])
0.5
>>> gold_share({4, 9}, [1, 4])
0.5
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

__all__ = ["gold_share", "search_gain"]


def gold_share(gold: Collection[int], retrieved: Iterable[int]) -> float:
    """The share of ``gold`` among ``retrieved`` (0.0 when there is no gold).

    >>> gold_share({1, 2, 3}, [3, 7]), gold_share(set(), [3])
    (0.3333333333333333, 0.0)
    """
    if not gold:
        return 0.0
    return len(set(retrieved) & set(gold)) / len(gold)


def search_gain(gold: Collection[int], retrieved: Iterable[int], results: Iterable[int]) -> float:
    """``phi`` after the results are added minus ``phi`` before: the share of gold passages
    the results retrieve for the first time.

    >>> search_gain({1, 2}, retrieved=[1], results=[1, 5])
    0.0
    """
    if not gold:
        return 0.0
    before = set(retrieved)
    new = {r for r in results if r in gold and r not in before}
    return len(new) / len(gold)
