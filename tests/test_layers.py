"""Imports go downward only: the layers of ``vart_addon`` and the Blender-free code.

Every import in every module of ``vart_addon`` (relative or absolute, at the top or inside a
function, and ``importlib.import_module`` / ``__import__`` with a literal name) is resolved to
the module it names. A module may import from its own folder or from a folder of a *lower*
layer in :data:`LAYERS`, never from a peer or a layer above. The Blender-free code (the
engine, the file formats and the numpy-only geometry modules) imports no Blender module, also
when imported in a fresh interpreter. README.md's *Architecture* section shows the same table.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from repo_paths import REPO

PACKAGE = REPO / "vart_addon"

#: Layers, bottom first: the folders (or top-level modules) of ``vart_addon`` in each.
LAYERS = (
    ("solver",),                              # the engine: numpy only
    ("formats",),                             # files without Blender: URDF, trajectories, STL
    ("physics",),                             # statics; MuJoCo model and replay (mujoco lazily)
    ("analysis",),                            # studies: sweeps, Monte Carlo (numpy, dask lazily)
    ("bridge", "properties"),                 # Blender objects <-> linkage; scene settings
    ("shared",),                              # active joint, units, bridge cache, kept_frame
    ("animation", "overlay", "io_urdf"),      # keys and bakes; drawing; robots in and out
    ("drag", "io_trajectory", "examples",     # viewport drags; trajectories; Add Example;
     "checks", "studies"),                    # clearance check and physics replay of a bake;
                                              # the scene as a model file for studies
    ("operators",),                           # every vart.* operator
    ("menus", "panels"),                      # Object > Vart; the sidebar
    ("__init__",),                            # register / unregister of it all
)
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}

#: Code that never imports Blender (checked statically and in a fresh interpreter).
BLENDER_FREE = ("solver", "formats", "physics", "analysis", "drag/geometry.py",
                "overlay/geometry.py", "overlay/support_geometry.py")
BLENDER_MODULES = ("bpy", "mathutils", "gpu", "bmesh", "bpy_extras", "addon_utils")


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def folder_of(module: str) -> str:
    """The layer entry of a dotted module of vart_addon: its first name below the package
    (``vart_addon.formats.urdf.files`` -> ``formats``); the package itself is ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in ``path``; ``from vart_addon import name``
    counts as ``vart_addon.name`` (the name is a folder or a top-level module)."""
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    package = parts[:-1]  # a module's package; a package's __init__ is in the package itself
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
            if module.split(".")[0] == "vart_addon" and module.count(".") < 1:
                found += [(node.lineno, f"{module}.{a.name}") for a in node.names]
            else:
                found.append((node.lineno, module))
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            first = node.args[0]
            if called in ("__import__", "import_module") and isinstance(first, ast.Constant) \
                    and isinstance(first.value, str):
                found.append((node.lineno, first.value))
    return found


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_every_folder_has_a_layer():
    entries = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()
               if p.name != "__pycache__" and (p.suffix == ".py" or p.is_dir())}
    assert entries == set(RANK), "add new folders to LAYERS (and README's Architecture)"


def test_imports_go_downward_only():
    wrong = []
    for path in modules():
        me = folder_of(module_name(path))
        for line, name in imports_of(path):
            if name.split(".")[0] != "vart_addon":
                continue
            other = folder_of(name)
            if other == me:
                continue
            if RANK[other] >= RANK[me]:
                wrong.append(f"{path.relative_to(REPO)}:{line}: {me} (layer {RANK[me]}) imports "
                             f"{name} ({other}, layer {RANK[other]})")
    assert not wrong, "imports that do not go downward:\n" + "\n".join(wrong)


def blender_free_files() -> list[Path]:
    out = []
    for entry in BLENDER_FREE:
        p = PACKAGE / entry
        out += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    return out


def test_blender_free_code_imports_no_blender_module():
    wrong = []
    for path in blender_free_files():
        for line, name in imports_of(path):
            if name.split(".")[0] in BLENDER_MODULES:
                wrong.append(f"{path.relative_to(REPO)}:{line}: {name}")
    assert not wrong, "Blender imported by Blender-free code:\n" + "\n".join(wrong)


@pytest.mark.parametrize("entry", BLENDER_FREE)
def test_importing_blender_free_code_loads_no_blender_module(entry):
    names = [module_name(p) for p in blender_free_files()
             if (PACKAGE / entry) in (p, *p.parents)]
    program = (f"import importlib, sys\nfor n in {names!r}:\n    importlib.import_module(n)\n"
               f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {BLENDER_MODULES!r})\n"
               "assert not bad, bad\n")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", program], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_check_sees_an_upward_import(tmp_path, monkeypatch):
    """The check itself: a solver module importing the bridge is caught."""
    fake = tmp_path / "vart_addon" / "solver" / "bad.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("from ..bridge import schema\ndef f():\n    from ..operators import support\n")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    found = [name for _, name in imports_of(fake)]
    assert found == ["vart_addon.bridge", "vart_addon.operators"]
    assert all(RANK[folder_of(n)] > RANK["solver"] for n in found)
