"""The robot a trajectory drives, as its URDF export sees it: its root link (the floating
base, unless the root is the ground), the root's world pose at each frame, and its Klampt
configuration layout (Klampt's, or any format's).

The tree is the one *Export URDF* writes
(:func:`~vart_addon.formats.urdf.from_linkage.urdf_from_linkage` of the scene's linkage), so
a ``.path`` written with its :meth:`RobotTree.config_layout` loads in Klampt beside that
URDF. The root's
pose ``T_world_root`` comes from its transform F-curves (a plain unparented object) or from
the scene frame by frame (``frame_set``, the current frame restored), scale removed.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mathutils import Euler, Matrix, Quaternion, Vector

from ..animation.keying import rotation_path
from ..bridge import BridgeError, SceneBridge
from ..bridge import animation as A
from ..bridge import poses as P
from ..formats.trajectory.base_motion import BaseMotion, pose_rows
from ..formats.trajectory.files import ConfigLayout
from ..formats.urdf import files as urdf
from ..formats.urdf.from_linkage import urdf_from_linkage
from ..shared.frames import kept_frame
from ..solver import VartError
from .joint_columns import TrajectoryError

__all__ = ["RobotTree", "robot_tree", "sample_base"]


@dataclass
class RobotTree:
    """The scene's real robot as URDF: ``robot`` (the URDF model), ``linkage`` and
    ``objects`` (the bridge's), ``root`` (the URDF root link) and ``floating`` (the root is a
    link of the scene, free of the world, rather than the ground)."""

    robot: urdf.Robot
    linkage: object
    objects: dict
    root: str
    floating: bool

    def config_layout(self, kind) -> ConfigLayout:
        """The robot's configuration layout of class ``kind`` (a format's
        :attr:`~vart_addon.formats.trajectory.files.TrajectoryFormat.layout`, e.g. Klampt's);
        TrajectoryError if it cannot hold the robot."""
        try:
            return kind.of(self.robot, self.linkage)
        except ValueError as e:
            raise TrajectoryError(f"cannot write a {kind.title}: {e}") from None


def robot_tree(scene) -> RobotTree | None:
    """The real robot of ``scene`` as its URDF export writes it, or None when the scene has
    no real links. TrajectoryError (a BridgeError) when the scene cannot be read."""
    bridge = SceneBridge(scene)
    bridge.sync()
    lk = bridge.linkage
    assert lk is not None  # synced
    if not any(not link.virtual for link in lk.links.values()):
        return None
    try:
        robot, _ = urdf_from_linkage(lk, "robot")
    except (VartError, urdf.UrdfError) as e:
        raise TrajectoryError(f"the scene's robot cannot be written as URDF: {e}") from None
    root = robot.root_link
    return RobotTree(robot, lk, bridge.objects(), root, root in lk.links)


def sample_base(scene, tree: RobotTree, frames) -> BaseMotion:
    """The world pose of ``tree``'s root link at each frame (``T_world_root``, rigid): from
    its transform F-curves when it is a plain animated object (no parent, constraints, NLA
    or delta transforms), else read from the scene frame by frame (``frame_set``)."""
    ob = tree.objects[tree.root]
    if _plain(ob):
        return BaseMotion(tree.root, pose_rows(_from_fcurves(ob, frames)))
    T = np.empty((len(frames), 4, 4))
    with kept_frame(scene):
        for k, f in enumerate(frames):
            scene.frame_set(int(f))
            try:
                T[k] = P.rigid_and_scale(P.observe(ob), ob.name)[0]
            except BridgeError as e:
                raise TrajectoryError(f"frame {int(f)}: {e}") from None
    return BaseMotion(tree.root, pose_rows(T))


def _plain(ob) -> bool:
    ad = ob.animation_data
    if ob.parent is not None or len(ob.constraints) or (ad is not None and (
            len(ad.nla_tracks) or ad.use_tweak_mode or ad.action_influence < 1.0
            or len(ad.drivers))):
        return False
    return (tuple(ob.delta_location) == (0.0, 0.0, 0.0)
            and tuple(ob.delta_rotation_euler) == (0.0, 0.0, 0.0)
            and tuple(ob.delta_rotation_quaternion) == (1.0, 0.0, 0.0, 0.0))


def _from_fcurves(ob, frames) -> np.ndarray:
    """Rigid world poses (n, 4, 4) of an unparented object from its location and rotation
    F-curves (a channel without an active curve keeps its current value)."""
    fmap = A.fcurve_map(ob)
    fr = np.asarray(frames, dtype=float)
    rot_path = rotation_path(ob)

    def channel(path, current):
        out = np.empty((fr.size, len(current)))
        for i, v in enumerate(current):
            fc = fmap.get((path, i))
            out[:, i] = A.sample(fc, fr) if fc is not None and A.animates(fc) else v
        return out

    loc = channel("location", tuple(ob.location))
    rot = channel(rot_path, tuple(getattr(ob, rot_path)))
    T = np.tile(np.eye(4), (fr.size, 1, 1))
    T[:, :3, 3] = loc
    for k, r in enumerate(rot):
        if ob.rotation_mode == "QUATERNION":
            R = Quaternion(r).normalized().to_matrix()
        elif ob.rotation_mode == "AXIS_ANGLE":
            R = Matrix.Rotation(r[0], 3, Vector(r[1:]))
        else:
            R = Euler(r, ob.rotation_mode).to_matrix()
        T[k, :3, :3] = np.array(R, dtype=float)
    return T
