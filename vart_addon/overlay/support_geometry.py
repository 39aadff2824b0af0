"""What the overlay draws for balance goals, in world coordinates (pure numpy, no bpy).

For each link with a *Balance*, *CoM Target* or *CoM Over* goal (the solver's
:mod:`vart_addon.solver.balance`), from the scene's stored links and joints and the links'
poses:

- the **support polygon**: the convex hull of the robot's pins (virtual joints from the world
  that close a loop through the robot) in the ground plane, at the pins' mean height, green;
- the **region** the centre of mass must stay over (the polygon moved in by the margin), a
  dashed lighter green;
- the **centre of mass** and its projection: a plumb line from it to the ground plane and a
  cross where it meets it, green when over the region (or with no balance goal), red when not;
- a CoM Target's point (a cross) and a CoM Over's vertical line (dashed).

The robot is the host link's tree: links joined by tree joints (the record's ``tree``); its
centre of mass that of its links with mass. "Ground plane" and "vertical" follow gravity
(:func:`vart_addon.solver.support_polygon.plane_axes`; -z when gravity is off), as the
solver's goal does.
"""
from __future__ import annotations

import numpy as np

from ..solver import support_polygon as SP
from ..solver.forest import Forest
from ..solver.joint_types import CATALOG
from .geometry import Style, dashed, segments

GREEN = (0.20, 0.80, 0.35, 1.0)
PALE_GREEN = (0.55, 0.95, 0.60, 0.9)
RED = (0.95, 0.12, 0.10, 1.0)
AMBER = (0.95, 0.65, 0.15, 1.0)
SUPPORT = Style(GREEN, 2.0)
REGION = Style(PALE_GREEN, 1.5, dashed=True)
OVER = Style(GREEN, 2.5)
OUTSIDE = Style(RED, 2.5)
GOAL = Style(AMBER, 2.0)
#: Kinds whose host links are drawn.
KINDS = ("balance", "com_target", "com_over")


def _frame(T16) -> np.ndarray:
    return np.asarray(T16, float).reshape(4, 4)


def robot_members(host: str, joints) -> set:
    """Names of the links of ``host``'s robot: joined to it by tree joints between links."""
    forest = Forest()
    for j in joints:
        if j.tree and j.parent is not None:
            forest.add(j)
    top = forest.root(host)
    names = {host} | {j.child for j in joints} | {j.parent for j in joints if j.parent}
    return {n for n in names if forest.root(n) == top}


def centre_of_mass(members: set, links: dict, poses: dict, host: str) -> np.ndarray:
    """World centre of mass (m) of the ``members`` with mass (none: ``host``'s origin)."""
    m, c = [], []
    for name in members:
        rec = links.get(name)
        if rec is None or rec.mass <= 0 or name not in poses:
            continue
        T = poses[name]
        m.append(rec.mass)
        c.append(T[:3, :3] @ np.asarray(rec.com, float) + T[:3, 3])
    if not m:
        return np.asarray(poses[host], float)[:3, 3].copy()
    w = np.asarray(m) / np.sum(m)
    return w @ np.array(c)


def pin_points(members: set, joints, poses: dict) -> np.ndarray:
    """(k, 3) world points of the robot's pins (as :class:`vart_addon.solver.balance`
    takes them: the world side's origin for a pin that only turns, else the link side's)."""
    out = []
    for j in joints:
        if j.tree or j.parent is not None or j.child not in members or j.child not in poses:
            continue
        jt = CATALOG.get(j.type)
        if jt is not None and bool(jt.is_angular().all()):
            out.append(_frame(j.T_parent_mob)[:3, 3])
        else:
            out.append((np.asarray(poses[j.child], float) @ _frame(j.T_child_frame))[:3, 3])
    return np.array(out, dtype=float).reshape(-1, 3)


def _loop(P2, E, up, h) -> np.ndarray:
    """A closed loop of 2-D plane points at height ``h``, as (n + 1, 3) world points."""
    P = P2 @ E + h * up
    return np.concatenate([P, P[:1]]) if len(P) > 2 else P


def _cross(p, s) -> list:
    return [np.array([p - s * a, p + s * a]) for a in np.eye(3)]


def support_segments(host: str, links: dict, joints, poses: dict, gravity, size: float) -> dict:
    """``{Style: (2n, 3) segment end points}`` of ``host``'s balance goals (see the module
    doc); ``links``: link records by name (``mass``, ``com``, the goals' attributes),
    ``joints``: every joint record, ``poses``: 4x4 world poses by link name."""
    rec = links.get(host)
    if rec is None or host not in poses or not any(getattr(rec, k, False) for k in KINDS):
        return {}
    E = SP.plane_axes(gravity)
    up = np.cross(E[0], E[1])
    members = robot_members(host, joints)
    c = centre_of_mass(members, links, poses, host)
    pins = pin_points(members, joints, poses)
    h = float(np.mean(pins @ up)) if len(pins) else float(c @ up) - 1.0
    ground = E.T @ (E @ c) + h * up
    out: dict = {}

    def add(style, seg):
        if len(seg):
            out[style] = np.concatenate([out[style], seg]) if style in out else seg

    over = True
    if getattr(rec, "balance", False) and len(pins):
        P2 = pins @ E.T
        add(SUPPORT, segments(_loop(SP.convex_hull(P2), E, up, h)))
        R, _ = SP.region(P2, float(rec.balance_margin))
        if len(R):
            add(REGION, dashed(_loop(R, E, up, h), 0.18 * size, 0.12 * size))
            over = SP.nearest(R, E @ c)[1] <= 1e-6
    elif getattr(rec, "balance", False):
        over = False  # nothing to stand on
    style = OVER if over else OUTSIDE
    add(style, segments(np.array([c, ground])))
    add(style, np.concatenate([segments(P) for P in _cross(ground, 0.5 * size)]))
    if getattr(rec, "com_target", False):
        p = np.asarray(rec.com_target_point, float)
        add(GOAL, np.concatenate([segments(P) for P in _cross(p, 0.4 * size)]))
    if getattr(rec, "com_over", False):
        p = np.asarray(rec.com_over_point, float)
        line = np.array([E.T @ (E @ p) + h * up, E.T @ (E @ p) + (float(c @ up) + size) * up])
        add(GOAL, dashed(line, 0.18 * size, 0.12 * size))
    return {k: v.astype(np.float32) for k, v in out.items()}
