"""MJCF export of a scene's robot: the MuJoCo model the physics replay builds, saved as a file.

:func:`export_mjcf` takes the scene at ``frame`` (default: the current one):

1. the robot as the replay builds it (:func:`.replay.scene_robot`: the URDF export's real
   links and joints with the imported URDF's inertials and effort limits, each link's
   evaluated meshes as collision geometry, the real closure joints; floating joints as free
   joints, a real spherical joint as a free body held by a ``connect``);
2. with ``virtual_closures``, also the virtual spherical, fixed and revolute joints between
   real links (or a real link and the world) as equalities, e.g. a story's pins to the ground;
3. the configuration: the URDF joint values that put the links where they are, the root
   link's world pose as the free base;
4. :func:`vart_addon.physics.mjcf_export.posed_spec` and
   :func:`~vart_addon.physics.mjcf_export.write_mjcf`: the model posed there (qpos0 is the
   scene's pose, the equalities hold), meshes as STL files in ``<stem>_meshes`` beside the
   XML, everything written atomically.

MuJoCo (PyPI ``mujoco-core``) is imported only when a file is written.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import bpy
import numpy as np

from ..bridge import SceneBridge
from ..bridge import poses as P
from ..formats.urdf import files as urdf
from ..formats.urdf.from_linkage import urdf_joint_values
from ..physics.mjcf_export import MjcfFile, posed_spec, write_mjcf
from ..physics.model import PhysicsError
from ..shared.frames import kept_frame, set_frame
from .replay import left_out_closures, scene_robot

__all__ = ["MjcfExport", "export_mjcf"]

@dataclass
class MjcfExport:
    """What :func:`export_mjcf` did: the ``file`` written, the URDF ``robot`` it holds, the
    URDF joint values ``q`` (rad or m) and root pose ``base`` (4x4 ``T_world_root``) exported,
    the closures written as equalities, and the ``warnings`` (what was left out or
    rewritten)."""

    file: MjcfFile
    robot: urdf.Robot
    q: dict
    base: np.ndarray
    closures: list
    warnings: list = field(default_factory=list)


def export_mjcf(path, scene=None, *, frame: int | None = None, virtual_closures: bool = False,
                ground: bool = True, bridge: SceneBridge | None = None) -> MjcfExport:
    """Write the scene's robot at ``frame`` as MJCF at ``path`` (see the module doc);
    ``ground``: a plane at z = 0. The current frame is kept. Raises
    :class:`vart_addon.physics.model.PhysicsError` (MuJoCo missing, nothing to export, a model
    MuJoCo refuses), a BridgeError, or OSError naming the file; nothing is written then."""
    scene = scene or bpy.context.scene
    bridge = bridge or SceneBridge(scene)
    with kept_frame(scene):
        if frame is not None:  # keyed values exactly as keyed (see shared.frames)
            set_frame(scene, int(frame))
        robot, meshes, closures, warnings = scene_robot(scene, bridge)
        obs = bridge.objects()
        poses = {n: P.rigid_and_scale(P.observe(ob), n)[0] for n, ob in obs.items()}
    if virtual_closures:
        lk = bridge.linkage
        assert lk is not None  # synced by scene_robot
        closures = closures + left_out_closures(
            lk, {n for n, link in lk.links.items() if not link.virtual}, set(), warnings,
            virtual=True)
    if robot.root_link not in poses and robot.root_link != "world":
        raise PhysicsError(f"root link {robot.root_link!r} has no object in the scene")
    base = poses.get(robot.root_link, np.eye(4))
    q = urdf_joint_values(robot, poses)
    built = posed_spec(robot, q, meshes=meshes, base=base, closures=closures, ground=ground)
    warnings += built.warnings
    return MjcfExport(write_mjcf(path, built), robot, q, base, closures, warnings)
