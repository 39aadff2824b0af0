"""Run Blender's own extension tool (``blender_ext.py``) from the bpy wheel.

The PyPI ``bpy`` wheel ships Blender's extension command line tool at
``bpy/<version>/scripts/addons_core/bl_pkg/cli/blender_ext.py``; this script
finds it without importing bpy and runs it with the given arguments, so the
extension can be built and validated without a Blender binary::

    python tools/blender_ext.py validate .
    python tools/blender_ext.py build --source-dir . --output-dir dist
    python tools/blender_ext.py --print-path

Run it with the Python that has bpy installed (the project venv).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

_RELATIVE_GLOB = "*/scripts/addons_core/bl_pkg/cli/blender_ext.py"


class BlenderExtNotFound(RuntimeError):
    """The bpy wheel, or Blender's extension tool inside it, is missing."""


def find_blender_ext() -> Path:
    """Return the path of ``blender_ext.py`` inside the installed bpy wheel."""
    spec = importlib.util.find_spec("bpy")
    if spec is None or not spec.submodule_search_locations:
        raise BlenderExtNotFound(
            f"bpy is not installed for {sys.executable}; run `make venv` "
            "and use .venv/bin/python"
        )
    hits = sorted(
        path
        for location in spec.submodule_search_locations
        for path in Path(location).glob(_RELATIVE_GLOB)
    )
    if len(hits) != 1:
        raise BlenderExtNotFound(
            f"expected exactly one bpy/{_RELATIVE_GLOB} under "
            f"{list(spec.submodule_search_locations)}, found {len(hits)}: "
            f"{[str(h) for h in hits]}"
        )
    return hits[0]


def main(argv: list[str]) -> int:
    """Locate the tool and replace this process with it (or print its path)."""
    try:
        tool = find_blender_ext()
    except BlenderExtNotFound as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if argv[:1] == ["--print-path"]:
        print(tool)
        return 0
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, str(tool), *argv])
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
