"""URDF robots imported into a Blender scene, for tests that compare the scene with URDF."""

import numpy as np

from vart_addon.bridge import SceneBridge
from vart_addon.formats.urdf import files as urdf
from vart_addon.formats.urdf.to_linkage import linkage_from_urdf


def rigid(ob) -> np.ndarray:
    """``ob.matrix_world`` as a float64 4x4 with the object's scale divided out of its columns
    (``T_world_object``)."""
    M = np.array(ob.matrix_world, dtype=float)
    M[:3, :3] /= np.linalg.norm(M[:3, :3], axis=0)
    return M


def set_configuration(scene, imported, q):
    """Set URDF joint values ``q`` through the bridge (its linkage's tree joints, mimic
    followers too) and write them back into the scene; returns the URDF map."""
    robot = imported.robot
    bridge = SceneBridge(scene)
    bridge.sync()
    _, umap = linkage_from_urdf(robot)
    for name, v in urdf.joint_values(robot, q).items():
        if v is not None and robot.joint_by_name(name).type != "fixed":
            bridge.linkage.set_q(imported.joints[name], umap.vart_q(name, v))
    bridge.write_back()
    return umap
