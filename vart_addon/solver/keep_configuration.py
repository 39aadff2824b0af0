"""The *Keep Configuration* goal: an arm held on the IK branch it had when the goal was set, so
a drag, *Operate Joint*, live mode or a bake never flips its shoulder, elbow or wrist.

The goal is set on a link (a tool) and holds the link's arm (:func:`.arm_branches.arm_joints`).
Its values: ``branch``, one entry per sign quantity of the arm
(:class:`.arm_branches.Arm`: the shoulder's side, then ``sin q`` of each singular joint, in
that order; :data:`.arm_branches.MAX_SIGNS` entries, the unused ones 0), each +1 or -1 (the
side the quantity is kept on) or 0 (left free); ``margin`` (dimensionless, default 0.05:
``sin q >= 0.05`` keeps a joint 2.9 degrees from its singularity, the shoulder 5 % of the
arm's length from its plane); and ``level``, the limit level by default.

It is an inequality, as a joint limit: each held quantity ``f`` must stay on its side,
``s f >= margin``. On that side it asks nothing (no row) but *guards* the steps
(:meth:`KeepConfigurationBatch.guards`): a step that would carry ``s f`` below the margin is
taken again with the row that stops it there, so a drag toward a pose only the other branch
reaches stops at the edge and its target is reported unmet. Beyond the margin (the goal was
set inside it, or another goal pushed it), one row ``margin - s f`` brings it back. A link
whose arm is gone has one constant row of 1 (reported unmet).

Jacobians: ``d sin q / dq = cos q``; the shoulder's ``f = n . (w - o) / L`` (``n = z_1 x z_2
/ |z_1 x z_2|``, ``o`` on the first axis, ``w`` the wrist centre) moves with the twists
``(v_k, w_k)`` of the links carrying them: ``L df = u . (dz_1 x z_2 + z_1 x dz_2) + n . (dw
- do)`` with ``u = (I - n n^T)(w - o) / |n|``, ``dz = w_k x z`` and ``dp = v_k + w_k x p``.
"""
from __future__ import annotations

import math

import numpy as np

from . import arm_branches as AB
from .arm_branches import MAX_SIGNS
from .errors import VartError
from .goals import Batch
from .levels import GoalId, Level, by_level

KIND = "keep_configuration"
#: The row of a goal whose link has no arm (unmet).
NO_ARM = 1.0


def current(lk, link) -> dict:
    """The values *Set* takes from the arm now: its branch, padded with zeros."""
    signs = AB.branch_of(lk, link.name)
    return {"branch": tuple(float(s) for s in signs) + (0.0,) * (MAX_SIGNS - len(signs))}


def with_branch(lk, link, values: dict) -> dict:
    """``values`` with the arm's current branch when they give none (VartError for a link
    without an arm)."""
    AB.arm_joints(lk, link.name)
    return values if "branch" in values else {**current(lk, link), **values}


def build(model, links, cols, ctx) -> list:
    """The batches of the goals on ``links``, one per level."""
    return [KeepConfigurationBatch(model, ctx.linkage, hosts, cols, level)
            for level, hosts in by_level(KIND, links).items()]


def _cross(a, b) -> tuple:
    """``a x b`` of 3-vectors as plain floats (numpy's costs tens of microseconds)."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot(a, b) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


class _Held:
    """One goal's arm on a solve group's columns (``arm`` None for a link without an arm): its
    sine quantities' configuration indices ``qidx`` and columns ``cols``; for the shoulder
    the links carrying its first axis (twice: direction and point), its second axis and the
    wrist centre (``links``), those vectors in their links' frames (``local``, homogeneous)
    and the ancestry signs over the columns of the three links (``sign``: first axis, second
    axis, wrist centre).

    ``lip_q`` / ``lip_cols``: the configuration indices and columns of the DoF that move the
    quantities when every quantity changes by at most the sum of their changes (rad), else
    None: a sine always (``|d sin q| <= |dq|``); the shoulder when the arm's joints are all
    revolute and no other DoF lies between its first axis and the wrist centre (joints below
    the first axis move it all rigidly, which leaves it be; a joint beyond turns the wrist
    centre about its axis, at most its distance from it, which is at most ``L``)."""

    def __init__(self, model, linkage, link, cols):
        try:
            self.arm = AB.arm_of(linkage, link.name)
        except VartError:
            self.arm = None
            return
        arm = self.arm
        self.qidx = arm.qidx[arm.signs]
        self.cols = np.searchsorted(cols, self.qidx)  # (the support holds the arm's DoF)
        sh = arm.shoulder
        self.lip_q = self.qidx
        if sh is not None:
            self.links = np.array([sh.a[0], sh.a[0], sh.b[0], sh.wrist[0]], dtype=int)
            self.local = np.array([[*sh.a[1], 0.0], [*sh.a[2], 1.0], [*sh.b[1], 0.0],
                                   [*sh.wrist[1], 1.0]])[:, :, None]
            self.sign = model.anc_sign[self.links[1:]][:, cols]
            between = np.flatnonzero(model.anc_sign[sh.wrist[0]] != model.anc_sign[sh.a[0]])
            revolute = all(linkage.joint(n).jtype.name == "revolute" for n in arm.names)
            ok = revolute and set(between.tolist()) <= set(arm.qidx.tolist())
            self.lip_q = arm.qidx if ok else None
        self.lip_cols = None if self.lip_q is None else np.searchsorted(cols, self.lip_q)

    def values(self, state) -> tuple:
        """``(f, shoulder vectors or None)``: the quantities (a list) at ``state``."""
        s = [math.sin(x) for x in state.q.take(self.qidx).tolist()]
        if self.arm.shoulder is None:
            return s, None
        f, vec = self.shoulder(state.T)
        return [f] + s, vec

    def shoulder(self, T) -> tuple:
        """``(f, (z_1, o_1, z_2, w, n, |z_1 x z_2|, w - o_1))``: the shoulder quantity at link
        poses ``T`` and its vectors (world, plain floats)."""
        za, oa, zb, w = (T.take(self.links, axis=0)[:, :3, :] @ self.local)[..., 0].tolist()
        n = _cross(za, zb)
        nn = _dot(n, n) ** 0.5
        nh = (n[0] / nn, n[1] / nn, n[2] / nn)
        d = (w[0] - oa[0], w[1] - oa[1], w[2] - oa[2])
        return _dot(nh, d) / self.arm.shoulder.length, (za, oa, zb, w, nh, nn, d)

    def shoulder_rows(self, vec) -> list:
        """The shoulder quantity's derivative (times ``L``) by the world twists of the three
        links carrying its vectors (first axis, second axis, wrist centre): three 6-lists
        (see the module doc)."""
        za, oa, zb, w, nh, nn, d = vec
        c = _dot(nh, d)
        u = ((d[0] - nh[0] * c) / nn, (d[1] - nh[1] * c) / nn, (d[2] - nh[2] * c) / nn)
        za_ = _cross(za, _cross(zb, u))
        oa_ = _cross(oa, nh)
        return [[-nh[0], -nh[1], -nh[2], za_[0] - oa_[0], za_[1] - oa_[1], za_[2] - oa_[2]],
                [0.0, 0.0, 0.0, *_cross(zb, _cross(u, za))],
                [nh[0], nh[1], nh[2], *_cross(w, nh)]]

    def shoulder_row(self, S, vec) -> np.ndarray:
        """(n_cols,): the shoulder quantity's gradient."""
        D = np.array(self.shoulder_rows(vec))
        return (D.dot(S) * self.sign).sum(axis=0) / self.arm.shoulder.length

    def shoulder_rate(self, S, step, vec) -> float:
        """The shoulder quantity's rate along ``step`` (its gradient's dot product, without
        forming it: the three links' twists along the step)."""
        V = S.dot((self.sign * step).T).T.tolist()
        return sum(a * b for D, v in zip(self.shoulder_rows(vec), V)
                   for a, b in zip(D, v)) / self.arm.shoulder.length


class _Far:
    """A goal whose held quantities are all at least ``room`` inside their margins (known
    from the last point computed and how far the DoF moved since: see ``_Held.lip_q``)."""

    __slots__ = ("room",)

    def __init__(self, room: float):
        self.room = room


class KeepConfigurationBatch(Batch):
    """``keep_configuration`` goals of links, all at one ``level`` (see the module doc).

    A drag keeps an arm far from its singularities most of the time: each goal remembers the
    last point whose quantities it computed and how far inside its margins they all were, and
    a point whose DoF moved less than that in all (:class:`_Held`'s bound) is known to be
    inside without computing them (:class:`_Far`)."""

    def __init__(self, model, linkage, links, cols, level: Level = Level.LIMIT):
        self.links, self.level = links, level
        self.held = [_Held(model, linkage, link, cols) for link in links]
        self.names = [GoalId(KIND, f"root joint of link {link.name!r}", level) for link in links]
        self.n_cols = len(cols)
        self._none = (np.zeros(0), np.zeros((0, self.n_cols)), np.zeros(0, dtype=int))
        self.side: list = []
        self.margin: list = []
        self.refresh()

    def refresh(self):
        """Re-read each goal's branch and margin (as plain floats: a goal has a few
        quantities, numpy calls on them would cost more than the arithmetic); the points
        remembered are forgotten when they changed."""
        side, margin = [], []
        for link, h in zip(self.links, self.held):
            n = 0 if h.arm is None else len(h.arm.kinds)
            branch = np.asarray(link.goals[KIND]["branch"], float)[:n].tolist()
            side.append([(x > 0) - (x < 0) for x in branch])
            margin.append(float(link.goals[KIND]["margin"]))
        if side != self.side or margin != self.margin:
            self.side, self.margin = side, margin
            self._ref: list = [None] * len(self.links)  # (DoF values, room) per goal

    def _at(self, state) -> list:
        """Per goal, kept in ``state.memo``: None without an arm, a :class:`_Far`, or
        ``[f, shoulder vectors or None, shoulder row or None]`` (the row added once asked
        for)."""
        got = state.memo.get(self)
        if got is not None:
            return got
        out: list = []
        for i, h in enumerate(self.held):
            ref = self._ref[i]
            if h.arm is None:
                out.append(None)
                continue
            moved = math.inf if ref is None else \
                float(np.abs(state.q.take(h.lip_q) - ref[0]).sum())
            out.append(_Far(ref[1] - moved) if ref is not None and moved < ref[1] else
                       self._exact(i, state))
        state.memo[self] = out
        return out

    def _exact(self, i: int, state) -> list:
        """Goal ``i``'s quantities computed at ``state`` (remembered as the point of
        reference when they are all inside)."""
        h = self.held[i]
        f, vec = h.values(state)
        if h.lip_q is not None:
            room = min((s * x - self.margin[i] for s, x in zip(self.side[i], f) if s),
                       default=math.inf)
            self._ref[i] = (state.q.take(h.lip_q), room) if room > 0 else None
        return [f, vec, None]

    def _gradient(self, i: int, state, k: int, got) -> np.ndarray:
        """(n_cols,): the gradient of goal ``i``'s quantity ``k`` (``got``: its values)."""
        h = self.held[i]
        first = int(h.arm.shoulder is not None)
        if k < first:
            if got[2] is None:
                got[2] = h.shoulder_row(state.S, got[1])
            return got[2]
        row = np.zeros(self.n_cols)
        row[h.cols[k - first]] = math.cos(state.q[h.qidx[k - first]])
        return row

    def rows(self, state, jac):
        """A row ``margin - s f`` for each held quantity beyond its margin (and a constant
        one for a link without an arm); inside, none (:meth:`guards`)."""
        es, Js, goal = [], [], []
        for i, got in enumerate(self._at(state)):
            if got is None:
                es.append(NO_ARM)
                goal.append(i)
                if jac:
                    Js.append(np.zeros(self.n_cols))
                continue
            if isinstance(got, _Far):
                continue
            m = self.margin[i]
            for k, (side, f) in enumerate(zip(self.side[i], got[0])):
                if side and m - side * f > 0:
                    es.append(m - side * f)
                    goal.append(i)
                    if jac:
                        Js.append(-side * self._gradient(i, state, k, got))
        if not es:
            return self._none[0], (self._none[1] if jac else None), self._none[2]
        e = np.array(es, dtype=float)
        J = np.array(Js, dtype=float).reshape(len(es), self.n_cols) if jac else None
        return e, J, np.array(goal, dtype=int)

    def guards(self, state, step) -> list:
        """Each held quantity within its side that ``step`` would carry past the margin: the
        row of how far past it is and how far within it is. A step shorter (summed over the
        DoF that move the quantities) than how far inside they all are cannot; a sine's rate
        is ``cos q`` times its joint's step (no row formed unless it is hit)."""
        out = []
        memo = self._at(state)
        for i, got in enumerate(memo):
            if got is None:
                continue
            h = self.held[i]
            if isinstance(got, _Far):
                if float(np.abs(step.take(h.lip_cols)).sum()) <= got.room:
                    continue
                got = memo[i] = self._exact(i, state)
            first = int(h.arm.shoulder is not None)
            dq = step.take(h.cols).tolist()
            q = state.q.take(h.qidx).tolist()
            for k, (side, f) in enumerate(zip(self.side[i], got[0])):
                slack = side * f - self.margin[i]
                if not side or slack < 0:
                    continue
                if k < first:
                    rate = -side * (float(got[2].dot(step)) if got[2] is not None else
                                    h.shoulder_rate(state.S, step, got[1]))
                else:
                    j = k - first
                    if abs(dq[j]) <= slack:  # |d sin q| <= |dq|: cannot reach the margin
                        continue
                    rate = -side * math.cos(q[j]) * dq[j]
                if rate > slack + 1e-15:
                    out.append(((i, k), -side * self._gradient(i, state, k, got), slack))
        return out
