"""Do a task's hidden tests keep the agent's code behind the harness? A static check.

The verifier runs pytest as root. A hidden test that imports the agent's module, starts one
of its programs or runs git in its repository would run the agent's code as root, beside
the process that decides the verdict, where it can rewrite the report. So the hidden tests
may reach the agent's code only through ``agentgym_harness`` (:mod:`agentgym.sandbox.harness`), and
:func:`boundary_violations` reads each ``tests/*.py`` with :mod:`ast` and lists, by file and
line, everything that could cross that line:

* an import that is neither the standard library, ``pytest``, ``agentgym_harness`` nor a
  module of the task's own ``tests/`` (the agent's package, put on ``sys.path``);
* modules that start processes or run code or objects (:data:`FORBIDDEN_MODULES`:
  ``subprocess``, ``asyncio``, ``multiprocessing``, ``importlib``, ``builtins``, ``pdb``,
  ``pickle``, ``ctypes``, ``timeit``, ...);
* ``os.system``, ``os.popen``, ``os.exec*``, ``os.spawn*``, ``os.posix_spawn*``, ``os.fork*``
  under any alias, ``from os import *``, and ``module.__dict__``;
* changing ``sys.path`` (under any alias), and the builtins that run code or hide what they
  call: ``__import__``, ``exec``, ``eval``, ``compile``, ``getattr``, ``vars``, ``globals``,
  ``locals``, ``breakpoint``, ``__builtins__``;
* extracting an archive (``extractall``, ``extract``, ``unpack_archive``) as root.

It is a lint for authors, not a sandbox: the harness and the uid boundary are what hold at run
time. ``agentgym tasks check`` fails a task with any violation.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "test_x.py").write_text("import sys\\nsys.path.insert(0, '/app')\\nimport shop\\n")
>>> for v in boundary_violations(d): print(v[:60])
test_x.py:2: changes sys.path (hidden tests may not import t
test_x.py:3: imports 'shop', which is not the standard libra
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

__all__ = ["FORBIDDEN_MODULES", "boundary_violations"]

#: Standard-library modules a hidden test may not use: they run code or start processes.
FORBIDDEN_MODULES = frozenset({
    "subprocess", "multiprocessing", "concurrent", "asyncio", "pty", "runpy", "importlib",
    "imp", "zipimport", "pkgutil", "ctypes", "code", "codeop", "pickle", "marshal", "shelve",
    "builtins", "pdb", "bdb", "trace", "profile", "cProfile", "timeit", "doctest",
})
_ALLOWED_EXTRA = frozenset({"pytest", "_pytest", "agentgym_harness"})
_FORBIDDEN_OS = ("system", "popen", "exec", "spawn", "posix_spawn", "fork")
# Calls that run code or hide which function they reach (getattr(os, "system")).
_FORBIDDEN_BUILTINS = frozenset({"__import__", "exec", "eval", "compile", "getattr", "vars",
                                 "globals", "locals", "breakpoint"})
# Extracting an archive as root writes wherever its members say.
_EXTRACTS = frozenset({"extractall", "extract", "unpack_archive"})
_HARNESS_HINT = "reach the agent's code through agentgym_harness"


def _import_problem(name: str, local: set[str]) -> str:
    top = name.split(".")[0]
    if top in FORBIDDEN_MODULES:
        return f"imports {name!r}, which starts processes or runs code: {_HARNESS_HINT}"
    if top in _ALLOWED_EXTRA or top in local:
        return ""
    if top in sys.stdlib_module_names:
        return ""
    return f"imports {name!r}, which is not the standard library: {_HARNESS_HINT}"


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Local name -> module, for ``import os``, ``import os as o``, ``import os.path``."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    names[alias.name.split(".")[0]] = alias.name.split(".")[0]
    return names


def _module_of(node: ast.AST, aliases: dict[str, str]) -> str:
    return aliases.get(node.id, "") if isinstance(node, ast.Name) else ""


def _is_sys_path(node: ast.AST, aliases: dict[str, str]) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "path"
            and _module_of(node.value, aliases) == "sys")


def _file_violations(path: Path, local: set[str]) -> list[tuple[int, str]]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
        return [(getattr(exc, "lineno", 0) or 0, f"does not parse: {exc}")]
    aliases = _aliases(tree)
    changes_path = "changes sys.path (hidden tests may not import the agent's code)"
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if why := _import_problem(alias.name, local):
                    found.append((node.lineno, why))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                continue  # a relative import: a module of the tests' own package
            module = node.module or ""
            if why := _import_problem(module, local):
                found.append((node.lineno, why))
            elif module in ("os", "sys"):
                for alias in node.names:
                    if alias.name == "*":
                        found.append((node.lineno, f"imports * from {module}, which hides "
                                      f"what it calls: {_HARNESS_HINT}"))
                    elif module == "os" and alias.name.startswith(_FORBIDDEN_OS):
                        found.append((node.lineno, f"imports os.{alias.name}, which starts "
                                      f"processes: {_HARNESS_HINT}"))
                    elif module == "sys" and alias.name == "path":
                        found.append((node.lineno, changes_path))
        elif isinstance(node, ast.Attribute):
            module = _module_of(node.value, aliases)
            if module == "os" and node.attr.startswith(_FORBIDDEN_OS):
                found.append((node.lineno, f"uses os.{node.attr}, which starts processes: "
                              f"{_HARNESS_HINT}"))
            elif node.attr == "__dict__" and module:
                found.append((node.lineno, f"reads {module}.__dict__, which hides what it "
                              f"calls: {_HARNESS_HINT}"))
            elif (_is_sys_path(node.value, aliases) and node.attr in
                  ("insert", "append", "extend", "__setitem__", "__iadd__")):
                found.append((node.lineno, changes_path))
            elif node.attr in _EXTRACTS:
                found.append((node.lineno, f"calls {node.attr}(): extracting an archive as "
                              "root writes where its members say; extract through "
                              "agentgym_harness"))
        elif isinstance(node, ast.Assign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if _is_sys_path(target, aliases) or (
                        isinstance(target, ast.Subscript) and _is_sys_path(target.value,
                                                                           aliases)):
                    found.append((node.lineno, changes_path))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in _FORBIDDEN_BUILTINS):
            found.append((node.lineno, f"calls {node.func.id}(), which runs code or hides "
                          f"what it calls: {_HARNESS_HINT}"))
        elif isinstance(node, ast.Name) and node.id == "__builtins__":
            found.append((node.lineno, f"uses __builtins__, which hides what it calls: "
                          f"{_HARNESS_HINT}"))
    return sorted(set(found))


def boundary_violations(tests_dir: str | Path) -> list[str]:
    """Every place in ``tests_dir``'s Python files that could run the agent's code outside
    the harness, as ``"file:line: why"`` (empty when the tests keep to the boundary)."""
    root = Path(tests_dir)
    if not root.is_dir():
        return []
    files = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    local = {p.stem for p in files} | {p.name for p in root.iterdir() if p.is_dir()}
    out = []
    for path in files:
        rel = path.relative_to(root).as_posix()
        out.extend(f"{rel}:{line}: {why}" for line, why in _file_violations(path, local))
    return out
