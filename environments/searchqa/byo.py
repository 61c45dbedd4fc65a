"""Bring your own corpus: JSONL passages and questions from disk, indexed once and cached.

``corpus`` is JSONL of ``{"id", "title", "text"}`` (wiki-18 as Search-R1 ships it has this
shape once its ``contents`` field is split into title and text); ``questions`` is JSONL of
``{"question", "answers", "gold_ids"?}`` (NQ, TriviaQA, HotpotQA ... converted the same way).
Both are validated in full when loaded: a broken line or a missing field raises a
``ValueError`` naming the file and the line, before anything is indexed.

The BM25 index is built once per corpus file and cached under
``agentgym.cache.cache_dir("searchqa")`` in a folder named after a SHA-256 of the file's
bytes and of the index code, so editing the corpus or upgrading ``bm25s`` builds a new one.
The build writes into a temporary folder that is renamed into place, so no one reads a
half-written index; processes wanting the same index wait on a file lock.

>>> from pathlib import Path
>>> corpus = load_corpus(EXAMPLE_CORPUS)
>>> corpus[0].title
'Amsterdam'
>>> len(load_questions(EXAMPLE_QUESTIONS, {p.id for p in corpus})) >= 10
True
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import threading
import warnings
from collections.abc import Collection
from functools import lru_cache
from pathlib import Path

import bm25s
import numpy as np
from filelock import FileLock
from rich.console import Console
from rich.errors import LiveError

from agentgym import bm25
from agentgym.cache import cache_dir
from agentgym.progress import progress_bar

from . import retrieval
from .corpus import Passage, Question

__all__ = [
    "EXAMPLE_CORPUS",
    "EXAMPLE_QUESTIONS",
    "cached_index",
    "file_digest",
    "load_corpus",
    "load_questions",
]

_HERE = Path(__file__).resolve().parent
#: The small example corpus shipped with the package (a user's own corpus has this shape).
EXAMPLE_CORPUS = _HERE / "example" / "corpus.jsonl"
EXAMPLE_QUESTIONS = _HERE / "example" / "questions.jsonl"
_build_lock = threading.Lock()
#: How long a process waits for another one's index build (seconds).
BUILD_WAIT_S = 3600.0


def _lines(path: Path):
    """(line number, parsed JSON object) for each non-blank line; a bad line raises."""
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as exc:
                raise ValueError(f"{path} line {number}: not valid JSON ({exc.msg})") from None
            if not isinstance(obj, dict):
                raise ValueError(f"{path} line {number}: expected a JSON object, got "
                                 f"{type(obj).__name__}")
            yield number, obj


def _text_field(path: Path, number: int, obj: dict, name: str, *, empty: bool = True) -> str:
    if name not in obj:
        raise ValueError(f"{path} line {number}: missing field {name!r}")
    value = obj[name]
    if not isinstance(value, str):
        raise ValueError(f"{path} line {number}: field {name!r} must be a string, got "
                         f"{type(value).__name__}")
    if not empty and not value.strip():
        raise ValueError(f"{path} line {number}: field {name!r} is empty")
    return value


def load_corpus(path: str | Path) -> list[Passage]:
    """Every passage of a corpus JSONL file, validated (ids may be JSON strings or ints).

    Raises:
        ValueError: naming the file and line of a broken line, a missing or mistyped field,
            an empty text or a repeated id; or the file is unreadable or holds no passage.
    """
    path = Path(path)
    passages: list[Passage] = []
    seen: set[str] = set()
    for number, obj in _lines(path):
        pid = obj.get("id")
        if isinstance(pid, int) and not isinstance(pid, bool):
            pid = str(pid)
        if "id" not in obj:
            raise ValueError(f"{path} line {number}: missing field 'id'")
        if not isinstance(pid, str) or not pid:
            raise ValueError(f"{path} line {number}: field 'id' must be a non-empty string or "
                             "an integer")
        if pid in seen:
            raise ValueError(f"{path} line {number}: id {pid!r} appears twice")
        seen.add(pid)
        title = _text_field(path, number, obj, "title")
        text = _text_field(path, number, obj, "text", empty=False)
        passages.append(Passage(pid, title, text))
    if not passages:
        raise ValueError(f"{path}: the corpus holds no passages")
    return passages


def load_questions(path: str | Path, known_ids: Collection[str]) -> list[Question]:
    """Every question of a questions JSONL file, validated against the corpus's ids.

    Raises:
        ValueError: naming the file and line of a broken line, a missing field, an empty
            answer list, or a gold id the corpus does not have.
    """
    path = Path(path)
    questions: list[Question] = []
    for number, obj in _lines(path):
        question = _text_field(path, number, obj, "question", empty=False)
        if "answers" not in obj:
            raise ValueError(f"{path} line {number}: missing field 'answers'")
        answers = obj["answers"]
        if (not isinstance(answers, list) or not answers
                or not all(isinstance(a, str) and a.strip() for a in answers)):
            raise ValueError(f"{path} line {number}: 'answers' must be a non-empty list of "
                             "non-empty strings")
        gold = obj.get("gold_ids", [])
        if not isinstance(gold, list) or not all(isinstance(g, (str, int)) for g in gold):
            raise ValueError(f"{path} line {number}: 'gold_ids' must be a list of ids")
        gold = [str(g) for g in gold]
        unknown = [g for g in gold if g not in known_ids]
        if unknown:
            raise ValueError(f"{path} line {number}: gold id {unknown[0]!r} is not in the "
                             "corpus")
        questions.append(Question(" ".join(question.split()), tuple(answers),
                                  tuple(dict.fromkeys(gold)), hops=max(1, len(set(gold)))))
    if not questions:
        raise ValueError(f"{path}: the file holds no questions")
    return questions


# ---------------------------------------------------------------------------- the index cache
@lru_cache(maxsize=1)
def _code_version() -> str:
    """What an index's contents depend on besides the corpus: the index code (this family's
    tokenizer and agentgym.bm25), bm25s, numpy."""
    digest = hashlib.sha256(Path(retrieval.__file__).read_bytes())
    digest.update(Path(bm25.__file__).read_bytes())
    numpy_minor = ".".join(np.__version__.split(".")[:2])
    digest.update(f"bm25s={bm25s.__version__};numpy={numpy_minor}".encode())
    return digest.hexdigest()[:12]


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes (read in 1 MiB blocks)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


#: Corpora at least this large show a progress bar while their index is built.
PROGRESS_FROM = 50_000


def _build_with_progress(texts: list[str]) -> retrieval.PassageIndex:
    """Build the index, with a progress bar on stderr for a large corpus (a one-line note
    instead when another live display, an eval's bar, owns the terminal)."""
    if len(texts) < PROGRESS_FROM:
        return retrieval.PassageIndex.build(texts)
    what = f"Indexing {len(texts):,} passages (once per corpus file)"
    console = Console(stderr=True)
    bar = progress_bar(console.is_terminal, console)
    try:
        bar.start()
    except LiveError:
        console.print(what, highlight=False, markup=False)
        return retrieval.PassageIndex.build(texts)
    try:
        task = bar.add_task(what, total=len(texts))
        return retrieval.PassageIndex.build(texts, progress=lambda n: bar.advance(task, n))
    finally:
        bar.stop()


def _save(index: retrieval.PassageIndex, folder: Path, meta: dict) -> None:
    """Write the index into a temporary folder beside ``folder``, then rename it into place:
    a reader sees the whole index or none. A cache that cannot be written is skipped."""
    try:
        tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=folder.parent))
    except OSError as exc:
        warnings.warn(f"could not cache the SearchQA index ({exc}); it stays in memory",
                      stacklevel=3)
        return
    try:
        index.save(tmp)
        (tmp / "meta.json").write_text(json.dumps(meta))  # written last: marks it complete
        if folder.exists():  # a damaged copy; only lock holders write here
            shutil.rmtree(folder, ignore_errors=True)
        os.rename(tmp, folder)
    except OSError as exc:
        warnings.warn(f"could not cache the SearchQA index ({exc}); it stays in memory",
                      stacklevel=3)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cached_index(path: Path, passages: list[Passage]) -> retrieval.PassageIndex:
    """The BM25 index of the corpus file at ``path`` (whose validated passages are given):
    from the disk cache, else built, saved atomically and returned.

    When the cache cannot be written (a read-only home) the index is built in memory.
    """
    folder = cache_dir("searchqa") / f"{file_digest(path)[:24]}-{_code_version()}"
    texts = [p.indexed_text() for p in passages]

    def read() -> retrieval.PassageIndex | None:
        if not (folder / "meta.json").exists():
            return None
        try:
            index = retrieval.PassageIndex.load(folder)
        except (OSError, ValueError, KeyError):
            return None  # a damaged cache is rebuilt
        return index if index.num_docs == len(passages) else None

    index = read()
    if index is not None:
        return index
    with _build_lock:  # the threads of this process; the file lock orders the processes
        try:
            folder.parent.mkdir(parents=True, exist_ok=True)
            lock = FileLock(str(folder) + ".lock", timeout=BUILD_WAIT_S)
            lock.acquire()
        except OSError:
            return retrieval.PassageIndex.build(texts)
        try:
            index = read()
            if index is not None:
                return index
            index = _build_with_progress(texts)
            _save(index, folder, {"corpus": str(path), "passages": len(passages)})
            return index
        finally:
            lock.release()
