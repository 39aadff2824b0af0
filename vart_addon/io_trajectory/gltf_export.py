"""The baked motion for game engines and film: one glTF animation (Blender's own glTF
exporter, ``io_scene_gltf2``, which ships with Blender).

A bake leaves one action per link; Blender's glTF exporter with its defaults writes each as
its own clip (38 for the hexapod), and an engine plays one of them: only one object moves.
:func:`export_gltf` exports with the active actions merged into one animation
(``export_animation_mode='ACTIVE_ACTIONS'``), sampled at every frame of the scene's range, so
the file re-imports to the baked poses (within 1e-5 m; measured: 1e-10) and an engine plays
the whole robot as one clip. The bundled add-on is enabled for the export when it is not.
"""
from __future__ import annotations

import os

import addon_utils
import bpy

from .joint_columns import TrajectoryError

#: Blender's glTF add-on.
GLTF_ADDON = "io_scene_gltf2"


def export_gltf(path, scene=None) -> dict:
    """Write ``scene``'s objects and their baked motion as glTF (``.glb``: one binary file;
    ``.gltf``: JSON with a ``.bin`` beside it) with one animation (see the module doc).
    Returns ``{"path", "animations", "frames"}``. Raises :class:`TrajectoryError` (no glTF
    add-on, nothing animated, a path that cannot be written)."""
    scene = scene or bpy.context.scene
    path = os.path.abspath(os.fspath(path))
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".glb", ".gltf"):
        raise TrajectoryError(f"glTF export: {path!r} must end in .glb or .gltf")
    if not any(ob.animation_data and ob.animation_data.action for ob in scene.objects):
        raise TrajectoryError("glTF export: nothing is animated: bake first (Vart > Animation "
                              "> Bake Range)")
    if not hasattr(bpy.types, "EXPORT_SCENE_OT_gltf"):
        addon_utils.enable(GLTF_ADDON, default_set=False)  # shipped with Blender, maybe off
    if not hasattr(bpy.types, "EXPORT_SCENE_OT_gltf"):
        raise TrajectoryError("glTF export: Blender's glTF add-on (io_scene_gltf2) is missing")
    try:
        bpy.ops.export_scene.gltf(
            filepath=path, export_format='GLB' if ext == ".glb" else 'GLTF_SEPARATE',
            export_animations=True, export_animation_mode='ACTIVE_ACTIONS',
            export_force_sampling=True, export_frame_range=True)
    except RuntimeError as e:
        raise TrajectoryError(f"glTF export of {path!r} failed: {e}") from None
    return {"path": path, "animations": 1,
            "frames": scene.frame_end - scene.frame_start + 1}
