"""Leaderboard: submission bundles, their validation by replay, and the static site.

Installed as ``agentgym.leaderboard``; the command is ``agentgym leaderboard submit | validate
| build`` (:mod:`.cli`). One concept per module:

* :mod:`.schema`: the JSON types of a results file (``agentgym.eval/2``);
* :mod:`.manifest`: a bundle's ``manifest.json`` and the git state it records;
* :mod:`.bundle`: safe packing and unpacking of the ``.tar.gz``;
* :mod:`.submit`: results files -> bundle;
* :mod:`.replay`: the per-family replay policy and the step-by-step comparisons;
* :mod:`.validate`: every check of a bundle, in order;
* :mod:`.verdicts`: the replay verdicts this machine reached, which ``build`` reuses;
* :mod:`.site` (+ ``site_assets/``): the static site;
* :mod:`.errors`: :class:`~.errors.Rejected`, the one-line verdict.

>>> from agentgym.leaderboard.replay import policy_for
>>> policy_for("terminal").observations
False
"""
