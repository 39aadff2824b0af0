"""Robots in and out of Blender: URDF import and export, and virtual articulation presets.

- :mod:`.importer`: :func:`import_urdf` (Python API) - one Empty per URDF link with its
  visuals as child objects, one real vart joint per URDF joint.
- :mod:`.visuals`: an import's visual objects (one child object per ``<visual>``, colours).
- :mod:`.mesh_data`: their meshes (read with Blender's importers, or generated) and materials.
- :mod:`.exporter`: :func:`export_urdf` - the scene's real robot as URDF with STL meshes.
- :mod:`.presets`: :func:`save_preset` / :func:`load_preset` - the virtual links and joints,
  locks, targets and postures added to a robot, as JSON keyed by link names.
- :mod:`.menus`: the File > Import / Export entries, the .urdf drop handler, sidebar buttons.

The Blender-free halves are :mod:`vart_addon.formats.urdf` (the URDF file, mesh paths, the ways
to and from a linkage) and :mod:`vart_addon.formats.stl`. This file imports no Blender module;
the Blender-facing functions load on first use.
"""
from __future__ import annotations

from .errors import IoError

__all__ = ["IoError", "import_urdf", "export_urdf", "save_preset", "load_preset"]


def __getattr__(name):
    if name == "import_urdf":
        from .importer import import_urdf
        return import_urdf
    if name == "export_urdf":
        from .exporter import export_urdf
        return export_urdf
    if name in ("save_preset", "load_preset"):
        from . import presets
        return getattr(presets, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
