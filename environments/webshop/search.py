"""BM25 search over the catalog: built once with ``bm25s``, cached on disk, ranked stably.

The index reads each product's title, description, bullet points and option values
(:meth:`Product.search_text`). Text is lower-cased and split into runs of ``[a-z0-9]``;
English stop words are dropped; query tokens count once each. Scores come from ``bm25s``'s
Lucene BM25 (``k1=1.5``, ``b=0.75``). A query is scored by summing the postings of its tokens
in float64 in a fixed order, rounded to 4 decimals, and ranked by score (descending), then
product id (ascending), so ties never depend on the platform; only products that contain at
least one query token are hits, and at most :data:`TOP_K` (50) are returned.

The index is cached under :func:`cache_root` (``$AGENTGYM_CACHE``, else
``$XDG_CACHE_HOME/agentgym``, else ``~/.cache/agentgym``; then ``webshop/``) in
``<index version>-<num products>/`` (a compressed ``index.npz``, ``vocab.json`` and
``meta.json``; about 8 MB for 50,000 products). :func:`index_version` hashes everything the
contents depend on (the catalog and search sources, ``bm25s`` and numpy versions), so a
stale index is never loaded. One process builds an index while others wanting it wait on a
file lock (``filelock``); the build writes to a temporary folder that is then renamed, so no
one ever reads a torn cache. Loads are memoised per process. The catalog itself is not
stored: products are regenerated on demand from their seeds.

>>> from agentgym.environments.webshop.search import load_index, tokenize
>>> tokenize("Sulfate-Free Shampoo for Dry Hair, 12oz")
['sulfate', 'free', 'shampoo', 'dry', 'hair', '12oz']
>>> index = load_index(2000)
>>> hits = index.search("sulfate free shampoo")
>>> 0 < len(hits) <= 50 and "shampoo" in index.catalog.product(hits[0]).title.lower()
True
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path

import bm25s
import numpy as np
import rapidfuzz
from filelock import FileLock, Timeout
from rich.console import Console
from rich.errors import LiveError
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from agentgym import bm25, draws
from agentgym.bm25 import BM25Matrix
from agentgym.cache import cache_dir

from .catalog import CATALOG_VERSION, Catalog

__all__ = [
    "STOPWORDS",
    "TOP_K",
    "SearchIndex",
    "build_index",
    "cache_root",
    "index_version",
    "load_index",
    "tokenize",
]

TOP_K = 50
_TOKEN = re.compile(r"[a-z0-9]+")
STOPWORDS: frozenset[str] = frozenset(
    """a about above after again all am an and any are as at be been being below between both
    but by can could did do does doing down during each few for from further had has have
    having he her here hers him his how i if in into is it its itself just me more most my
    myself no nor not now of off on once only or other our ours out over own s same she should
    so some such t than that the their theirs them then there these they this those through to
    too under until up very was we were what when where which while who whom why will with
    would you your yours im ive id""".split()  # noqa: SIM905 (a word list reads better)
)
_log = logging.getLogger(__name__)
_build_lock = threading.Lock()
_PROGRESS_EVERY = 500  # products per progress-bar update
#: How long a process waits for another one's build before building in memory itself.
BUILD_WAIT_S = 900.0


def tokenize(text: str) -> list[str]:
    """Lower-cased alphanumeric runs, stop words removed.

    >>> tokenize("I need a T-Shirt!")
    ['need', 'shirt']
    """
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


class SearchIndex:
    """A BM25 index over a :class:`Catalog`: :meth:`search` returns ranked product ids."""

    def __init__(self, catalog: Catalog, matrix: BM25Matrix) -> None:
        if matrix.num_docs != len(catalog):
            raise ValueError(f"an index of {matrix.num_docs} products for a catalog of "
                             f"{len(catalog)}")
        self.catalog = catalog
        self.matrix = matrix

    @property
    def vocab(self) -> dict[str, int]:
        return self.matrix.vocab

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every product for ``query`` (float64, rounded to 4 decimals)."""
        return self.matrix.scores(tokenize(query))

    def search(self, query: str, k: int = TOP_K) -> list[int]:
        """Product ids of the best ``k`` hits: score descending, then product id ascending."""
        return self.matrix.top(tokenize(query), k)

    # ------------------------------------------------------------------ persistence
    def save(self, folder: Path) -> None:
        self.matrix.save(folder, compressed=True)

    @classmethod
    def load(cls, folder: Path, catalog: Catalog) -> SearchIndex:
        return cls(catalog, BM25Matrix.load(folder))


def build_index(
    catalog: Catalog, progress: Callable[[int], None] | None = None
) -> SearchIndex:
    """Tokenise every product and build the BM25 score matrix with ``bm25s`` (no disk I/O).

    ``progress(n)`` is told each time ``n`` more products have been tokenised.
    """
    documents = (tokenize(catalog.product(pid).search_text()) for pid in range(len(catalog)))
    matrix = BM25Matrix.build(documents, k1=1.5, b=0.75, progress=progress,
                              progress_every=_PROGRESS_EVERY)
    return SearchIndex(catalog, matrix)


# ---------------------------------------------------------------------------- the disk cache
def cache_root() -> Path:
    """Where WebShop's indexes live: :func:`agentgym.cache.cache_dir` ``/ "webshop"``.

    That is ``$AGENTGYM_CACHE/webshop``, else ``$XDG_CACHE_HOME/agentgym/webshop``, else
    ``~/.cache/agentgym/webshop``.
    """
    return cache_dir("webshop")


def _index_sources(start: Path | None = None) -> list[Path]:
    """``start`` (default: this module) and every module of its package it imports, directly
    or not, through relative imports; sorted by name.

    What the index holds is a function of these sources (the catalog generator, the
    tokenizer), so they are the cache key's code part. Goals, rewards and the envs are not
    cached (goals are regenerated from the index on use), so editing them keeps the cache.
    """
    start = Path(__file__).resolve() if start is None else start
    here = start.parent
    seen: set[str] = set()
    todo = [start.stem]
    while todo:
        name = todo.pop()
        if name in seen or not (here / f"{name}.py").exists():
            continue
        seen.add(name)
        tree = ast.parse((here / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    todo.append(node.module.split(".")[0])
                else:  # from . import a, b
                    todo.extend(alias.name for alias in node.names)
    return [here / f"{name}.py" for name in sorted(seen)]


@lru_cache(maxsize=1)
def index_version() -> str:
    """The cache key of an index's contents (the folder name adds the catalog size).

    It hashes the catalog version constant, the sources the index is built from
    (:func:`_index_sources`, plus :mod:`agentgym.draws`, which every product is drawn
    through, and :mod:`agentgym.bm25`, which scores them), and the versions of ``bm25s``
    (the scores), ``rapidfuzz`` (the catalog keeps confusable options apart with it) and
    numpy (the arithmetic and the file format), so an index built by other code is never
    loaded.

    >>> index_version().startswith("v")
    True
    """
    digest = hashlib.sha256()
    for path in [*_index_sources(), Path(draws.__file__), Path(bm25.__file__)]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    numpy_minor = ".".join(np.__version__.split(".")[:2])
    libraries = f"bm25s={bm25s.__version__};rapidfuzz={rapidfuzz.__version__};numpy={numpy_minor}"
    digest.update(libraries.encode())
    return f"v{CATALOG_VERSION}-{digest.hexdigest()[:12]}"


def _index_folder(num_products: int) -> Path:
    return cache_root() / f"{index_version()}-{num_products}"


def _prune(root: Path, max_age_s: float = 86_400.0) -> None:
    """Delete indexes of other code versions (and their locks, abandoned temp folders) older
    than a day."""
    keep = index_version() + "-"
    now = time.time()
    for path in root.iterdir():
        try:
            mine = path.name.lstrip(".").startswith(keep)
            stale = not mine and now - path.stat().st_mtime > max_age_s
        except OSError:
            continue
        if not stale:
            continue
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        elif path.name.endswith(".lock"):
            path.unlink(missing_ok=True)


def _read_cached(folder: Path, catalog: Catalog) -> SearchIndex | None:
    if not (folder / "meta.json").exists():
        return None
    try:
        return SearchIndex.load(folder, catalog)
    except (OSError, ValueError, KeyError) as exc:  # a damaged cache is rebuilt
        _log.warning("rebuilding damaged WebShop index at %s: %s", folder, exc)
        return None


@contextlib.contextmanager
def _build_progress(total: int) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr while the index is built (one line when not a terminal)."""
    what = f"Building the WebShop search index ({total:,} products, once per machine)"
    console = Console(stderr=True)
    if not console.is_terminal:
        console.print(what, highlight=False, markup=False)
        yield lambda n: None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    try:
        bar = Progress(*columns, console=console, transient=True)
        bar.start()
    except LiveError:  # another live display (an eval's progress bar) owns the terminal
        console.print(what, highlight=False, markup=False)
        yield lambda n: None
        return
    try:
        task = bar.add_task(what, total=total)
        yield lambda n: bar.advance(task, n)
    finally:
        bar.stop()


def _build_and_save(folder: Path, catalog: Catalog) -> SearchIndex:
    """Build the index and write it to ``folder`` (the caller holds the build lock)."""
    start = time.perf_counter()
    with _build_progress(len(catalog)) as advance:
        index = build_index(catalog, progress=advance)
    seconds = time.perf_counter() - start
    try:
        tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=folder.parent))
        index.save(tmp)
        meta = {"num_products": len(catalog), "version": index_version(),
                "build_seconds": round(seconds, 2), "vocab": len(index.vocab)}
        (tmp / "meta.json").write_text(json.dumps(meta))
        if folder.exists():  # a damaged copy; only lock holders write here, so it is ours
            shutil.rmtree(folder, ignore_errors=True)
        try:
            os.rename(tmp, folder)
        except OSError:  # a writer without the lock (an older agentgym) finished first
            shutil.rmtree(tmp, ignore_errors=True)
        _prune(folder.parent)
    except OSError as exc:
        warnings.warn(f"could not cache the WebShop index ({exc}); it stays in memory",
                      stacklevel=3)
    return index


@lru_cache(maxsize=8)
def load_index(num_products: int) -> SearchIndex:
    """The index for the first ``num_products`` products: memoised, else from disk, else built.

    Building 50,000 products takes tens of seconds once (with a progress bar on stderr);
    later loads take well under a second. One process builds while the others that want the
    same index wait for it on a file lock beside the cache folder, then load its copy.
    """
    catalog = Catalog(num_products)
    folder = _index_folder(num_products)
    index = _read_cached(folder, catalog)
    if index is not None:
        return index
    with _build_lock:  # the threads of this process; the file lock orders the processes
        try:
            folder.parent.mkdir(parents=True, exist_ok=True)
            lock = FileLock(folder.parent / f".{folder.name}.lock", timeout=BUILD_WAIT_S)
            lock.acquire()
        except (OSError, Timeout) as exc:
            warnings.warn(f"could not lock the WebShop index cache ({exc}); building it in "
                          "memory", stacklevel=2)
            with _build_progress(len(catalog)) as advance:
                return build_index(catalog, progress=advance)
        try:
            index = _read_cached(folder, catalog)  # another process may have built it
            if index is None:
                index = _build_and_save(folder, catalog)
        finally:
            lock.release()
    return index
