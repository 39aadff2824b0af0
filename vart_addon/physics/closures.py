"""Loops and ball joints of the MuJoCo model (:mod:`.model`): a :class:`Closure` is a joint
the URDF tree cannot hold (a loop's closing joint, or a real spherical joint URDF lacks),
given by its frames in its two links. :func:`add_closure` writes one as MuJoCo equality
constraints (``connect`` for a spherical joint, ``weld`` for a fixed one, two ``connect``
along the axis for a revolute one); :func:`ball_joints` picks the spherical ones that are
ball joints instead (their child hangs by a floating joint, as the URDF export writes a real
spherical tree joint). Frames are 4x4, m; quaternions ``(w, x, y, z)`` as MuJoCo's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formats.urdf import files as urdf
from ..solver import se3


def wxyz(R) -> list:
    """MuJoCo's quaternion ``(w, x, y, z)`` of rotation matrix ``R``, as floats."""
    return [float(x) for x in se3.rot_to_quat(np.asarray(R, float))]


@dataclass(frozen=True)
class Closure:
    """A loop-closing joint between links ``parent`` and ``child`` (names of bodies): its
    ``kind`` (``spherical``, ``fixed`` or ``revolute``; parent None: the world), its frame in
    the parent link
    ``T_parent_joint`` and in the child link ``T_child_joint`` (4x4, m), z the revolute axis."""

    name: str
    kind: str
    parent: str | None
    child: str
    T_parent_joint: np.ndarray
    T_child_joint: np.ndarray


def ball_joints(robot: urdf.Robot, closures) -> dict:
    """The spherical ``closures`` MuJoCo holds as ball joints: child link -> :class:`Closure`.
    A real spherical tree joint, which URDF lacks, is written by the URDF export as a floating
    joint of its child (from the root, where the child stands) and comes back here as a
    spherical closure: a floating joint and a spherical closure on its child are a ball joint
    between the closure's parent and the child (the first such closure of a child), unless the
    parent hangs below the child (a loop: it stays a free body and a ``connect``)."""
    floating = {j.child for j in robot.joints if j.type == "floating"}
    balls: dict = {}
    for c in closures:
        if c.kind == "spherical" and c.child in floating and c.child not in balls:
            balls[c.child] = c
    up = {j.child: j.parent for j in robot.joints if j.type != "floating"}
    changed = True
    while changed:  # drop a ball whose parent is reached back from its child
        changed = False
        for child, c in list(balls.items()):
            parents = dict(up, **{k: b.parent for k, b in balls.items()})
            link, seen = c.parent, set()
            while link is not None and link not in seen:
                seen.add(link)
                link = parents.get(link)
            if child in seen:
                del balls[child]
                changed = True
    return balls


def add_closure(mj, spec, c: Closure, warnings) -> None:
    """Equality constraints for closure ``c`` (see :class:`Closure`); other kinds are
    reported and left out."""
    Tp, Tc = np.asarray(c.T_parent_joint, float), np.asarray(c.T_child_joint, float)
    body1 = "world" if c.parent is None else c.parent

    def connect(suffix, offset):
        """Points: in MuJoCo, ``data[0:3]`` is the anchor in body1, ``data[3:6]`` in body2."""
        eq = spec.add_equality(name=c.name + suffix, type=mj.mjtEq.mjEQ_CONNECT,
                               objtype=mj.mjtObj.mjOBJ_BODY, name1=body1, name2=c.child)
        eq.data[0:3] = list((Tp @ np.r_[offset, 1.0])[:3])
        eq.data[3:6] = list((Tc @ np.r_[offset, 1.0])[:3])

    if c.kind == "spherical":
        connect("", np.zeros(3))
    elif c.kind == "revolute":
        connect("__a", np.array([0.0, 0.0, 0.05]))
        connect("__b", np.array([0.0, 0.0, -0.05]))
    elif c.kind == "fixed":
        # weld: data[0:3] anchor in body2, data[3:6] anchor in body1, data[6:10] the relative
        # orientation of body2 in body1's frame (w x y z), data[10] the torque scale.
        T12 = Tp @ se3.inverse(Tc)  # T_body1_body2 when the joint holds
        eq = spec.add_equality(name=c.name, type=mj.mjtEq.mjEQ_WELD,
                               objtype=mj.mjtObj.mjOBJ_BODY, name1=body1, name2=c.child)
        eq.data[0:3] = [0.0, 0.0, 0.0]
        eq.data[3:6] = list(T12[:3, 3])
        eq.data[6:10] = wxyz(T12[:3, :3])
        eq.data[10] = 1.0
    else:
        warnings.append(f"closure joint {c.name!r}: a {c.kind} closure has no MuJoCo equality "
                        "here; left out")
