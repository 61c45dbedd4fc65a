"""Bring your own corpus: validation at load (naming the line), the cached index, episodes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import agentgym  # noqa: F401
from agentgym.environments.searchqa import byo
from agentgym.environments.searchqa.byo import (
    EXAMPLE_CORPUS,
    EXAMPLE_QUESTIONS,
    cached_index,
    load_corpus,
    load_questions,
)
from agentgym.environments.searchqa.env import SearchQAEnv
from agentgym.environments.searchqa.retrieval import PassageIndex


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n"
                            for r in rows))
    return path


GOOD = [{"id": "a", "title": "Tarsk", "text": "Tarsk is a city on the Ossa."},
        {"id": 7, "title": "Ossa", "text": "The Ossa is a river."}]


def test_the_example_corpus_is_shipped_and_valid():
    passages = load_corpus(EXAMPLE_CORPUS)
    questions = load_questions(EXAMPLE_QUESTIONS, {p.id for p in passages})
    assert len(passages) == 30 and len(questions) == 12
    assert sum(len(q.gold_ids) == 2 for q in questions) == 11


def test_integer_ids_and_blank_lines_are_fine(tmp_path):
    path = write_jsonl(tmp_path / "c.jsonl", [GOOD[0], "", GOOD[1]])
    assert [p.id for p in load_corpus(path)] == ["a", "7"]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ('{"id": "b", "title": "X", "text": ', "line 2: not valid JSON"),
        ('["b", "X", "text"]', "line 2: expected a JSON object"),
        ({"id": "b", "text": "x"}, "line 2: missing field 'title'"),
        ({"title": "X", "text": "x"}, "line 2: missing field 'id'"),
        ({"id": "b", "title": "X"}, "line 2: missing field 'text'"),
        ({"id": "b", "title": "X", "text": "  "}, "line 2: field 'text' is empty"),
        ({"id": "b", "title": 3, "text": "x"}, "line 2: field 'title' must be a string"),
        ({"id": "a", "title": "X", "text": "x"}, "line 2: id 'a' appears twice"),
        ({"id": None, "title": "X", "text": "x"}, "line 2: field 'id' must be"),
    ],
)
def test_broken_corpus_lines_are_named_at_load(tmp_path, bad, message):
    path = write_jsonl(tmp_path / "c.jsonl", [GOOD[0], bad, GOOD[1]])
    with pytest.raises(ValueError, match=message) as caught:
        load_corpus(path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"answers": ["x"]}, "line 1: missing field 'question'"),
        ({"question": "q?"}, "line 1: missing field 'answers'"),
        ({"question": "q?", "answers": []}, "non-empty list"),
        ({"question": "q?", "answers": "Ossa"}, "non-empty list"),
        ({"question": "q?", "answers": ["Ossa"], "gold_ids": ["zzz"]}, "'zzz' is not in"),
        ({"question": "q?", "answers": ["Ossa"], "gold_ids": "a"}, "list of ids"),
        ("not json", "line 1: not valid JSON"),
    ],
)
def test_broken_question_lines_are_named_at_load(tmp_path, bad, message):
    path = write_jsonl(tmp_path / "q.jsonl", [bad])
    with pytest.raises(ValueError, match=message):
        load_questions(path, {"a", "7"})


def test_empty_files_are_refused(tmp_path):
    with pytest.raises(ValueError, match="no passages"):
        load_corpus(write_jsonl(tmp_path / "c.jsonl", [""]))
    with pytest.raises(ValueError, match="cannot read"):
        load_corpus(tmp_path / "missing.jsonl")


def test_the_index_is_built_once_cached_by_content_and_reread(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTGYM_CACHE", str(tmp_path / "cache"))
    corpus = write_jsonl(tmp_path / "c.jsonl", GOOD)
    passages = load_corpus(corpus)
    first = cached_index(corpus, passages)
    folders = [p for p in (tmp_path / "cache" / "searchqa").iterdir() if p.is_dir()]
    assert len(folders) == 1 and (folders[0] / "meta.json").exists()
    assert folders[0].name.startswith(byo.file_digest(corpus)[:24])

    def no_build(texts):
        raise AssertionError("the cached index should have been read")

    monkeypatch.setattr(PassageIndex, "build", staticmethod(no_build))
    again = cached_index(corpus, passages)
    assert again.search("river Ossa", 2) == first.search("river Ossa", 2) == [1, 0]
    # Other bytes, another key: an edited corpus is never served a stale index.
    monkeypatch.undo()
    monkeypatch.setenv("AGENTGYM_CACHE", str(tmp_path / "cache"))
    edited = write_jsonl(tmp_path / "c.jsonl", [*GOOD, {"id": "z", "title": "Z", "text": "z"}])
    cached_index(edited, load_corpus(edited))
    assert len([p for p in (tmp_path / "cache" / "searchqa").iterdir() if p.is_dir()]) == 2


def test_a_bad_corpus_indexes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTGYM_CACHE", str(tmp_path / "cache"))
    corpus = write_jsonl(tmp_path / "c.jsonl", [GOOD[0], '{"id": 1,', GOOD[1]])
    questions = write_jsonl(tmp_path / "q.jsonl", [{"question": "q?", "answers": ["Ossa"]}])
    with pytest.raises(ValueError, match="line 2"):
        SearchQAEnv(corpus=str(corpus), questions=str(questions))
    assert not (tmp_path / "cache").exists()


def test_a_failed_save_leaves_no_half_index(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTGYM_CACHE", str(tmp_path / "cache"))
    corpus = write_jsonl(tmp_path / "c.jsonl", GOOD)

    def broken_save(self, folder):
        (folder / "index.npz").write_bytes(b"half")
        raise OSError("disk full")

    monkeypatch.setattr(PassageIndex, "save", broken_save)
    with pytest.warns(UserWarning, match="disk full"):
        index = cached_index(corpus, load_corpus(corpus))
    assert index.search("Tarsk", 1) == [0]  # served from memory
    root = tmp_path / "cache" / "searchqa"
    assert [p.name for p in root.iterdir() if p.is_dir()] == []


def test_own_corpus_plays_search_r1_episodes(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTGYM_CACHE", str(tmp_path / "cache"))
    corpus = write_jsonl(tmp_path / "c.jsonl", [
        *GOOD, {"id": "m", "title": "Mira Holt", "text": "Mira Holt was born in Tarsk."}])
    questions = write_jsonl(tmp_path / "q.jsonl", [
        {"question": "Which river flows through the city where Mira Holt was born?",
         "answers": ["Ossa", "the Ossa river"], "gold_ids": ["m", "a"]},
        {"question": "Is there a question without gold passages?", "answers": ["yes"]},
    ])
    env = gym.make("agentgym/SearchQA-v0", corpus=str(corpus), questions=str(questions))
    obs, info = env.reset(seed=0)
    assert "search: Which river flows" in info["available_actions"][0]
    *_, info = env.step("<search>Mira Holt</search>")
    assert info["reward_components"]["process"] == 0.5
    assert "search: Tarsk" in info["available_actions"]  # a span of the passage read
    *_, info = env.step("<search>Tarsk</search>")
    assert info["gold_retrieved"] == 1.0
    _, reward, terminated, _, info = env.step("<answer>Ossa</answer>")
    assert terminated and reward == 1.0 and info["exact_match"] == 1.0
    env.reset(seed=1)  # no gold ids: searching earns no process reward
    *_, info = env.step("<search>Ossa</search>")
    assert info["reward_components"]["process"] == 0.0


def test_processes_building_the_same_index_wait_for_one_build(tmp_path):
    corpus = write_jsonl(tmp_path / "c.jsonl", GOOD)
    script = (
        "import sys\n"
        "from agentgym.environments.searchqa import byo\n"
        "passages = byo.load_corpus(sys.argv[1])\n"
        "print(byo.cached_index(byo.Path(sys.argv[1]), passages).search('Ossa river', 2))\n"
    )
    env = {**os.environ, "AGENTGYM_CACHE": str(tmp_path / "cache")}
    procs = [subprocess.Popen([sys.executable, "-c", script, str(corpus)], env=env,
                              stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert [p.returncode for p in procs] == [0, 0] and outputs == ["[1, 0]", "[1, 0]"]
    root = tmp_path / "cache" / "searchqa"
    assert len([p for p in root.iterdir() if p.is_dir()]) == 1  # one index, no temp left


def test_the_cli_reports_a_broken_corpus_in_one_line(tmp_path, capsys):
    from agentgym.cli import main

    corpus = write_jsonl(tmp_path / "c.jsonl", [GOOD[0], {"id": "b", "title": "U"}])
    questions = write_jsonl(tmp_path / "q.jsonl", [{"question": "q?", "answers": ["x"]}])
    status = main(["eval", "agentgym/SearchQA-v0", "-q", "-k", f"corpus={corpus}",
                   "-k", f"questions={questions}"])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1
    assert "line 2: missing field 'text'" in err and "Traceback" not in err


def test_a_large_corpus_is_indexed_under_a_progress_bar(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTGYM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(byo, "PROGRESS_FROM", 2)
    corpus = write_jsonl(tmp_path / "c.jsonl", GOOD)
    assert cached_index(corpus, load_corpus(corpus)).search("Ossa", 1) == [1]
