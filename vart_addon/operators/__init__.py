"""vart's operators, one family per module (:data:`MODULES`); each module has a ``classes``
tuple and ``register()`` / ``unregister()`` and is listed in ``vart_addon._SUBMODULES`` (a
test checks every module of :data:`MODULES` is).

The operators themselves are listed once, by their classes: :func:`operator_classes` gives
every one (``bl_idname`` ``vart.<name>``), and an operator's ``vart_menu``
(:class:`.support.MenuItem` s) says where *Object > Vart* shows it (:mod:`vart_addon.menus`
draws the menu from them). A new operator is one class in its family's module, added to that
module's ``classes``.

Each operator is thin: it maps the context (active link, selection, active joint, 3D cursor)
to one :func:`vart_addon.bridge.edits.edit` call, and reports bridge and solver errors
instead of raising (the scene is then unchanged). What they all do alike is :mod:`.support`;
what they share with panels and examples is :mod:`vart_addon.shared`.
"""
from __future__ import annotations

import importlib

#: The operator modules, one family each, in registration order.
MODULES = ("links", "joints", "goals", "solve", "animate", "io", "trajectory", "checks",
           "studies", "sublinkages", "robot_setup", "tools", "arms", "examples")


def operator_classes() -> list:
    """Every vart operator class, module by module in :data:`MODULES` order, each module's
    in its ``classes`` order (imports the modules: needs Blender)."""
    out = []
    for name in MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        out += [c for c in module.classes if getattr(c, "bl_idname", "").startswith("vart.")]
    return out
