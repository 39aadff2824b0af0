"""The solver is pure numpy: it must never import Blender modules.

Checked twice: statically (every import statement in every file under
``vart_addon/solver``) and dynamically (importing every solver module in a
fresh interpreter leaves no Blender module in ``sys.modules``).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOLVER = ROOT / "vart_addon" / "solver"
BLENDER_MODULES = ("bpy", "mathutils", "gpu", "bmesh")


def _solver_files() -> list[Path]:
    assert (SOLVER / "__init__.py").is_file(), f"missing solver package: {SOLVER}"
    return sorted(SOLVER.rglob("*.py"))


def _imported_names(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) for every import in ``path``.

    Relative imports are resolved against the file's package, so an import
    that climbs out of the solver (``from .. import operators``) shows up as
    ``vart_addon.operators``. ``__import__("x")`` and
    ``importlib.import_module("x")`` with a literal name count too.
    """
    package = list(path.relative_to(ROOT).with_suffix("").parts)
    if package[-1] == "__init__":
        package.pop()
    else:
        package = package[:-1]

    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            # `from pkg import name` may import the sub-module pkg.name; spell
            # it out for the add-on's own packages, whose sub-modules matter.
            if module.split(".")[0] == "vart_addon":
                names = [f"{module}.{a.name}" for a in node.names]
            else:
                names = [module]
            found += [(node.lineno, name) for name in names]
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            first = node.args[0]
            if called in ("__import__", "import_module") and isinstance(first, ast.Constant) \
                    and isinstance(first.value, str):
                found.append((node.lineno, first.value))
    return found


def test_solver_sources_import_no_blender_module() -> None:
    offending = []
    for path in _solver_files():
        for line, name in _imported_names(path):
            top = name.split(".")[0]
            inside_addon = name == "vart_addon" or name.startswith("vart_addon.")
            if top in BLENDER_MODULES or (
                inside_addon and not (name == "vart_addon.solver" or name.startswith("vart_addon.solver."))
            ):
                offending.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert not offending, "solver imports Blender or non-solver add-on code:\n" + "\n".join(offending)


_IMPORT_ALL = f"""
import importlib, pkgutil, sys
import vart_addon.solver as solver
for info in pkgutil.walk_packages(solver.__path__, solver.__name__ + "."):
    importlib.import_module(info.name)
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {BLENDER_MODULES!r})
assert not loaded, f"importing the solver loaded Blender modules: {{loaded}}"
"""


def test_importing_the_solver_loads_no_blender_module() -> None:
    _solver_files()  # clear failure if the package is missing
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
    ))
    process = subprocess.run(
        [sys.executable, "-c", _IMPORT_ALL],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert process.returncode == 0, process.stdout + process.stderr
