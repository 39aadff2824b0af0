"""Forward kinematics of the URDF tree itself (:mod:`.model`), independent of vart's.

Pure Python + numpy. Import it through :mod:`vart_addon.formats.urdf.files`.

Values are radians (revolute, continuous) or metres (prismatic); floating and planar values are
4x4 motions. A joint's ``origin`` is ``T_parent_joint`` and the child link frame coincides with
the joint frame at q = 0, so ``T_parent_child(q) = origin.matrix() @ joint_motion(joint, q)``.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

import numpy as np

from .base import UrdfError, _finite, axis_angle_matrix
from .model import ONE_DOF_TYPES, Joint, Robot


def _transform(value: Any, what: str) -> np.ndarray:
    T = np.asarray(value, dtype=float)
    if T.shape != (4, 4) or not np.all(np.isfinite(T)):
        raise UrdfError(f"{what}: expected a finite 4x4 transform")
    return T


def joint_motion(joint: Joint, value: Any = None) -> np.ndarray:
    """``T_joint_child``: the 4x4 motion of ``joint`` at configuration ``value`` (None: rest).

    revolute/continuous: rotation by ``value`` rad about ``axis``; prismatic: translation by
    ``value`` m along ``axis``; fixed: identity; floating and planar: ``value`` is the 4x4
    motion itself (identity when None; a planar motion is not checked to lie in the plane).
    """
    T = np.eye(4)
    if value is None or joint.type == "fixed":
        return T
    if joint.type in ("revolute", "continuous"):
        T[:3, :3] = axis_angle_matrix(joint.axis, _finite(value, f"q['{joint.name}']"))
    elif joint.type == "prismatic":
        T[:3, 3] = np.array(joint.axis) * _finite(value, f"q['{joint.name}']")
    else:
        T = _transform(value, f"q['{joint.name}']")
    return T


def joint_values(robot: Robot, q: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
    """Value of every joint: ``q[name]`` (0.0 for an absent 1-DoF joint, None for absent
    floating/planar/fixed), mimic joints ``multiplier * value(leader) + offset`` (recursively;
    their own entry in q is ignored). An unknown name in q is a UrdfError."""
    q = dict(q or {})
    for name in q:
        if name not in robot._joints:
            raise UrdfError(f"q: unknown joint '{name}'")

    def value(j: Joint):
        if j.mimic is not None:
            lead = value(robot.joint_by_name(j.mimic.joint))
            return j.mimic.multiplier * (0.0 if lead is None else lead) + j.mimic.offset
        return q.get(j.name, 0.0 if j.type in ONE_DOF_TYPES else None)

    return {j.name: value(j) for j in robot.joints}


def link_poses(robot: Robot, q: Optional[Mapping[str, Any]] = None, *, base=None) -> dict[str, np.ndarray]:
    """Forward kinematics of the URDF tree: ``T_base_link`` (4x4) for every link.

    ``T_parent_child = joint.origin.matrix() @ joint_motion(joint, value)``, composed from the
    root, whose pose is ``base`` (default identity). ``q`` maps joint names to values as in
    :func:`joint_values`.
    """
    values = joint_values(robot, q)
    poses = {robot.root_link: np.eye(4) if base is None else _transform(base, "base")}
    for j in robot.traverse():
        poses[j.child] = poses[j.parent] @ j.origin.matrix() @ joint_motion(j, values[j.name])
    return poses
