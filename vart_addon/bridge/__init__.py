"""The scene bridge: the only code that maps Blender objects and their custom properties to and
from the solver model (README.md, "Architecture" and "Where vart keeps its data").

- :mod:`.schema`: the property layout ``ob["vart"]``; ``write_link``, ``write_joint``,
  ``update_link``, ``update_joint``, ``read_scene`` (validated dataclasses) and ``SchemaError``.
- :mod:`.scene`: :class:`SceneBridge` (sync / solve / write_back, link targets and locks).
- :mod:`.animation`: ``fcurves_of`` and keyframe helpers for slotted actions (Blender 5.0).
- :mod:`.build`, :mod:`.poses`, :mod:`.checks`: internals (linkage building, float32 world
  matrices <-> rigid poses, value validation).

Imports bpy: never import this package from :mod:`vart_addon.solver`.
"""
from .animation import fcurves_of, find_fcurve, keyframe_q, q_fcurves
from .errors import BridgeError, SchemaError
from .scene import SceneBridge, scene_key
from .scene_write import WriteReport
from .schema import (
                     JointData,
                     LinkData,
                     MimicData,
                     SceneData,
                     is_link,
                     q_data_path,
                     read_object,
                     read_scene,
                     remove_joint,
                     remove_link,
                     update_joint,
                     update_link,
                     write_joint,
                     write_link,
)

__all__ = ["BridgeError", "JointData", "LinkData", "MimicData", "SceneBridge", "SceneData",
           "SchemaError", "WriteReport", "fcurves_of", "find_fcurve", "is_link", "keyframe_q",
           "q_data_path", "q_fcurves", "read_object", "read_scene", "remove_joint",
           "remove_link", "scene_key", "update_joint", "update_link", "write_joint",
           "write_link"]
