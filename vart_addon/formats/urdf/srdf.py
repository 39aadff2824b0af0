"""SRDF, the Semantic Robot Description Format of MoveIt and Pinocchio: what a robot's authors
say about it beside its URDF. vart reads three parts of it:

- ``<group_state name group>``: named configurations (a home pose, ``half_sitting``), each
  ``<joint name value>`` a joint's value(s) in the URDF's units (rad, m). A joint the URDF
  lacks, named by a ``<virtual_joint>`` of type ``floating`` (or Pinocchio's ``root_joint``),
  places the root link: seven values ``x y z qx qy qz qw`` (m, a unit quaternion); of type
  ``planar``: ``x y theta``;
- ``<disable_collisions link1 link2 reason>``: link pairs a collision check leaves out (they
  touch by design, never meet, or are adjacent), by URDF link name;
- ``<group name>``: planning groups (MoveIt's ``panda_arm``, ``hand``), each of joints, links,
  chains (``base_link`` to ``tip_link``) and subgroups; :func:`group_joints` gives a group's
  URDF joints as MoveIt counts them (see there).

:func:`find_srdf` finds the file a URDF's authors ship: ``<stem>.srdf`` beside it, else in a
``srdf/`` folder beside it or above it within its package (the nearest folder with a
``package.xml``, else two levels up), the one naming the same robot, else the one whose name
starts the URDF's (``talos.srdf`` for ``talos_reduced.urdf``), else the only one there.

Pure Python (``xml.etree.ElementTree`` and numpy). Errors raise :class:`SrdfError` (a
ValueError) naming the file and element.
"""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .mesh_paths import package_root

__all__ = ["SrdfError", "Srdf", "GroupState", "Group", "read_srdf", "find_srdf", "base_pose",
           "group_joints"]


class SrdfError(ValueError):
    """An SRDF file that cannot be read, or a value vart cannot take; names the file."""


@dataclass
class GroupState:
    """A named configuration: ``values`` joint name -> its values (tuple of floats)."""

    name: str
    group: str
    values: dict = field(default_factory=dict)


@dataclass
class Group:
    """A planning group ``<group name>`` as the file lists it, each list in file order:
    ``joints`` (``<joint name>``), ``links`` (``<link name>``: each one's parent joint),
    ``chains`` (``<chain base_link tip_link>``: ``(base, tip)``, the joints between them),
    ``subgroups`` (``<group name>``: their joints) and ``passive`` (``<passive_joint name>``:
    moved by others, never commanded). A name the file leaves out is ``""``:
    :func:`group_joints` refuses it (reading never does: an import reads every SRDF)."""

    name: str
    joints: list = field(default_factory=list)
    links: list = field(default_factory=list)
    chains: list = field(default_factory=list)
    subgroups: list = field(default_factory=list)
    passive: list = field(default_factory=list)


@dataclass
class Srdf:
    """What :func:`read_srdf` reads: the robot's ``name``, its ``states`` in file order, the
    ``disabled`` pairs ``(link1, link2, reason)``, the ``virtual_joints`` (name -> type) and
    the planning ``groups`` (name -> :class:`Group`, file order; a name given twice keeps its
    first group, as MoveIt does)."""

    path: str
    name: str
    states: list = field(default_factory=list)
    disabled: list = field(default_factory=list)
    virtual_joints: dict = field(default_factory=dict)
    groups: dict = field(default_factory=dict)

    def state(self, name: Optional[str] = None) -> GroupState:
        """The group state ``name`` (default: the first). SrdfError if there is none."""
        if not self.states:
            raise SrdfError(f"{os.path.basename(self.path)}: has no <group_state>")
        if not name:
            return self.states[0]
        for s in self.states:
            if s.name == name:
                return s
        raise SrdfError(f"{os.path.basename(self.path)}: no <group_state name={name!r}> "
                        f"(it has {', '.join(repr(s.name) for s in self.states)})")


def _values(text: str, where: str) -> tuple:
    try:
        out = tuple(float(x) for x in text.split())
    except ValueError:
        raise SrdfError(f"{where}: value {text!r} is not a list of numbers") from None
    if not out or not np.isfinite(out).all():
        raise SrdfError(f"{where}: value {text!r} is empty or not finite")
    return out


def read_srdf(path) -> Srdf:
    """Read the SRDF file ``path`` (see the module doc). OSError if it cannot be opened."""
    path = os.fspath(path)
    name = os.path.basename(path)
    with open(path, "rb") as f:
        data = f.read()
    try:
        root = ET.fromstring(data.removeprefix(b"\xef\xbb\xbf").lstrip())
    except ET.ParseError as e:
        raise SrdfError(f"{name}: malformed XML: {e}") from None
    if root.tag != "robot":
        raise SrdfError(f"{name}: root element is <{root.tag}>, expected <robot>")
    out = Srdf(path, root.get("name", ""))
    for el in root:
        if el.tag == "group_state":
            where = f"{name}: <group_state name={el.get('name', '')!r}>"
            state = GroupState(el.get("name", ""), el.get("group", ""))
            for j in el.iter("joint"):
                jn = j.get("name")
                if not jn or j.get("value") is None:
                    raise SrdfError(f"{where}: a <joint> without name or value")
                state.values[jn] = _values(j.get("value", ""), f"{where} joint {jn!r}")
            out.states.append(state)
        elif el.tag == "disable_collisions":
            a, b = el.get("link1"), el.get("link2")
            if not a or not b:
                raise SrdfError(f"{name}: <disable_collisions> without link1 or link2")
            out.disabled.append((a, b, el.get("reason", "")))
        elif el.tag == "virtual_joint" and el.get("name"):
            out.virtual_joints[el.get("name", "")] = el.get("type", "")
        elif el.tag == "group" and el.get("name", "") not in out.groups:
            out.groups[el.get("name", "")] = _group(el)
    return out


def _group(el) -> Group:
    g = Group(el.get("name", ""))
    for m in el:
        if m.tag == "chain":
            g.chains.append((m.get("base_link", ""), m.get("tip_link", "")))
        else:
            members = {"joint": g.joints, "link": g.links, "group": g.subgroups,
                       "passive_joint": g.passive}.get(str(m.tag))
            if members is not None:
                members.append(m.get("name", ""))
    return g


def resolved_groups(srdf: Srdf, robot) -> dict:
    """Every planning group of ``srdf`` that resolves on ``robot`` (:func:`group_joints`),
    name -> its URDF joint names; the groups that do not (a joint or link the robot lacks)
    are left out."""
    out = {}
    for name in srdf.groups:
        try:
            out[name] = group_joints(srdf, robot, name)
        except SrdfError:
            continue
    return out


def group_joints(srdf: Srdf, robot, name: str) -> list:
    """The URDF joint names of planning group ``name`` for ``robot`` (a URDF ``Robot``), in
    the robot's tree order (depth first from its root, as MoveIt orders a group's joints):
    its ``<joint>`` s, its ``<link>`` s' parent joints, each ``<chain>`` 's joints (those
    between ``base_link`` and ``tip_link``: below the base down to the tip, or through their
    common ancestor when the tip is not below the base; as MoveIt's ``RobotModel`` builds a
    chain) and its subgroups', less its ``<passive_joint>`` s. Every joint type is there
    (fixed ones too): the caller keeps those it drives; the SRDF's virtual joints (no URDF
    joint) are passed over. SrdfError naming the file, group and element for an unknown
    group, joint or link, a name left out, or a group that contains itself."""
    file = os.path.basename(srdf.path)
    by_link = {j.child: j.name for j in robot.joints}
    links = {link.name for link in robot.links}
    joints = {j.name for j in robot.joints}

    def up(link: str, where: str) -> list:
        if link not in links:
            raise SrdfError(f"{where}: the robot has no link {link!r}")
        out = []
        while link in by_link:
            out.append(by_link[link])
            link = robot.joint_by_name(by_link[link]).parent
        return out

    def collect(gname: str, stack: tuple) -> set:
        where = f"{file}: <group name={gname!r}>"
        if gname in stack:
            raise SrdfError(f"{where}: contains itself (through "
                            f"{' > '.join(stack + (gname,))})")
        g = srdf.groups.get(gname)
        if g is None:
            raise SrdfError(f"{file}: no <group name={gname!r}> (it has "
                            f"{', '.join(map(repr, srdf.groups)) or 'no groups'})"
                            + (f", named in <group name={stack[-1]!r}>" if stack else ""))
        for what, names in (("joint", g.joints + g.passive), ("link", g.links),
                            ("group", g.subgroups)):
            if "" in names:
                raise SrdfError(f"{where}: a <{what}> without a name")
        out = {j for j in g.joints if j not in srdf.virtual_joints or j in joints}
        unknown = sorted(out - joints)
        if unknown:
            raise SrdfError(f"{where}: the robot has no joint {unknown[0]!r}")
        out.update(j for link in g.links for j in up(link, f"{where} <link>")[:1])
        for base, tip in g.chains:
            if not base or not tip:
                raise SrdfError(f"{where}: a <chain> without base_link or tip_link")
            at = f"{where} <chain base_link={base!r} tip_link={tip!r}>"
            out.update(set(up(base, at)) ^ set(up(tip, at)))
        for sub in g.subgroups:
            out |= collect(sub, stack + (gname,))
        return out - set(g.passive)

    chosen = collect(name, ())
    return [j.name for j in robot.traverse() if j.name in chosen]


def base_pose(srdf: Srdf, name: str, values: tuple) -> Optional[np.ndarray]:
    """The root link's world pose (4x4) that joint ``name`` of a group state gives, when it
    is a floating virtual joint (7 values ``x y z qx qy qz qw``) or a planar one (3 values
    ``x y theta``); None for another joint. SrdfError for a wrong count or a zero
    quaternion."""
    kind = srdf.virtual_joints.get(name, "floating" if name == "root_joint" else "")
    where = f"{os.path.basename(srdf.path)}: joint {name!r}"
    T = np.eye(4)
    if kind == "floating" and len(values) == 7:
        x, y, z, qx, qy, qz, qw = values
        q = np.array([qw, qx, qy, qz])
        n = float(np.linalg.norm(q))
        if n < 1e-9:
            raise SrdfError(f"{where}: its quaternion is zero")
        w, x_, y_, z_ = q / n
        T[:3, :3] = [[1 - 2 * (y_ * y_ + z_ * z_), 2 * (x_ * y_ - w * z_), 2 * (x_ * z_ + w * y_)],
                     [2 * (x_ * y_ + w * z_), 1 - 2 * (x_ * x_ + z_ * z_), 2 * (y_ * z_ - w * x_)],
                     [2 * (x_ * z_ - w * y_), 2 * (y_ * z_ + w * x_), 1 - 2 * (x_ * x_ + y_ * y_)]]
        T[:3, 3] = (x, y, z)
        return T
    if kind == "planar" and len(values) == 3:
        x, y, th = values
        c, s = np.cos(th), np.sin(th)
        T[:2, :2] = [[c, -s], [s, c]]
        T[:2, 3] = (x, y)
        return T
    if kind in ("floating", "planar"):
        raise SrdfError(f"{where}: a {kind} joint takes {7 if kind == 'floating' else 3} "
                        f"values, not {len(values)}")
    return None


def _robot_name(path: str) -> Optional[str]:
    try:
        for _, el in ET.iterparse(path, events=("start",)):
            return el.get("name") if el.tag == "robot" else None
    except (OSError, ET.ParseError):
        return None
    return None


def find_srdf(urdf_path, robot_name: str = "") -> Optional[str]:
    """The SRDF shipped with the URDF at ``urdf_path`` (see the module doc), or None."""
    urdf_path = os.path.abspath(os.fspath(urdf_path))
    folder = os.path.dirname(urdf_path)
    stem = os.path.splitext(os.path.basename(urdf_path))[0]
    beside = os.path.join(folder, stem + ".srdf")
    if os.path.isfile(beside):
        return beside
    top = package_root(folder) or os.path.dirname(os.path.dirname(folder))
    places, cur = [], folder
    while True:
        places.append(os.path.join(cur, "srdf"))
        if cur == top or os.path.dirname(cur) == cur:
            break
        cur = os.path.dirname(cur)
    for place in [folder] + places:
        try:
            files = sorted(f for f in os.listdir(place) if f.lower().endswith(".srdf"))
        except OSError:
            continue
        paths = [os.path.join(place, f) for f in files]
        named = [p for p in paths if robot_name and _robot_name(p) == robot_name]
        for chosen in (named, [p for p in paths if stem.startswith(
                os.path.splitext(os.path.basename(p))[0])]):
            if chosen:
                return max(chosen, key=lambda p: (os.path.splitext(os.path.basename(p))[0]
                                                  == stem, -len(p)))
        if len(paths) == 1 and place != folder:
            return paths[0]
    return None


def start_values(robot, srdf: Srdf, state: Optional[str] = None):
    """``(values, base, warnings)`` of group state ``state`` (default: the first) for URDF
    ``robot``: each 1-DoF joint that moves on its own at its value (clamped into what its
    limits and its mimic followers' allow, with a warning), ``base`` the root link's pose
    (4x4) when the state gives one (see :func:`base_pose`), else None. Joints the robot
    lacks, mimic followers and values of the wrong count are passed over with a warning."""
    from .model import ONE_DOF_TYPES
    from .start import allowed
    gs = srdf.state(state)
    by_name = {j.name: j for j in robot.joints}
    values: dict = {}
    base = None
    warnings: list = []
    passed: list = []
    where = f"{os.path.basename(srdf.path)} <group_state name={gs.name!r}>"
    for name, vals in gs.values.items():
        j = by_name.get(name)
        if j is None:
            T = base_pose(srdf, name, vals)
            if T is None:
                passed.append(name)
            else:
                base = T
            continue
        if j.type not in ONE_DOF_TYPES or j.mimic is not None or len(vals) != 1:
            passed.append(name)
            continue
        lo, hi, _ = allowed(robot, j)
        v = min(max(vals[0], lo), hi)
        if v != vals[0]:
            warnings.append(f"{where}: joint {name!r} at {vals[0]:g} is outside [{lo:g}, "
                            f"{hi:g}]: clamped to {v:g}")
        values[name] = v
    if passed:
        warnings.append(f"{where}: passed over (not a joint of the robot that moves on its "
                        f"own, or not one value): {', '.join(passed)}")
    return values, base, warnings
