"""Key Pose: keys of the pose as it is, through Blender's own keying, and the paths of the
channels it keys (:func:`rotation_path`, which the bake uses too; :func:`joint_data_path`).

**Key Pose** (:func:`key_pose`) keys every link's transform (location and the rotation channel
of its rotation mode) and every joint's q at a frame, through Blender's own keying (user
preferences apply; new curves join the groups "Object Transforms" and "Vart").
"""
from __future__ import annotations

from dataclasses import dataclass, field

import bpy

from ..bridge import animation as A
from ..bridge import schema as S
from .bake_result import BakeError

TRANSFORM_GROUP = "Object Transforms"
JOINT_GROUP = "Vart"
_ROTATION_PATHS = ("rotation_euler", "rotation_quaternion", "rotation_axis_angle")


def rotation_path(ob) -> str:
    """The rotation channel that drives ``ob`` in its rotation mode."""
    return {"QUATERNION": "rotation_quaternion",
            "AXIS_ANGLE": "rotation_axis_angle"}.get(ob.rotation_mode, "rotation_euler")


def _link_objects(scene) -> dict:
    return {ob.name: ob for ob in scene.objects if S.is_link(ob)}


# ---- key pose -----------------------------------------------------------------------------------
@dataclass
class KeyResult:
    """What :func:`key_pose` keyed: the frame, link and joint names, channels keyed."""

    frame: float
    links: list = field(default_factory=list)
    joints: list = field(default_factory=list)
    channels: int = 0


def joint_data_path(joint: str, key: str) -> str:
    """The RNA path of a stored joint field (``q``, ``target_q``...) on its child object."""
    q = S.q_data_path(joint)
    return q[:-len('["q"]')] + f'["{key}"]'


def key_pose(scene=None, frame=None, *, links=None, joints=None, targets=(),
             options=()) -> KeyResult:
    """Key the transform (location, rotation) of ``links`` and the q of ``joints`` (default:
    every link and every joint with a value) at ``frame`` (default: the current frame), as
    they are now, and the ``target_q`` of the joints in ``targets``. ``options``: Blender's
    keying flags (``{'INSERTKEY_REPLACE'}``: only replace existing keys, as auto-keying's
    Replace mode). Validates the scene first (SchemaError; nothing keyed)."""
    scene = scene or bpy.context.scene
    obs = _link_objects(scene)
    data = S.read_scene(obs.values())
    frame = float(scene.frame_current if frame is None else frame)
    link_names = sorted(data.links) if links is None else list(links)
    joint_names = [n for n, j in data.joints.items() if j.dof] if joints is None \
        else list(joints)
    for n in link_names:
        if n not in obs:
            raise BakeError(f"{n!r} is not a link of this scene")
    for n in list(joint_names) + list(targets):
        if n not in data.joints:
            raise BakeError(f"no joint named {n!r} in this scene")
    res = KeyResult(frame)
    for n in link_names:
        ob = obs[n]
        done = False
        for path in ("location", rotation_path(ob)):
            if A.key_channels(ob, path, frame, group=TRANSFORM_GROUP, options=options):
                res.channels += 1
                done = True
        if done:
            res.links.append(n)
    for n in joint_names:
        j = data.joints[n]
        if j.dof and A.key_channels(obs[j.child], S.q_data_path(n), frame, group=JOINT_GROUP,
                                    options=options):
            res.channels += 1
            res.joints.append(n)
    for n in targets:
        j = data.joints[n]
        if A.key_channels(obs[j.child], joint_data_path(n, "target_q"), frame,
                          group=JOINT_GROUP, options=options):
            res.channels += 1
    return res
