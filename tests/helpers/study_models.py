"""Two small mechanisms with known quasistatic answers, as model files, for the study tests.

- :func:`tilted_spring_arm`: a base on a virtual revolute ``tilt`` (world y axis) carries an
  arm on a compliant revolute ``hinge`` (also about y; stiffness ``K``, rest 0, upper limit
  ``HINGE_UPPER``) with mass ``M`` at ``L`` along the arm; gravity -z. At tilt phi the hinge
  deflects by d with ``K d = M g L cos(phi + d)`` (the arm's weight turns it down, +y).
- :func:`sliding_load`: a massless square plate (half width ``HALF``) held by four spherical
  pins at its corners (the contacts) carries a 1 kg load on a virtual prismatic ``slide``
  along x: the margin is ``HALF - |x|``, lost beyond ``HALF``.
"""
from __future__ import annotations

import numpy as np

from vart_addon.solver import Linkage, se3
from vart_addon.solver import model_file as MF

K, M, L, G = 40.0, 2.0, 0.5, 9.81
HINGE_UPPER = 0.24
HALF = 0.5


def _about_y(p):
    """A joint frame at ``p`` whose z axis is the world's y axis."""
    return se3.make_pose(se3.so3_exp(np.array([-np.pi / 2, 0.0, 0.0])), p)


def tilted_spring_arm_linkage() -> Linkage:
    lk = Linkage()
    lk.add_link("base")
    lk.add_link("arm", mass=M, com=[L, 0, 0])
    lk.add_joint("tilt", "revolute", None, "base", world_frame=_about_y([0, 0, 0]),
                 virtual=True, lower=[-1.0], upper=[1.0])
    lk.add_joint("hinge", "revolute", "base", "arm", world_frame=_about_y([0, 0, 0]),
                 lower=[-1.0], upper=[HINGE_UPPER])
    lk.set_stiffness("hinge", K, [0.0])
    lk.lock_joint("tilt")
    lk.set_gravity([0, 0, -G])
    return lk


def tilted_spring_arm() -> str:
    return MF.dumps(tilted_spring_arm_linkage())


def sliding_load() -> str:
    lk = Linkage()
    lk.add_link("plate")
    lk.add_link("load", mass=1.0)
    for i, (x, y) in enumerate([(-HALF, -HALF), (HALF, -HALF), (HALF, HALF), (-HALF, HALF)]):
        lk.add_joint(f"pin{i}", "spherical", None, "plate",
                     world_frame=se3.make_pose(np.eye(3), [x, y, 0]), virtual=True)
    lk.add_joint("slide", "prismatic", "plate", "load",
                 world_frame=se3.make_pose(se3.so3_exp(np.array([0.0, np.pi / 2, 0.0])), [0, 0, 0.2]), virtual=True,
                 lower=[-2.0], upper=[2.0])
    lk.set_gravity([0, 0, -G])
    return MF.dumps(lk)


def arm_deflection(phi: float) -> float:
    """The hinge's deflection at tilt ``phi`` (rad): the root of K d = M g L cos(phi + d)."""
    d = 0.0
    for _ in range(100):
        f = K * d - M * G * L * np.cos(phi + d)
        d -= f / (K + M * G * L * np.sin(phi + d))
    return min(d, HINGE_UPPER)
