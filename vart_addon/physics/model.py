"""A MuJoCo model of a URDF robot, built through MuJoCo's model-editing API (``MjSpec``).

:func:`build_spec` turns a :class:`vart_addon.formats.urdf.files.Robot` (what the URDF export
of a scene makes: the real links and joints, inertials, limits) into an ``mujoco.MjSpec``:

- a body per link, in the URDF tree; the child body frame is the URDF joint frame at q = 0;
  the root link gets a free joint (no base motion is imposed) and starts at ``base`` (4x4
  ``T_world_root``), unless it is ``world`` (a robot fixed to the ground), whose children hang
  from MuJoCo's world body;
- the URDF inertials (mass, centre of mass, full inertia tensor); a link without one gets
  MuJoCo's lower bounds (``boundmass`` 1e-6 kg, ``boundinertia`` 1e-9 kg m^2, reported);
- joints: revolute (limited) and continuous as hinges, prismatic as slides, fixed as none;
  a ``<mimic>`` as a joint equality; others are reported and made fixed;
- a position actuator per 1-DoF joint that no mimic drives: its force range is the URDF
  effort limit (none when the effort is 0), its stiffness ``kp = effort / servo_error`` (the
  servo reaches its limit at that error, rad or m; ``kp = default_kp`` without an effort),
  critically damped (``dampratio`` 1);
- collision geometry: ``meshes[link]``, triangle meshes in the link frame (MuJoCo collides
  their convex hulls), else the URDF collision boxes, cylinders and spheres; robot geoms touch
  the ground and not each other (the clearance check's job), unless ``self_collision``;
- ``closures``: loops the URDF tree cannot hold (:class:`Closure`), as equality constraints:
  ``connect`` for a spherical joint, ``weld`` for a fixed one, two ``connect`` along the axis
  for a revolute one;
- the ground: a plane at z = 0 (``ground=True``).

MuJoCo is imported inside the functions (it is optional at run time): without it they raise
:class:`PhysicsError` saying how to install it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..formats.urdf import files as urdf
from ..solver import se3
from ..solver.errors import VartError

#: Joint names of MuJoCo's free joint of the root body.
FREE_JOINT = "base_free"
#: Collision bits: the ground touches the robot (contype 1, conaffinity 1); the robot's geoms
#: (contype 2, conaffinity 1) touch the ground but not each other.
GROUND_BITS, ROBOT_BITS = (1, 1), (2, 1)
INSTALL = ("MuJoCo is not installed: install the PyPI package 'mujoco-core' into Blender's "
           "Python (<blender python> -m pip install mujoco-core) and restart Blender")


class PhysicsError(VartError):
    """A physics model or replay that cannot be made; the message says why."""


def mujoco_module():
    """``import mujoco``, or :class:`PhysicsError` saying how to install it."""
    try:
        import mujoco  # type: ignore[import-untyped]  # no stubs; optional at run time
    except ImportError:
        raise PhysicsError(INSTALL) from None
    return mujoco


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


@dataclass
class Built:
    """What :func:`build_spec` made: the ``spec``, the actuated joints (name -> effort limit,
    N m or N; 0: none), whether the base is free, and the warnings."""

    spec: Any
    actuated: dict = field(default_factory=dict)
    floating: bool = True
    warnings: list = field(default_factory=list)


def _quat(R) -> list:
    return [float(x) for x in se3.rot_to_quat(np.asarray(R, float))]


def build_spec(robot: urdf.Robot, *, meshes=None, base=None, closures=(), ground=True,
               servo_error: float = 0.05, default_kp: float = 1000.0,
               self_collision: bool = False, timestep: float = 0.001) -> Built:
    """The MuJoCo spec of ``robot`` (see the module doc). ``meshes``: link -> list of
    ``(vertices n x 3, triangles m x 3)`` in the link frame; ``base``: ``T_world_root`` at
    the start (default identity); ``timestep``: s (implicit-fast integrator)."""
    mj = mujoco_module()
    if not servo_error > 0:
        raise PhysicsError(f"servo_error must be > 0 (rad or m), got {servo_error!r}")
    meshes = meshes or {}
    spec = mj.MjSpec()
    spec.modelname = robot.name or "robot"
    spec.option.timestep = float(timestep)
    spec.option.integrator = mj.mjtIntegrator.mjINT_IMPLICITFAST
    spec.compiler.degree = False  # ranges in radians, as URDF
    spec.compiler.boundmass, spec.compiler.boundinertia = 1e-6, 1e-9
    out = Built(spec)
    if ground:
        g = spec.worldbody.add_geom(name="ground", type=mj.mjtGeom.mjGEOM_PLANE,
                                    size=[0, 0, 0.05])
        g.contype, g.conaffinity = GROUND_BITS
    root = robot.root_link
    bits = (1, 1) if self_collision else ROBOT_BITS
    mimic_followers = {j.name for j in robot.joints if j.mimic is not None}

    def add_link(body, name):
        link = robot.link_by_name(name)
        if link.inertial is not None and link.inertial.mass > 0:
            inl = link.inertial
            body.mass = inl.mass
            body.ipos = list(inl.origin.xyz)
            body.iquat = _quat(inl.origin.matrix()[:3, :3])
            xx, xy, xz, yy, yz, zz = inl.inertia
            body.fullinertia = [xx, yy, zz, xy, xz, yz]
        else:
            out.warnings.append(f"link {name!r} has no inertial: MuJoCo's least mass and "
                                "inertia stand in")
        for k, (v, t) in enumerate(meshes.get(name, ())):
            mesh_name = f"{name}__{k}"
            spec.add_mesh(name=mesh_name, uservert=np.asarray(v, float).ravel().tolist(),
                          userface=np.asarray(t, int).ravel().tolist())
            g = body.add_geom(name=mesh_name, type=mj.mjtGeom.mjGEOM_MESH, meshname=mesh_name)
            g.contype, g.conaffinity = bits
        if name not in meshes:
            for k, c in enumerate(link.collisions):
                g = _primitive(mj, body, f"{name}__c{k}", c, out.warnings, name)
                if g is not None:
                    g.contype, g.conaffinity = bits
        for j in robot.children_of(name):
            T = j.origin.matrix()
            child = body.add_body(name=j.child, pos=list(T[:3, 3]), quat=_quat(T[:3, :3]))
            _joint(mj, child, j, out, mimic_followers, servo_error, default_kp, spec)
            add_link(child, j.child)

    if root == "world":
        out.floating = False
        robot.link_by_name(root)  # exists
        for j in robot.children_of(root):
            T = j.origin.matrix()
            child = spec.worldbody.add_body(name=j.child, pos=list(T[:3, 3]),
                                            quat=_quat(T[:3, :3]))
            _joint(mj, child, j, out, mimic_followers, servo_error, default_kp, spec)
            add_link(child, j.child)
    else:
        T = np.eye(4) if base is None else np.asarray(base, float)
        body = spec.worldbody.add_body(name=root, pos=list(T[:3, 3]), quat=_quat(T[:3, :3]))
        body.add_freejoint(name=FREE_JOINT)
        add_link(body, root)
    for j in robot.joints:
        if j.mimic is None:
            continue
        if spec.joint(j.name) is not None and spec.joint(j.mimic.joint) is not None:
            eq = spec.add_equality(name=f"{j.name}__mimic", type=mj.mjtEq.mjEQ_JOINT,
                                   name1=j.name, name2=j.mimic.joint)
            eq.data[:5] = [j.mimic.offset, j.mimic.multiplier, 0.0, 0.0, 0.0]
    for c in closures:
        add_closure(mj, spec, c, out.warnings)
    return out


def _primitive(mj, body, name, c, warnings, link):
    """A geom for a URDF collision box, cylinder or sphere (a mesh file is not read here)."""
    T = c.origin.matrix()
    g = c.geometry
    kw = dict(name=name, pos=list(T[:3, 3]), quat=_quat(T[:3, :3]))
    if isinstance(g, urdf.Box):
        return body.add_geom(type=mj.mjtGeom.mjGEOM_BOX, size=[s / 2 for s in g.size], **kw)
    if isinstance(g, urdf.Cylinder):
        return body.add_geom(type=mj.mjtGeom.mjGEOM_CYLINDER, size=[g.radius, g.length / 2, 0],
                             **kw)
    if isinstance(g, urdf.Sphere):
        return body.add_geom(type=mj.mjtGeom.mjGEOM_SPHERE, size=[g.radius, 0, 0], **kw)
    warnings.append(f"link {link!r}: collision mesh {g.filename!r} left out (give the link's "
                    "meshes instead)")
    return None


def _joint(mj, body, j, out: Built, followers, servo_error, default_kp, spec):
    """The MuJoCo joint and actuator of URDF joint ``j`` on its child ``body``."""
    if j.type == "fixed":
        return
    if j.type not in ("revolute", "continuous", "prismatic"):
        out.warnings.append(f"joint {j.name!r}: a {j.type} joint is not replayed; made fixed")
        return
    hinge = j.type != "prismatic"
    mj_joint = body.add_joint(name=j.name, axis=list(j.axis),
                              type=mj.mjtJoint.mjJNT_HINGE if hinge else mj.mjtJoint.mjJNT_SLIDE)
    lim = j.limit
    if lim is not None and j.type != "continuous" and lim.upper > lim.lower:
        mj_joint.limited = mj.mjtLimited.mjLIMITED_TRUE
        mj_joint.range = [lim.lower, lim.upper]
    if j.dynamics is not None:
        mj_joint.damping, mj_joint.frictionloss = j.dynamics.damping, j.dynamics.friction
    if j.name in followers:
        return
    effort = float(lim.effort) if lim is not None else 0.0
    act = spec.add_actuator(name=j.name, target=j.name, trntype=mj.mjtTrn.mjTRN_JOINT)
    act.set_to_position(kp=effort / servo_error if effort > 0 else default_kp, dampratio=1.0)
    if effort > 0:
        act.forcelimited = mj.mjtLimited.mjLIMITED_TRUE
        act.forcerange = [-effort, effort]
    out.actuated[j.name] = effort


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
        eq.data[6:10] = _quat(T12[:3, :3])
        eq.data[10] = 1.0
    else:
        warnings.append(f"closure joint {c.name!r}: a {c.kind} closure has no MuJoCo equality "
                        "here; left out")
