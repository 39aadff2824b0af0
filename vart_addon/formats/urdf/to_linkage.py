"""URDF robots to vart linkages (numpy only; the file format is :mod:`.urdf`, the way back
to URDF is :mod:`.from_linkage`).

:func:`linkage_from_urdf` makes one vart link per URDF link, same name, real (``virtual=False``),
mass and centre of mass from ``<inertial>``; one vart tree joint per URDF joint, same name:

===================== ======================================================================
URDF                  vart
===================== ======================================================================
revolute, continuous  ``revolute`` whose mobility z is the URDF axis; limits of ``<limit>``
                      (continuous, or revolute without ``<limit>``: unlimited)
prismatic             ``prismatic`` sliding along the URDF axis, limits likewise
fixed                 ``fixed``
floating              ``general`` (q = position, rotation vector of the motion)
planar                ``planar`` whose mobility z is the URDF axis (the plane normal)
mimic                 :meth:`~.goals_edit.GoalsEditing.set_mimic` (held at the invariant level)
===================== ======================================================================

Frames: ``T_parent_mob = origin @ A`` and ``T_child_frame = A`` where ``A`` (:func:`align_z`)
rotates z onto the URDF axis, so a vart joint's q is the URDF joint value and the child link
frame is exactly the URDF child frame: ``T_parent_child = origin @ A @ motion(q) @ A^-1 =
origin @ urdf_motion(q)``. The URDF root link is a free link (its root joint is its tree edge)
at ``base_pose``; with ``fixed_base=True`` a *virtual* ``fixed`` joint holds it to the ground
instead (virtual, so exports leave it out). A root link literally named ``world`` is the ground
itself: it gets no vart link, and its joints attach to the ground at ``base_pose``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ...solver import se3, validate
from ...solver.errors import VartError
from ...solver.joint_types import joint_type
from ...solver.linkage import Linkage
from . import files as urdf
from .start import start_values

_ONE_DOF = ("revolute", "continuous", "prismatic")
_ALIGNED = ("revolute", "continuous", "prismatic", "planar")
_VART_TYPE = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic",
              "fixed": "fixed", "floating": "general", "planar": "planar"}
_PLANAR_TOL = 1e-9


def align_z(axis) -> np.ndarray:
    """4x4 rotation ``A`` with ``A @ z = axis`` (unit): the smallest rotation taking z there
    when the axis points up (z >= 0), else that of the mirrored axis after a half turn about x."""
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    flip = a[2] < 0.0
    if flip:  # Hx @ a has z >= 0, so 1 + c below stays >= 1 (no cancellation near -z)
        a = a * (1.0, -1.0, -1.0)
    c = float(a[2])
    K = se3.hat(np.array([-a[1], a[0], 0.0]))  # hat(z x a)
    T = np.eye(4)
    T[:3, :3] = np.eye(3) + K + K @ K / (1.0 + c)
    if flip:
        T[1:3, :3] *= -1.0  # Hx @ R
    return T


@dataclass
class UrdfMap:
    """How a URDF robot maps onto the linkage :func:`linkage_from_urdf` built from it.

    Link and joint names are the URDF ones, except that a root link named ``world`` is the
    ground (``ground_root``). ``align[joint]`` is the 4x4 rotation ``A`` of a revolute,
    continuous, prismatic or planar joint (``T_parent_mob = origin @ A``, ``T_child_frame =
    A``). ``base_joint`` names the virtual fixed joint that holds the root with
    ``fixed_base=True`` (else None). ``warnings``: what the import passed over or adjusted,
    in words (the reader's, then the start configuration's).
    """

    robot: urdf.Robot
    ground_root: bool = False
    base_joint: str | None = None
    align: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)

    @property
    def root_link(self) -> str | None:
        """The vart link of the URDF root (None when the root is the ground)."""
        return None if self.ground_root else self.robot.root_link

    def vart_q(self, joint: str, value) -> np.ndarray:
        """The vart configuration of URDF joint ``joint`` at URDF value ``value``.

        1-DoF: a number; floating and planar: the 4x4 motion (a planar one must lie in the
        plane, else VartError); fixed: ignored.
        """
        j = self.robot.joint_by_name(joint)
        if j.type == "fixed":
            return np.zeros(0)
        if j.type in _ONE_DOF:
            try:
                return np.array([float(value)])
            except (TypeError, ValueError):
                raise VartError(f"URDF joint {joint!r}: value must be a number, "
                                f"got {value!r}") from None
        M = np.asarray(value, dtype=float)
        if M.shape != (4, 4) or not np.all(np.isfinite(M)):
            raise VartError(f"URDF joint {joint!r}: a {j.type} value must be a finite 4x4 motion")
        if j.type == "floating":
            return np.concatenate([M[:3, 3], se3.so3_log(M[:3, :3])])
        A = self.align[joint]
        Mv = A.T @ M @ A
        jt = joint_type("planar")
        q = jt.fit(Mv)[0]
        if np.abs(jt.motion(q)[0] - Mv).max() > _PLANAR_TOL:
            raise VartError(f"URDF joint {joint!r}: the planar value is not a motion in the "
                            "plane normal to its axis")
        return q

    def urdf_value(self, joint: str, q):
        """URDF value (float, or 4x4 for floating and planar; None for fixed) of vart q."""
        j = self.robot.joint_by_name(joint)
        q = np.asarray(q, dtype=float).reshape(-1)
        if j.type == "fixed":
            return None
        if j.type in _ONE_DOF:
            return float(q[0])
        if j.type == "floating":
            return joint_type("general").motion(q)[0]
        A = self.align[joint]
        return A @ joint_type("planar").motion(q)[0] @ A.T

    def urdf_values(self, lk: Linkage) -> dict:
        """URDF joint values of the linkage's current configuration, for :func:`.urdf.link_poses`.

        Read from the vart joints' configurations (a tree joint's own q), not from vart's
        forward kinematics, so ``urdf.link_poses`` of them is an independent check.
        """
        out = {}
        for j in self.robot.joints:
            if j.type == "fixed":
                continue
            out[j.name] = self.urdf_value(j.name, lk.joint_q(lk.joint(j.name)))
        return out


def linkage_from_urdf(robot, q=None, *, start: str = "zero", base_pose=None,
                      fixed_base: bool = False):
    """Build a :class:`Linkage` from a URDF robot (a :class:`.urdf.Robot`, a path or URDF text).

    ``q`` maps URDF joint names to values (numbers; 4x4 motions for floating and planar joints;
    absent: the ``start`` choice of :func:`.start.start_values`, "zero" (0 clamped into the
    limits) or "middle"; identity for floating and planar; mimic joints follow their leader,
    as in :func:`.urdf.joint_values`).
    ``base_pose`` (4x4) places the URDF root frame in the world. Returns ``(linkage, UrdfMap)``.
    Raises :class:`VartError` naming the element for a value vart cannot take (outside the
    joint's limits, not finite, a planar value off its plane) and :class:`.urdf.UrdfError` for
    a broken file.
    """
    if not isinstance(robot, urdf.Robot):
        if not isinstance(robot, (str, bytes, os.PathLike)):
            raise VartError(f"expected a URDF Robot, path or text, got {type(robot).__name__}")
        robot = urdf.read_urdf(robot)
    base = np.eye(4)
    if base_pose is not None:
        base = validate.pose(base_pose, "base_pose")
    root = robot.root_link
    ground_root = root == "world"
    start_q, start_warnings = start_values(robot, start)
    q = {**start_q, **(q or {})}
    try:
        values = urdf.joint_values(robot, q)
    except urdf.UrdfError as e:
        raise VartError(str(e)) from None
    umap = UrdfMap(robot, ground_root, warnings=list(robot.warnings) + start_warnings)
    for j in robot.joints:
        if j.type in _ALIGNED:
            umap.align[j.name] = align_z(j.axis)
    qv = {j.name: umap.vart_q(j.name, values[j.name]) if values[j.name] is not None
          else None for j in robot.joints}
    try:
        poses = urdf.link_poses(robot, q, base=base)
    except urdf.UrdfError as e:
        raise VartError(str(e)) from None

    lk = Linkage()
    for link in robot.links:
        if ground_root and link.name == root:
            continue
        inert = link.inertial
        try:
            lk.add_link(link.name, pose=poses[link.name],
                        mass=0.0 if inert is None else inert.mass,
                        com=(0, 0, 0) if inert is None else inert.origin.xyz)
        except VartError as e:
            raise VartError(f"URDF link {link.name!r}: {e}") from None
    if fixed_base and not ground_root:
        name = f"{root}_base"
        while name in {j.name for j in robot.joints}:
            name += "_"
        lk.add_joint(name, "fixed", None, root, T_parent_mob=base, virtual=True, tree=True)
        umap.base_joint = name
    for j in robot.traverse():
        A = umap.align.get(j.name, np.eye(4))
        parent = None if (ground_root and j.parent == root) else j.parent
        Tpm = j.origin.matrix() @ A
        if parent is None:
            Tpm = base @ Tpm
        lo = hi = None
        if j.type in ("revolute", "prismatic") and j.limit is not None:
            lo, hi = [j.limit.lower], [j.limit.upper]
        qj = qv[j.name]
        if qj is None and j.type in ("floating", "planar"):
            qj = np.zeros(6 if j.type == "floating" else 3)
        if qj is not None and len(qj) == 0:
            qj = None
        if qj is not None and lo is not None and hi is not None and not lo[0] <= qj[0] <= hi[0]:
            how = f" (it mimics {j.mimic.joint!r})" if j.mimic is not None else ""
            raise VartError(f"URDF joint {j.name!r}: value {qj[0]}{how} is outside its limits "
                            f"[{lo[0]}, {hi[0]}]")
        try:
            lk.add_joint(j.name, _VART_TYPE[j.type], parent, j.child, T_parent_mob=Tpm,
                         T_child_frame=A, q=qj, tree=True, lower=lo, upper=hi)
        except VartError as e:
            raise VartError(f"URDF joint {j.name!r}: {e}") from None
    for j in robot.joints:
        if j.mimic is not None:
            try:
                lk.set_mimic(j.name, j.mimic.joint, j.mimic.multiplier, j.mimic.offset)
            except VartError as e:
                raise VartError(f"URDF joint {j.name!r}: <mimic>: {e}") from None
    return lk, umap


__all__ = ["UrdfMap", "align_z", "linkage_from_urdf"]
