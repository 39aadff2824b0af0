"""vart: virtual articulation authoring (Blender extension root).

The repository root is the extension root; the add-on itself lives in the
``vart_addon`` package.
"""

from .vart_addon import register, unregister  # noqa: F401
