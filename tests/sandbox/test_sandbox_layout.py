"""The sandbox package's shape: one concept per module, no import cycle, no private name
imported across files, every module under 600 lines (issue 38).

The import graph is read from the source (every ``import``, function-local ones included:
a cycle that only a local import keeps from failing at import time is still a cycle).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "agentgym" / "sandbox"
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every ``import`` / ``from ... import`` in the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, []) for alias in node.names)
    return found


def _sandbox_graph() -> dict[str, set[str]]:
    """Module -> the sibling modules it imports (``agentgym.sandbox`` itself is the package)."""
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.glob("*.py"):
        name = "__init__" if path.stem == "__init__" else path.stem
        edges = set()
        for module, names in _imports(path):
            if module == "agentgym.sandbox":
                # `from agentgym.sandbox import harness` names a module, anything else the package.
                edges.update(n if n in MODULES else "__init__" for n in names)
            elif module.startswith("agentgym.sandbox."):
                edges.add(module.split(".")[2])
        graph[name] = edges - {name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as a path (first node repeated at the end), [] when acyclic.

    >>> find_cycle({"a": {"b"}, "b": {"a"}})
    ['a', 'b', 'a']
    >>> find_cycle({"a": {"b"}, "b": set()})
    []
    """
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return []

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return []


def test_find_cycle_sees_the_old_docker_backend_images_loop():
    graph = {"docker_backend": {"images", "limits"}, "images": {"docker_backend"}, "limits": set()}
    assert find_cycle(graph) == ["docker_backend", "images", "docker_backend"]
    graph["images"] = {"docker_client"}
    assert find_cycle(graph) == []


def test_the_sandbox_package_has_no_import_cycle():
    graph = _sandbox_graph()
    assert find_cycle(graph) == []
    # The package's __init__ re-exports; a submodule that imported it back would be a cycle.
    assert not [m for m, edges in graph.items() if m != "__init__" and "__init__" in edges]


def test_no_private_sandbox_name_is_imported_from_another_file():
    offenders = []
    for folder in ("agentgym", "environments", "tests", "benchmarks", "scripts", "trainers"):
        for path in (ROOT / folder).rglob("*.py"):
            for module, names in _imports(path):
                if module.startswith("agentgym.sandbox"):
                    offenders += [f"{path.relative_to(ROOT)}: {module}.{n}" for n in names
                                  if n.startswith("_")]
    assert offenders == []


@pytest.mark.parametrize("module", MODULES)
def test_every_sandbox_module_is_under_600_lines(module):
    lines = (PACKAGE / f"{module}.py").read_text(encoding="utf-8").count("\n")
    assert lines < 600, f"agentgym/sandbox/{module}.py has {lines} lines: split it by concept"


@pytest.mark.slow  # a fresh interpreter per module: about 1 s each
def test_each_module_imports_on_its_own():
    """A fresh interpreter per module: an import order that only works by luck fails here."""
    code = ("import importlib, sys\n"
            "importlib.import_module(sys.argv[1])\n")
    for module in ["agentgym.sandbox", *(f"agentgym.sandbox.{m}" for m in MODULES)]:
        done = subprocess.run([sys.executable, "-c", code, module], capture_output=True,
                              text=True, cwd=ROOT, timeout=60)
        assert done.returncode == 0, f"{module}: {done.stderr.strip().splitlines()[-1:]}"


def test_the_old_import_paths_still_work():
    """What callers imported from docker_backend before the split is still there."""
    from agentgym.sandbox import docker_backend, errors, policy

    for name in docker_backend.__all__:
        assert hasattr(docker_backend, name), name
    assert docker_backend.SandboxError is errors.SandboxError
    assert docker_backend.runner_source is policy.runner_source
    assert {"DockerBackend", "reap_orphans", "LABEL", "SandboxError"} <= set(docker_backend.__all__)
