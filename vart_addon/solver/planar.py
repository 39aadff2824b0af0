"""Planar loops: revolute closures whose out-of-plane invariant rows can never change.

A revolute closure's invariant residual has five rows (:mod:`.joint_types`): the offset of the
child frame from the mobility frame along x, y and z, and the swing of z (two rows). In a
*planar* loop every tree joint that can move the closure (its support: the paths from the
lowest common ancestor to its two links) is a revolute or planar joint whose axis is parallel
to the closure's axis ``n``, or a prismatic or cartesian-2 joint whose motion is perpendicular
to it (fixed joints do not move). Such motions rotate about ``n`` and translate across it, so
both frames' z axes stay parallel to ``n`` and their offset along ``n`` stays what it is: the
z offset and the swing are constant for every configuration. When they are zero now (the loop
is assembled out of its plane), the closure is exactly two rows, the in-plane offset, which is
the invariant residual of a point-slider joint: the solver evaluates that instead (a planar
four-bar chain's closures then cost two rows each, not five with three structurally zero).

Parallel means within ``AXIS_TOL`` (rad): a drift of the out-of-plane rows of that order times
the motion's size stays far below any tolerance the solver works to.
"""
from __future__ import annotations

import numpy as np

from .joint_types import CATALOG

AXIS_TOL = 1e-12
#: The residual a planar revolute closure is evaluated with: the in-plane offset (x, y).
IN_PLANE = CATALOG["point-slider"]
_Z_ALONG_N = ("revolute", "planar", "cartesian-2")  # turn about z, move across it: z parallel to n
_Z_ACROSS_N = ("prismatic",)  # move along z: z perpendicular to n


def _world_z(T_world, model, link, T_local) -> np.ndarray:
    """World z axis of a frame given relative to ``link`` (None: the ground)."""
    return T_world[model.index[link]][:3, :3] @ T_local[:3, 2]


def is_planar_closure(model, joint, T_world: np.ndarray) -> bool:
    """Whether the revolute closure ``joint`` lies in a planar loop, assembled out of its plane
    (see the module doc), at the poses ``T_world`` (n_links, 4, 4) of ``model``."""
    if joint.jtype.name != "revolute" or joint.is_tree:
        return False
    n = _world_z(T_world, model, joint.parent, joint.T_parent_mob)
    support = model.anc_sign[model.index[joint.child]] - model.anc_sign[model.index[joint.parent]]
    off: float | np.floating
    for c in np.flatnonzero(support):
        e = model.dof_joint[c]
        a = _world_z(T_world, model, e.parent, e.T_parent_mob)
        if e.jtype.name in _Z_ALONG_N:
            off = np.linalg.norm(np.cross(a, n))
        elif e.jtype.name in _Z_ACROSS_N:
            off = abs(float(a @ n))
        else:
            return False
        if off > AXIS_TOL:
            return False
    Tp = T_world[model.index[joint.parent]] @ joint.T_parent_mob
    Tc = T_world[model.index[joint.child]] @ joint.T_child_frame
    rel = np.linalg.solve(Tp, Tc)
    out_of_plane = joint.jtype.residual(rel[None])[0, 2:]  # z offset, swing
    return bool(np.abs(out_of_plane).max() <= AXIS_TOL)
