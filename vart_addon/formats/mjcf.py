"""MuJoCo's MJCF: a robot model read through MuJoCo itself, as a vart linkage and its visuals.

MuJoCo compiles the file (``mujoco.MjSpec.from_file(path).compile()``), so defaults, includes,
``<frame>``, angle units, ``fromto``, ``<compiler>`` settings and mesh processing mean exactly
what MuJoCo says; this module maps the compiled model (``mujoco.MjModel``) at its reference
configuration ``qpos0``:

- **bodies -> links** at their ``qpos0`` world poses, with ``body_mass`` (kg) and the centre of
  mass ``body_ipos`` (m, body frame). The world body is the ground.
- **joints**, in each body's frame at the joint's anchor, z along its axis: hinge ->
  revolute, slide -> prismatic, ball -> spherical; a body without joints is welded to its
  parent (fixed); a free joint leaves the link free (hanging from the world by its root
  joint, as every free vart link). vart's value is MuJoCo's ``qpos - qpos0`` (0 at the
  reference pose; the same for limits, ``jnt_range - qpos0``). A joint whose range excludes
  its ``qpos0`` (MuJoCo accepts it) starts clamped into the range, as a URDF import clamps
  zero, with a warning; the links are placed there. A body with several joints
  gets one link per extra joint (``body.joint``, massless, at the body's frame), so MuJoCo's
  order of composition is kept: the first joint is nearest the parent. A ball joint's
  range (a cone) is not a vart limit: reported.
- **equality constraints** (active at load): ``connect`` -> a closure spherical joint at the
  anchor, ``weld`` -> a closure fixed joint at the relative pose MuJoCo holds, ``joint`` with a
  linear polynomial -> a mimic coupling ``q1 = a0 + a1 q2`` (in vart's values, the polynomial
  itself) or a lock of ``q1`` at ``a0`` when it names one joint. Others (tendon, distance,
  flex, non-linear polynomials) are reported and left out.
- **geoms -> visuals** (:class:`Visual`, triangles in the link frame): meshes as MuJoCo
  compiled them (vertices in the geom frame), and box, sphere, capsule, cylinder and
  ellipsoid tessellated here. When some geoms are visual only (``contype = conaffinity =
  0``, as MuJoCo Menagerie marks them), those are the visuals; otherwise every geom is.
  Planes, height fields and the world body's geoms are not links' geometry: reported.

Before MuJoCo reads anything, the files the model names (includes, meshes, textures, height
fields, skins) must lie in its folder or the search paths, and its mesh scales be sane
(:mod:`.mjcf_files`); a body or geom beyond ``MAX_COORDINATE`` (or not finite) after
compiling is refused too, naming it.

``mujoco`` (PyPI ``mujoco-core`` or ``mujoco``) is imported only when a file is read; without
it :class:`MjcfError` says how to install it.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np

from ..solver import Linkage, VartError, se3
from .mjcf_files import MalformedXml, MjcfFileError, check_files, check_scales
from .mjcf_parts import Visual, add_equalities, add_visuals, quat_matrix

__all__ = ["MjcfError", "MjcfRobot", "Visual", "read_mjcf", "quat_matrix", "INSTALL_HINT"]

INSTALL_HINT = ("reading MJCF needs MuJoCo's Python package: install it into the Python "
                "that runs vart (in Blender: <Blender's python> -m pip install mujoco-core; "
                "see the README, 'Robots in: MJCF')")


class MjcfError(ValueError):
    """An MJCF file MuJoCo cannot compile, or a model vart cannot take; names the file."""


@dataclass
class MjcfRobot:
    """What :func:`read_mjcf` gives: the ``linkage`` (links at their reference poses; joints,
    closures, couplings), each link's ``visuals``, the MJCF ``joints`` that became vart joints
    (MJCF name -> vart name), and ``warnings`` (what was left out and why)."""

    name: str
    linkage: Linkage
    visuals: dict = field(default_factory=dict)
    joints: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)


def _mujoco():
    try:
        import mujoco  # type: ignore[import-untyped]  # no stubs; optional at run time
    except ImportError:
        raise MjcfError(INSTALL_HINT) from None
    return mujoco


def _frame_z(p, axis) -> np.ndarray:
    """A frame at ``p`` whose z is ``axis`` (x chosen perpendicular, deterministic)."""
    z = np.asarray(axis, float)
    z = z / np.linalg.norm(z)
    a = np.array([1.0, 0, 0]) if abs(z[0]) < 0.9 else np.array([0, 1.0, 0])
    x = np.cross(a, z)
    x /= np.linalg.norm(x)
    return se3.make_pose(np.column_stack([x, np.cross(z, x), z]), p)


def read_mjcf(path, search_paths=()) -> MjcfRobot:
    """Compile MJCF file ``path`` with MuJoCo and map it (see the module doc). The files it
    names (includes, meshes, textures, ...) must lie in its folder or ``search_paths``, and
    its mesh scales be sane (:mod:`.mjcf_files`: checked before MuJoCo reads them). Raises
    MjcfError naming the file (OSError if it cannot be opened)."""
    path = os.fspath(path)
    name = os.path.basename(path)
    with open(path, "rb"):
        pass
    mujoco = _mujoco()
    try:
        check_files(path, search_paths)
        spec = _by_mujoco(lambda: mujoco.MjSpec.from_file(path), name)
        check_scales(spec)
        model = _by_mujoco(spec.compile, name)
        return _sane(_Mapper(mujoco, model, name).run())
    except MalformedXml as e:
        _by_mujoco(lambda: mujoco.MjSpec.from_file(path), name)  # its message says more
        raise MjcfError(f"{name}: {e}") from None
    except (MjcfFileError, VartError) as e:
        raise MjcfError(f"{name}: {e}") from None


def _by_mujoco(call, name: str):
    """``call()``, a failure of MuJoCo's an MjcfError with its message (element, line)."""
    try:
        return call()
    except Exception as e:
        raise MjcfError(f"{name}: MuJoCo cannot compile it: {' '.join(str(e).split())}") \
            from None


#: Largest coordinate of a link's origin or a geom's vertex (m): as a scene's poses.
MAX_COORDINATE = 1e6


def _sane(robot: MjcfRobot) -> MjcfRobot:
    """``robot``, unless a link or a geom lies at an absurd or non-finite place (a huge geom
    size: VartError naming it)."""
    for link, T in robot.linkage.poses().items():
        if not (np.isfinite(T).all() and np.abs(T[:3, 3]).max() <= MAX_COORDINATE):
            raise VartError(f"body {link!r} lies at {T[:3, 3]} (m): not finite or beyond "
                            f"{MAX_COORDINATE:g} m")
    for link, visuals in robot.visuals.items():
        for v in visuals:
            if len(v.vertices) and not (np.isfinite(v.vertices).all()
                                        and np.abs(v.vertices).max() <= MAX_COORDINATE):
                raise VartError(f"geom {v.name!r} of body {link!r}: its vertices are not "
                                f"finite or lie beyond {MAX_COORDINATE:g} m")
    return robot


class _Mapper:
    def __init__(self, mujoco, model, filename):
        self.mj, self.m, self.filename = mujoco, model, filename
        self.lk = Linkage()
        self.out = MjcfRobot(os.path.splitext(filename)[0], self.lk)
        self.body_link: dict = {0: None}
        data = mujoco.MjData(model)
        mujoco.mj_kinematics(model, data)
        self.T_world = [se3.make_pose(data.xmat[i].reshape(3, 3), data.xpos[i])
                        for i in range(model.nbody)]

    def name(self, kind, i: int, fallback: str) -> str:
        n = self.mj.mj_id2name(self.m, kind, i)
        return n if n else fallback

    def run(self) -> MjcfRobot:
        for b in range(1, self.m.nbody):
            self._body(b)
        add_equalities(self)
        add_visuals(self)
        return self.out

    def _body(self, b: int) -> None:
        m, mj, lk = self.m, self.mj, self.lk
        link = self.name(mj.mjtObj.mjOBJ_BODY, b, f"body{b}")
        parent = self.body_link[int(m.body_parentid[b])]
        T = self.T_world[b]
        joints = [j for j in range(m.njnt) if m.jnt_bodyid[j] == b]
        lk.add_link(link, pose=T, mass=float(m.body_mass[b]), com=m.body_ipos[b])
        self.body_link[b] = link
        if any(int(m.jnt_type[j]) == int(mj.mjtJoint.mjJNT_FREE) for j in joints):
            if len(joints) > 1:
                self.out.warnings.append(f"body {link!r}: a free joint with other joints; "
                                         "only the free joint is kept")
            return  # free: its root joint carries it
        T_parent = np.eye(4) if parent is None else self.T_world[int(m.body_parentid[b])]
        T_rel = se3.inverse(T_parent) @ T
        if not joints:
            lk.add_joint(f"{link}_weld" if parent is not None else f"{link}_world", "fixed",
                         parent, link, T_parent_mob=T_rel, T_child_frame=np.eye(4))
            return
        prev, T_prev = parent, T_rel
        for k, j in enumerate(joints):
            jname = self.name(mj.mjtObj.mjOBJ_JOINT, j, f"joint{j}")
            child = link if k == len(joints) - 1 else f"{link}.{jname}"
            if child != link:
                lk.add_link(child, pose=T)
            self._joint(j, prev, child, T_prev)
            prev, T_prev = child, np.eye(4)

    def _joint(self, j: int, parent, child: str, T_parent_child) -> None:
        """MJCF joint ``j`` from ``parent`` to ``child``, ``T_parent_child`` the child's pose in
        the parent's frame at qpos0 (the joint's anchor and axis are in the child's frame)."""
        m, mj, lk = self.m, self.mj, self.lk
        jn = self.name(mj.mjtObj.mjOBJ_JOINT, j, f"{child}_joint{j}")
        kind = int(m.jnt_type[j])
        F = _frame_z(m.jnt_pos[j], m.jnt_axis[j])
        adr = int(m.jnt_qposadr[j])
        if kind == int(mj.mjtJoint.mjJNT_BALL):  # its rotation is in the body's axes
            F = se3.make_pose(None, m.jnt_pos[j])
            lk.add_joint(jn, "spherical", parent, child, T_parent_mob=T_parent_child @ F,
                         T_child_frame=F, q=np.zeros(3))
            if m.jnt_limited[j]:
                self.out.warnings.append(f"joint {jn!r}: a ball joint's cone limit "
                                         f"({math.degrees(m.jnt_range[j][1]):.4g} degrees) is "
                                         "not a vart limit; left out")
        else:
            jtype = "revolute" if kind == int(mj.mjtJoint.mjJNT_HINGE) else "prismatic"
            lower = upper = None
            q = np.zeros(1)
            if m.jnt_limited[j]:
                q0 = float(m.qpos0[adr])
                lower, upper = [float(m.jnt_range[j][0]) - q0], [float(m.jnt_range[j][1]) - q0]
                if not lower[0] <= 0.0 <= upper[0]:  # MuJoCo allows it; the start is clamped
                    q = np.clip(q, lower, upper)
                    unit = "rad" if jtype == "revolute" else "m"
                    self.out.warnings.append(
                        f"joint {jn!r}: its range [{m.jnt_range[j][0]:g}, "
                        f"{m.jnt_range[j][1]:g}] {unit} excludes qpos0 {q0:g}: it starts at "
                        f"{q0 + float(q[0]):g}, clamped into the range")
            lk.add_joint(jn, jtype, parent, child, T_parent_mob=T_parent_child @ F,
                         T_child_frame=F, q=q, lower=lower, upper=upper)
        self.out.joints[jn] = jn
