"""Goals: each gives its error rows and their analytic Jacobian over a solve group's tree DoF.

Priority levels, highest first (:mod:`.levels`): ``INVARIANT`` (closure joints keep their
structure; mimic couplings), ``LIMIT`` (closure joints beyond their limits), ``LOCK``,
``POTENTIAL`` (gravity on link masses, springs), ``TARGET``, ``POSTURE``. The solver wants
``J dq = -e``. Which goals a linkage has, and which batch class evaluates each kind, is the
registry of :mod:`.goal_kinds`; each batch names its goals with :class:`~.levels.GoalId` s.

Goals of one kind and joint type are evaluated together in one batch (numpy over the batch).
Jacobians use the world twists ``S`` of :class:`~.kinematics.TreeModel`: a relative quantity
between a joint's parent and child links has Jacobian ``D @ Ad(T_world_mob^-1) @ S`` with the
columns of ``S`` signed by ``anc_sign[child] - anc_sign[parent]`` (common ancestors cancel).
"""
from __future__ import annotations

import numpy as np

from . import pose_derivatives as PD
from . import se3
from . import sparse_rows as SR
from .levels import LEVEL_NAMES, N_LEVELS, GoalId, Level  # noqa: F401  (re-exported as G.*)

INVARIANT, LIMIT, LOCK, POTENTIAL, TARGET, POSTURE = Level


class State:
    """One evaluation point: the full q, world poses, and the group's twist columns.

    ``memo``: what a batch computed for its errors alone, keyed by the batch, for when the
    Jacobians at this point are asked for later (:meth:`.GroupProblem.jacobians`)."""

    __slots__ = ("q", "T", "S", "memo")

    def __init__(self, q, T, S):
        self.q, self.T, self.S = q, T, S
        self.memo = {}


class _Relative:
    """Geometry shared by batches of joints evaluated through their links' poses."""

    def __init__(self, model, joints, cols):
        idx = model.index
        self.pidx = np.array([idx[j.parent] for j in joints], dtype=int)
        self.cidx = np.array([idx[j.child] for j in joints], dtype=int)
        self.Fp = np.stack([j.T_parent_mob for j in joints])
        self.Fc = np.stack([j.T_child_frame for j in joints])
        self.Fc_eye = bool((self.Fc == np.eye(4)).all())  # child frames are the links': skip
        self.pitch = np.array([j.pitch for j in joints])
        self.sign = (model.anc_sign[self.cidx] - model.anc_sign[self.pidx])[:, cols]
        self._sign_rows = {}
        self.n_cols = len(cols)
        # A large group's rows are stored by their supports (see sparse_rows.py).
        self.sparse = SR.worth_it(self.n_cols, int((self.sign != 0).sum(axis=1).max(initial=0)))
        if self.sparse:
            self.sup_idx, self.sup_sign = SR.supports(self.sign)
        # Joints to the ground (root joints, pins) have a constant mobility frame.
        self.grounded = not self.pidx.any()
        # ... and at the world frame itself (root joints: drag targets): no products at all.
        self.at_world = self.grounded and bool((self.Fp == np.eye(4)).all())
        if self.grounded:
            self.Fp_inv34 = se3.inverse(self.Fp)[:, :3, :]
            self.ad_inv = se3.adjoint_inv(self.Fp)

    def poses(self, state):
        """``T_world_mob`` (g,4,4) and ``T_mob_childframe`` as (g,3,4): rotation, translation.
        Kept in ``state.memo`` (callers only read them): errors and Jacobians at one point
        may be asked for separately."""
        got = state.memo.get(self)
        if got is None:
            got = state.memo[self] = self._poses(state)
        return got

    def _poses(self, state):
        T_wc = state.T.take(self.cidx, axis=0)
        if not self.Fc_eye:
            T_wc = T_wc @ self.Fc
        if self.grounded:
            return self.Fp, (T_wc[:, :3, :] if self.at_world else self.Fp_inv34 @ T_wc)
        T_wm = state.T.take(self.pidx, axis=0) @ self.Fp
        A = T_wc  # T_world_childframe (a new array: take copies)
        A[:, :3, 3] -= T_wm[:, :3, 3]
        return T_wm, T_wm[:, :3, :3].transpose(0, 2, 1) @ A[:, :3, :]

    def jacobian(self, D, T_wm, state):
        """Rows ``D`` (g, r, 6) w.r.t. the mobility-frame twist -> (g*r, n_cols)."""
        if not self.at_world:
            D = D @ (self.ad_inv if self.grounded else se3.adjoint_inv(T_wm))
        return self.world_jacobian(D, state)

    def world_jacobian(self, D, state):
        """Rows ``D`` (g, r, 6) w.r.t. the child's twist relative to the parent, in the world
        (at the world origin) -> (g*r, n_cols)."""
        g, r = D.shape[:2]
        sign = self._sign_rows.get(r)
        if self.sparse:
            if sign is None:
                sign = self._sign_rows[r] = (np.repeat(self.sup_idx, r, axis=0),
                                             np.repeat(self.sup_sign, r, axis=0))
            S = state.S.T.take(self.sup_idx, axis=0).transpose(0, 2, 1)  # (g, 6, K)
            vals = (D @ S).reshape(g * r, -1) * sign[1]
            return SR.SparseRows.sparse(vals, sign[0], self.n_cols)
        if sign is None:
            sign = self._sign_rows[r] = np.repeat(self.sign, r, axis=0)
        return D.reshape(g * r, 6).dot(state.S) * sign


class Batch:
    """Base: ``names`` (one per goal), ``level``; ``rows`` returns (e, J or None, goal index)."""

    level = INVARIANT
    names: list[GoalId]

    def refresh(self):
        """Re-read goal values from the linkage before a solve (most goals have none)."""

    def rows(self, state, jac: bool):  # pragma: no cover - interface
        raise NotImplementedError

    def guards(self, state, step) -> list:
        """The inequality goals met at ``state`` that ``step`` (over the group's columns)
        would break, by its linear model: ``[(key, row, slack)]``, ``key`` naming the goal
        within the batch, ``row`` (n_cols,) the Jacobian of how far outside it is, ``slack``
        >= 0 how far inside it is (it holds while ``row . dq <= slack``). The stepper adds
        each as the row ``row . dq = slack`` at this batch's level and steps again (see
        :class:`.stepper.Stepper`); most goals have none."""
        return []


class InvariantBatch(Batch):
    """Closure joints of one type: their invariant residual (6 - dof rows each), or that of
    ``residual_type`` (a planar loop's revolute closures: their in-plane rows only, see
    :mod:`.planar`)."""

    level = INVARIANT

    def __init__(self, model, joints, cols, residual_type=None):
        self.jt = residual_type or joints[0].jtype
        self.rel = _Relative(model, joints, cols)
        self.names = [GoalId("invariant", j.label(), INVARIANT) for j in joints]
        self.goal = np.repeat(np.arange(len(joints)), self.jt.n_invariants)
        # Rows that are only the child frame's offset along mobility axes (free rotation,
        # e.g. spherical, point-slider): see _offset_rows.
        self.offset = self.jt.rot == "free"
        if self.offset:
            # T_world_parent[:3] @ Fp_axes_origin: the constrained axes and the origin of the
            # mobility frame in the world, (g, 3, r + 1); constant for joints to the ground,
            # and for those of a spherical joint to the ground with axes along the world's
            # (pins), the rows are c - o and their Jacobian that of the point c.
            self.Fp_axes_origin = self.rel.Fp[:, :, list(self.jt.constrained_axes) + [3]]
            self.Fc_origin = self.rel.Fc[:, :, 3:]  # (g, 4, 1)
            fixed = self.Fp_axes_origin[:, :3]
            self.fixed = (fixed[:, :, :-1], fixed[:, :, -1]) if self.rel.grounded else None
            self.world_axes = self.fixed is not None and self.fixed[0].shape[2] == 3 and \
                bool((self.fixed[0] == np.eye(3)).all())

    def rows(self, state, jac):
        if self.offset:
            return self._offset_rows(state, jac)
        T_wm, T = self.rel.poses(state)
        if not jac:
            return self.jt.residual(T, self.rel.pitch).reshape(-1), None, self.goal
        r, D = self.jt.residual(T, self.rel.pitch, jacobian=True)
        return r.reshape(-1), self.rel.jacobian(D, T_wm, state), self.goal

    def _offset_rows(self, state, jac):
        """The residual ``a . (c - o)`` for each constrained mobility axis ``a`` (world), with
        ``c`` the child frame's origin and ``o`` the mobility frame's, computed in the world:
        its derivative under the relative twist (v, w) at the world origin is ``a . v +
        (c x a) . w``, so no adjoint is formed (fewer numpy calls than the general path)."""
        memo = state.memo.get(self)
        if memo is None:
            rel = self.rel
            T = state.T
            Tc = T.take(rel.cidx, axis=0)
            c = Tc[:, :3, 3] if rel.Fc_eye else (Tc[:, :3, :] @ self.Fc_origin)[..., 0]
            if self.fixed is None:
                M = T.take(rel.pidx, axis=0)[:, :3, :] @ self.Fp_axes_origin
                A, o = M[:, :, :-1], M[:, :, -1]  # (g, 3, r) the constrained axes; (g, 3)
            else:
                A, o = self.fixed
            e = (c - o).reshape(-1) if self.world_axes else \
                ((c - o)[:, None, :] @ A).reshape(-1)
            if not jac:
                state.memo[self] = c, A, e
                return e, None, self.goal
        else:
            c, A, e = memo
        if self.world_axes:
            D = PD.dp_dxi(c)  # rows (a, c x a) for the world's axes: [I | -[c]x]
        else:
            D = np.concatenate([A, se3.hat(c) @ A], axis=1).transpose(0, 2, 1)  # (a, c x a)
        return e, self.rel.world_jacobian(D, state), self.goal


class _ConfigRows:
    """Configuration error of joints (same type, all tree or all closure) to goal values."""

    def __init__(self, model, joints, cols):
        self.jt = joints[0].jtype
        self.tree = joints[0].is_tree
        self.g = len(joints)
        if self.tree:
            col_of = {c: i for i, c in enumerate(cols)}
            qi = np.array([np.arange(model.slice_of(j).start, model.slice_of(j).stop)
                           for j in joints], dtype=int).reshape(self.g, self.jt.dof)
            self.q_idx = qi
            self.col_idx = np.array([[col_of[c] for c in row] for row in qi], dtype=int)
            self.sparse = SR.worth_it(len(cols), self.jt.dof)
            if self.sparse:
                self.sparse_idx = np.repeat(self.col_idx, self.jt.dof, axis=0)
        else:
            self.rel = _Relative(model, joints, cols)

    def error(self, state, goal, jac, n_cols, R_goal=None, rot=True):
        """Errors (g, dof) and, with ``jac``, Jacobian rows (g*dof, n_cols). ``rot=False``:
        rotation-vector entries are not wanted (left zero)."""
        d = self.jt.dof
        if self.tree:
            e, Jt = self.jt.config_error_tree(state.q.take(self.q_idx), goal)
            if not jac:
                return e, None
            if self.sparse:
                return e, SR.SparseRows.sparse(Jt.reshape(self.g * d, d), self.sparse_idx, n_cols)
            J = np.zeros((self.g * d, n_cols))
            rows = np.repeat(np.arange(self.g * d), d)
            J[rows, np.repeat(self.col_idx, d, axis=0).reshape(-1)] = Jt.reshape(-1)
            return e, J
        T_wm, T = self.rel.poses(state)
        e, D = self.jt.config_error(T, goal, self.rel.pitch, R_goal, rot, jacobian=jac)
        return e, (self.rel.jacobian(D, T_wm, state) if jac else None)


class ConfigBatch(Batch):
    """Lock, target, posture or spring goals on joints of one type and tree-ness.

    ``goal`` (g, dof) values, ``mask`` (g, dof) selected DoFs, ``weight`` (g,) row scale.
    """

    def __init__(self, level, kind, model, joints, cols, attr, mask, weight=None):
        self.level = level
        self.cfg = _ConfigRows(model, joints, cols)
        self.joints, self.attr = joints, attr
        jt = self.cfg.jt
        sel = np.asarray(mask, bool).reshape(-1)
        self.sel_idx = np.flatnonzero(sel)  # the selected rows
        # Rotation vectors of closure joints cost a log map: only when some are selected.
        self.use_rot = jt.rot == "free" and bool(
            sel.reshape(len(joints), jt.dof)[:, list(jt.w_idx)].any())
        self.refresh()
        w = np.ones(len(joints)) if weight is None else np.asarray(weight, float)
        self.w = np.repeat(w, joints[0].dof)[sel]
        self.unit_w = bool((self.w == 1.0).all())
        self.all_rows = bool(sel.all() and self.unit_w)
        self.names = [GoalId(kind, j.label(), level) for j in joints]
        self.goal_of_row = np.repeat(np.arange(len(joints)), joints[0].dof)[sel]
        self.n_cols = len(cols)

    def refresh(self):
        """Re-read the goal values (``joint.<attr>``, e.g. ``target_q``) from the joints."""
        if len(self.joints) == 1:  # one joint (a drag target): its vector as a 1-row view
            self.goal = np.asarray(getattr(self.joints[0], self.attr), dtype=float)[None]
        else:
            self.goal = np.stack([getattr(j, self.attr) for j in self.joints])
        jt = self.cfg.jt
        self.R_goal = None
        if self.use_rot and not self.cfg.tree:
            self.R_goal = se3.so3_exp(self.goal[:, jt.w_idx[0]:jt.w_idx[0] + 3])

    def rows(self, state, jac):
        e, J = self.cfg.error(state, self.goal, jac, self.n_cols, self.R_goal, self.use_rot)
        if self.all_rows:
            return e.reshape(-1), J, self.goal_of_row
        e = e.reshape(-1).take(self.sel_idx)
        if J is not None:
            J = SR.take_rows(J, self.sel_idx)
        if not self.unit_w:
            e = e * self.w
            J = J if J is None else SR.scale_rows(J, self.w)
        return e, J, self.goal_of_row


class LimitBatch(Batch):
    """Closure joints with limits: a row for each DoF beyond its limit (by how far)."""

    level = LIMIT

    def __init__(self, model, joints, cols):
        self.cfg = _ConfigRows(model, joints, cols)
        self.lower = np.stack([j.lower for j in joints])
        self.upper = np.stack([j.upper for j in joints])
        self.names = [GoalId("limit", j.label(), LIMIT) for j in joints]
        self.n_cols = len(cols)
        self.dof = joints[0].dof

    def rows(self, state, jac):
        zero = np.zeros_like(self.lower)
        e, J = self.cfg.error(state, zero, jac, self.n_cols)  # the fitted q itself
        q = e.reshape(-1)
        lo, hi = self.lower.reshape(-1), self.upper.reshape(-1)
        err = np.where(q > hi, q - hi, np.where(q < lo, q - lo, 0.0))
        act = err != 0
        goal = np.repeat(np.arange(self.lower.shape[0]), self.dof)[act]
        return err[act], (SR.take_rows(J, np.flatnonzero(act)) if J is not None else None), goal


class MimicBatch(Batch):
    """``q_follower - (multiplier * q_leader + offset)`` for 1-DoF joint pairs."""

    level = INVARIANT

    def __init__(self, model, pairs, cols):
        self.f = [_ConfigRows(model, [f], cols) for f, _, _, _ in pairs]
        self.l = [_ConfigRows(model, [ld], cols) for _, ld, _, _ in pairs]
        self.mult = np.array([m for _, _, m, _ in pairs])
        self.off = np.array([o for _, _, _, o in pairs])
        self.names = [GoalId("mimic", f.label(), INVARIANT) for f, _, _, _ in pairs]
        self.n_cols = len(cols)

    def rows(self, state, jac):
        z = np.zeros((1, 1))
        e = np.zeros(len(self.f))
        J = np.zeros((len(self.f), self.n_cols)) if jac else None
        for i, (f, ld) in enumerate(zip(self.f, self.l)):
            qf, Jf = f.error(state, z, jac, self.n_cols)
            ql, Jl = ld.error(state, z, jac, self.n_cols)
            e[i] = qf[0, 0] - self.mult[i] * ql[0, 0] - self.off[i]
            if jac:
                J[i] = SR.dense(Jf)[0] - self.mult[i] * SR.dense(Jl)[0]
        return e, J, np.arange(len(self.f))


class GravityBatch(Batch):
    """Gravity on link masses as rows pushing each centre of mass along g.

    Rows ``e = -tau * m * g`` with the centre of mass Jacobian: together with springs weighted
    by ``sqrt(tau * k)`` the rows' normal equations are ``tau`` times the potential's gradient,
    so a step is a descent direction and the fixed points are the potential's critical points.
    """

    level = POTENTIAL

    def __init__(self, model, links, cols, gravity, tau):
        self.idx = np.array([model.index[l.name] for l in links], dtype=int)
        self.com = np.stack([l.com for l in links])
        self.mass = np.array([l.mass for l in links], dtype=float)
        self.gravity = np.asarray(gravity, dtype=float)
        self.push = -tau * np.outer(self.mass, self.gravity).reshape(-1)
        self.sign = model.anc_sign[self.idx][:, cols]
        self.names = [GoalId("gravity", "", POTENTIAL)]
        self.goal = np.zeros(3 * len(links), dtype=int)

    def rows(self, state, jac):
        if not jac:
            return self.push, None, self.goal
        c = np.einsum("gij,gj->gi", state.T[self.idx, :3, :3], self.com) + state.T[self.idx, :3, 3]
        D = np.zeros((len(self.idx), 3, 6))
        D[:, :, :3] = np.eye(3)
        D[:, :, 3:] = -se3.hat(c)
        JA = D.reshape(-1, 6)
        return self.push, JA.dot(state.S) * np.repeat(self.sign, 3, axis=0), self.goal

    def energy(self, state) -> float:
        """Potential energy (J) of the masses: ``-sum m g . c``."""
        c = np.einsum("gij,gj->gi", state.T[self.idx, :3, :3], self.com) + state.T[self.idx, :3, 3]
        return -float(np.sum(self.mass[:, None] * c * self.gravity))


class LookAtBatch(Batch):
    """Look-at goals on links: an axis fixed in each link (its ``look_at`` goal's ``axis``,
    link frame, normalised) points from the link's origin at a world point (``point``, m).

    Rows ``e = a - d`` (3 per link, at the target level): ``a = R axis`` the axis in the
    world, ``d = (p - o) / |p - o|`` the unit direction from the link's origin ``o`` to the
    point. Zero only when they point the same way (``a x d`` would also vanish pointing
    away). With the world twist ``[v, w]`` of the link: ``da = -hat(a) w`` and
    ``dd = -(I - d d^T) / |p - o| (v - hat(o) w)``. A point at the origin itself
    (``|p - o| < 1e-9`` m) has no direction: its rows are zero.
    """

    level = TARGET

    def __init__(self, model, links, cols):
        self.links = links
        self.idx = np.array([model.index[link.name] for link in links], dtype=int)
        self.sign = model.anc_sign[self.idx][:, cols]
        self.names = [GoalId("look_at", f"root joint of link {link.name!r}", TARGET)
                      for link in links]
        self.goal = np.repeat(np.arange(len(links)), 3)
        self.refresh()

    def refresh(self):
        """Re-read each link's axis and point."""
        axis = np.stack([link.goals["look_at"]["axis"] for link in self.links])
        self.axis = axis / np.linalg.norm(axis, axis=1)[:, None]  # (kept within rounding)
        self.point = np.stack([link.goals["look_at"]["point"] for link in self.links])

    def rows(self, state, jac):
        T = state.T[self.idx]
        a = np.einsum("gij,gj->gi", T[:, :3, :3], self.axis)
        r = self.point - T[:, :3, 3]
        dist = np.linalg.norm(r, axis=1)
        far = dist > 1e-9
        d = np.where(far[:, None], r / np.where(far, dist, 1.0)[:, None], a)
        e = (a - d).reshape(-1)
        if not jac:
            return e, None, self.goal
        P = (np.eye(3) - d[:, :, None] * d[:, None, :]) / np.where(far, dist, 1.0)[:, None,
                                                                                 None]
        P[~far] = 0.0
        D = np.zeros((len(self.idx), 3, 6))
        D[:, :, :3] = P                                   # - dd/dv
        D[:, :, 3:] = -se3.hat(a) - P @ se3.hat(T[:, :3, 3])  # da/dw - dd/dw
        return e, D.reshape(-1, 6).dot(state.S) * np.repeat(self.sign, 3, axis=0), self.goal
