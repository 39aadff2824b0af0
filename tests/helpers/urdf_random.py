"""Random URDF joint values for property tests (shared by tests/solver and tests/blender)."""

import math

import numpy as np

from vart_addon.formats.urdf import files as urdf
from vart_addon.solver import se3


def random_q(robot: urdf.Robot, rng: np.random.Generator) -> dict:
    """Random values of the non-mimic joints: within limits (and so are the mimic joints that
    follow them), unlimited angles in [-pi, pi], unlimited slides in [-1, 1] m, 4x4 motions
    for floating and planar joints (planar: a turn about the axis and a slide across it)."""
    while True:
        q = {}
        for j in robot.joints:
            if j.mimic is not None or j.type == "fixed":
                continue
            if j.type in ("revolute", "prismatic") and j.limit is not None:
                q[j.name] = float(rng.uniform(j.limit.lower, j.limit.upper))
            elif j.type in ("revolute", "continuous"):
                q[j.name] = float(rng.uniform(-math.pi, math.pi))
            elif j.type == "prismatic":
                q[j.name] = float(rng.uniform(-1, 1))
            elif j.type == "floating":
                q[j.name] = se3.make_pose(se3.so3_exp(rng.uniform(-2, 2, 3)),
                                          rng.uniform(-1, 1, 3))
            elif j.type == "planar":
                M = np.eye(4)
                M[:3, :3] = urdf.axis_angle_matrix(j.axis, float(rng.uniform(-3, 3)))
                t = rng.uniform(-1, 1, 3)
                M[:3, 3] = t - np.dot(t, j.axis) * np.array(j.axis)
                q[j.name] = M
        vals = urdf.joint_values(robot, q)
        if all(j.limit is None or j.type not in ("revolute", "prismatic")
               or j.limit.lower <= vals[j.name] <= j.limit.upper for j in robot.joints):
            return q
