"""The env-server images (``docker/``): built, run read-only as uid 1000, played through a port.

``scripts/build_images.sh`` builds ``agentgym/server-python`` (agentgym[server], no ids), the
pure-Python families' images on it (games, markets, household, searchqa, workplace: a CMD
each) and ``agentgym/server-webshop`` (cached by a source hash: a second run only hashes).
Each test starts a container the way ``docker/compose.yaml`` does (read-only root, a tmpfs on
/tmp, the port published on loopback), waits for Docker's own HEALTHCHECK to say healthy, then
plays an episode with ``gym.make(id, server_url=...)`` and with the local env, step by step,
and requires the same observations, rewards and ends. Needs a Docker daemon and
``agentgym/base:bookworm`` (``agentgym docker build-base``); without them every test skips
and says why.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import gymnasium as gym
import pytest

import agentgym  # noqa: F401 (registers the ids)
from agentgym.sandbox.base_image import BASE_IMAGE, base_image_present

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "build_images.sh"
COMPOSE = ROOT / "docker" / "compose.yaml"
LABEL = "agentgym.server-image-test"
#: This process's containers (pytest-xdist runs several; each cleans up only its own).
OWNER = {LABEL: "1", f"{LABEL}.owner": str(os.getpid())}
HEALTHY_WITHIN_S = 60.0
#: The families whose image is agentgym/server-python plus the CMD naming their ids.
PARENTED = ("games", "markets", "household", "searchqa", "workplace")

if not base_image_present():
    pytest.skip(f"needs a Docker daemon holding {BASE_IMAGE} (scripts/start_docker.sh, then "
                "`agentgym docker build-base`)", allow_module_level=True)

docker = pytest.importorskip("docker", reason="the docker extra (pip install docker) is missing")


@pytest.fixture(scope="module")
def client():
    c = docker.from_env()
    yield c
    # Whatever a failed test left behind (the fixtures remove their own containers).
    owned = [f"{key}={value}" for key, value in OWNER.items()]
    for leftover in c.containers.list(all=True, filters={"label": owned}):
        with contextlib.suppress(docker.errors.NotFound, docker.errors.APIError):
            leftover.remove(force=True)
    c.close()


@pytest.fixture(scope="module")
def images() -> dict[str, str]:
    """The images, built (or found up to date) by the script; one build at a time."""
    from filelock import FileLock

    with FileLock(os.path.join(tempfile.gettempdir(), "agentgym-build-images.lock")):
        done = subprocess.run(["bash", str(SCRIPT)], cwd=ROOT, capture_output=True, text=True,
                              timeout=1200)
    tail = "\n".join((done.stderr + done.stdout).strip().splitlines()[-15:])
    assert done.returncode == 0, f"build_images.sh failed:\n{tail}"
    return {family: f"agentgym/server-{family}:latest"
            for family in ("python", *PARENTED, "webshop")}


class Server(NamedTuple):
    """A running server container: its handle, base URL and seconds from start to healthy."""

    container: Any
    url: str
    healthy_s: float


def _start(client, image: str) -> Server:
    """Run ``image`` like compose does and wait until Docker reports it healthy."""
    start = time.monotonic()
    container = client.containers.run(
        image, detach=True, read_only=True, tmpfs={"/tmp": "size=512m,mode=1777"},
        shm_size="1g", ports={"8000/tcp": ("127.0.0.1", None)}, labels=OWNER)
    try:
        status = "starting"
        while time.monotonic() - start < HEALTHY_WITHIN_S:
            container.reload()
            status = container.attrs["State"].get("Health", {}).get("Status", "none")
            if status == "healthy" or container.status == "exited":
                break
            time.sleep(0.2)
        logs = container.logs().decode(errors="replace")[-2000:]
        assert status == "healthy", f"{image} is {status} ({container.status}):\n{logs}"
        port = container.attrs["NetworkSettings"]["Ports"]["8000/tcp"][0]["HostPort"]
    except BaseException:
        container.remove(force=True)
        raise
    return Server(container, f"http://127.0.0.1:{port}", time.monotonic() - start)


def _server_fixture(family: str):
    """A module-scoped fixture: the family's image running, removed after the module."""
    @pytest.fixture(scope="module")
    def server(client, images) -> Iterator[Server]:
        running = _start(client, images[family])
        print(f"agentgym/server-{family} healthy after {running.healthy_s:.1f} s")
        yield running
        running.container.remove(force=True)

    return server


games = _server_fixture("games")
markets = _server_fixture("markets")
household = _server_fixture("household")
searchqa = _server_fixture("searchqa")
workplace = _server_fixture("workplace")
webshop = _server_fixture("webshop")


class Played(NamedTuple):
    """How a game played on both sides went: steps taken, and whether the local env won."""

    steps: int
    success: bool


def _play_both(env_id: str, url: str, seed: int, steps: int, oracle: bool = False,
               **kwargs) -> Played:
    """Play the same actions remotely and locally; assert each step agrees.

    The action each step is picked from the local env's ``available_actions`` (cycling
    through them), so both sides see the same, mostly valid, moves; with ``oracle`` it is the
    local env's first ``oracle_actions()``, which plays the episode to its goal.
    """
    remote = gym.make(env_id, server_url=url, **kwargs)
    local = gym.make(env_id, **kwargs)
    try:
        r_obs, r_info = remote.reset(seed=seed)
        l_obs, l_info = local.reset(seed=seed)
        assert r_obs == l_obs
        assert r_info["available_actions"] == l_info["available_actions"]
        for t in range(steps):
            if oracle:
                action = local.unwrapped.oracle_actions()[0]
            else:
                choices = l_info["available_actions"]
                action = choices[(t * 7 + 3) % len(choices)]
            r_obs, r_rew, r_term, r_trunc, r_info = remote.step(action)
            l_obs, l_rew, l_term, l_trunc, l_info = local.step(action)
            assert (r_obs, r_rew, r_term, r_trunc) == (l_obs, l_rew, l_term, l_trunc), (
                f"{env_id} step {t} ({action!r}) differs")
            assert r_info["available_actions"] == l_info["available_actions"]
            if l_term or l_trunc:
                return Played(t + 1, bool(l_info["success"]))
        return Played(steps, bool(l_info["success"]))
    finally:
        remote.close()
        local.close()


def test_games_image_runs_as_agent_on_a_read_only_root(client, images, games):
    config = client.images.get(images["games"]).attrs["Config"]
    assert config["User"] == "1000:1000"
    assert "/health" in " ".join(config["Healthcheck"]["Test"])
    container = games.container
    assert container.attrs["HostConfig"]["ReadonlyRootfs"] is True
    code, out = container.exec_run(["sh", "-c", "id -u; touch /opt/x 2>&1; touch /tmp/x"])
    lines = out.decode().splitlines()
    assert lines[0] == "1000"
    assert "Read-only file system" in lines[1]
    assert code == 0  # /tmp (the tmpfs) is writable


@pytest.mark.parametrize("env_id", ["agentgym/Sokoban-v0", "agentgym/Sudoku-v0",
                                    "agentgym/Minesweeper-v0", "agentgym/TicTacToe-v0"])
def test_games_image_plays_like_the_local_env(games, env_id):
    assert _play_both(env_id, games.url, seed=11, steps=12).steps >= 1


@pytest.mark.parametrize("env_id", ["agentgym/Negotiation-v0", "agentgym/BazaarB2C-v0",
                                    "agentgym/BazaarC2C-v0"])
def test_markets_image_plays_like_the_local_env(markets, env_id):
    assert _play_both(env_id, markets.url, seed=11, steps=12).steps >= 1


def test_pure_python_images_are_server_python_plus_their_ids(client, images):
    """One install for all: each family's image has the parent's layers and its own CMD."""
    from agentgym.registry import ENVIRONMENTS

    parent = client.images.get(images["python"]).attrs
    assert parent["Config"]["Cmd"] in (None, [])  # the ids come from the child or `docker run`
    for family in PARENTED:
        child = client.images.get(images[family]).attrs
        assert child["RootFS"]["Layers"] == parent["RootFS"]["Layers"], family
        for key in ("Entrypoint", "User", "Env", "Healthcheck", "ExposedPorts"):
            assert child["Config"][key] == parent["Config"][key], (family, key)
        cmd = child["Config"]["Cmd"]
        ids = cmd[:cmd.index("--host")]
        assert ids == [e.id for e in ENVIRONMENTS if f"environments.{family}." in e.entry_point]
        assert child["Config"]["Labels"]["agentgym.server-image"] == family
    # The install stages' untagged images are removed after each build, not left to pile up.
    assert client.images.list(filters={"dangling": True,
                                       "label": "agentgym.build-stage=install"}) == []


@pytest.mark.parametrize(("seed", "kwargs"), [
    (11, {}), (4, {"split": "unseen", "task_type": "pick_heat_then_place_in_recep"})])
def test_household_image_plays_to_the_goal_like_the_local_env(household, seed, kwargs):
    played = _play_both("agentgym/Household-v0", household.url, seed=seed, steps=60, oracle=True,
                        **kwargs)
    assert played.success, played
    assert _play_both("agentgym/Household-v0", household.url, seed=seed, steps=10,
                      **kwargs).steps >= 1


@pytest.mark.parametrize(("seed", "kwargs"), [
    (11, {}), (4, {"domain": "helpdesk"}), (7, {"domain": "travel", "split": "test"})])
def test_workplace_image_plays_to_the_goal_like_the_local_env(workplace, seed, kwargs):
    played = _play_both("agentgym/Workplace-v0", workplace.url, seed=seed, steps=60, oracle=True,
                        **kwargs)
    assert played.success, played
    assert _play_both("agentgym/Workplace-v0", workplace.url, seed=seed, steps=10,
                      **kwargs).steps >= 1


@pytest.mark.parametrize("kwargs", [{}, {"min_hops": 3}], ids=["world", "three-hops"])
def test_searchqa_image_plays_to_the_answer_like_the_local_env(searchqa, kwargs):
    played = _play_both("agentgym/SearchQA-v0", searchqa.url, seed=11, steps=12, oracle=True,
                        **kwargs)
    assert played.success, played
    assert _play_both("agentgym/SearchQA-v0", searchqa.url, seed=11, steps=8,
                      **kwargs).steps >= 1


def test_searchqa_image_serves_the_example_corpus_from_its_tmpfs_cache(searchqa):
    """corpus="example" ships in the wheel; its index is cached on /tmp (the root is read-only)."""
    for seed in (0, 3):
        played = _play_both("agentgym/SearchQA-v0", searchqa.url, seed=seed, steps=8,
                            oracle=True, corpus="example")
        assert played.success, played
    code, out = searchqa.container.exec_run(
        ["sh", "-c", "ls /tmp/agentgym-cache/searchqa; env | grep ^AGENTGYM_CACHE="])
    lines = out.decode().split()
    assert code == 0, lines
    assert any(not name.endswith(".lock") for name in lines[:-1]), lines  # an index folder
    assert lines[-1] == "AGENTGYM_CACHE=/tmp/agentgym-cache"
    logs = searchqa.container.logs().decode(errors="replace")
    assert "could not cache" not in logs, logs[-1000:]


def test_webshop_image_plays_text_mode_like_the_local_env(webshop):
    assert _play_both("agentgym/WebShop-v0", webshop.url, seed=5, steps=6).steps >= 2
    # The index came from the image, not rebuilt in memory for want of a writable cache.
    logs = webshop.container.logs().decode(errors="replace")
    assert "could not" not in logs, logs[-1000:]


def test_webshop_image_plays_browser_mode_like_the_local_env(webshop):
    """The image's Chromium (uid 1000, read-only root) renders what the local one renders."""
    from agentgym.browser import browser_available

    if not browser_available():
        pytest.skip("the local side of the comparison needs Playwright and Chromium here "
                    "(scripts/install_browser.sh)")
    assert _play_both("agentgym/WebShop-v0", webshop.url, seed=5, steps=3,
                      mode="browser").steps >= 2


@pytest.mark.skipif(shutil.which("docker-compose") is None,
                    reason="docker-compose is not installed")
def test_compose_file_is_valid_and_hardened():
    done = subprocess.run(["docker-compose", "-f", str(COMPOSE), "config"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr.strip()
    yaml = pytest.importorskip("yaml", reason="PyYAML is missing (the dev extra has it)")
    services = yaml.safe_load(done.stdout)["services"]
    assert sorted(services) == sorted([*PARENTED, "webshop"])
    for name, service in services.items():
        assert service["read_only"] is True, name
        assert service["user"] == "1000:1000", name
        assert any(t.startswith("/tmp") for t in service["tmpfs"]), name
        assert "/health" in " ".join(service["healthcheck"]["test"]), name
        assert all(p.startswith("127.0.0.1:") for p in service["ports"]), name


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(shutil.which("docker-compose") is None,
                    reason="docker-compose is not installed")
def test_compose_starts_every_server_healthy(client, images):
    """``docker-compose up`` as documented, on free ports: all healthy, all answer."""
    import httpx

    project = f"agentgym-image-test-{os.getpid()}"
    ports = {service: _free_port() for service in (*PARENTED, "webshop")}
    env = {**os.environ, **{f"AGENTGYM_{service.upper()}_PORT": str(port)
                            for service, port in ports.items()}}
    compose = ["docker-compose", "-p", project, "-f", str(COMPOSE)]
    try:
        up = subprocess.run([*compose, "up", "-d"], env=env, capture_output=True, text=True,
                            timeout=120)
        assert up.returncode == 0, up.stderr.strip()[-1000:]
        containers = client.containers.list(
            filters={"label": f"com.docker.compose.project={project}"})
        assert len(containers) == len(ports)
        deadline = time.monotonic() + HEALTHY_WITHIN_S
        health = {}
        while time.monotonic() < deadline:
            for c in containers:
                c.reload()
            health = {c.labels["com.docker.compose.service"]:
                      c.attrs["State"].get("Health", {}).get("Status") for c in containers}
            if set(health.values()) == {"healthy"}:
                break
            time.sleep(0.5)
        assert health == dict.fromkeys(ports, "healthy")
        for service, port in ports.items():
            reply = httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).json()
            assert reply["status"] == "ok", service
        assert "agentgym/Sokoban-v0" in httpx.get(
            f"http://127.0.0.1:{ports['games']}/health", timeout=5).json()["env_ids"]
        assert httpx.get(f"http://127.0.0.1:{ports['searchqa']}/health",
                         timeout=5).json()["env_ids"] == ["agentgym/SearchQA-v0"]
    finally:
        subprocess.run([*compose, "down", "-t", "2"], env=env, capture_output=True,
                       timeout=120)
