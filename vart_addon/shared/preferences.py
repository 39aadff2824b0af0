"""The add-on's preferences (*Edit > Preferences > Add-ons > vart*): folders where robot
files' meshes and packages are looked for on this machine.

Sandboxed Blender builds (Flatpak, Snap, the macOS app started from the Dock) do not see the
shell's ``ROS_PACKAGE_PATH`` / ``AMENT_PREFIX_PATH``: *Package Search Paths* gives every
import (URDF, xacro's ``$(find pkg)``) the folders to look in, after the import's own.

:func:`search_paths` reads them; without the add-on enabled as an add-on (vart_addon
registered from the repository, as the tests do) there are none.
"""
from __future__ import annotations

import bpy
from bpy.props import StringProperty

from ..formats.urdf import mesh_paths

#: The add-on's module name, which names its preferences: the package holding vart_addon
#: (``bl_ext.user_default.vart`` once installed), or vart_addon itself when it is the top.
_VART_ADDON = __package__.rpartition(".")[0]  # this module's package is vart_addon.shared
ADDON = _VART_ADDON.rpartition(".")[0] or _VART_ADDON


class VART_AP_preferences(bpy.types.AddonPreferences):
    bl_idname = ADDON

    package_search_paths: StringProperty(
        name="Package Search Paths",
        description="Folders where package:// meshes, relative mesh paths and xacro's "
                    "$(find pkg) are looked for by every import, after the import's own "
                    "(a package folder or a folder of packages; separate several with ';')",
        subtype='NONE')

    def draw(self, context):
        self.layout.prop(self, "package_search_paths")


def search_paths(context=None) -> list[str]:
    """The folders of *Package Search Paths* (none if the add-on has no preferences here)."""
    context = context or bpy.context
    addon = context.preferences.addons.get(ADDON)
    prefs = None if addon is None else addon.preferences
    if prefs is None:
        return []
    return mesh_paths.split_search_paths(prefs.package_search_paths)


classes = (VART_AP_preferences,)
# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
