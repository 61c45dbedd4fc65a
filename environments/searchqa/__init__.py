"""Search-based question answering (``agentgym/SearchQA-v0``), in Search-R1's format.

:mod:`.world` builds a seeded fictional encyclopedia and :mod:`.questions` its 1-3 hop
questions; :mod:`.byo` loads a corpus and questions from disk; :mod:`.retrieval` is the BM25
index; :mod:`.turns` reads a ``<search>`` / ``<answer>`` turn; :mod:`.metrics` scores answers
(exact match, F1); :mod:`.rewards` the process reward; :mod:`.env` :class:`SearchQAEnv`;
:mod:`.agents` the question-as-query baseline.

>>> from agentgym.environments.searchqa import SearchQAEnv
>>> SearchQAEnv(corpus="example").reset(seed=0)[0].splitlines()[0]
'Question: In which city was the painter of The Night Watch born?'
"""

from .env import SearchQAEnv

__all__ = ["SearchQAEnv"]
