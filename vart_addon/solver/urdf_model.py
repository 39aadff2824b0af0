"""URDF data model: frozen, validated dataclasses and the URDF tree's own forward kinematics.

Pure Python + numpy. This is a faithful model of a URDF file, not a solver model: the scene
bridge maps it to vart links and joints. Import it through :mod:`vart_addon.solver.urdf`.

Units are SI throughout: metres, radians, kilograms, kg*m^2, N or N*m (effort), m/s or rad/s.

Frames (as in the URDF spec):

- a joint's ``origin`` is ``T_parent_joint``: the joint frame posed in the parent link frame;
  the child link frame coincides with the joint frame at q = 0, so
  ``T_parent_child(q) = origin.matrix() @ joint_motion(joint, q)``;
- a visual's, collision's or inertial's ``origin`` is posed in its link frame;
- a joint's ``axis`` is a unit vector in the joint frame.

Every constructor validates and normalises its input (tuples of finite floats, unit axis), so a
``Robot`` that exists is a valid URDF tree; violations raise :class:`UrdfError`, whose message
names the element (``joint 'knee': unknown type 'hinge'``).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Union

import numpy as np

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")
ONE_DOF_TYPES = ("revolute", "continuous", "prismatic")


class UrdfError(ValueError):
    """Invalid URDF text or model. The message names the offending element."""


@contextmanager
def context(label: str):
    """Prefix the message of any UrdfError raised inside with ``label: ``."""
    try:
        yield
    except UrdfError as e:
        raise UrdfError(f"{label}: {e}") from e.__cause__


def _finite(x: Any, what: str) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise UrdfError(f"{what} is not a number: {x!r}") from None
    if not math.isfinite(v):
        raise UrdfError(f"{what} is not finite: {v}")
    return v


def _vec(values: Any, n: int, what: str) -> tuple[float, ...]:
    try:
        vals = tuple(values)
    except TypeError:
        raise UrdfError(f"{what} is not a sequence: {values!r}") from None
    if len(vals) != n:
        raise UrdfError(f"{what} has {len(vals)} values, expected {n}")
    return tuple(_finite(v, what) for v in vals)


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)


def _opt_str(x: Any, what: str) -> Optional[str]:
    if x is not None and not isinstance(x, str):
        raise UrdfError(f"{what} must be a string or None, not {type(x).__name__}")
    return x or None


# ---------------------------------------------------------------- rotations


def rpy_to_matrix(rpy) -> np.ndarray:
    """3x3 rotation of URDF fixed-axis roll-pitch-yaw: ``Rz(yaw) @ Ry(pitch) @ Rx(roll)``."""
    r, p, y = (float(a) for a in rpy)
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def matrix_to_rpy(R) -> tuple[float, float, float]:
    """Fixed-axis (roll, pitch, yaw) of a rotation matrix, pitch in [-pi/2, pi/2].

    Robust at gimbal lock: yaw is taken from the first column (0 when cos(pitch) < 1e-14),
    then roll and pitch are read from ``Rz(yaw).T @ R = Ry(pitch) @ Rx(roll)``, which stays
    well conditioned for every yaw, so the angles always reproduce R to rounding error.
    """
    R = np.asarray(R, dtype=float)
    c = math.hypot(R[0, 0], R[1, 0])  # = cos(pitch) >= 0
    yaw = math.atan2(R[1, 0], R[0, 0]) if c > 1e-14 else 0.0  # error <= c when snapped to 0
    M = np.array([[math.cos(yaw), math.sin(yaw), 0.0], [-math.sin(yaw), math.cos(yaw), 0.0], [0, 0, 1]]) @ R
    pitch = math.atan2(-M[2, 0], c)  # M[0, 0] = c up to rounding; c >= 0 keeps |pitch| <= pi/2
    roll = math.atan2(-M[1, 2], M[1, 1])
    return (roll + 0.0, pitch + 0.0, yaw + 0.0)  # + 0.0 turns -0.0 into 0.0


def axis_angle_matrix(axis, angle: float) -> np.ndarray:
    """3x3 rotation by ``angle`` (rad) about the unit vector ``axis`` (Rodrigues)."""
    x, y, z = (float(a) for a in axis)
    K = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    return np.eye(3) + math.sin(angle) * K + (1.0 - math.cos(angle)) * (K @ K)


# ---------------------------------------------------------------- elements


@dataclass(frozen=True)
class Origin:
    """A pose ``<origin xyz rpy>``: translation (m) and fixed-axis roll, pitch, yaw (rad)."""

    xyz: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rpy: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def __post_init__(self):
        _set(self, "xyz", _vec(self.xyz, 3, "<origin> xyz"))
        _set(self, "rpy", _vec(self.rpy, 3, "<origin> rpy"))

    def matrix(self) -> np.ndarray:
        """4x4 homogeneous transform ``[[R, xyz], [0, 1]]`` with ``R = Rz(y) Ry(p) Rx(r)``."""
        T = np.eye(4)
        T[:3, :3] = rpy_to_matrix(self.rpy)
        T[:3, 3] = self.xyz
        return T

    @classmethod
    def from_matrix(cls, T, *, tol: float = 1e-6) -> "Origin":
        """Origin of a 4x4 rigid transform; raises UrdfError if T is not one (within ``tol``)."""
        T = np.asarray(T, dtype=float)
        if T.shape != (4, 4) or not np.all(np.isfinite(T)):
            raise UrdfError(f"transform must be a finite 4x4 matrix, got shape {T.shape}")
        R = T[:3, :3]
        if (np.abs(R.T @ R - np.eye(3)).max() > tol or abs(np.linalg.det(R) - 1.0) > tol
                or np.abs(T[3] - (0, 0, 0, 1)).max() > tol):
            raise UrdfError("transform is not a rigid transform (rotation not orthonormal)")
        return cls(tuple(T[:3, 3]), matrix_to_rpy(R))

    @property
    def is_identity(self) -> bool:
        return self.xyz == (0.0, 0.0, 0.0) and self.rpy == (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Box:
    """``<box size>``: edge lengths (m) along x, y, z, centred on the element's origin."""

    size: tuple[float, float, float]
    kind = "box"

    def __post_init__(self):
        _set(self, "size", _vec(self.size, 3, "<box> size"))
        if min(self.size) < 0:
            raise UrdfError(f"<box> size has a negative value: {self.size}")


@dataclass(frozen=True)
class Cylinder:
    """``<cylinder radius length>`` (m), axis along z, centred on the element's origin."""

    radius: float
    length: float
    kind = "cylinder"

    def __post_init__(self):
        for name in ("radius", "length"):
            v = _finite(getattr(self, name), f"<cylinder> {name}")
            if v < 0:
                raise UrdfError(f"<cylinder> {name} is negative: {v}")
            _set(self, name, v)


@dataclass(frozen=True)
class Sphere:
    """``<sphere radius>`` (m), centred on the element's origin."""

    radius: float
    kind = "sphere"

    def __post_init__(self):
        v = _finite(self.radius, "<sphere> radius")
        if v < 0:
            raise UrdfError(f"<sphere> radius is negative: {v}")
        _set(self, "radius", v)


@dataclass(frozen=True)
class Mesh:
    """``<mesh filename scale>``: filename exactly as written (``package://...``, a path relative
    to the URDF file, or absolute); resolving it is the importer's job. Scale per axis, may be
    negative (mirroring)."""

    filename: str
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    kind = "mesh"

    def __post_init__(self):
        if not isinstance(self.filename, str) or not self.filename.strip():
            raise UrdfError("<mesh> filename is empty")
        _set(self, "scale", _vec(self.scale, 3, "<mesh> scale"))


Geometry = Union[Box, Cylinder, Sphere, Mesh]
GEOMETRY_TYPES = (Box, Cylinder, Sphere, Mesh)


def _check_geometry(g: Any) -> None:
    if not isinstance(g, GEOMETRY_TYPES):
        raise UrdfError(f"geometry must be Box, Cylinder, Sphere or Mesh, not {type(g).__name__}")


def _rgba(x: Any) -> Optional[tuple[float, ...]]:
    return None if x is None else _vec(x, 4, "<color> rgba")


@dataclass(frozen=True)
class Material:
    """A named ``<material>``: colour (r, g, b, a in 0..1 as written) and/or texture filename."""

    name: str
    rgba: Optional[tuple[float, float, float, float]] = None
    texture: Optional[str] = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise UrdfError("material: missing name")
        with context(f"material '{self.name}'"):
            _set(self, "rgba", _rgba(self.rgba))
            _set(self, "texture", _opt_str(self.texture, "<texture> filename"))


@dataclass(frozen=True, kw_only=True)
class Visual:
    """``<visual>`` of a link; ``origin`` is posed in the link frame.

    ``rgba``/``texture`` are the visual's effective material: written inline in the visual or,
    when the visual only names its material, resolved from the robot's global material (or an
    inline material of that name defined elsewhere, as urdfdom does). Both None: no colour known.
    """

    geometry: Geometry
    origin: Origin = Origin()
    name: Optional[str] = None
    material_name: Optional[str] = None
    rgba: Optional[tuple[float, float, float, float]] = None
    texture: Optional[str] = None

    def __post_init__(self):
        with context("<visual>"):
            _check_geometry(self.geometry)
            if not isinstance(self.origin, Origin):
                raise UrdfError("origin must be an Origin")
            _set(self, "name", _opt_str(self.name, "name"))
            _set(self, "material_name", _opt_str(self.material_name, "<material> name"))
            _set(self, "rgba", _rgba(self.rgba))
            _set(self, "texture", _opt_str(self.texture, "<texture> filename"))


@dataclass(frozen=True, kw_only=True)
class Collision:
    """``<collision>`` of a link; ``origin`` is posed in the link frame."""

    geometry: Geometry
    origin: Origin = Origin()
    name: Optional[str] = None

    def __post_init__(self):
        with context("<collision>"):
            _check_geometry(self.geometry)
            if not isinstance(self.origin, Origin):
                raise UrdfError("origin must be an Origin")
            _set(self, "name", _opt_str(self.name, "name"))


INERTIA_KEYS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")


@dataclass(frozen=True, kw_only=True)
class Inertial:
    """``<inertial>``: mass (kg) and inertia (kg*m^2) about the centre of mass.

    ``origin`` poses the centre-of-mass frame in the link frame; ``inertia`` is
    (ixx, ixy, ixz, iyy, iyz, izz) in that frame (a symmetric 3x3 matrix is accepted too).
    """

    mass: float
    origin: Origin = Origin()
    inertia: tuple[float, float, float, float, float, float] = (0.0,) * 6

    def __post_init__(self):
        with context("<inertial>"):
            m = _finite(self.mass, "<mass> value")
            if m < 0:
                raise UrdfError(f"<mass> value is negative: {m}")
            _set(self, "mass", m)
            if not isinstance(self.origin, Origin):
                raise UrdfError("origin must be an Origin")
            I = self.inertia
            if np.shape(I) == (3, 3):
                I = np.asarray(I, dtype=float)
                I = (I[0, 0], I[0, 1], I[0, 2], I[1, 1], I[1, 2], I[2, 2])
            _set(self, "inertia", _vec(I, 6, "<inertia>"))

    def inertia_matrix(self) -> np.ndarray:
        """Symmetric 3x3 inertia tensor (kg*m^2) in the centre-of-mass frame."""
        xx, xy, xz, yy, yz, zz = self.inertia
        return np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])


@dataclass(frozen=True)
class Link:
    """``<link>``: a rigid body with its visuals, collisions (in file order) and inertial."""

    name: str
    visuals: tuple[Visual, ...] = ()
    collisions: tuple[Collision, ...] = ()
    inertial: Optional[Inertial] = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise UrdfError("link: missing name")
        with context(f"link '{self.name}'"):
            _set(self, "visuals", tuple(self.visuals))
            _set(self, "collisions", tuple(self.collisions))
            if not all(isinstance(v, Visual) for v in self.visuals):
                raise UrdfError("visuals must be Visual objects")
            if not all(isinstance(c, Collision) for c in self.collisions):
                raise UrdfError("collisions must be Collision objects")
            if self.inertial is not None and not isinstance(self.inertial, Inertial):
                raise UrdfError("inertial must be an Inertial or None")


@dataclass(frozen=True)
class Limit:
    """``<limit>``: position bounds (rad or m), effort (N*m or N), velocity (rad/s or m/s).

    Per the spec, absent lower/upper mean 0. Effort and velocity are required by the spec but
    often omitted; absent ones read as 0.0, which (as in MoveIt) means "not given / unbounded".
    """

    lower: float = 0.0
    upper: float = 0.0
    effort: float = 0.0
    velocity: float = 0.0

    def __post_init__(self):
        for name in ("lower", "upper", "effort", "velocity"):
            _set(self, name, _finite(getattr(self, name), f"<limit> {name}"))
        if self.lower > self.upper:
            raise UrdfError(f"<limit> lower {self.lower} > upper {self.upper}")


@dataclass(frozen=True)
class Mimic:
    """``<mimic>``: this joint's value is ``multiplier * q[joint] + offset``."""

    joint: str
    multiplier: float = 1.0
    offset: float = 0.0

    def __post_init__(self):
        if not isinstance(self.joint, str) or not self.joint:
            raise UrdfError("<mimic> is missing attribute 'joint'")
        _set(self, "multiplier", _finite(self.multiplier, "<mimic> multiplier"))
        _set(self, "offset", _finite(self.offset, "<mimic> offset"))


@dataclass(frozen=True)
class Dynamics:
    """``<dynamics>``: viscous damping (N*s/m or N*m*s/rad) and static friction (N or N*m)."""

    damping: float = 0.0
    friction: float = 0.0

    def __post_init__(self):
        _set(self, "damping", _finite(self.damping, "<dynamics> damping"))
        _set(self, "friction", _finite(self.friction, "<dynamics> friction"))


@dataclass(frozen=True)
class Joint:
    """``<joint>``: connects ``parent`` to ``child`` (link names).

    ``origin`` is ``T_parent_joint``; ``axis`` is a unit vector in the joint frame (normalised on
    construction; zero is an error): the rotation axis (revolute, continuous), translation
    direction (prismatic) or plane normal (planar); unused for fixed and floating.
    ``limit`` is None when the file has no ``<limit>`` (even for revolute/prismatic, where the
    spec requires one: the caller decides what that means).
    """

    name: str
    type: str
    parent: str
    child: str
    origin: Origin = Origin()
    axis: tuple[float, float, float] = (1.0, 0.0, 0.0)
    limit: Optional[Limit] = None
    mimic: Optional[Mimic] = None
    dynamics: Optional[Dynamics] = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise UrdfError("joint: missing name")
        with context(f"joint '{self.name}'"):
            if self.type not in JOINT_TYPES:
                raise UrdfError(f"unknown type {self.type!r} (expected one of {', '.join(JOINT_TYPES)})")
            for end in ("parent", "child"):
                v = getattr(self, end)
                if not isinstance(v, str) or not v:
                    raise UrdfError(f"missing <{end}> link")
            if self.parent == self.child:
                raise UrdfError(f"parent and child are the same link '{self.parent}'")
            if not isinstance(self.origin, Origin):
                raise UrdfError("origin must be an Origin")
            axis = np.array(_vec(self.axis, 3, "<axis> xyz"))
            n = float(np.linalg.norm(axis))
            if n < 1e-12:
                raise UrdfError("<axis> xyz is the zero vector")
            if abs(n - 1.0) > 1e-12:
                axis = axis / n
            _set(self, "axis", tuple(float(a) + 0.0 for a in axis))
            for name, cls in (("limit", Limit), ("mimic", Mimic), ("dynamics", Dynamics)):
                v = getattr(self, name)
                if v is not None and not isinstance(v, cls):
                    raise UrdfError(f"{name} must be a {cls.__name__} or None")
            if self.mimic is not None:
                if self.mimic.joint == self.name:
                    raise UrdfError("<mimic> refers to the joint itself")
                if self.type in ("floating", "planar"):
                    raise UrdfError(f"<mimic> on a {self.type} joint")


# ---------------------------------------------------------------- robot


@dataclass(frozen=True)
class Robot:
    """``<robot>``: links, joints and global materials in file order.

    ``extras`` keeps unknown top-level elements (gazebo, transmission, ros2_control, ...) as
    XML text so that writing the robot back preserves them.

    Construction checks the tree: unique names, existing parent/child links, one parent joint
    per link, no cycles, exactly one root, valid mimic references.
    """

    name: str
    links: tuple[Link, ...]
    joints: tuple[Joint, ...] = ()
    materials: tuple[Material, ...] = ()
    extras: tuple[str, ...] = ()
    _links: dict = field(init=False, repr=False, compare=False)
    _joints: dict = field(init=False, repr=False, compare=False)
    _parent: dict = field(init=False, repr=False, compare=False)
    _children: dict = field(init=False, repr=False, compare=False)
    _order: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise UrdfError("robot: name must be a string")
        for attr, cls in (("links", Link), ("joints", Joint), ("materials", Material), ("extras", str)):
            _set(self, attr, tuple(getattr(self, attr)))
            if not all(isinstance(x, cls) for x in getattr(self, attr)):
                raise UrdfError(f"robot '{self.name}': {attr} must be {cls.__name__} objects")
        if not self.links:
            raise UrdfError(f"robot '{self.name}': has no links")
        links, joints, materials = {}, {}, {}
        for kind, items, index in (("link", self.links, links), ("joint", self.joints, joints),
                                   ("material", self.materials, materials)):
            for x in items:
                if x.name in index:
                    raise UrdfError(f"{kind} '{x.name}': defined twice")
                index[x.name] = x
        parent: dict[str, Joint] = {}
        children: dict[str, list] = {name: [] for name in links}
        for j in self.joints:
            for end in ("parent", "child"):
                if getattr(j, end) not in links:
                    raise UrdfError(f"joint '{j.name}': {end} link '{getattr(j, end)}' does not exist")
            if j.child in parent:
                raise UrdfError(f"link '{j.child}': child of two joints, '{parent[j.child].name}' and '{j.name}'")
            parent[j.child] = j
            children[j.parent].append(j)
        roots = [name for name in links if name not in parent]
        order, stack = [], [children[r][::-1] for r in roots[:1]]
        while stack:  # iterative depth-first pre-order (deep chains exceed the recursion limit)
            if not stack[-1]:
                stack.pop()
                continue
            j = stack[-1].pop()
            order.append(j)
            stack.append(children[j.child][::-1])
        reached = {j.child for j in order} | set(roots[:1])
        unreached = [name for name in links if name not in reached and name in parent]
        if unreached:
            seen, name = [], unreached[0]
            while name not in seen:  # every unreached link with a parent leads into a cycle
                seen.append(name)
                name = parent[name].parent
            cycle = seen[seen.index(name):]
            names = ", ".join(f"'{parent[n].name}'" for n in reversed(cycle))
            raise UrdfError(f"joints {names} form a cycle (through links {', '.join(map(repr, reversed(cycle)))})")
        if len(roots) > 1:
            raise UrdfError(f"robot '{self.name}': more than one root link ({', '.join(map(repr, roots))}); "
                            "the links are not connected into one tree")
        for j in self.joints:
            if j.mimic is None:
                continue
            leader = joints.get(j.mimic.joint)
            if leader is None:
                raise UrdfError(f"joint '{j.name}': <mimic> refers to unknown joint '{j.mimic.joint}'")
            if leader.type in ("floating", "planar"):
                raise UrdfError(f"joint '{j.name}': <mimic> refers to {leader.type} joint '{leader.name}'")
            chain = [j.name]
            while leader is not None:
                if leader.name in chain:
                    raise UrdfError(f"joint '{j.name}': <mimic> chain forms a cycle ({' -> '.join(chain + [leader.name])})")
                chain.append(leader.name)
                leader = joints.get(leader.mimic.joint) if leader.mimic else None
        for i, x in enumerate(self.extras):
            try:
                tag = ET.fromstring(x).tag
            except ET.ParseError as e:
                raise UrdfError(f"robot '{self.name}': extra element #{i} is not well-formed XML: {e}") from None
            if tag in ("link", "joint", "material"):
                raise UrdfError(f"robot '{self.name}': extra element #{i} is a <{tag}>; use links/joints/materials")
        for attr, value in (("_links", links), ("_joints", joints), ("_parent", parent),
                            ("_children", {k: tuple(v) for k, v in children.items()}), ("_order", tuple(order))):
            _set(self, attr, value)

    @property
    def root_link(self) -> str:
        """Name of the unique link that is no joint's child."""
        return self._order[0].parent if self._order else self.links[0].name

    def link_by_name(self, name: str) -> Link:
        return self._links[name]

    def joint_by_name(self, name: str) -> Joint:
        return self._joints[name]

    def material_by_name(self, name: str) -> Optional[Material]:
        return next((m for m in self.materials if m.name == name), None)

    def parent_joint(self, link: str) -> Optional[Joint]:
        """The joint whose child is ``link``; None for the root. KeyError for an unknown link."""
        self._links[link]
        return self._parent.get(link)

    def children_of(self, link: str) -> tuple[Joint, ...]:
        """Joints whose parent is ``link``, in file order."""
        return self._children[link]

    def traverse(self) -> tuple[Joint, ...]:
        """All joints in depth-first pre-order from the root (a parent's joint before its
        children's), siblings in file order."""
        return self._order

    def link_names_in_tree_order(self) -> tuple[str, ...]:
        """Link names, root first, then the child of each joint in ``traverse()`` order."""
        return (self.root_link,) + tuple(j.child for j in self._order)


# ---------------------------------------------------------------- forward kinematics


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
