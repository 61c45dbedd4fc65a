"""The Kubernetes manifests in k8s/: valid against the Kubernetes schemas, and the project's rules.

No cluster is needed. ``kubernetes-validate`` ships the JSON schemas of each Kubernetes release
it supports inside its wheel; every document of every manifest is checked in strict mode
(unknown fields refused) against the oldest release the manifests promise (1.30) and the
newest the package has. The schemas accept what a cluster would refuse later (null values, a
memory of "lots", a negative port), so the project's own rules come on top: resources with
limits that hold the tmpfs, probes on the server's real ``/health``, a non-root read-only
container, a Service that selects its Deployment's pods on port 8000, and the ids served equal
to the family's ids in the registry.
"""

from __future__ import annotations

import copy
import re
import secrets
import shutil
import socket
import subprocess
import time
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from agentgym.registry import ENVIRONMENTS

yaml = pytest.importorskip("yaml", reason="PyYAML reads the manifests (pip install pyyaml)")

ROOT = Path(__file__).resolve().parent.parent
K8S = ROOT / "k8s"
MANIFESTS = sorted(p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
PORT = 8000
#: The oldest Kubernetes release the manifests are checked against (the newest: the package's).
OLDEST = "1.30"
#: Families with no server manifest, and why (a family missing from both fails the test).
UNSERVED = {
    "terminal": "each session starts Docker containers; a pod has no Docker daemon",
}


def _family(entry_point: str) -> str:
    """``agentgym.environments.games.sokoban.env:SokobanEnv`` -> ``games``."""
    module = entry_point.split(":")[0]
    prefix = "agentgym.environments."
    assert module.startswith(prefix), f"{entry_point} is outside agentgym.environments"
    return module[len(prefix):].split(".")[0]


FAMILY_IDS: dict[str, list[str]] = {}
for _entry in ENVIRONMENTS:
    FAMILY_IDS.setdefault(_family(_entry.entry_point), []).append(_entry.id)


def _documents(path: Path) -> list[dict[str, Any]]:
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
    assert docs, f"{path.name} holds no document"
    return docs


def _one(path: Path, kind: str) -> dict[str, Any]:
    found = [d for d in _documents(path) if d["kind"] == kind]
    assert len(found) == 1, f"{path.name}: {len(found)} {kind} documents, want 1"
    return found[0]


def _pod(path: Path) -> dict[str, Any]:
    return _one(path, "Deployment")["spec"]["template"]["spec"]


def _containers(path: Path) -> list[dict[str, Any]]:
    pod = _pod(path)
    return pod["containers"] + pod.get("initContainers", [])


def _server(path: Path) -> dict[str, Any]:
    (server,) = (c for c in _pod(path)["containers"] if c["name"] == "server")
    return server


_QUANTITY = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$")
_SUFFIX = {None: 1, "m": Fraction(1, 1000), "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
           "P": 10**15, "E": 10**18, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40,
           "Pi": 2**50, "Ei": 2**60}


def quantity(text: str | int) -> Fraction:
    """A Kubernetes resource quantity (the forms the manifests use) as a number.

    >>> quantity("250m"), quantity("64Mi"), quantity("1")
    (Fraction(1, 4), Fraction(67108864, 1), Fraction(1, 1))
    """
    match = _QUANTITY.match(str(text))
    if match is None:
        raise ValueError(f"not a Kubernetes quantity: {text!r}")
    return Fraction(match.group(1)) * _SUFFIX[match.group(2)]


def _served(server: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """The ids and the ``--option value`` pairs of an ``agentgym serve`` container."""
    assert server["command"] == ["agentgym", "serve"], server["command"]
    args = server["args"]
    first = next((i for i, a in enumerate(args) if a.startswith("--")), len(args))
    options = args[first:]
    assert len(options) % 2 == 0, f"an option without a value in {options}"
    return args[:first], dict(zip(options[::2], options[1::2], strict=True))


def test_every_family_has_a_manifest_or_a_reason():
    assert MANIFESTS, "no manifest in k8s/"
    served = {p.stem for p in MANIFESTS}
    assert served.isdisjoint(UNSERVED)
    assert served | set(UNSERVED) == set(FAMILY_IDS), (served, set(FAMILY_IDS))


def test_kustomization_applies_every_manifest():
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    assert kustomization["kind"] == "Kustomization"
    assert sorted(kustomization["resources"]) == [p.name for p in MANIFESTS]


@pytest.fixture(scope="module")
def kubernetes_validate():
    return pytest.importorskip(
        "kubernetes_validate", reason="the schema checks need kubernetes-validate (pip install "
        "'kubernetes-validate>=1.30'; it ships the schemas, no download)",
    )


def _versions() -> list[str]:
    try:
        from kubernetes_validate.utils import latest_version
    except ImportError:  # the tests that use them skip with the reason above
        return [OLDEST]
    return sorted({OLDEST, ".".join(latest_version().split(".")[:2])})


@pytest.mark.parametrize("version", _versions())
@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_every_document_is_valid_in_strict_mode(kubernetes_validate, path, version):
    for doc in _documents(path):
        checked = kubernetes_validate.validate(doc, version, strict=True)
        assert checked == version, f"{doc['kind']} checked against {checked}, not {version}"


def _set(path: tuple, value: Any):
    def mutate(doc: dict[str, Any]) -> None:
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return mutate


def _drop(path: tuple):
    def mutate(doc: dict[str, Any]) -> None:
        node = doc
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return mutate


_SERVER = ("spec", "template", "spec", "containers", 0)


@pytest.mark.parametrize(
    ("mutate", "where", "why"),
    [
        (_set((*_SERVER, "readinessProbe", "httpGet", "pth"), "/health"),
         [*_SERVER, "readinessProbe", "httpGet"], "'pth' was unexpected"),
        (_set((*_SERVER, "securityContext", "readOnlyRootFileSystem"), True),
         [*_SERVER, "securityContext"], "'readOnlyRootFileSystem' was unexpected"),
        (_set(("spec", "replica"), 2), ["spec"], "'replica' was unexpected"),
        (_set(("spec", "replicas"), "two"), ["spec", "replicas"], "is not of type"),
        (_set((*_SERVER, "ports", 0, "containerPort"), "8000"),
         [*_SERVER, "ports", 0, "containerPort"], "is not of type"),
        (_drop((*_SERVER, "name")), list(_SERVER), "'name' is a required property"),
        (_drop(("spec", "selector")), ["spec"], "'selector' is a required property"),
    ],
    ids=["misspelled-probe-field", "misspelled-camel-case", "misspelled-spec-field",
         "string-replicas", "string-port", "no-container-name", "no-selector"],
)
def test_the_validator_rejects_a_bad_manifest(kubernetes_validate, mutate, where, why):
    good = _one(MANIFESTS[0], "Deployment")
    kubernetes_validate.validate(good, OLDEST, strict=True)
    bad = copy.deepcopy(good)
    mutate(bad)
    with pytest.raises(kubernetes_validate.ValidationError) as caught:
        kubernetes_validate.validate(bad, OLDEST, strict=True)
    assert list(caught.value.absolute_path) == where
    assert why in caught.value.message


def test_the_schemas_are_read_offline(kubernetes_validate, monkeypatch):
    # Any connection or name lookup fails: the schemas must come from the installed package.
    def refuse(*args, **kwargs):
        raise AssertionError("kubernetes-validate reached for the network")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    for path in MANIFESTS:
        for doc in _documents(path):
            kubernetes_validate.validate(doc, OLDEST, strict=True)


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_no_null_values(path):
    # The schemas allow null for every field; a null is a typo that a cluster reads as unset.
    def walk(node: Any, where: str) -> None:
        assert node is not None, f"{path.name}: null at {where}"
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}[{i}]")

    for doc in _documents(path):
        walk(doc, doc["kind"])


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_one_deployment_and_its_service(path):
    docs = _documents(path)
    assert sorted(d["kind"] for d in docs) == ["Deployment", "Service"]
    deployment, service = _one(path, "Deployment"), _one(path, "Service")
    assert deployment["metadata"]["name"] == service["metadata"]["name"] == f"agentgym-{path.stem}"
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    selector = deployment["spec"]["selector"]["matchLabels"]
    assert selector.items() <= pod_labels.items()
    # The Service selects exactly this Deployment's pods: its selector is the Deployment's.
    assert service["spec"]["selector"] == selector
    assert pod_labels["app.kubernetes.io/component"] == path.stem
    for labels in (deployment["metadata"]["labels"], pod_labels, service["metadata"]["labels"]):
        assert labels["app.kubernetes.io/version"] == VERSION
    # Sessions live in one pod: a client must keep reaching the pod that created them.
    assert service["spec"]["type"] == "ClusterIP"
    assert service["spec"]["sessionAffinity"] == "ClientIP"


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_ports_are_8000_end_to_end(path):
    server = _server(path)
    (port,) = server["ports"]
    assert port["containerPort"] == PORT and port["protocol"] == "TCP"
    (service_port,) = _one(path, "Service")["spec"]["ports"]
    assert service_port["port"] == PORT
    assert service_port["targetPort"] in (port["name"], PORT)
    _, options = _served(server)
    assert options["--port"] == str(PORT)
    assert options["--host"] == "0.0.0.0"  # reachable from the pod network, not loopback only


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_the_ids_served_are_the_familys_registered_ids(path):
    import agentgym

    ids, _ = _served(_server(path))
    assert set(ids) <= set(agentgym.env_ids())
    assert ids == FAMILY_IDS[path.stem]


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_image_is_the_familys_at_the_project_version(path):
    for container in _containers(path):
        assert container["image"] == f"agentgym/server-{path.stem}:{VERSION}"
        # The images are built locally (scripts, not a registry): never pull them.
        assert container["imagePullPolicy"] == "IfNotPresent"


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_every_container_has_requests_within_limits(path):
    pod = _pod(path)
    tmpfs = {v["name"]: quantity(v["emptyDir"]["sizeLimit"]) for v in pod["volumes"]
             if v.get("emptyDir", {}).get("medium") == "Memory"}
    for container in _containers(path):
        resources = container["resources"]
        for name in ("cpu", "memory"):
            request = quantity(resources["requests"][name])
            limit = quantity(resources["limits"][name])
            assert 0 < request <= limit, f"{container['name']} {name}: {request} > {limit}"
        # A memory-backed emptyDir is charged to the container that writes it: the limit must
        # hold the tmpfs mounts full plus the process (at least 64 MiB, the idle server).
        mounted = sum(tmpfs.get(m["name"], 0) for m in container.get("volumeMounts", []))
        assert quantity(resources["limits"]["memory"]) >= mounted + quantity("64Mi")


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_containers_run_non_root_on_a_read_only_root(path):
    pod = _pod(path)
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == 1000
    assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
    assert pod["automountServiceAccountToken"] is False
    for container in _containers(path):
        context = container["securityContext"]
        assert context["runAsNonRoot"] is True and context["runAsUser"] == 1000
        assert context["readOnlyRootFilesystem"] is True
        assert context["allowPrivilegeEscalation"] is False
        assert context["capabilities"]["drop"] == ["ALL"]
        assert "add" not in context["capabilities"]
        assert context["seccompProfile"]["type"] == "RuntimeDefault"
        assert "privileged" not in context or context["privileged"] is False


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_writable_paths_are_bounded_memory_emptydirs(path):
    pod = _pod(path)
    volumes = {v["name"]: v for v in pod["volumes"]}
    for container in _containers(path):
        mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
        assert "/tmp" in mounts, f"{container['name']} has no writable /tmp"
        for name in mounts.values():
            empty_dir = volumes[name]["emptyDir"]
            assert empty_dir["medium"] == "Memory"
            assert quantity(empty_dir["sizeLimit"]) > 0


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_probes_ask_health_on_the_server_port(path):
    server = _server(path)
    named = {p["name"]: p["containerPort"] for p in server["ports"]}
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        get = server[probe]["httpGet"]
        assert get["path"] == "/health", probe
        assert named.get(get["port"], get["port"]) == PORT, probe
        assert "httpHeaders" not in get  # /health needs no token: the probes must not carry one
    # A restart ends every session of the pod: liveness gives up later than readiness.
    live, ready = server["livenessProbe"], server["readinessProbe"]
    assert (live["periodSeconds"] * live["failureThreshold"]
            > ready["periodSeconds"] * ready["failureThreshold"])


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_the_token_comes_from_an_optional_secret(path):
    env = {e["name"]: e for e in _server(path)["env"]}
    ref = env["AGENTGYM_TOKEN"]["valueFrom"]["secretKeyRef"]
    assert ref == {"name": "agentgym-token", "key": "token", "optional": True}
    assert "value" not in env["AGENTGYM_TOKEN"]  # never a token in the manifest itself


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_the_paths_probed_and_scraped_are_the_servers(path):
    """The real app answers the probe path and the scrape path of this manifest's pods."""
    pytest.importorskip("starlette", reason="the server's app needs agentgym[server]")
    pytest.importorskip("httpx", reason="starlette's TestClient needs httpx")
    from starlette.testclient import TestClient

    from agentgym.server.app import create_app

    ids, _ = _served(_server(path))
    annotations = _one(path, "Deployment")["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/port"] == str(PORT)
    with TestClient(create_app(ids)) as client:
        health = client.get(_server(path)["readinessProbe"]["httpGet"]["path"])
        assert health.status_code == 200
        assert health.json()["status"] == "ok" and health.json()["env_ids"] == ids
        metrics = client.get(annotations["prometheus.io/path"])
        assert metrics.status_code == 200
        assert metrics.headers["content-type"].startswith("text/plain")
        assert "# TYPE" in metrics.text


_PARENT_IMAGE = re.compile(r"^agentgym/server-([a-z0-9]+)(?::\S+)?$")


def image_instructions(image_dir: str) -> list[tuple[str, str]]:
    """The ``(INSTRUCTION, argument)`` pairs that make the image of ``docker/<image_dir>``.

    Those of its last stage, after those of its parent's Dockerfile when that stage is
    ``FROM`` another of the project's images (``agentgym/server-<name>``, from a build arg's
    default or spelt out), so a later instruction overrides an earlier one as in Docker.
    """
    # Instructions can continue over lines ending in a backslash.
    text = re.sub(r"\\\n", " ", (ROOT / "docker" / image_dir / "Dockerfile").read_text())
    lines = [line.strip() for line in text.splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    pairs = [tuple([*line.split(None, 1), ""][:2]) for line in lines]
    pairs = [(word.upper(), rest) for word, rest in pairs]
    args = {rest.split("=", 1)[0]: rest.split("=", 1)[1] for word, rest in pairs
            if word == "ARG" and "=" in rest}
    last = max(i for i, (word, _) in enumerate(pairs) if word == "FROM")
    parent = pairs[last][1].split()[0]
    parent = re.sub(r"^\$\{?(\w+)\}?$", lambda m: args.get(m.group(1), m.group(0)), parent)
    match = _PARENT_IMAGE.match(parent)
    inherited = image_instructions(match.group(1)) if match else []
    return inherited + pairs[last + 1:]


def _last(pairs: list[tuple[str, str]], word: str) -> str | None:
    found = [rest for w, rest in pairs if w == word]
    return found[-1] if found else None


def test_image_instructions_follow_the_parent_image():
    """A family on server-python inherits USER, EXPOSE and ENTRYPOINT and sets only its CMD."""
    parent, child = image_instructions("python"), image_instructions("searchqa")
    assert child[:len(parent)] == parent
    assert [word for word, _ in child[len(parent):]] == ["CMD"]
    assert _last(parent, "CMD") is None and _last(child, "CMD") is not None
    assert _last(child, "ENTRYPOINT") == '["agentgym", "serve"]'


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_the_manifest_agrees_with_the_familys_dockerfile(path):
    dockerfile = ROOT / "docker" / path.stem / "Dockerfile"
    if not dockerfile.exists():
        pytest.skip(f"no {dockerfile.relative_to(ROOT)} to compare with")
    image = image_instructions(path.stem)
    user = _last(image, "USER")
    assert user is not None and user.split(":")[0] == "1000"
    assert re.match(rf"{PORT}\b", _last(image, "EXPOSE") or "")
    entrypoint = _last(image, "ENTRYPOINT")
    assert entrypoint is not None
    assert yaml.safe_load(entrypoint) == _server(path)["command"]
    # The image run without arguments serves what the pod serves, on the same address.
    cmd = yaml.safe_load(_last(image, "CMD") or "[]")
    ids, options = _served({"command": _server(path)["command"], "args": cmd})
    assert ids == _served(_server(path))[0]
    assert options["--host"] == "0.0.0.0" and options["--port"] == str(PORT)


def _docker_ready() -> str | None:
    """Why the pod-like container cannot run here, or None when Docker answers."""
    if shutil.which("docker") is None:
        return "no docker CLI"
    try:
        info = subprocess.run(["docker", "info"], capture_output=True, timeout=20)
    except subprocess.TimeoutExpired:
        return "the Docker daemon does not answer"
    return None if info.returncode == 0 else "no Docker daemon answers (scripts/start_docker.sh)"


def docker_run_args(path: Path, image: str, token: str) -> list[str]:
    """``docker run`` arguments that give the container what the manifest gives its pod.

    The user, the read-only root, no capabilities and no privilege escalation, the CPU and
    memory limits, a tmpfs of the emptyDir's size for each mount, the command and arguments,
    and the token as the Secret would set it (Docker's default seccomp profile is the
    runtime default). The port is published on a free loopback port.
    """
    pod, server = _pod(path), _server(path)
    context = {**pod["securityContext"], **server["securityContext"]}
    limits = server["resources"]["limits"]
    volumes = {v["name"]: v["emptyDir"] for v in pod["volumes"]}
    memory = str(int(quantity(limits["memory"])))
    args = ["--user", f"{context['runAsUser']}:{context['runAsGroup']}",
            "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
            # No swap, as on a kubelet: the memory limit is the whole memory.
            "--memory", memory, "--memory-swap", memory,
            "--cpus", str(float(quantity(limits["cpu"]))),
            "--publish", f"127.0.0.1::{PORT}", "--env", f"AGENTGYM_TOKEN={token}"]
    if context["readOnlyRootFilesystem"]:
        args.append("--read-only")
    for mount in server["volumeMounts"]:
        size = int(quantity(volumes[mount["name"]]["sizeLimit"]))
        args += ["--tmpfs", f"{mount['mountPath']}:size={size},mode=1777"]
    command, *rest = server["command"]
    return [*args, "--entrypoint", command, image, *rest, *server["args"]]


@pytest.mark.slow
@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_the_image_runs_as_the_pod_would(path):
    """The family's image under the pod's constraints: probes pass, clients play, memory fits."""
    import gymnasium as gym
    import httpx

    import agentgym  # noqa: F401  (registers the ids)

    why = _docker_ready()
    if why is not None:
        pytest.skip(why)
    server = _server(path)
    image = server["image"]
    if subprocess.run(["docker", "image", "inspect", image], capture_output=True).returncode:
        pytest.skip(f"{image} is not built (bash scripts/build_images.sh {path.stem}, then "
                    f"tag it {image})")
    token = secrets.token_urlsafe(16)
    name = f"agentgym-k8s-test-{path.stem}-{secrets.token_hex(4)}"
    run = subprocess.run(
        # No --rm: a container that dies keeps its logs for the message; `finally` removes it.
        ["docker", "run", "--detach", "--name", name,
         *docker_run_args(path, image, token)],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 0, run.stderr
    try:
        published = subprocess.run(["docker", "port", name, f"{PORT}/tcp"], capture_output=True,
                                   text=True, timeout=20).stdout.split()
        url = f"http://{published[0]}" if published else "http://127.0.0.1:1"
        startup = server["startupProbe"]
        deadline = time.monotonic() + startup["periodSeconds"] * startup["failureThreshold"]
        health = None
        while time.monotonic() < deadline:
            try:
                health = httpx.get(url + server["readinessProbe"]["httpGet"]["path"],
                                   timeout=startup["timeoutSeconds"])
                if health.status_code == 200:
                    break
            except httpx.HTTPError:
                running = subprocess.run(["docker", "inspect", "--format", "{{.State.Running}}",
                                          name], capture_output=True, text=True, timeout=20)
                if running.stdout.strip() != "true":
                    break  # it exited: no point waiting for the probe budget
            time.sleep(0.2)
        if health is None or health.status_code != 200:
            logs = subprocess.run(["docker", "logs", "--tail", "20", name], capture_output=True,
                                  text=True, timeout=20)
            pytest.fail(f"the startup probe would fail; the server said: {logs.stderr[-2000:]}")
        ids, _ = _served(server)
        assert health.json()["env_ids"] == ids
        # The probe needs no token; the scrape path does once the Secret sets one.
        scrape = _one(path, "Deployment")["spec"]["template"]["metadata"]["annotations"]
        metrics = url + scrape["prometheus.io/path"]
        assert httpx.get(metrics, timeout=10).status_code == 401
        auth = {"Authorization": f"Bearer {token}"}
        assert httpx.get(metrics, headers=auth, timeout=10).status_code == 200
        for env_id in ids:
            remote = gym.make(env_id, server_url=url, token=token)
            local = gym.make(env_id)
            try:
                obs, info = remote.reset(seed=3)
                assert obs == local.reset(seed=3)[0]
                action = info["available_actions"][0] if info["available_actions"] else "help"
                assert remote.step(action)[:3] == local.step(action)[:3]
            finally:
                remote.close()
                local.close()
        state = subprocess.run(["docker", "inspect", "--format", "{{.State.OOMKilled}}", name],
                               capture_output=True, text=True, timeout=20, check=True)
        assert state.stdout.strip() == "false"
        # Headroom: what the server uses now, plus its tmpfs mounts full, is at most half the
        # limit (sessions, a catalog built in memory and the Python heap's growth need room).
        stats = subprocess.run(["docker", "stats", "--no-stream", "--format", "{{.MemUsage}}",
                                name], capture_output=True, text=True, timeout=60, check=True)
        used = quantity(stats.stdout.split("/")[0].strip().replace("iB", "i").rstrip("B"))
        pod = _pod(path)
        tmpfs = sum(quantity(v["emptyDir"]["sizeLimit"]) for v in pod["volumes"])
        limit = quantity(server["resources"]["limits"]["memory"])
        assert 2 * (used + tmpfs) <= limit, f"{float(used) / 2**20:.0f} MiB used"
    finally:
        subprocess.run(["docker", "rm", "--force", name], capture_output=True, timeout=60)
