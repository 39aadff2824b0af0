"""The exception of robot import, export and presets (no Blender import here)."""
from __future__ import annotations


class IoError(ValueError):
    """A file cannot be imported, exported or applied; the message says why (naming the file
    and, for a URDF, the element). Nothing in the scene was changed."""
