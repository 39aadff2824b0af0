"""What a study records at each sample, from a solved linkage: the table's columns and one row.

Columns (units in :attr:`Column.unit`):

- ``value:<var>``: the swept values (m or rad);
- ``q:<joint>`` (``q:<joint>.<entry>`` for a joint with several values, the entries named by
  the catalog's layout: ``tx``, ``rz``, ``wx`` ...): every joint's value, a closure's fitted
  from the solved poses;
- ``deflection:<joint>`` (q - rest, m or rad) and ``torque:<joint>`` (stiffness x deflection,
  N m or N) of every compliant joint (a spring: stiffness > 0);
- ``limit:<joint>`` / ``limit:<joint>.<entry>``: -1 at (or beyond) the lower limit, +1 at
  the upper, 0 between (within the study's ``limit_tol``), for every value that has a limit;
- with contacts: ``com.x``, ``com.y``, ``com.z`` (the centre of mass of every link with mass,
  world, m), ``support`` (how many contacts support), ``margin`` (m: the distance from the
  centre of mass, projected along gravity, to the edge of the support polygon, positive
  inside), ``load:<joint>`` (N: the normal force each contact carries, 0 when it does not
  support), ``unsupported_force`` (N) and ``unsupported_moment`` (N m: what no contact
  forces can give), ``guide_force`` (N: what the model's other virtual joints hold the robot
  with) and ``stable`` (1 when contact forces hold the robot);
- ``energy`` (J: the potential energy the solve minimised, gravity and springs; 0 without);
- ``status`` (``converged``; ``stalled``: it stopped improving, as a potential's minimum
  or a compromise ends; ``out of budget``), ``iterations``, ``unmet`` (the goals left unmet,
  ``; ``-separated; a solve that raised: ``error: ...``).

The support polygon is the convex hull of the supporting contacts' points projected on the
plane through the world origin normal to gravity (the world xy plane when gravity is off).
Fewer than three points span no area: the margin is then minus the distance to the point or
segment they span.

Stability is decided by the forces, not by the margin (:mod:`vart_addon.physics.statics`):
the real robot (real links and joints) with each spring's torque as solved (``-k (q -
rest)``), each locked real joint rigid and each other real joint free, is stable when point
contacts at the supporting contacts (normal opposite gravity, Coulomb friction of the
study's ``friction``, never pulling) can hold it, the model's other virtual joints on links
that touch nothing (a guide keeping a hanging heel over the step) and between real links
holding what their constraints hold (``guide_force``; virtual links stand still). A push that the margin does
not see (a step pressing on a heel harder than the robot weighs) tips it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..physics.static_model import StaticModel
from ..physics.statics import Contact as Touching
from ..physics.statics import solve_pose
from ..physics.support import support_margin

#: The columns every table has, found by these names (never by position): a new quantity
#: may go anywhere, also after ``unmet``.
SAMPLE, STATUS, ITERATIONS, UNMET = "sample", "status", "iterations", "unmet"
ERROR = "error"  # a failed sample's status


@dataclass(frozen=True)
class Column:
    name: str
    unit: str


def index_of(columns) -> dict:
    """Column name -> its position in a row."""
    return {c.name: i for i, c in enumerate(columns)}


def value_columns(study) -> list[str]:
    """The columns of the swept values, in the study's variables' order."""
    return [f"value:{v.label}" for v in study.variables]


def _unit(jt, i) -> str:
    return "rad" if jt.is_angular()[i] else "m"


def _entries(j) -> list[tuple[str, int]]:
    """(suffix, index) of a joint's values: ``""`` for a 1-value joint."""
    return [("", 0)] if j.dof == 1 else [(f".{n}", i) for i, n in enumerate(j.jtype.layout)]


class Recorder:
    """The columns of a study over a linkage, and :meth:`row` at its solved configuration."""

    def __init__(self, linkage, study):
        self.lk, self.study = linkage, study
        self.joints = [j for j in linkage.joints.values() if j.dof]
        self.springs = [j for j in self.joints if j.stiffness > 0 and j.rest_q is not None]
        self.limited = [(j, s, i) for j in self.joints for s, i in _entries(j)
                        if np.isfinite(j.lower[i]) or np.isfinite(j.upper[i])]
        self.masses = [link for link in linkage.links.values() if link.mass > 0]
        g = linkage.gravity
        down = np.array([0.0, 0.0, -1.0]) if g is None or not np.any(g) else \
            np.asarray(g, float) / np.linalg.norm(g)
        u = np.cross(down, [1.0, 0.0, 0.0] if abs(down[0]) < 0.9 else [0.0, 1.0, 0.0])
        u /= np.linalg.norm(u)
        self.plane = np.stack([u, np.cross(down, u)])  # (2, 3): the support plane's axes
        self.down = down
        cols = [Column(SAMPLE, "1")]
        cols += [Column(name, _unit(linkage.joint(v.joint).jtype, v.dof))
                 for name, v in zip(value_columns(study), study.variables)]
        cols += [Column(f"q:{j.name}{s}", _unit(j.jtype, i)) for j in self.joints
                 for s, i in _entries(j)]
        for j in self.springs:
            lin = _unit(j.jtype, 0) == "m"
            cols += [Column(f"deflection:{j.name}", "m" if lin else "rad"),
                     Column(f"torque:{j.name}", "N" if lin else "N m")]
        cols += [Column(f"limit:{j.name}{s}", "1") for j, s, _ in self.limited]
        if study.contacts:
            cols += [Column("com.x", "m"), Column("com.y", "m"), Column("com.z", "m"),
                     Column("support", "1"), Column("margin", "m")]
            cols += [Column(f"load:{c.joint}", "N") for c in study.contacts]
            cols += [Column("unsupported_force", "N"), Column("unsupported_moment", "N m"),
                     Column("guide_force", "N"), Column("stable", "1")]
            self.statics = self._statics_model(linkage)
        cols += [Column("energy", "J"), Column(STATUS, ""), Column(ITERATIONS, "1"),
                 Column(UNMET, "")]
        self.columns = cols
        self.index = index_of(cols)

    def error_row(self, sample: int, values, message: str) -> list:
        """The row of a sample whose solve raised ``message``: NaN in every number, status
        :data:`ERROR`, the message as its ``unmet``."""
        row: list = [float("nan")] * len(self.columns)
        row[self.index[SAMPLE]] = sample
        for name, x in zip(value_columns(self.study), values):
            row[self.index[name]] = float(x)
        row[self.index[STATUS]] = ERROR
        row[self.index[UNMET]] = f"error: {message}"
        return row

    def row(self, sample: int, values, status) -> list:
        """One row (numbers, and the unmet goals as text) at the linkage's configuration."""
        lk = self.lk
        poses = lk.poses()
        q = {j.name: lk.joint_q(j, poses) for j in self.joints}
        out: list = [sample, *[float(x) for x in values]]
        out += [float(q[j.name][i]) for j in self.joints for _, i in _entries(j)]
        for j in self.springs:
            d = float(q[j.name][0] - j.rest_q[0])
            out += [d, float(j.stiffness) * d]
        tol = self.study.limit_tol
        at: dict[str, bool] = {}
        for j, _, i in self.limited:
            x = q[j.name][i]
            side = -1 if x <= j.lower[i] + tol else (1 if x >= j.upper[i] - tol else 0)
            at[j.name] = at.get(j.name, False) or side != 0
            out.append(side)
        if self.study.contacts:
            out += self._stability(poses, at)
        potential = status.level("potential")
        out.append(float(potential.error) if potential.active else 0.0)
        state = "converged" if status.converged else \
            "out of budget" if status.out_of_budget else "stalled"
        out += [state, int(status.iterations), "; ".join(status.unmet)]
        return out

    def _statics_model(self, lk) -> StaticModel | None:
        """The real robot's statics (see the module doc): locked real joints are motors
        without a limit, springs' torques are given per sample, the others are free."""
        g = lk.gravity
        if g is None or not np.any(g) or not any(not link.virtual for link in lk.links.values()):
            return None
        free = [j.name for j in self.joints if not j.virtual and j.dof == 1
                and j.lock_q is None and not (j.stiffness > 0 and j.rest_q is not None)]
        sm = StaticModel(lk, gravity=g, passive=free)
        #: the model's virtual joints that may hold a real link, and locked real links
        self._virtual = [j for j in lk.all_joints() if (j.virtual or j.is_root and
                                                        j.lock_q is not None)
                         and ({j.parent, j.child} & set(sm.index))]
        return sm

    def _stability(self, poses, at_limit) -> list:
        mass = sum(link.mass for link in self.masses)
        com = np.full(3, np.nan) if mass == 0 else sum(
            link.mass * (poses[link.name][:3, :3] @ link.com + poses[link.name][:3, 3])
            for link in self.masses) / mass
        up = -self.down
        pts, touching = [], []
        for c in self.study.contacts:
            j = self.lk.joint(c.joint)
            p = (poses[j.child] @ j.T_child_frame)[:3, 3]
            if c.when == "always" or at_limit.get(j.name, False):
                pts.append(p)
                touching.append(Touching(c.joint, j.child, p, up, self.study.friction))
        margin = support_margin(self.plane @ com, [self.plane @ p for p in pts])
        loads = dict.fromkeys((c.joint for c in self.study.contacts), 0.0)
        if self.statics is None:  # no gravity or no robot: nothing to hold
            return [*com.tolist(), len(pts), margin, *loads.values(), 0.0, 0.0, 0.0, 1]
        sm = self.statics
        touching = [c for c in touching if c.link in sm.index]
        known = {j.name: -float(j.stiffness) * float(self.lk.joint_q(j, poses)[0]
                                                     - j.rest_q[0])
                 for j in self.springs if not j.virtual and j.dof == 1}
        touched, names = {c.link for c in touching}, {c.name for c in touching}
        real = sm.index
        # a virtual joint holding a touching link to the ground (or to a virtual link, which
        # stands still) duplicates its contacts (a stance foot's weld): left out
        guides = [j for j in self._virtual if j.name not in names
                  and not (({j.parent, j.child} - set(real)) and {j.parent, j.child} & touched)]
        st = solve_pose(sm, poses, touching, known, guides)
        for c, fn in zip(touching, st.normal):
            loads[c.name] += float(fn)
        return [*com.tolist(), len(pts), margin, *loads.values(), st.unsupported_force,
                st.unsupported_moment, st.guide_force, int(st.balanced)]
