"""A pose's IK solutions for an arm: multi-start solves, one list of distinct configurations.

:func:`find_solutions` solves the arm of a link (:func:`.arm_branches.arm_joints`) for a world
pose of the link from several starts: the arm's current configuration and random ones inside
the joint limits. It keeps the solutions that reach the pose (the solver converged: position
and rotation within its ``tol``) inside the limits, each with its branch
(:func:`.arm_branches.branch_of`), words for it and its manipulability, and drops repeats.

The solves run on a copy of the arm alone (:func:`arm_linkage`): its links from the one the
arm stands on (fixed where it is now) to the tool, its 1-DoF joints with their limits, every
other joint on the way fixed at its current value. So the linkage asked about is never
changed, and none of its goals (a Keep Configuration, a lock, the tool's own target) holds
the search back; nor do loops closed through the arm or mimic couplings between its joints,
which the copy does not have.

A revolute joint turned a full turn gives the same pose: of such values the one nearest the
current value (within the limits) is kept, and solutions are distinct when their joint
values (so wrapped) lie at least ``min_distance`` apart (rad and m, Euclidean) or their
branches differ. The list is a lower bound: random starts may miss a solution (UR5: the eight
branches of a generic pose are found with the default starts; a redundant arm's continuous
families are sampled).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import arm_branches as AB
from . import keep_configuration as KC
from . import se3
from . import validate as V
from .errors import VartError
from .linkage import Linkage
from .solver import Settings, Solver

#: Random starts besides the current configuration.
STARTS = 48
#: Solutions nearer than this (rad and m, Euclidean over the arm's joints) are one.
MIN_DISTANCE = 0.25
#: The solver settings of a search: each start is a fresh solve, often far from its answer
#: (steps of up to 1 rad; a start that has not converged in 30 iterations is dropped: on UR5
#: the starts that converge take 9 iterations, median, and those that stall about 28).
_SEARCH = Settings(max_iterations=30, max_step=1.0, simplified_newton=False,
                   predict_bend=False)
_BASE_JOINT = "vart_arm_base"


@dataclass(frozen=True)
class Solution:
    """One configuration of an arm reaching a pose: ``joints`` (names, root first) at values
    ``q`` (rad, m), its ``branch`` (signs) and ``label`` (words), its ``manipulability``
    (:func:`.arm_branches.manipulability`) and its ``distance`` from the configuration the
    arm had (rad and m, Euclidean)."""

    joints: tuple
    q: np.ndarray
    branch: tuple
    label: str
    manipulability: float
    distance: float

    def values(self) -> dict:
        """``{joint name: value}``."""
        return dict(zip(self.joints, self.q.tolist()))


def arm_linkage(lk, link: str) -> tuple[Linkage, np.ndarray]:
    """A new linkage of ``link``'s arm alone (see the module doc) and, per arm joint, the
    sign of its value there (-1 for a joint whose tree edge runs from its child to its
    parent: it is copied the other way round, with its value negated)."""
    joints = AB.arm_joints(lk, link)
    first = joints[0]
    base = first.parent if first.tree_dir > 0 else first.child
    path = [link]
    while path[-1] != base:
        path.append(lk.tree_parent(path[-1]))
    path = path[::-1]  # base (None: the ground) up to the tool
    poses = lk.poses_of(path)
    out = Linkage()
    for name in path[1:]:
        out.add_link(name, pose=poses[name])
    if base is not None:
        out.add_link(base, pose=poses[base])
        out.add_joint(_BASE_JOINT, "fixed", None, base, T_parent_mob=poses[base], tree=True)
    arm = {j.name for j in joints}
    sign = []
    for below, name in zip(path, path[1:]):
        e = lk.tree_edge[name]
        if e.name in arm:
            s = 1.0 if e.tree_dir > 0 else -1.0
            frames = (e.T_parent_mob, e.T_child_frame)[::int(s)]
            lo, hi = (e.lower, e.upper) if s > 0 else (-e.upper, -e.lower)
            out.add_joint(e.name, e.jtype.name, below, name, T_parent_mob=frames[0],
                          T_child_frame=frames[1], q=s * e.q, tree=True, lower=lo, upper=hi,
                          pitch=e.pitch)
            sign.append(s)
        else:  # fixed where it is
            X = (np.eye(4) if below is None else se3.inverse(poses[below])) @ poses[name]
            out.add_joint(e.name, "fixed", below, name, T_parent_mob=X, tree=True)
    return out, np.array(sign)


def _starts(joints, q_now: np.ndarray, count: int, seed: int) -> np.ndarray:
    """The current configuration, then ``count`` random ones: each joint uniform within its
    limits (an angle also within (-pi, pi]), a length without limits where it is."""
    lo = np.array([j.lower[0] for j in joints])
    hi = np.array([j.upper[0] for j in joints])
    ang = np.array([bool(j.jtype.is_angular()[0]) for j in joints])
    a = np.where(ang, np.maximum(lo, -np.pi), lo)
    b = np.where(ang, np.minimum(hi, np.pi), hi)
    free = ~(np.isfinite(a) & np.isfinite(b))
    rng = np.random.default_rng(seed)
    u = rng.uniform(0.0, 1.0, (count, len(joints)))
    rand = np.where(free, q_now, np.nan_to_num(a) + u * np.nan_to_num(b - a))
    return np.vstack([q_now[None], rand])


def _nearest_turn(q: np.ndarray, q_now: np.ndarray, joints) -> np.ndarray:
    """``q`` with each angle moved by whole turns to the value nearest its current one that
    lies within its limits."""
    out = q.copy()
    for i, j in enumerate(joints):
        if not j.jtype.is_angular()[0]:
            continue
        k = np.round((q_now[i] - q[i]) / (2 * np.pi))
        for turns in (k, k - 1, k + 1):
            v = q[i] + 2 * np.pi * turns
            if j.lower[0] <= v <= j.upper[0]:
                out[i] = v
                break
    return out


def _distance(a: np.ndarray, b: np.ndarray, turns=None) -> float:
    """Euclidean distance of two arm configurations (rad and m); with ``turns`` (per joint,
    whether it is an angle), angles differing by whole turns count as equal."""
    d = a - b
    if turns is not None:
        d = np.where(turns, np.mod(d + np.pi, 2 * np.pi) - np.pi, d)
    return float(np.linalg.norm(d))


def find_solutions(lk, link: str, T_world_link, starts: int = STARTS, seed: int = 0,
                   min_distance: float = MIN_DISTANCE) -> list[Solution]:
    """The configurations of ``link``'s arm that put the link at ``T_world_link`` (4x4,
    world), from the current configuration and ``starts`` random ones (``seed``): see the
    module doc. Sorted: the current configuration's branch first, then by distance from the
    current configuration. ``lk`` is not changed. VartError for a link without an arm or a
    pose that is not one."""
    T = V.pose(T_world_link, f"link {link!r}: pose to reach")
    joints = AB.arm_joints(lk, link)
    names = tuple(j.name for j in joints)
    q_now = np.array([j.q[0] for j in joints], float)
    here = AB.branch_of(lk, link)
    copy, sign = arm_linkage(lk, link)
    copy.set_link_target(link, T)
    solver = Solver(copy, _SEARCH)
    copied = [copy.joint(n) for n in names]
    turns = np.array([bool(j.jtype.is_angular()[0]) for j in joints])
    found: list[tuple[np.ndarray, tuple]] = []
    for start in _starts(joints, q_now, int(starts), seed):
        for j, v, s in zip(copied, start, sign):
            j.q = np.array([s * v])
        copy.touch_values()
        if not solver.solve(fresh=True).converged:
            continue
        q = _nearest_turn(sign * np.array([j.q[0] for j in copied]), q_now, joints)
        branch = AB.branch_of(lk, link, q)
        if all(b != branch or _distance(q, p, turns) >= min_distance
               for p, b in found):
            found.append((q, branch))
    out = [Solution(names, q, b, AB.label(lk, link, b, q), AB.manipulability(lk, link, q),
                    _distance(q, q_now)) for q, b in found]
    out.sort(key=lambda s: (s.branch != here, s.distance))
    return out


def pose_arm(lk, link: str, values: dict) -> None:
    """Put ``link``'s arm at joint ``values`` (name -> rad or m: a :meth:`Solution.values`),
    without solving; a Keep Configuration goal on the link then holds their branch (its
    margin and level kept). VartError, nothing changed, for a joint that is not of the arm
    or a value outside its limits."""
    arm = {j.name: j for j in AB.arm_joints(lk, link)}
    for name, v in values.items():
        if name not in arm:
            raise VartError(f"joint {name!r} is not a joint of link {link!r}'s arm")
        V.vec([v], 1, f"joint {name!r}: value")
        j = arm[name]
        if not j.lower[0] <= v <= j.upper[0]:
            raise VartError(f"joint {name!r}: value {v:g} outside its limits "
                            f"[{j.lower[0]:g}, {j.upper[0]:g}]")
    for name, v in values.items():
        lk.set_q(name, [v])
    kept = lk.goal(KC.KIND, link)
    if kept is not None:
        lk.set_goal(KC.KIND, link, {"margin": kept["margin"], "level": kept["level"]})
