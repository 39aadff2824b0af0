"""vart linkages to URDF robots (numpy only; the file format is :mod:`.urdf`, the way in is
:mod:`.to_linkage`).

:func:`urdf_from_linkage` writes back the real joints between real links (and the ground,
which becomes a ``world`` root link); what URDF cannot say is left out or rewritten,
each time with a message in the returned warning list: closure joints (a URDF is a tree),
catalog types URDF lacks, a revolute axis that does not pass through the child link's origin
(an extra ``<child>_axis`` link carries the joint and a fixed joint carries the child, so every
link keeps its frame), links not connected to the root (hung from it by ``floating`` joints).
A tree edge traversed child-to-parent is written inverted. The link frames are the vart link
frames, so :func:`urdf_joint_values` of the linkage's poses reproduces them through
:func:`.urdf.link_poses`.
"""
from __future__ import annotations

import math

import numpy as np

from ...solver import se3
from ...solver.errors import VartError
from ...solver.forest import spanning_forest
from ...solver.linkage import Linkage
from . import files as urdf

_EXPORT = {"revolute": None, "prismatic": "prismatic", "fixed": "fixed", "general": "floating",
           "planar": "planar"}


def _unique(name: str, taken: set) -> str:
    out, k = name, 1
    while out in taken:
        out = f"{name}_{k}"
        k += 1
    taken.add(out)
    return out


def _origin(T, what: str) -> urdf.Origin:
    try:
        return urdf.Origin.from_matrix(T)
    except urdf.UrdfError as e:
        raise VartError(f"{what}: {e}") from None


def urdf_from_linkage(lk: Linkage, name: str, *, visuals=None, template=None):
    """Write a linkage's real links and joints as a URDF robot. Returns ``(robot, warnings)``.

    ``visuals`` maps link names to sequences of :class:`.urdf.Visual` (origins in the link
    frame). ``template``, a :class:`.urdf.Robot` (e.g. the one the linkage was imported from),
    supplies what the linkage does not hold, by name: a link's collisions, inertia tensor and
    (unless ``visuals`` has the link) visuals; a joint's effort, velocity and dynamics; the
    robot's materials and extra elements. Mass and centre of mass come from the linkage.

    Every link keeps its vart frame, so ``urdf.link_poses(robot, urdf_joint_values(robot,
    lk.poses()))`` equals the linkage's poses (relative to the root link, or to the world when
    the ground is the ``world`` root). See the module doc for what is left out or rewritten.
    """
    if not isinstance(name, str):
        raise VartError(f"robot name must be a string, got {name!r}")
    visuals = dict(visuals or {})
    warnings: list[str] = []
    tmpl_links = {} if template is None else {l.name: l for l in template.links}
    tmpl_joints = {} if template is None else {j.name: j for j in template.joints}
    real = [n for n, l in lk.links.items() if not l.virtual]
    real_set = set(real)

    # 1. exportable joints, tree joints first so that the URDF tree prefers vart's tree
    cands = []
    for j in sorted(lk.joints.values(), key=lambda j: not j.is_tree):
        if j.virtual:
            continue
        ends = [e for e in (j.parent, j.child) if e is not None]
        if any(e not in real_set for e in ends):
            warnings.append(f"joint {j.name!r} left out: it is real but attached to virtual "
                            f"link {next(e for e in ends if e not in real_set)!r}")
            continue
        if j.jtype.name not in _EXPORT:
            warnings.append(f"joint {j.name!r} left out: URDF has no {j.jtype.name} joint")
            continue
        cands.append(j)

    # 2. spanning forest (union-find); the other candidates close loops
    chosen, loops, forest = spanning_forest(cands)
    find = forest.root
    warnings += [f"joint {j.name!r} left out: it closes a kinematic loop, which URDF cannot "
                 "express" for j in loops]

    # 3. root and orientation (breadth first from the root)
    taken = set(real)
    grounded = any(j.parent is None for j in chosen)
    root: str | None
    if grounded:
        root = _unique("world", taken)
        if root != "world":
            warnings.append(f"a real link is named 'world', so the ground is written as root "
                            f"link {root!r} (reading the file back makes it a free link)")
    children = {j.child for j in chosen}
    size: dict = {}
    for n in real:
        size[find(n)] = size.get(find(n), 0) + 1
    if not grounded:  # the root of the largest robot (the first one on a tie)
        roots = [n for n in real if n not in children]
        root = max(roots, key=lambda n: size[find(n)]) if roots else (real[0] if real else None)
    if root is None:
        raise VartError("the linkage has no real link to write")
    adj: dict = {}
    for j in chosen:
        adj.setdefault(j.parent, []).append(j)
        adj.setdefault(j.child, []).append(j)
    seen: set = set()
    order = []  # (joint, inverted)

    def search(start):
        seen.add(start)
        queue = [start]
        while queue:
            cur = queue.pop(0)
            for j in adj.get(cur, ()):
                other = j.child if j.parent == cur else j.parent
                if other in seen:
                    continue
                seen.add(other)
                order.append((j, j.parent != cur))
                queue.append(other)

    search(None if grounded else root)
    hung = []  # roots of the other robots: hung from the root by floating joints
    for n in real:
        if n not in seen and n not in children:
            hung.append(n)
            search(n)
    link_name = {None: root}
    joints: list[urdf.Joint] = []
    taken_j = set(lk.joints)
    extra_links: list[urdf.Link] = []
    inverted = {j.name for j, inv in order if inv}
    exported = {j.name for j, _ in order}
    for j, inv in order:
        joints.extend(_export_joint(j, inv, link_name, taken, taken_j, extra_links,
                                    tmpl_joints, inverted, exported, warnings))
    poses = lk.poses()
    T_root = np.eye(4) if grounded else poses[root]
    for n in hung:
        jn = _unique(f"{n}_floating", taken_j)
        T = se3.inverse(T_root) @ poses[n]
        joints.append(urdf.Joint(jn, "floating", root, n, _origin(T, f"link {n!r}")))
        others = size[find(n)] - 1
        warnings.append(f"link {n!r}{f' (with {others} more)' if others else ''} is not "
                        f"connected to {root!r} by real joints: hung from it by floating "
                        f"joint {jn!r} at its current pose")

    # 4. links
    links = [urdf.Link(root)] if grounded else []
    for n in ([root] if not grounded else []) + [x for x in real if x != root]:
        links.append(_export_link(lk.links[n], visuals.get(n), tmpl_links.get(n)))
    links.extend(extra_links)
    robot = urdf.Robot(name, tuple(links), tuple(joints),
                       () if template is None else template.materials,
                       () if template is None else template.extras)
    return robot, warnings


def _export_link(link, vis, tmpl) -> urdf.Link:
    inertial = None
    if link.mass > 0 or (tmpl is not None and tmpl.inertial is not None):
        rpy, inertia = (0.0, 0.0, 0.0), (0.0,) * 6
        if tmpl is not None and tmpl.inertial is not None:
            rpy, inertia = tmpl.inertial.origin.rpy, tmpl.inertial.inertia
        inertial = urdf.Inertial(mass=link.mass, origin=urdf.Origin(tuple(link.com), rpy),
                                 inertia=inertia)
    if vis is None:
        vis = () if tmpl is None else tmpl.visuals
    return urdf.Link(link.name, tuple(vis), () if tmpl is None else tmpl.collisions, inertial)


def _export_joint(j, inv, link_name, taken, taken_j, extra_links, tmpl_joints, inverted,
                  exported, warnings):
    """URDF joint(s) for vart joint ``j`` (inverted: parent and child swapped)."""
    Tpm, Tcf = j.T_parent_mob, j.T_child_frame
    parent, child = j.parent, j.child
    if inv:
        Tpm, Tcf, parent, child = Tcf, Tpm, child, parent
    utype = _EXPORT[j.jtype.name]
    lo, hi = float(j.lower[0]) if j.dof == 1 else None, float(j.upper[0]) if j.dof == 1 else None
    if inv and j.dof == 1:
        lo, hi = -hi, -lo
    limit = None
    if j.jtype.name == "revolute":
        if math.isfinite(lo) and math.isfinite(hi):
            utype = "revolute"
        else:
            utype = "continuous"
            if math.isfinite(lo) or math.isfinite(hi):
                warnings.append(f"joint {j.name!r}: only one limit is finite; written as a "
                                "continuous joint (URDF needs both)")
    tj = tmpl_joints.get(j.name)
    tl = tj.limit if tj is not None else None
    effort, velocity = (tl.effort, tl.velocity) if tl is not None else (0.0, 0.0)
    if utype == "revolute" or utype == "prismatic":
        if math.isfinite(lo) and math.isfinite(hi):
            limit = urdf.Limit(lo, hi, effort, velocity)
        else:
            if math.isfinite(lo) or math.isfinite(hi):
                warnings.append(f"joint {j.name!r}: only one limit is finite; written without "
                                "<limit>")
            else:
                warnings.append(f"joint {j.name!r}: prismatic joint without limits; written "
                                "without <limit> (the URDF spec asks for one)")
    elif utype == "continuous" and tl is not None:
        limit = urdf.Limit(0.0, 0.0, effort, velocity)
    mimic = None
    if j.mimic is not None:
        leader, m, off = j.mimic
        if leader not in exported:
            warnings.append(f"joint {j.name!r}: its mimic leader {leader!r} is not exported; "
                            "<mimic> left out")
        else:
            sf = -1.0 if inv else 1.0
            sl = -1.0 if leader in inverted else 1.0
            mimic = urdf.Mimic(leader, sf * m * sl, sf * off)
    pname = link_name.get(parent, parent)
    what = f"joint {j.name!r}"
    origin = Tpm @ se3.inverse(Tcf)
    axis = Tcf[:3, 2].copy()
    out = []
    if utype in ("revolute", "continuous"):
        pc = Tcf[:3, 3]
        off_axis = pc - (pc @ axis) * axis
        if np.linalg.norm(off_axis) > 1e-12:
            helper = _unique(f"{child}_axis", taken)
            # helper frame: the child frame moved onto the axis (orientation kept)
            H = np.eye(4)
            H[:3, 3] = off_axis
            out.append(urdf.Joint(j.name, utype, pname, helper, _origin(origin @ H, what),
                                  tuple(axis), limit, mimic,
                                  tj.dynamics if tj is not None else None))
            fj = _unique(f"{child}_axis_fixed", taken_j)
            out.append(urdf.Joint(fj, "fixed", helper, child, _origin(se3.inverse(H), what)))
            extra_links.append(urdf.Link(helper))
            warnings.append(f"joint {j.name!r}: its axis does not pass through the origin of "
                            f"link {child!r}; written to helper link {helper!r}, which fixed "
                            f"joint {fj!r} carries {child!r} from")
            return out
    if utype in ("fixed", "floating"):
        axis = np.array([1.0, 0.0, 0.0])
    out.append(urdf.Joint(j.name, utype, pname, child, _origin(origin, what), tuple(axis),
                          limit, mimic, tj.dynamics if tj is not None else None))
    return out


def urdf_joint_values(robot: urdf.Robot, poses, *, base=None) -> dict:
    """URDF joint values that reproduce world link ``poses`` (name -> 4x4) through
    :func:`.urdf.link_poses` (with ``base``: the root's world pose, default its pose in
    ``poses`` or identity). Links absent from ``poses`` are placed from their fixed child
    joints (helper links of :func:`urdf_from_linkage`). A revolute value is in (-pi, pi]."""
    P = {k: np.asarray(v, dtype=float) for k, v in poses.items() if k is not None}
    root = robot.root_link
    if root not in P:
        P[root] = np.eye(4) if base is None else np.asarray(base, dtype=float)
    elif base is not None:
        P[root] = np.asarray(base, dtype=float)

    def pose(link):
        if link in P:
            return P[link]
        for c in robot.children_of(link):
            if c.type == "fixed":
                T = pose(c.child)
                if T is not None:
                    P[link] = T @ se3.inverse(c.origin.matrix())
                    return P[link]
        return None

    out = {}
    for j in robot.traverse():
        if j.type == "fixed":
            continue
        Tp, Tc = pose(j.parent), pose(j.child)
        if Tp is None or Tc is None:
            raise VartError(f"URDF joint {j.name!r}: no pose for link "
                            f"{j.parent if Tp is None else j.child!r}")
        M = se3.inverse(j.origin.matrix()) @ se3.inverse(Tp) @ Tc
        a = np.array(j.axis)
        if j.type in ("revolute", "continuous"):
            R = M[:3, :3]
            s = a @ (0.5 * np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]]))
            c = 0.5 * (np.trace(R) - 1.0 - (1.0 - (a @ R @ a)))  # cos from the in-plane part
            out[j.name] = float(math.atan2(s, c))
        elif j.type == "prismatic":
            out[j.name] = float(a @ M[:3, 3])
        else:
            out[j.name] = M
    return out


__all__ = ["urdf_from_linkage", "urdf_joint_values"]
