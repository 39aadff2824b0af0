"""URDF data model: the tree of links and joints, as frozen, validated dataclasses.

Pure Python + numpy. This is a faithful model of a URDF file, not a solver model: the scene
bridge maps it to vart links and joints. Import it through :mod:`vart_addon.formats.urdf.files`.

The model's parts live in their own modules: :mod:`.base` (``UrdfError``, value checks,
rotations, ``Origin``), :mod:`.geometry` (shapes, materials, visuals, collisions,
inertials), this module (``Link``, ``Limit``, ``Mimic``, ``Dynamics``, ``Joint``, ``Robot``) and
:mod:`.kinematics` (the URDF tree's own forward kinematics).

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

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .base import Origin, UrdfError, _check_origin, _finite, _set, _vec, context
from .geometry import Collision, Inertial, Material, Visual

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")
#: Joint types without an axis: urdfdom ignores an ``<axis>`` on them.
AXISLESS = ("fixed", "floating")
ONE_DOF_TYPES = ("revolute", "continuous", "prismatic")


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
    direction (prismatic) or plane normal (planar). Fixed and floating joints have none: an
    ``<axis>`` there is ignored, as urdfdom ignores it, and never written back.
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
            _check_origin(self.origin)
            if self.type in AXISLESS:  # no axis to speak of: any given one is ignored
                _set(self, "axis", (1.0, 0.0, 0.0))
            else:
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
    XML text so that writing the robot back preserves them. ``warnings``: what the reader
    passed over in the file (a ``<mimic>`` naming a joint that does not exist), in words.

    Construction checks the tree: unique names, existing parent/child links, one parent joint
    per link, no cycles, exactly one root, valid mimic references.
    """

    name: str
    links: tuple[Link, ...]
    joints: tuple[Joint, ...] = ()
    materials: tuple[Material, ...] = ()
    extras: tuple[str, ...] = ()
    warnings: tuple[str, ...] = field(default=(), compare=False)
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
                    cycle = " -> ".join(chain + [leader.name])
                    raise UrdfError(f"joint '{j.name}': <mimic> chain forms a cycle ({cycle})")
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

