"""One solve group's goals evaluated at a configuration: per-level rows, Jacobians, measures.

:class:`GroupProblem` runs forward kinematics and the world twists, asks every goal batch for
its rows, and assembles them per priority level with each level's *measure*: the norm of its
error rows, or the potential energy (J) for the potential level. It also holds the group's
adaptive state used by the solve loop: Levenberg-Marquardt damping per level (``mu``) and the
scale of the potential rows (``potential_scale``).
"""
from __future__ import annotations

import math
from collections.abc import Container
from typing import Any

import numpy as np

from . import goals as G
from . import sparse_rows as SR


class Evaluation:
    """One evaluation: per-batch rows, per-level (e, J), measures, satisfied; goal errors on
    demand (:meth:`goal_errors`). Without ``has_jac`` the J are None until
    :meth:`GroupProblem.jacobians` adds them (the world poses in ``state`` are kept for it)."""

    __slots__ = ("q", "rows", "levels", "measure", "satisfied", "state", "motions", "has_jac",
                 "_goal_err", "_gp")
    # Annotations only (no values): the slots above hold them. A Jacobian is None until
    # GroupProblem.jacobians adds it (``has_jac``): typed Any, since the type system cannot
    # tie it to has_jac.
    q: np.ndarray
    rows: list[tuple[np.ndarray, Any, np.ndarray]]  # per batch: (e, J, goal index per row)
    levels: list[tuple[np.ndarray, Any]]  # per level: (e, J)
    measure: list[float]
    satisfied: list[bool]
    state: G.State
    motions: Any
    has_jac: bool
    _goal_err: list[np.ndarray | None]
    _gp: GroupProblem

    def goal_errors(self, k: int) -> np.ndarray:
        """Error norm per goal of level ``k`` (in the order of ``GroupProblem.names[k]``)."""
        ge = self._goal_err[k]
        if ge is None and self._gp.n_goals[k] == 1:  # the level's norm is its goal's error
            ge = self._goal_err[k] = np.array([self.measure[k]])
        elif ge is None:
            gp = self._gp
            e = self.levels[k][0]
            ge = self._goal_err[k] = np.sqrt(np.bincount(gp.goal_of_row(k, self.rows), e * e,
                                                         minlength=gp.n_goals[k]))
        return ge


class GroupProblem:
    """Evaluates one group's goals at a configuration: per-level rows, Jacobians, measures."""

    def __init__(self, model, spec, tol):
        self.model, self.spec, self.tol = model, spec, tol
        self.cols = spec.cols
        self.active = [bool(b) for b in spec.levels]
        self.batches = [b for lv in spec.levels for b in lv]
        self.level_slices = []
        i = 0
        for lv in spec.levels:
            self.level_slices.append(slice(i, i + len(lv)))
            i += len(lv)
        self.active_levels = [k for k in range(G.N_LEVELS) if self.active[k]]
        # the levels that must reach zero (potential and posture need not)
        self.hard_levels = [k for k in self.active_levels if k not in (G.POTENTIAL, G.POSTURE)]
        # per active level: (k, its batches' slice, the batch's index if it has only one)
        self._level_rows = [(k, self.level_slices[k],
                             self.level_slices[k].start if len(spec.levels[k]) == 1 else None)
                            for k in self.active_levels]
        self.lower, self.upper = model.lower[self.cols], model.upper[self.cols]
        self.limited = bool(np.isfinite(self.lower).any() or np.isfinite(self.upper).any())
        self.names = [[nm for b in lv for nm in b.names] for lv in spec.levels]
        self.n_goals = [len(nms) for nms in self.names]
        n_dof = model.n_dof
        self.all_cols = len(self.cols) == n_dof and np.array_equal(self.cols, np.arange(n_dof))
        self._empty = (np.zeros(0), np.zeros((0, len(self.cols))))
        # An evaluation's per-level lists start as those of a level without goals.
        self._blank_levels = [self._empty] * 6
        self._blank_levels_nojac = [(self._empty[0], None)] * 6
        # Goal errors: computed on demand for levels with goals; potential has none.
        self._blank_goal_err = [None if a and k != G.POTENTIAL else self._empty[0]
                                for k, a in enumerate(self.active)]
        self._goal_of_row = [None] * 6  # see goal_of_row
        self.last: Evaluation | None = None
        self.potential_scale = 1.0  # adaptive multiplier of tau (see potential_rows)
        self.mu = np.zeros(6)  # Levenberg-Marquardt damping per level (adapted by gain ratio)
        self.chord_pays = True  # simplified Newton steps are expected to finish (solver.py)
        # the last solve's (first step, bend, |first step|^2, whether that step was carried)
        self.bend = None  # (stepper.py)
        self.fresh_steps = 1  # steps of its last warm solve without a carried step (stepper.py)
        self.carried = None  # [pdls.Stacked, age in solves] for a drag's first step (stepper.py)
        self.structures: dict = {}  # the stacked solve's block structures (block_gram.py)
        # the batches that read goal values (they override Batch.refresh)
        self.value_batches = frozenset(i for i, b in enumerate(self.batches)
                                       if type(b).refresh is not G.Batch.refresh)
        # the batches of inequality goals that can guard a step (they override Batch.guards)
        self.guard_batches = [b for b in self.batches if type(b).guards is not G.Batch.guards]

    def guards(self, ev: Evaluation, step, upto: int) -> list:
        """``[((batch, key), level, row, slack)]``: the inequality goals of levels up to
        ``upto`` met at ``ev`` (which has its Jacobians) that ``step`` would break
        (:meth:`.goals.Batch.guards`)."""
        return [((i, key), b.level, row, slack) for i, b in enumerate(self.guard_batches)
                if b.level <= upto for key, row, slack in b.guards(ev.state, step)]

    def goal_of_row(self, k: int, rows) -> np.ndarray:
        """The goal (index into ``names[k]``) of each error row of level ``k``, for an
        evaluation's per-batch ``rows``. Constant except at the limit level, whose rows are
        the limits that are exceeded: kept for the others."""
        idx = self._goal_of_row[k]
        if idx is None:
            sl, offset, parts = self.level_slices[k], 0, []
            for b, r in zip(self.batches[sl], rows[sl]):
                parts.append(r[2] + offset)
                offset += len(b.names)
            idx = np.concatenate(parts)
            if k != G.LIMIT:
                self._goal_of_row[k] = idx
        return idx

    def potential_rows(self, ev: "Evaluation"):
        """The potential level's (J, rhs) with tau scaled by ``potential_scale``: gravity
        pushes scale by it, spring rows (error and Jacobian) by its square root, so the
        normal equations stay proportional to the potential's gradient."""
        g = self.potential_scale
        Js, rs = [], []
        for b, (e, J, _) in zip(self.batches[self.level_slices[G.POTENTIAL]],
                                ev.rows[self.level_slices[G.POTENTIAL]]):
            J = SR.dense(J)
            if isinstance(b, G.GravityBatch):
                Js.append(J)
                rs.append(-g * e)
            else:
                Js.append(np.sqrt(g) * J)
                rs.append(-np.sqrt(g) * e)
        return np.concatenate(Js), np.concatenate(rs)

    def raise_damping(self, ev: "Evaluation", level: int, factor: float):
        """Levenberg-Marquardt: more damping on ``level`` (floor: 1e-3 of the level's largest
        squared row norm, so the damping has the Jacobian's units). ``ev`` gets its
        Jacobians if it has none (a carried first step's start point, stepper.py)."""
        J = self.jacobians(ev).levels[level][1]
        floor = 1e-3 * float(SR.row_norms2(J).max(initial=1.0))
        self.mu[level] = min(max(factor * self.mu[level], floor), 1e12)

    def damped(self) -> bool:
        """Whether any level has Levenberg-Marquardt damping (``mu``; as plain floats: asked
        every step, and ``ndarray.any`` costs a microsecond, five times more)."""
        return any(self.mu.tolist())

    def predict(self, ev: "Evaluation", step: np.ndarray, k: int) -> float:
        """Level ``k``'s measure after ``step`` by its linear model (energy: first order)."""
        e, J = ev.levels[k]
        if k == G.POTENTIAL:
            return ev.measure[k] + float(J.T.dot(e).dot(step)) / self.spec.tau
        r = e + J.dot(step) if e.size else e
        return math.sqrt(r.dot(r))

    def advance(self, q: np.ndarray, dq: np.ndarray,
                bend: np.ndarray | None = None) -> np.ndarray:
        """``q`` after the increment ``dq`` over the group's columns, plus ``bend`` added to
        the coordinates of those columns if given, clamped to the tree joints' limits."""
        m = self.model
        if self.all_cols:
            full = dq
        else:
            full = np.zeros(m.n_dof)
            full[self.cols] = dq
        out = m.retract(q, full)
        if bend is not None and self.all_cols:
            out += bend
        elif bend is not None:
            out[self.cols] += bend
        if m.limited:
            np.minimum(np.maximum(out, m.lower, out=out), m.upper, out=out)
        return out

    def rescale_potential(self, old: "Evaluation", new: "Evaluation", step: np.ndarray, shrink: float):
        """Potential rows have no natural scale: fit a parabola to the energy along the step
        just taken (value before and after, slope ``grad U . step`` with ``J^T e = tau grad
        U``) and scale tau toward the parabola's minimum, i.e. toward a Newton-sized step.
        ``shrink`` is how much the step taken was shortened (line search, step cap)."""
        e, J = old.levels[G.POTENTIAL]
        slope = float(J.T.dot(e).dot(step)) / self.spec.tau
        curv = new.measure[G.POTENTIAL] - old.measure[G.POTENTIAL] - slope
        if slope < 0 and curv > 0:
            factor = min(max(-slope / (2 * curv) * shrink, 0.1), 10.0)
            self.potential_scale = min(max(self.potential_scale * factor, 1e-6), 1e6)

    def _twists(self, T, q, motions) -> np.ndarray:
        """The world twists ``S`` (6, group columns) at the poses ``T`` of ``q``."""
        S = self.model.twists(T, q, motions)
        return S if self.all_cols else S.take(self.cols, axis=1)

    def jacobians(self, ev: Evaluation) -> Evaluation:
        """Add the Jacobians to ``ev`` (in place; nothing to do if it has them). The poses are
        reused; the errors come out the same."""
        if not ev.has_jac:
            full = self.evaluate(ev.q, jac=True, reuse=ev)
            ev.rows, ev.levels, ev.has_jac = full.rows, full.levels, True
        return ev

    def evaluate(self, q: np.ndarray, jac: bool, reuse: Evaluation | None = None,
                 dirty: Container[int] = frozenset()) -> Evaluation:
        """Rows of every goal at ``q``, with Jacobians if ``jac`` (else :meth:`jacobians`
        adds them later if a step needs them). With ``reuse`` (an evaluation at the same q),
        the poses are reused and only the batches in ``dirty`` (goal values changed) are
        recomputed, all of them if Jacobians are wanted and ``reuse`` has none."""
        if reuse is None:
            T, motions = self.model.fk(q, with_motion=True)
            st = G.State(q, T, self._twists(T, q, motions) if jac else None)
            rows = [b.rows(st, jac) for b in self.batches]
        else:
            st, motions = reuse.state, reuse.motions
            if jac and not reuse.has_jac:
                if st.S is None:
                    st.S = self._twists(st.T, q, motions)
                dirty = range(len(self.batches))
            jac = jac or reuse.has_jac
            rows = [b.rows(st, jac) if i in dirty else reuse.rows[i]
                    for i, b in enumerate(self.batches)]
        ev = Evaluation()
        ev.q, ev.rows, ev._gp = q, rows, self
        ev.state, ev.motions, ev.has_jac = st, motions, jac
        ev.levels = list(self._blank_levels if jac else self._blank_levels_nojac)
        ev.measure, ev.satisfied = [0.0] * 6, [True] * 6
        ev._goal_err = list(self._blank_goal_err)
        for k, sl, one in self._level_rows:
            if one is not None:
                e, J, _ = rows[one]
            else:
                part = rows[sl]
                e = np.concatenate([r[0] for r in part])
                J = SR.concat([r[1] for r in part], len(self.cols)) if jac else None
            ev.levels[k] = (e, J)
            if k == G.POTENTIAL:
                energy = 0.0
                for b, r in zip(self.batches[sl], rows[sl]):
                    energy += b.energy(st) if isinstance(b, G.GravityBatch) else \
                        0.5 * float(r[0].dot(r[0])) / self.spec.tau
                ev.measure[k] = energy
                ev.satisfied[k] = False
                continue
            m = math.sqrt(e.dot(e))
            ev.measure[k] = m
            # Every goal's error is at most the level's norm: only a larger norm needs them
            # (and a level of one goal, a drag's target, has its norm as that goal's error).
            ev.satisfied[k] = m <= self.tol or (
                self.n_goals[k] > 1 and bool(ev.goal_errors(k).max() <= self.tol))
        return ev
