"""Balance goals: a robot's centre of mass held at a target, over a point, or over the support
of the robot's pins.

A balance goal is set on any link of a robot (its *host*); the robot is the host's tree in the
spanning forest (every link hanging, through tree joints, from the same link at the top), and
its centre of mass that of the robot's links with mass (a robot without mass: the host's
origin). Its **pins** are the robot's contacts: every closure joint from the world to a link of
the robot (a virtual joint from the world that a loop through the robot closes: a wheel's or a
foot's pin). A pin's point is its world-side frame's origin when the joint only turns (a
revolute, spherical or fixed pin holds its link's point there), else the link side's (a
sliding pin: its point is taken where it is at each evaluation, its motion left out of the
Jacobian).

Each goal has a ``level`` (a choice, :data:`.levels.CHOOSABLE`): by default Balance's is the limit level
and the others' the target level, but any level but the potential's may be chosen (Balance as
a wish at the posture level, a CoM Target above locks...).

- ``com_target`` (:class:`ComTargetBatch`, target level): ``c - p``, 3 rows, ``p`` a world
  point (m);
- ``com_over``: the same rows in the ground plane only (2 rows: the centre of mass on the
  vertical line through ``p``; "vertical" is against gravity);
- ``balance`` (:class:`BalanceBatch`, limit level): an inequality. In the ground plane
  (perpendicular to gravity, :func:`.support_polygon.plane_axes`) the pins' points span a
  convex support polygon; moved in by the goal's ``margin`` (m) it is the region the centre of
  mass must stay over (:func:`.support_polygon.region`). Outside it, one row: the distance
  ``d`` to the region, with Jacobian ``n^T E J_c`` (``n`` the unit direction from the nearest
  point, ``E`` the plane's axes): exact, since a convex set's distance has that gradient
  everywhere outside. Inside, no row (the goal is met), but a *guard*
  (:meth:`BalanceBatch.guards`): a step that would carry the centre of mass out is taken
  again with the row that stops it at the edge, so goals below slide along the edge. When
  the margin cannot be kept (the
  moved-in polygon is empty: fewer than three pins, all on a line, or a margin wider than the
  polygon allows), the region is the deepest part of the polygon and a second row, constant
  (zero Jacobian), reports the margin lost; without pins, one constant row of 1 m. So the
  solve gets as near as the pins allow and its status names the goal unmet.

The centre of mass ``c = sum w_i c_i`` (``w_i = m_i / M``) has the world-twist Jacobian
``J_c[:, k] = A_k v_k - B_k x w_k`` with ``A = sum_i w_i s_ik``, ``B = sum_i w_i s_ik c_i``,
``s`` the links' signed ancestry (:class:`~.kinematics.TreeModel` ``anc_sign``) and
``(v_k, w_k)`` the DoF's world twist (``S``).
"""
from __future__ import annotations

import numpy as np

from . import support_polygon as SP
from .goals import Batch
from .levels import GoalId, Level

#: The row of a balance goal without pins (m): unmet, with nothing to stand on.
NO_SUPPORT = 1.0


def tree_tops(model) -> np.ndarray:
    """Per link index of ``model`` (a :class:`~.kinematics.TreeModel`): the index of the link
    at the top of its tree (the one hanging from the world); the world (0) is its own."""
    top = np.arange(len(model.link_names))
    for k in range(1, len(top)):  # parents come before their children
        p = model.parent[k]
        top[k] = k if p == 0 else top[p]
    return top


def robot_links(model, host: str) -> np.ndarray:
    """Indices of the links of ``host``'s robot (its tree)."""
    top = tree_tops(model)
    return np.flatnonzero(top == top[model.index[host]])


def robot_support(linkage, model, link, default) -> np.ndarray:
    """The DoF that move the centre of mass of ``link``'s robot (a goal kind's ``support``)."""
    idx = _Masses(model, linkage, link.name).idx
    return default | (model.anc_sign[idx] != 0).any(axis=0)


class _Masses:
    """The masses of a host link's robot: link indices, centres of mass in their links'
    frames, weights ``m / M``."""

    def __init__(self, model, linkage, host: str):
        members = robot_links(model, host)
        heavy = [(int(i), linkage.links[model.link_names[i]]) for i in members]
        heavy = [(i, lk) for i, lk in heavy if lk.mass > 0]
        if heavy:
            self.idx = np.array([i for i, _ in heavy], dtype=int)
            self.com = np.stack([np.asarray(lk.com, float) for _, lk in heavy])
            m = np.array([lk.mass for _, lk in heavy], dtype=float)
            self.w = m / m.sum()
        else:  # no mass: the host's origin
            self.idx = np.array([model.index[host]], dtype=int)
            self.com, self.w = np.zeros((1, 3)), np.ones(1)


class _Com(_Masses):
    """A host's robot's centre of mass (world, m) and its Jacobian over columns ``cols``."""

    def __init__(self, model, linkage, host: str, cols):
        super().__init__(model, linkage, host)
        self.sign = model.anc_sign[self.idx][:, cols]
        self.A = self.w @ self.sign  # (n_cols,)

    def at(self, state) -> tuple[np.ndarray, np.ndarray]:
        """``(c (3,), c_i (n, 3))``."""
        T = state.T[self.idx]
        ci = np.einsum("gij,gj->gi", T[:, :3, :3], self.com) + T[:, :3, 3]
        return self.w @ ci, ci

    def jacobian(self, state, ci) -> np.ndarray:
        """(3, n_cols): ``dc / dq`` (see the module doc)."""
        Bx, By, Bz = (ci.T * self.w).dot(self.sign)  # B: (3, n_cols)
        S = state.S
        wx, wy, wz = S[3], S[4], S[5]
        J = self.A * S[:3]
        J[0] -= By * wz - Bz * wy
        J[1] -= Bz * wx - Bx * wz
        J[2] -= Bx * wy - By * wx
        return J


def _host_name(link) -> str:
    return f"root joint of link {link.name!r}"


class ComTargetBatch(Batch):
    """``com_target`` (``plane=None``: 3 rows ``c - p``) or ``com_over`` (``plane``: the (2, 3)
    ground-plane axes, 2 rows ``E (c - p)``) goals of host links, all at one ``level``;
    ``p`` is each goal's ``point`` (world, m)."""

    def __init__(self, kind: str, model, linkage, links, cols, plane=None,
                 level: Level = Level.TARGET):
        self.kind, self.links, self.plane, self.level = kind, links, plane, level
        self.coms = [_Com(model, linkage, link.name, cols) for link in links]
        self.names = [GoalId(kind, _host_name(link), level) for link in links]
        r = 3 if plane is None else 2
        self.goal = np.repeat(np.arange(len(links)), r)
        self.refresh()

    def refresh(self):
        """Re-read each goal's point."""
        self.point = [np.asarray(link.goals[self.kind]["point"], float) for link in self.links]

    def rows(self, state, jac):
        es, Js = [], []
        for com, p in zip(self.coms, self.point):
            c, ci = com.at(state)
            E = np.eye(3) if self.plane is None else self.plane
            es.append(E @ (c - p))
            if jac:
                Js.append(E @ com.jacobian(state, ci))
        return np.concatenate(es), (np.concatenate(Js) if jac else None), self.goal


class _Pins:
    """The pins of a host's robot (see the module doc): fixed world points and link-side ones."""

    def __init__(self, model, linkage, host: str):
        members = set(robot_links(model, host).tolist())
        fixed, idx, local = [], [], []
        for j in linkage.joints.values():
            if j.is_tree or (j.parent is None) == (j.child is None):
                continue
            link = j.child if j.parent is None else j.parent
            k = model.index[link]
            if k not in members:
                continue
            world_side = j.T_parent_mob if j.parent is None else j.T_child_frame
            link_side = j.T_child_frame if j.parent is None else j.T_parent_mob
            if bool(j.jtype.is_angular().all()):
                fixed.append(np.asarray(world_side, float)[:3, 3])
            else:
                idx.append(k)
                local.append(np.asarray(link_side, float)[:3, 3])
        self.fixed = np.array(fixed, dtype=float).reshape(-1, 3)
        self.idx = np.array(idx, dtype=int)
        self.local = np.array(local, dtype=float).reshape(-1, 3)
        self.count = len(self.fixed) + len(self.idx)

    def points(self, state) -> np.ndarray:
        """(k, 3) world points (m)."""
        if not len(self.idx):
            return self.fixed
        T = state.T[self.idx]
        moving = np.einsum("gij,gj->gi", T[:, :3, :3], self.local) + T[:, :3, 3]
        return np.concatenate([self.fixed, moving])


class BalanceBatch(Batch):
    """``balance`` goals of host links, all at one ``level``: each robot's centre of mass over
    its pins' support polygon moved in by the goal's ``margin`` (see the module doc)."""

    def __init__(self, model, linkage, links, cols, gravity, level: Level = Level.LIMIT):
        self.links, self.level = links, level
        self.plane = SP.plane_axes(gravity)
        self.coms = [_Com(model, linkage, link.name, cols) for link in links]
        self.pins = [_Pins(model, linkage, link.name) for link in links]
        self.names = [GoalId("balance", _host_name(link), level) for link in links]
        self.n_cols = len(cols)
        self._regions: list = [None] * len(links)  # (key, region, margin kept) per goal
        self.refresh()

    def refresh(self):
        """Re-read each goal's margin."""
        self.margin = [float(link.goals["balance"]["margin"]) for link in self.links]

    def region(self, i: int, state) -> tuple[SP.Region, float]:
        """Goal ``i``'s region (2-D, the plane's coordinates) and the margin it keeps; the
        same pins' points and margin give the same region (kept)."""
        pts = self.pins[i].points(state) @ self.plane.T
        key = (pts.tobytes(), self.margin[i])
        got = self._regions[i]
        if got is None or got[0] != key:
            R, kept = SP.region(pts, self.margin[i])
            got = self._regions[i] = (key, SP.Region(R), kept)
        return got[1], got[2]

    def _at(self, state) -> list:
        """Per goal at ``state``: ``(d, n, c_i, gap)``: the signed distance of its centre of
        mass to its region (m, positive outside) and its gradient ``n`` in the plane (None
        without pins), the centres of mass of the robot's links, the margin lost. Kept in
        ``state.memo``: errors, Jacobians and guards at one point share it."""
        got = state.memo.get(self)
        if got is not None:
            return got
        out: list[tuple] = []
        for i, com in enumerate(self.coms):
            if not self.pins[i].count:
                out.append((0.0, None, None, NO_SUPPORT))
                continue
            R, kept = self.region(i, state)
            c, ci = com.at(state)
            d, n = R.signed_distance(self.plane.dot(c))
            out.append((d, n, ci, self.margin[i] - kept))
        state.memo[self] = out
        return out

    def rows(self, state, jac):
        """A row for each centre of mass outside its region (its distance) and each margin
        lost; inside, none (:meth:`guards` keeps a step from leaving)."""
        es, Js, goal = [], [], []
        for i, (d, n, ci, gap) in enumerate(self._at(state)):
            if d > 0:
                es.append(d)
                goal.append(i)
                if jac:
                    Js.append(self._row(i, state, n, ci))
            if gap > 0:
                es.append(gap)
                goal.append(i)
                if jac:
                    Js.append(np.zeros(self.n_cols))
        e = np.array(es, dtype=float)
        J = np.array(Js, dtype=float).reshape(len(es), self.n_cols) if jac else None
        return e, J, np.array(goal, dtype=int)

    def guards(self, state, step) -> list:
        """Each centre of mass inside its region that ``step`` would carry out: the row of
        its signed distance and how far inside it is."""
        out = []
        for i, (d, n, ci, _) in enumerate(self._at(state)):
            if n is not None and d <= 0 and n.any():
                row = self._row(i, state, n, ci)
                if float(row.dot(step)) > -d + 1e-15:
                    out.append((i, row, -d))
        return out

    def _row(self, i, state, n, ci) -> np.ndarray:
        return n.dot(self.plane).dot(self.coms[i].jacobian(state, ci))
