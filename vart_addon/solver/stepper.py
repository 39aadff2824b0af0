"""One prioritized step of the solve loop (:mod:`.solver`): the PDLS step or its stacked
shortcut, simplified Newton steps, the per-DoF step cap and the tree-joint limits.

A :class:`Stepper` lives as long as its solver and keeps the state that links steps within one
solve (:meth:`Stepper.reset` at the start of each): whether the stacked shortcut is still worth
trying, and the factorization of the last stacked step over every level (``frozen``), which
later steps reuse as *simplified Newton* steps: the new errors solved with it, no new
Jacobians. ``cap`` is the scale the last step was shortened by (the trust region reads it).

It also learns, across solves, each group's *bend* (:meth:`learn_bend`): how far a converged
solve ended from the point its first step reached, i.e. the correction that step's curvature
asked for. A drag at steady speed asks for nearly the same one in every frame, so the next
solve's first step, if it is alike in direction and length, adds it scaled to its length
squared (:meth:`predicted_bend`): the trial then usually meets ``tol`` without a correction.

With the bend, a drag's first step may also reuse a factorization from an earlier solve
(:meth:`carry`) instead of new Jacobians and a new factorization at the frame's start: the
last complete stacked step's, made at most :data:`CARRY_SOLVES` solves ago and brought along
the drag after every solve by the inverse Broyden update (:meth:`.pdls.Stacked.secant`: the
stack's minimum-norm inverse ``P`` learns that a change ``de`` of the errors like the solve's
is answered by the motion ``dq`` that really made it, ``P' de = dq``, at the cost of one
rank-one product). What that costs in accuracy is known: for a next frame at steady speed,
whose change of the errors is about the last one's, the carried step repeats the last motion
``v``, which met the errors' first and second order at the point one frame back; here the
errors' derivative along ``v`` has changed by ``H(v, v)`` (``H``: the errors' second
derivative), so the step misses by ``~ H(v, v)``: twice the ``H(v, v) / 2`` of a step with
this point's own Jacobians, whatever the factorization's age. A bend learnt by one kind of
step is scaled by 2 or 1/2 for the other. A carried solve that needs more steps than the
last one with its own Jacobians did (its trial missed) is not carried again: the next solve
starts with its own Jacobians.
"""
from __future__ import annotations

import math

import numpy as np

from . import block_gram
from . import goals as G
from .pdls import Stacked, prioritized_step, stack_rhs, stacked
from .sparse_rows import SparseRows, dense

# Reductions called on every step, as ufuncs (``a.max()`` and ``a.any()`` go through a Python
# wrapper in numpy 1.26: a quarter of a microsecond each).
_max = np.maximum.reduce
_any = np.logical_or.reduce

#: A stacked factorization serves the first steps of at most this many later warm solves
#: (:meth:`Stepper.carry`); then the Jacobians are new and the conditioning proven again
#: (the trace bound of :func:`.pdls.stacked` holds for the factorization it was made for,
#: not for an updated inverse). The update keeps the answer to the drag's own motion right;
#: other directions keep older rows, and redundant joints may drift from the minimum-norm
#: motion: a 4-revolute arm's tip dragged 40 steps ended 0.0093 rad from that motion's path
#: with 2 (0.0113 with its own Jacobians every solve; 0.0099 with 4, 0.0107 with 16:
#: test_bend_predictor.py; Broyden's update of the rows instead, 0.0110 with 2 and 0.0266
#: with 16). Two keep the proof fresh; more would save only frames above a drag's median.
CARRY_SOLVES = 2

#: The second-order miss of a first step, in ``H(v, v)`` (module doc): with this point's own
#: Jacobians, with a carried factorization.
_MISS = {False: 0.5, True: 1.0}


class Stepper:
    """Prioritized steps for the solve loop (see the module doc)."""

    def __init__(self, settings):
        self.reset(settings)

    def reset(self, settings):
        """Start a solve with these settings (the solver's, which may have been replaced):
        forget what linked the steps of the last one."""
        self.settings = settings
        self.stack_hint = True  # try the stacked shortcut (see pdls.stacked)
        self.frozen = None  # (group, pdls.Stacked) of the last complete stacked step
        self.chorded = False  # the last step came from ``frozen`` (simplified Newton)
        self.step_error = 0.0  # the stacked error norm the last complete step started from
        self.n_simplified = 0  # simplified Newton steps since the reset
        self.n_predicted = 0  # first steps given a predicted bend since the reset
        self.n_carried = 0  # first steps with an earlier solve's factorization (carry)
        self.n_steps = 0  # steps since the reset (every call of step)
        self.carrying = False  # the next step is a carried first step (see carry)
        self.carried_step = False  # the last step was a carried first step
        self.rhs = None  # the stacked right-hand side of the last complete step
        self.complete = None  # the last step's Stacked if it was complete (every level, uncapped)
        # (step, its Stacked, |step|^2, carried, its right-hand side) of this solve's first
        # step, if complete
        self.first = None
        self.cap = 1.0

    def step(self, gp, ev, q, upto: int, damped: bool = True) -> np.ndarray:
        """Prioritized increment over the group's columns: Levenberg-Marquardt damping
        ``gp.mu`` per level, the step capped to ``max_step`` per
        DoF, then tree-joint limits: a DoF the capped step would carry past its limit is
        clamped there and dropped, and the others are solved again.

        An evaluation without Jacobians first gets a simplified Newton step
        (:meth:`frozen_step`, ``self.chorded`` is then set); failing that, its Jacobians."""
        s = self.settings
        self.chorded, self.complete = False, None
        self.n_steps += 1
        carried, self.carrying, self.carried_step = self.carrying, False, False
        dq = self.frozen_step(gp, ev, q, upto, damped)
        if dq is not None and carried:
            if self.cap == 1.0:  # judged as the complete step it was then
                self.n_carried += 1
                self.complete, self.carried_step = self.frozen[1], True
                return dq
            dq = self.frozen = None  # too long for an old factorization: new Jacobians
        if dq is not None:
            self.chorded = True
            self.n_simplified += 1
            return dq
        if not ev.has_jac:
            gp.jacobians(ev)
        extra: list[float] | None
        levels, extra = [], []
        mu = gp.mu.tolist() if damped else None  # (plain floats: one conversion)
        sparse = any_mu = False
        for k in gp.active_levels:
            if k > upto:
                break
            e, J = ev.levels[k]
            lv = gp.potential_rows(ev) if k == G.POTENTIAL else (J, -e)
            levels.append(lv)
            sparse = sparse or isinstance(lv[0], SparseRows)
            m = mu[k] if mu is not None else 0.0
            any_mu = any_mu or m != 0.0
            extra.append(m)
        n = len(gp.cols)
        if not any_mu:
            extra = None
        part = None
        self.frozen = None
        if extra is None and self.stack_hint:
            st = stacked(levels, n, s.sigma0, gp.structures, sparse)
            self.stack_hint = st is not None  # a conflict: do not retry in this solve
            if st is not None:
                self.rhs = stack_rhs(levels)
                part = st.solve(self.rhs)
                if upto >= gp.active_levels[-1] and not gp.active[G.POTENTIAL]:
                    self.complete = st
                if s.simplified_newton and self.complete is not None:
                    self.frozen = (gp, st)
                    self.step_error = math.hypot(*ev.measure)
                    # (a dense stack: the secant update is written for its inverse)
                    gp.carried = [st, 0] if s.predict_bend and s.carry_factorization \
                        and type(st) is Stacked else None
        if part is None and sparse:
            part = block_gram.step(levels, n, s.sigma0, s.lambda_max, extra, gp.structures)
        if part is None:
            part = prioritized_step(levels, n, s.sigma0, s.lambda_max, extra)
        if gp.guard_batches:
            levels, part = self.guarded(gp, ev, levels, part, upto, extra)
        dq = self.capped(part)
        if self.cap != 1.0:
            self.complete = None
        if not gp.limited:
            return dq
        qc = q if gp.all_cols else q.take(gp.cols)
        lo, hi = gp.lower - qc, gp.upper - qc
        over = (dq > hi) | (dq < lo)
        if not _any(over):
            return dq
        self.complete = None
        levels = [(dense(J), r) for J, r in levels]
        free = np.ones(n, bool)
        fixed = np.zeros(n)
        for _ in range(3):
            fixed[over] = np.clip(dq[over], lo[over], hi[over])
            free &= ~over
            dq = fixed.copy()
            if not free.any():
                break
            lv = [(J[:, free], r - J[:, ~free].dot(fixed[~free])) for J, r in levels]
            dq[free] = self.capped(prioritized_step(lv, int(free.sum()), s.sigma0,
                                                     s.lambda_max, extra))
            over = free & ((dq > hi) | (dq < lo))
            if not over.any():
                break
        return dq

    def guarded(self, gp, ev, levels, part, upto, extra):
        """``(levels, step)``: ``part`` unless it breaks an inequality goal met at ``ev``
        (:meth:`.evaluation.GroupProblem.guards`, e.g. a centre of mass inside its support);
        then the step again with each goal it breaks as a row at its level that takes it to
        its edge (``row . dq = slack``: an active set, at most three rounds), so the goals
        below move along the edge instead of out and back."""
        taken: set = set()
        for _ in range(3):
            hit = [g for g in gp.guards(ev, part, upto) if g[0] not in taken]
            if not hit:
                break
            taken.update(g[0] for g in hit)
            self.complete = self.frozen = None
            levels = [(dense(J), r) for J, r in levels]
            for _, k, row, slack in hit:
                at = gp.active_levels.index(k)
                J, r = levels[at]
                levels[at] = (np.vstack([J, row[None]]), np.append(r, slack))
            part = prioritized_step(levels, len(gp.cols), self.settings.sigma0,
                                    self.settings.lambda_max, extra)
        return levels, part

    def carry(self, gp) -> bool:
        """Whether the first step of this warm solve of ``gp`` (a drag's next frame: only goal
        values changed since its last solve, which ended where this one starts) will reuse
        the factorization of an earlier solve's complete stacked step (``gp.carried``: the
        factorization and its age in solves, see the module doc); then the start point
        needs no Jacobians. Only with the settings ``carry_factorization``, ``predict_bend``
        and ``simplified_newton``, with a bend learnt by the last solve (without it a
        carried step misses by its whole second-order term), without Levenberg-Marquardt
        damping or inequality goals that guard a step (:meth:`guarded` needs the
        Jacobians), and for :data:`CARRY_SOLVES` solves at most."""
        c = gp.carried
        s = self.settings
        if c is None or c[1] >= CARRY_SOLVES or gp.bend is None or gp.damped() \
                or gp.guard_batches or not (s.carry_factorization and s.predict_bend and s.simplified_newton):
            gp.carried = None
            return False
        c[1] += 1
        self.frozen, self.carrying = (gp, c[0]), True
        self.step_error = math.inf  # (a new target: frozen_step's expectation does not apply)
        gp.chord_pays = True
        return True

    def judge_carry(self, gp, carried, steps: int):
        """After a converged warm solve of ``gp`` that took ``steps`` steps; ``carried``:
        the factorization its first step carried (``gp.carried`` then), or None. A solve
        with its own Jacobians at the start sets how many steps a frame takes
        (``gp.fresh_steps``: a tolerance of 1e-9 asks for a correction after the predicted
        trial, 1e-6 mostly not). A carried solve that took more (its trial missed where a
        fresh one would not have) makes the next solve start with its own Jacobians, unless
        it made a new factorization itself, which is then the one carried."""
        if carried is None:
            gp.fresh_steps = steps
        elif steps > gp.fresh_steps and gp.carried is carried:
            gp.carried = None

    def unfreeze(self):
        """The next steps use new Jacobians (a simplified Newton step did not do well)."""
        self.frozen = None

    def lazy(self, gp) -> bool:
        """Whether trial points may be evaluated without Jacobians: a simplified Newton step
        will probably take them (their own are computed later only if it does not)."""
        return self.frozen is not None and self.frozen[0] is gp and gp.chord_pays

    def frozen_step(self, gp, ev, q, upto, damped):
        """A simplified Newton step: ``ev``'s errors solved with the factorization of the last
        complete stacked step of this solve (taken at an earlier q: no new Jacobians), capped.

        None when there is none for this group and these levels, when damping is asked for,
        when the step would cross a tree-joint limit, when ``ev`` has its own Jacobians, or
        when it is not expected to finish: its error ``e`` shrinks by about the contraction of
        the last step, ``e / e_before``, and ``e^2 / e_before`` above ``tol`` means more steps,
        each about half as costly as a Newton step with new Jacobians, which converges
        quadratically. That expectation is kept in ``gp.chord_pays``: while it fails, trial
        points are evaluated with their Jacobians at once (see :meth:`lazy`)."""
        fz = self.frozen
        if fz is None or fz[0] is not gp or upto < gp.active_levels[-1] or (damped and gp.damped()):
            return None
        err = math.hypot(*ev.measure)
        gp.chord_pays = err * err <= self.settings.tol * self.step_error
        if ev.has_jac or not gp.chord_pays:
            return None
        es = [ev.levels[k][0] for k in gp.active_levels]
        rhs = -(es[0] if len(es) == 1 else np.concatenate(es))
        if rhs.size != fz[1].n_rows:  # the rows changed (closure limits became active)
            return None
        self.rhs = rhs
        dq = self.capped(fz[1].solve(rhs))
        if gp.limited:
            qc = q if gp.all_cols else q.take(gp.cols)
            if ((dq > gp.upper - qc) | (dq < gp.lower - qc)).any():
                return None
        self.step_error = err
        return dq

    # ---- the bend predictor (across solves, see the module doc) ------------------------------
    def first_step(self, gp, dq, warm: bool):
        """Note the solve's first step ``dq`` (if :attr:`complete` and the setting is on);
        returns the bend to add to it in a ``warm`` solve (see :meth:`predicted_bend`)."""
        st, carried = self.complete, self.carried_step
        ok = st is not None and self.settings.predict_bend
        self.first = (dq, st, float(dq.dot(dq)), carried, self.rhs) if ok else None
        return self.predicted_bend(gp, dq, self.first[2], carried) if ok and warm else None

    def first_taken(self, dq, alpha: float):
        """The line search took ``alpha dq``: a first step redone or shortened learns nothing."""
        if self.first is not None and (alpha != 1.0 or dq is not self.first[0]):
            self.first = None

    def predicted_bend(self, gp, first, first_sq: float, carried: bool = False):
        """The bend (group columns, coordinates) to add to the first step ``first`` (whose
        squared length is ``first_sq``; ``carried``: made with a carried factorization), or
        None: the last solve's bend scaled by ``(|first| / |its first step|)^2`` (curvature
        is second order), and by 2 or 1/2 if one of the two steps was carried and the other
        not (see the module doc), if the two steps point the same way (cosine 0.99) and
        their lengths are within a factor of two."""
        if gp.bend is None:
            return None
        d0, c0, d0_sq, carried0 = gp.bend
        n0, n1 = math.sqrt(d0_sq), math.sqrt(first_sq)
        if not 0.5 * n0 <= n1 <= 2.0 * n0 or n1 == 0.0 or float(first.dot(d0)) < 0.99 * n0 * n1:
            return None
        self.n_predicted += 1
        return c0 * (first_sq / d0_sq * _MISS[carried] / _MISS[carried0])

    def learn_bend(self, gp, q_start, end):
        """Remember ``gp``'s bend: where the converged evaluation ``end`` lies from the point
        the first step reached from ``q_start``, plus the simplified Newton step ``end``'s
        own errors (within ``tol``) still ask for with the first step's factorization, so the
        bend learnt is not only as exact as the tolerance. No first step or no ``end``:
        forget it. A bend longer than half the step is no second-order term (a rotation
        vector wrapped, a limit clamped).

        The factorization of that first step, if it is the one carried and may serve
        another solve, takes the solve's secant update (:meth:`.pdls.Stacked.secant`)."""
        gp.bend = None
        if self.first is None or end is None:
            return
        first, st, first_sq, carried, start_rhs = self.first
        c = end.q - gp.advance(q_start, first)
        c = c if gp.all_cols else c.take(gp.cols)
        es = [end.levels[k][0] for k in gp.active_levels]
        rhs = es[0] if len(es) == 1 else np.concatenate(es)
        if rhs.size == st.n_rows:
            c -= st.solve(rhs)
        if c.dot(c) <= 0.25 * first_sq:
            gp.bend = (first, c, first_sq, carried)
        if gp.carried is not None and gp.carried[1] >= CARRY_SOLVES:
            gp.carried = None  # (the next solve will not carry it: no update for nothing)
        elif gp.carried is not None and gp.carried[0] is st and rhs.size == st.n_rows:
            # the secant update over the whole solve (module doc): errors at end - at start
            dq = end.q - q_start
            new = st.secant(dq if gp.all_cols else dq.take(gp.cols), rhs + start_rhs)
            gp.carried = None if new is None else [new, gp.carried[1]]

    def capped(self, part: np.ndarray) -> np.ndarray:
        """``part`` scaled so no DoF moves more than ``max_step``; the scale is kept in
        ``self.cap`` (the trust region reads it)."""
        big = _max(np.abs(part)) if part.size else 0.0  # (the ufunc: no method wrapper)
        self.cap = self.settings.max_step / big if big > self.settings.max_step else 1.0
        return part * self.cap if self.cap != 1.0 else part
