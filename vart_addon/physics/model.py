"""A MuJoCo model of a URDF robot, built through MuJoCo's model-editing API (``MjSpec``).

:func:`build_spec` turns a :class:`vart_addon.formats.urdf.files.Robot` (what the URDF export
of a scene makes: the real links and joints, inertials, limits) into an ``mujoco.MjSpec``:

- a body per link, in the URDF tree; the child body frame is the URDF joint frame at q = 0;
  the root link gets a free joint (no base motion is imposed) and starts at ``base`` (4x4
  ``T_world_root``), unless it is ``world`` (a robot fixed to the ground), whose children hang
  from MuJoCo's world body;
- the URDF inertials (mass, centre of mass, the inertia tensor as its principal moments and
  axes); a link without one gets MuJoCo's lower bounds (``boundmass`` 1e-6 kg,
  ``boundinertia`` 1e-9 kg m^2, reported). A tensor no rigid body has (a negative principal
  moment, or one larger than the other two together) is replaced by its mean principal moment
  about every axis (MuJoCo's own ``balanceinertia`` rule), reported; with a mean <= 0 the
  link is refused;
- joints: revolute (limited) and continuous as hinges, prismatic as slides, fixed as none;
  ``floating`` as a MuJoCo free joint, named as the URDF joint (MuJoCo allows free joints on
  its world body's children only, so the child body hangs from the world body where the URDF
  puts it at q = 0, its subtree below it; ``free`` maps the free joints to their bodies);
  ``planar`` as two slides and a hinge (``<joint>__x``, ``__y`` along two axes of its plane,
  ``__r`` about its normal, in that order: ``T = Trans(x u + y v) Rot(axis, r)``, ``planar``
  maps them). Floating and planar joints are passive (no actuator). A ``<mimic>`` is a joint
  equality. URDF ``<dynamics>`` as MuJoCo defines its joints: ``damping`` (N m s/rad or N s/m)
  is the linear coefficient of MuJoCo's ``damping`` (``f = -damping qdot``; its polynomial
  terms stay 0), ``friction`` (N m or N) is the dry friction ``frictionloss``;
- a position actuator per 1-DoF joint that no mimic drives: its force range is the URDF
  effort limit (none when the effort is 0), its stiffness ``kp = effort / servo_error`` (the
  servo reaches its limit at that error, rad or m; ``kp = default_kp`` without an effort),
  critically damped (``dampratio`` 1: MuJoCo computes ``kv`` at the reference configuration);
- collision geometry: ``meshes[link]``, triangle meshes in the link frame (MuJoCo collides
  their convex hulls), else the URDF collision boxes, cylinders and spheres (a collision mesh
  file is not read: reported); robot geoms touch the ground and not each other (the
  clearance check's job), unless ``self_collision``;
- ``closures``: loops the URDF tree cannot hold (:class:`Closure`), as equality constraints:
  ``connect`` for a spherical joint, ``weld`` for a fixed one, two ``connect`` along the axis
  for a revolute one; except a spherical closure on a floating joint's child (a real
  spherical tree joint as the URDF export writes it), which is a MuJoCo ball joint
  (passive, named as the closure) with the child's body under the closure's parent
  (:mod:`.closures`);
- the ground: a plane at z = 0 named ``ground`` (``ground=True``), as stiff as the time step
  lets MuJoCo hold a contact: its contacts' time constant is :data:`GROUND_STIFFNESS` time
  steps (MuJoCo's least for a stable constraint; critically damped), and it decides the
  contact's parameters (``priority`` 1). MuJoCo's soft contact yields as the light link that
  touches, not the robot a servo puts on it: at its default 0.02 s a 33 kg block on four 5 mm
  spheres sinks 0.1 mm, the same on a 0.6 kg foot through a servoed ankle 0.8 mm, G1's soles
  1 to 3 mm; a sole sinking deeper at its loaded edge tilts (no floor does): on one foot G1
  toppled at rest; on this ground it stands, its centre of mass 2.5 mm from its ankle.

What cannot be built raises :class:`PhysicsError` naming the robot, the joint or link and the
field (a negative damping, friction or effort; a value MuJoCo refuses; a model it cannot
compile), never a bare MuJoCo error. MuJoCo is imported inside the functions (it is optional
at run time): without it they raise :class:`PhysicsError` saying how to install it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..formats.urdf import files as urdf
from ..solver import se3
from ..solver.errors import VartError
from .closures import Closure, add_closure, ball_joints, wxyz

__all__ = ["FREE_JOINT", "GROUND", "GROUND_STIFFNESS", "INSTALL", "PLANAR_PARTS", "Built",
           "Closure", "PhysicsError", "add_closure", "ball_joints", "build_spec", "compile_spec",
           "mujoco_module", "planar_axes", "planar_values", "put"]

#: Joint names of MuJoCo's free joint of the root body.
FREE_JOINT = "base_free"
#: Name suffixes of the slide, slide and hinge joints of a URDF planar joint.
PLANAR_PARTS = ("__x", "__y", "__r")
#: Name of the ground plane's geom.
GROUND = "ground"
#: Collision bits: the ground touches the robot (contype 1, conaffinity 1); the robot's geoms
#: (contype 2, conaffinity 1) touch the ground but not each other.
GROUND_BITS, ROBOT_BITS = (1, 1), (2, 1)
#: The ground contacts' time constant, in time steps of the model (module doc).
GROUND_STIFFNESS = 2
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


@dataclass
class Built:
    """What :func:`build_spec` made: the ``spec``, the actuated joints (name -> effort limit,
    N m or N; 0: none), whether the root is free, the free joints (name -> body: the root's
    :data:`FREE_JOINT` and each URDF floating joint), the planar joints (URDF name -> its
    three MuJoCo joints), the ball joints (name -> body, :func:`ball_joints`) and the
    warnings."""

    spec: Any
    actuated: dict = field(default_factory=dict)
    floating: bool = True
    warnings: list = field(default_factory=list)
    free: dict = field(default_factory=dict)
    planar: dict = field(default_factory=dict)
    balls: dict = field(default_factory=dict)


def put(obj, name: str, value, where: str) -> None:
    """``obj.name = value`` on a MuJoCo spec element, or :class:`PhysicsError` naming
    ``where`` (robot and element) and the field when MuJoCo refuses the value."""
    try:
        setattr(obj, name, value)
    except (TypeError, ValueError) as e:
        raise PhysicsError(f"{where}: MuJoCo refuses {name} = {value!r} ({e})") from None


def compile_spec(spec, what: str):
    """``spec.compile()``, or :class:`PhysicsError` naming ``what`` (the robot) with
    MuJoCo's message (which names the element)."""
    try:
        return spec.compile()
    except ValueError as e:
        raise PhysicsError(f"{what}: MuJoCo cannot compile the model: {e}") from None


def planar_axes(joint: urdf.Joint) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors ``u, v`` of a planar joint's plane (joint frame), ``u x v = axis``."""
    a = np.asarray(joint.axis, float)
    u = np.cross(a, [1.0, 0.0, 0.0] if abs(a[0]) < 0.9 else [0.0, 1.0, 0.0])
    u /= np.linalg.norm(u)
    return u, np.cross(a, u)


def planar_values(joint: urdf.Joint, M) -> tuple[float, float, float]:
    """``(x, y, r)`` of a planar joint's motion ``M`` (4x4 ``T_joint_child``): m along
    :func:`planar_axes` and rad about the axis (the rotation of ``u``, in (-pi, pi])."""
    M = np.asarray(M, float)
    u, v = planar_axes(joint)
    Ru = M[:3, :3] @ u
    return float(u @ M[:3, 3]), float(v @ M[:3, 3]), math.atan2(float(v @ Ru), float(u @ Ru))


def build_spec(robot: urdf.Robot, *, meshes=None, base=None, closures=(), ground=True,
               servo_error: float = 0.05, default_kp: float = 1000.0,
               self_collision: bool = False, timestep: float = 0.001,
               planar_ref=None) -> Built:
    """The MuJoCo spec of ``robot`` (see the module doc). ``meshes``: link -> list of
    ``(vertices n x 3, triangles m x 3)`` in the link frame; ``base``: ``T_world_root`` at
    the start (default identity); ``timestep``: s (implicit-fast integrator);
    ``planar_ref``: planar joint -> the motion (4x4) its child's frame is posed at (the
    spec's reference configuration; :func:`vart_addon.physics.mjcf_export.posed_spec`).
    Raises :class:`PhysicsError`."""
    mj = mujoco_module()
    if not servo_error > 0:
        raise PhysicsError(f"servo_error must be > 0 (rad or m), got {servo_error!r}")
    spec = mj.MjSpec()
    spec.modelname = robot.name or "robot"
    spec.option.timestep = float(timestep)
    spec.option.integrator = mj.mjtIntegrator.mjINT_IMPLICITFAST
    spec.compiler.degree = False  # ranges in radians, as URDF
    spec.compiler.boundmass, spec.compiler.boundinertia = 1e-6, 1e-9
    # geoms never add mass: a link's inertia is its URDF inertial's (or the bounds above)
    spec.compiler.inertiafromgeom = mj.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE
    out = Built(spec)
    if ground:
        g = spec.worldbody.add_geom(name=GROUND, type=mj.mjtGeom.mjGEOM_PLANE,
                                    size=[0, 0, 0.05])
        g.contype, g.conaffinity = GROUND_BITS
        g.priority, g.solref = 1, [GROUND_STIFFNESS * float(timestep), 1.0]
    balls = ball_joints(robot, closures)
    _Builder(mj, robot, out, meshes or {}, base, dict(planar_ref or {}),
             (1, 1) if self_collision else ROBOT_BITS, servo_error, default_kp).build(balls)
    held = {c.name for c in balls.values()}
    for c in closures:
        if c.name not in held:
            add_closure(mj, spec, c, out.warnings)
    return out


class _Builder:
    """The bodies, joints, actuators and geoms of one robot (see :func:`build_spec`)."""

    def __init__(self, mj, robot, out: Built, meshes, base, planar_ref, bits, servo_error,
                 default_kp):
        self.mj, self.robot, self.out, self.spec = mj, robot, out, out.spec
        self.meshes, self.planar_ref, self.bits = meshes, planar_ref, bits
        self.servo_error, self.default_kp = servo_error, default_kp
        self.base = np.eye(4) if base is None else np.asarray(base, float)
        self.followers = {j.name for j in robot.joints if j.mimic is not None}
        self.name = robot.name or "robot"
        self._world: dict | None = None
        self.balls: dict = {}  # child link -> its ball joint's Closure (build)
        self.waiting: list = []  # floating joints whose ball parent is not built yet

    def where(self, kind: str, name: str) -> str:
        return f"robot {self.name!r}, {kind} {name!r}"

    def world_pose(self, link: str) -> np.ndarray:
        """``T_world_link`` at q = 0 (floating joints at rest)."""
        if self._world is None:
            self._world = urdf.link_poses(self.robot, {}, base=self.base)
        return self._world[link]

    def build(self, balls: dict) -> None:
        robot, spec = self.robot, self.spec
        self.balls, self.waiting = balls, []
        root = robot.root_link
        if root == "world":
            self.out.floating = False
            robot.link_by_name(root)  # exists
            for j in robot.children_of(root):
                self.child(spec.worldbody, j)
        else:
            body = spec.worldbody.add_body(name=root, pos=list(self.base[:3, 3]),
                                           quat=wxyz(self.base[:3, :3]))
            body.add_freejoint(name=FREE_JOINT)
            self.out.free[FREE_JOINT] = root
            self.link(body, root)
        while self.waiting:  # ball joints' children, once their parents' bodies exist
            ready = [j for j in self.waiting if self.balls[j.child].parent is None
                     or spec.body(self.balls[j.child].parent) is not None]
            if not ready:
                c = self.balls[self.waiting[0].child]
                raise PhysicsError(f"{self.where('joint', c.name)}, parent: no link "
                                   f"{c.parent!r} in the robot to hang a ball joint from")
            for j in ready:
                self.waiting.remove(j)
                self.ball(j, self.balls[j.child])
        for j in robot.joints:
            if j.mimic is None:
                continue
            if spec.joint(j.name) is not None and spec.joint(j.mimic.joint) is not None:
                eq = spec.add_equality(name=f"{j.name}__mimic", type=self.mj.mjtEq.mjEQ_JOINT,
                                       name1=j.name, name2=j.mimic.joint)
                eq.data[:5] = [j.mimic.offset, j.mimic.multiplier, 0.0, 0.0, 0.0]

    def child(self, body, j: urdf.Joint) -> None:
        """The child body of joint ``j`` (under ``body``; under the world for a floating
        joint) with its joint, actuator and subtree."""
        if j.type == "floating" and j.child in self.balls:
            self.waiting.append(j)
            return
        if j.type == "floating":
            T = self.world_pose(j.child)
            child = self.spec.worldbody.add_body(name=j.child, pos=list(T[:3, 3]),
                                                 quat=wxyz(T[:3, :3]))
            child.add_freejoint(name=j.name)
            self.out.free[j.name] = j.child
        else:
            T = j.origin.matrix()
            child = body.add_body(name=j.child, pos=list(T[:3, 3]), quat=wxyz(T[:3, :3]))
            if j.type == "planar":
                self.planar(child, j)
            elif j.type != "fixed":
                self.joint(child, j)
        self.link(child, j.child)

    def ball(self, j: urdf.Joint, c: Closure) -> None:
        """The child of floating joint ``j`` under closure ``c``'s parent (where the URDF has
        both), on a ball joint named as ``c`` at its anchor (:func:`ball_joints`)."""
        parent = self.spec.worldbody if c.parent is None else self.spec.body(c.parent)
        T_parent = np.eye(4) if c.parent is None else self.world_pose(c.parent)
        T = se3.inverse(T_parent) @ self.world_pose(j.child)
        child = parent.add_body(name=j.child, pos=list(T[:3, 3]), quat=wxyz(T[:3, :3]))
        child.add_joint(name=c.name, type=self.mj.mjtJoint.mjJNT_BALL,
                        pos=[float(x) for x in np.asarray(c.T_child_joint, float)[:3, 3]])
        self.out.balls[c.name] = j.child
        self.link(child, j.child)

    def link(self, body, name: str) -> None:
        """Inertial and collision geometry of link ``name`` on ``body``, then its children."""
        link = self.robot.link_by_name(name)
        if link.inertial is not None and link.inertial.mass > 0:
            self.inertial(body, link)
        else:
            self.out.warnings.append(f"link {name!r} has no inertial: MuJoCo's least mass and "
                                     "inertia stand in")
        mj = self.mj
        for k, (v, t) in enumerate(self.meshes.get(name, ())):
            mesh_name = f"{name}__{k}"
            self.spec.add_mesh(name=mesh_name, uservert=np.asarray(v, float).ravel().tolist(),
                               userface=np.asarray(t, int).ravel().tolist())
            g = body.add_geom(name=mesh_name, type=mj.mjtGeom.mjGEOM_MESH, meshname=mesh_name)
            g.contype, g.conaffinity = self.bits
        if name not in self.meshes:
            for k, c in enumerate(link.collisions):
                g = _primitive(mj, body, f"{name}__c{k}", c, self.out.warnings, name)
                if g is not None:
                    g.contype, g.conaffinity = self.bits
        for j in self.robot.children_of(name):
            self.child(body, j)

    def inertial(self, body, link: urdf.Link) -> None:
        """Mass, centre of mass and principal moments and axes of ``link``'s inertial."""
        inl = link.inertial
        assert inl is not None
        where = self.where("link", link.name) + ", <inertial> inertia"
        lam, V = np.linalg.eigh(inl.inertia_matrix())
        if np.linalg.det(V) < 0:
            V[:, 0] = -V[:, 0]
        tol = 1e-9 * float(np.abs(lam).max()) + 1e-15  # rounding of the file's digits
        if lam[0] < -tol or lam[0] + lam[1] < lam[2] - tol:
            mean = float(lam.sum()) / 3.0
            if not mean > 0:
                raise PhysicsError(f"{where}: principal moments {lam.tolist()} kg m^2 are no "
                                   "rigid body's and their mean is not positive")
            self.out.warnings.append(
                f"{where}: principal moments {[float(f'{x:.6g}') for x in lam]} kg m^2 are "
                f"no rigid body's (each must be >= 0 and <= the other two together); "
                f"replaced by their mean {mean:.6g} about every axis")
            lam = np.full(3, mean)
        lam = np.maximum(lam, 0.0)
        lam[2] = min(lam[2], lam[0] + lam[1])  # within rounding of the triangle inequality
        put(body, "mass", float(inl.mass), where)
        put(body, "ipos", list(inl.origin.xyz), where)
        put(body, "iquat", wxyz(inl.origin.matrix()[:3, :3] @ V), where)
        put(body, "inertia", lam.tolist(), where)
        body.explicitinertial = True

    def joint(self, body, j: urdf.Joint) -> None:
        """The hinge or slide, and the actuator, of 1-DoF URDF joint ``j`` on ``body``."""
        mj = self.mj
        where = self.where("joint", j.name)
        hinge = j.type != "prismatic"
        mj_joint = body.add_joint(name=j.name, axis=list(j.axis), type=mj.mjtJoint.mjJNT_HINGE
                                  if hinge else mj.mjtJoint.mjJNT_SLIDE)
        lim = j.limit
        if lim is not None and j.type != "continuous" and lim.upper > lim.lower:
            mj_joint.limited = mj.mjtLimited.mjLIMITED_TRUE
            put(mj_joint, "range", [lim.lower, lim.upper], where + ", <limit>")
        self.dynamics(mj_joint, j, where)
        if j.name in self.followers:
            return
        effort = float(lim.effort) if lim is not None else 0.0
        if effort < 0:
            raise PhysicsError(f"{where}, <limit> effort: {effort} {'N m' if hinge else 'N'} "
                               "is negative (a force bound is >= 0)")
        act = self.spec.add_actuator(name=j.name, target=j.name, trntype=mj.mjtTrn.mjTRN_JOINT)
        act.set_to_position(kp=effort / self.servo_error if effort > 0 else self.default_kp,
                            dampratio=1.0)
        if effort > 0:
            act.forcelimited = mj.mjtLimited.mjLIMITED_TRUE
            put(act, "forcerange", [-effort, effort], where + ", <limit> effort")
        self.out.actuated[j.name] = effort

    def dynamics(self, mj_joint, j: urdf.Joint, where: str) -> None:
        """URDF ``<dynamics>`` as MuJoCo's linear damping and dry friction (module doc)."""
        if j.dynamics is None:
            return
        unit = "N m" if j.type != "prismatic" else "N"
        for attr, value, mj_field, u in (("damping", j.dynamics.damping, "damping", " s/rad"),
                                         ("friction", j.dynamics.friction, "frictionloss", "")):
            if value < 0:
                raise PhysicsError(f"{where}, <dynamics> {attr}: {value} {unit}{u} is negative "
                                   f"(MuJoCo's {mj_field} must be >= 0: it would add energy)")
        put(mj_joint, "damping", [float(j.dynamics.damping), 0.0, 0.0], where +
            ", <dynamics> damping")
        put(mj_joint, "frictionloss", float(j.dynamics.friction), where +
            ", <dynamics> friction")

    def planar(self, body, j: urdf.Joint) -> None:
        """Slide, slide and hinge (passive) for planar joint ``j`` (module doc); with a
        reference motion M0 the body frame is posed at M0, so the slides run along the plane
        axes seen from it (``R0^T u``, ``R0^T v``) and their refs are M0's values."""
        mj = self.mj
        u, v = planar_axes(j)
        M0 = self.planar_ref.get(j.name)
        R0 = np.eye(3) if M0 is None else np.asarray(M0, float)[:3, :3]
        refs = (0.0, 0.0, 0.0) if M0 is None else planar_values(j, M0)
        names = tuple(j.name + s for s in PLANAR_PARTS)
        for name, axis, kind, ref in zip(names, (R0.T @ u, R0.T @ v, j.axis), (
                mj.mjtJoint.mjJNT_SLIDE, mj.mjtJoint.mjJNT_SLIDE, mj.mjtJoint.mjJNT_HINGE), refs):
            mj_joint = body.add_joint(name=name, axis=[float(x) for x in axis], type=kind)
            mj_joint.ref = ref
            self.dynamics(mj_joint, j, self.where("joint", j.name))
        self.out.planar[j.name] = names


def _primitive(mj, body, name, c, warnings, link):
    """A geom for a URDF collision box, cylinder or sphere (a mesh file is not read here)."""
    T = c.origin.matrix()
    g = c.geometry
    kw = dict(name=name, pos=list(T[:3, 3]), quat=wxyz(T[:3, :3]))
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
