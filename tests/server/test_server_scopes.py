"""What a remote client may set (issue 32): only the kwargs an env's declared config gives
client scope, within the client ceilings; the operator sets the rest with ``serve -k``.

Found by an attacker's trial: a client could point SearchQA's ``corpus=`` at host files (the
error told a missing path from an existing one), pick Terminal-v0's weaker ``bwrap`` sandbox
or a host task directory, and ask for worlds that exhaust the server.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import websockets.sync.client
from server_support import ROOT, ServerProcess

SEARCHQA, TERMINAL, TTT = "agentgym/SearchQA-v0", "agentgym/Terminal-v0", "agentgym/TicTacToe-v0"
EXAMPLE = Path(ROOT) / "environments" / "searchqa" / "example"


def refusal(client: httpx.Client, env_id: str, kwargs: dict) -> str:
    reply = client.post("/sessions", json={"env_id": env_id, "kwargs": kwargs})
    assert reply.status_code == 400, (reply.status_code, reply.text[:300])
    error = reply.json()["error"]
    assert "\n" not in error and "Traceback" not in reply.text
    return error


@pytest.fixture(scope="module")
def server():
    server = ServerProcess((SEARCHQA, TERMINAL, TTT)).start()
    yield server
    server.stop()


def test_a_host_path_gets_the_same_refusal_whether_it_exists_or_not(server, tmp_path):
    real = tmp_path / "corpus.jsonl"
    shutil.copy(EXAMPLE / "corpus.jsonl", real)  # a file of exactly the right shape
    with httpx.Client(base_url=server.url, timeout=10.0) as client:
        for key in ("corpus", "questions"):
            errors = {refusal(client, SEARCHQA, {key: path})
                      for path in (str(real), str(tmp_path / "missing.jsonl"), "/etc/passwd")}
            assert len(errors) == 1, errors
            assert errors.pop().startswith(key)


def test_a_sandbox_backend_or_a_task_directory_is_operator_only(server, tmp_path):
    task = tmp_path / "task"
    task.mkdir()
    (task / "task.toml").write_text("version = '1.0'\n")
    with httpx.Client(base_url=server.url, timeout=10.0) as client:
        for backend in ("bwrap", "docker", "auto"):
            assert refusal(client, TERMINAL, {"backend": backend}) == (
                "backend is operator-only: a remote client may not set it")
        errors = {refusal(client, TERMINAL, {"task": path})
                  for path in (str(task), str(tmp_path / "missing"), "/etc")}
        assert len(errors) == 1 and "task must be one of" in errors.pop()


def test_a_huge_size_is_refused_before_anything_is_built(server):
    with httpx.Client(base_url=server.url, timeout=10.0) as client:
        error = refusal(client, SEARCHQA, {"scale": 742})
        assert "when a remote client sets it" in error and "742" in error
        assert client.get("/health").status_code == 200


def test_schema_shows_clients_only_what_they_may_set(server):
    with httpx.Client(base_url=server.url, timeout=10.0) as client:
        envs = client.get("/schema").json()["envs"]
    names = {k["name"] for k in envs[SEARCHQA]["kwargs"]}
    assert "scale" in names and "corpus" in names and "questions" not in names
    config = envs[SEARCHQA]["config"]["properties"]
    assert "questions" not in config and config["corpus"]["enum"] == [None, "example"]
    scale = next(k for k in envs[SEARCHQA]["kwargs"] if k["name"] == "scale")
    assert scale["allowed"].endswith(str(config["scale"]["maximum"]))
    assert "backend" not in {k["name"] for k in envs[TERMINAL]["kwargs"]}


def test_openenv_env_kwargs_are_judged_the_same_way(server):
    url = server.url.replace("http", "ws") + f"/openenv/{SEARCHQA}/ws"
    with websockets.sync.client.connect(url) as ws:
        ws.send('{"type": "reset", "data": {"env_kwargs": {"questions": "/etc/passwd"}}}')
        reply = ws.recv()
        assert "questions is operator-only" in reply and "error" in reply
        ws.send('{"type": "reset", "data": {"seed": 0}}')
        assert '"observation"' in ws.recv()  # the connection and its session live on


def test_an_operator_set_corpus_serves_every_client(tmp_path):
    corpus, questions = tmp_path / "c.jsonl", tmp_path / "q.jsonl"
    shutil.copy(EXAMPLE / "corpus.jsonl", corpus)
    shutil.copy(EXAMPLE / "questions.jsonl", questions)
    server = ServerProcess((SEARCHQA,), args=("-k", f"corpus={corpus}",
                                              "-k", f"questions={questions}")).start()
    try:
        with httpx.Client(base_url=server.url, timeout=10.0) as client:
            sid = client.post("/sessions", json={"env_id": SEARCHQA}).json()["session_id"]
            obs = client.post(f"/sessions/{sid}/reset", json={"seed": 0}).json()["observation"]
            first = questions.read_text().splitlines()[0]
            assert any(word in obs for word in first.split('"question": "')[1].split()[:3])
            # The client still may not swap the operator's corpus for a path of its own ...
            assert "corpus must be one of" in refusal(client, SEARCHQA, {"corpus": str(corpus)})
            # ... nor for the bundled one: with the operator's questions it would have read
            # them against another corpus, naming private gold ids in the error.
            assert refusal(client, SEARCHQA, {"corpus": "example"}) == (
                "corpus is set by this server's operator; a remote client may not change it")
            envs = client.get("/schema").json()["envs"]
        kwargs = {k["name"]: k for k in envs[SEARCHQA]["kwargs"]}
        assert "corpus" not in kwargs and "corpus" not in envs[SEARCHQA]["config"]["properties"]
        assert str(tmp_path) not in str(envs)  # the operator's paths are not shown
    finally:
        server.stop()


def test_serve_refuses_a_bad_operator_kwarg_in_one_line():
    for args, words in ((["-k", "scale=743"], "scale must be in [1, 742]"),
                        (["-k", "sise=3"], "-k sise: no hosted env takes it")):
        run = subprocess.run([sys.executable, "-m", "agentgym.cli", "serve", SEARCHQA, "--port",
                              "0", *args], capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert run.returncode != 0 and words in run.stderr, run.stderr
        assert "Traceback" not in run.stderr


def test_a_session_whose_state_the_client_supplied_steps_off_the_event_loop():
    """A crafted snapshot (a hard Minesweeper frontier) or hand-drawn level (an open Sokoban
    room) made every inline step cost up to 1.4 s on the event loop: /health stalled 25 s for
    one 32-action score. Such a session's calls now run in a worker thread."""
    import asyncio

    from agentgym.server.sessions import SessionStore

    async def play() -> list[bool]:
        store = SessionStore(["agentgym/Sokoban-v0"])
        made = await store.handle("create", None, {"env_id": "agentgym/Sokoban-v0"})
        sid = made.body["session_id"]
        await store.handle("reset", sid, {"seed": 0})
        inline = [store.sessions[sid].inline]
        state = (await store.handle("state", sid, {})).body["state"]
        await store.handle("set_state", sid, {"state": state})
        inline.append(store.sessions[sid].inline)
        other = (await store.handle("create", None, {"env_id": "agentgym/Sokoban-v0"})
                 ).body["session_id"]
        level = ["#####", "#@$.#", "#####"]
        await store.handle("reset", other, {"seed": 0, "options": {"level": level}})
        inline.append(store.sessions[other].inline)
        return inline

    assert asyncio.run(play()) == [True, False, False]
