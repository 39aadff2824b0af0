"""The vart add-on package.

Layers (see README.md, "Architecture"): ``solver`` (pure numpy, never imports bpy), the scene
bridge, operators, panels and overlay drawing.

This module must stay importable without Blender: importing
``vart_addon.solver`` runs this file first, and the solver is tested and
benchmarked with plain Python. So nothing here imports ``bpy`` at module
level; the Blender-facing sub-modules are imported only inside
:func:`register`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# Sub-modules (relative to this package) that have ``register()`` and
# ``unregister()``, in registration order. They are unregistered in reverse
# order, so list a module after the modules whose classes it refers to.
_SUBMODULES: tuple[str, ...] = (
    "properties", "shared.preferences", "shared.edit_count", "animation.live",
    "drag.root_follow",
    "operators.links", "operators.joints", "operators.goals", "operators.solve",
    "operators.animate",
    "operators.io", "operators.trajectory", "operators.checks", "operators.studies",
    "operators.sublinkages", "operators.robot_setup", "operators.tools", "operators.arms",
    "menus", "io_urdf.menus", "io_trajectory.menus", "studies.menus",
    "panels", "overlay.drawing",
    "operators.examples",
)

# Modules whose register() succeeded, in order. Kept so that unregister()
# undoes exactly what was done, also after a partial failure.
_registered: list[ModuleType] = []


def register() -> None:
    """Register every sub-module in ``_SUBMODULES`` order.

    If one fails, the ones already registered are unregistered again and the
    error is re-raised, so a failed enable leaves nothing behind.
    """
    if _registered:
        # Blender calls register() once per enable; a second call without
        # unregister() in between would register classes twice.
        unregister()
    for name in _SUBMODULES:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
            module.register()
        except BaseException:
            unregister()
            raise
        _registered.append(module)


def unregister() -> None:
    """Unregister the registered sub-modules in reverse order.

    Every module gets its unregister() call even if an earlier one raises;
    the first error is re-raised at the end.
    """
    first_error: BaseException | None = None
    while _registered:
        module = _registered.pop()
        try:
            module.unregister()
        except BaseException as error:  # keep going, report the first
            if first_error is None:
                first_error = error
    if first_error is not None:
        raise first_error
