"""The solve loop: prioritized steps, step control, limits, budgets and status.

Each solve group (see :mod:`.topology`) is iterated on its own, warm-started from the linkage's
current configuration (and from its previous evaluation when only goal values changed).
One iteration:

1. the prioritized step over all levels (:func:`.pdls.prioritized_step`), tree-joint limits
   clamped, capped at ``max_step`` per DoF; ``max_step`` is also a trust region: if the highest
   unsatisfied level's *own* step is far longer, that level gets Levenberg-Marquardt damping;
2. lexicographic acceptance: no level may end worse than max(before, tol) unless a higher one
   improved; the level that improved must gain at least a quarter of what its linear model
   predicted (else: retry without the levels below it, then with more damping). A higher level
   that a trial worsened gets Newton corrections (a full step, then steps on every level the
   trial must not worsen); an energy overshoot halves the step. Good gains relax the damping.

Simplified Newton: when a step was the stacked shortcut over every level (all of them can be
met exactly, :func:`.pdls.stacked`), later steps of the same solve may reuse its factorization
with the new errors instead of new Jacobians: trial points are first evaluated without
Jacobians, and such a step is taken only while it is expected to finish (its error times the
last step's contraction below ``tol``) and must then remove nine tenths of the error, else the
step is redone with the point's own Jacobians. A drag's correction after the first step then
costs an evaluation without Jacobians instead of a full Newton step.

Bend prediction (``Settings.predict_bend``): most drag frames need no correction at all. The
correction a first step needs comes from the mechanism's curvature along it; at steady drag
speed it is nearly the same from frame to frame. So each group remembers its last solve's
*bend* (where the solve ended, relative to the point its first step reached), and a warm
solve whose first step is alike in direction and length adds it, scaled, to the first trial
(:meth:`.Stepper.predicted_bend`). The trial is still judged as any other and corrected if it
misses; what changes is that it usually does not. The result then depends on the last solve
as well as on the start pose, so the bake turns it off (re-baking part of a range must give
the same keys).

Carried factorizations (``Settings.carry_factorization``, with the bend): a drag's first step
may reuse the stacked factorization of one of the two solves before, brought along by a
secant (inverse Broyden) update after each solve, instead of Jacobians at the frame's start
(:meth:`.Stepper.carry`). A frame then costs one evaluation without Jacobians at its start
and one at its trial.

It stops when every level is satisfied (or only potential/posture remain and ask for no
motion), when an iteration improves no level by more than ``stall_tol`` (an over-constrained
level has reached its least-squares compromise), or when a budget runs out.
"""
from __future__ import annotations

import gc
import math
import time
from dataclasses import dataclass
from functools import partial

import numpy as np

from . import goals as G
from .evaluation import Evaluation, GroupProblem
from .levels import REPORTED
from .status import SolveStatus
from .stepper import Stepper
from .threads import one_blas_thread
from .topology import analyse
from .trace import row as trace_row


@dataclass
class Settings:
    """Solver knobs. Lengths in metres, angles in radians, times in milliseconds."""

    max_iterations: int = 100
    max_ms: float | None = None
    tol: float = 1e-9
    stall_tol: float = 1e-12
    max_step: float = 0.2
    sigma0: float = 1e-3
    lambda_max: float = 0.05
    max_halvings: int = 10
    max_corrections: int = 5
    simplified_newton: bool = True  # reuse a stacked factorization (see the module doc)
    predict_bend: bool = True  # a drag's first step adds the last solve's bend (module doc)
    carry_factorization: bool = True  # ... and may reuse an earlier solve's factorization


_MAX_CHORDS = 8  # simplified Newton steps per correction
_CHORD_GAIN = 0.9  # a simplified Newton step must remove this share of the deciding error


OK, WORSE, SHORT = "ok", "worse", "short"


class _OutOfBudget(Exception):
    """The solve's time budget ran out inside an iteration (between two evaluations): the
    group keeps its last accepted point."""


def _compare(new: Evaluation, old: Evaluation, tol: float, active, predicted=None, eta=0.25):
    """Lexicographic acceptance of ``new`` against ``old``: ``(verdict, level, ratio)``.

    ``WORSE`` at the highest level that got worse. Otherwise the highest unsatisfied level
    that improved decides: ``SHORT`` if it gained less than ``eta`` of the decrease its linear
    model predicted (``predicted(k)``: sufficient decrease, which stops Gauss-Newton overshoot
    such as zig-zag near a singular, out-of-reach pose), else ``OK``; ``ratio`` is actual /
    predicted gain.
    """
    for k in range(G.N_LEVELS):
        if not active[k]:
            continue
        o, n = old.measure[k], new.measure[k]
        if k == G.POTENTIAL:
            slack = 1e-12 * (1.0 + abs(o))
            if n > o + slack:
                return WORSE, k, 0.0
            if n < o - slack:
                return _sufficient(o, n, predicted, k, eta)
            continue
        if n > max(o, tol) * (1 + 1e-12) + 1e-15:
            return WORSE, k, 0.0
        if n < o * (1 - 1e-12) and o > tol:
            return _sufficient(o, n, predicted, k, eta)
    return OK, -1, 1.0


def _sufficient(o, n, predicted, k, eta):
    if predicted is None:
        return OK, k, 1.0
    gain = o - predicted(k)
    if gain <= 0:
        return OK, k, 1.0
    ratio = (o - n) / gain
    return (OK if ratio >= eta else SHORT), k, ratio


class Solver:
    """Solves a linkage's goals in priority order; the linkage's q is the warm start and result.

    Topology and goal analysis is cached and redone only when ``linkage.goals_version`` changed.
    """

    def __init__(self, linkage, settings: Settings | None = None):
        self.linkage = linkage
        self.settings = settings or Settings()
        self._version = None
        self._groups: list[GroupProblem] = []
        self._stuck: list[str] = []
        self._stepper = Stepper(self.settings)

    def _analysis(self):
        lk = self.linkage
        key = (lk.topology_version, lk.goals_version)
        if key != self._version:
            model = lk.model()
            specs, self._stuck = analyse(lk, model)
            self._groups = [GroupProblem(model, s, self.settings.tol) for s in specs]
            self._version = key
        return self._groups

    def solve(self, max_iterations: int | None = None, max_ms: float | None = None,
              trace: bool = False, fresh: bool = False) -> SolveStatus:
        """Move every tree joint so the goals hold in priority order; returns the status
        (``trace``: with ``status.trace``, one :class:`.trace.TraceRow` per iteration).

        Each solve group keeps the Levenberg-Marquardt damping its last solve ended with (a
        drag's next frame starts from it). ``fresh``: start without it, as a solve the user
        asks for once does (*Operate Joint*): a solve that stalled at a target out of reach
        ends heavily damped, and a next target from there would take steps too short to count
        as progress (the solve then stalls at once).

        ``max_ms`` (default ``Settings.max_ms``) is wall-clock time from this call, the
        analysis of a changed linkage included: it is checked before every evaluation and
        every step, so the solve ends at most one of them past it. BLAS runs on one thread
        while the solve runs (:func:`.threads.one_blas_thread`: a busy machine made a
        multi-threaded BLAS call wait for a core, and a 5 ms budget run over 100 times).

        Python's cyclic garbage collector is paused while it runs: a solve creates no
        reference cycles, and one collection of a large session's heap (tens of ms in Blender
        or a long test run) would otherwise eat the time budget of an interactive solve and
        stop it early, at a point that depends on when the collector happened to run."""
        t0 = time.perf_counter()
        paused = gc.isenabled()
        gc.disable()
        try:
            with one_blas_thread():
                return self._solve(max_iterations, max_ms, trace, t0, fresh)
        finally:
            if paused:
                gc.enable()

    def _solve(self, max_iterations, max_ms, trace, t0, fresh) -> SolveStatus:
        s = self.settings
        self._stepper.reset(self.settings)
        groups = self._analysis()
        if fresh:
            for gp in groups:
                gp.mu[:] = 0.0
        model = self.linkage.model()
        q = model.q_from_joints()
        budget_it = s.max_iterations if max_iterations is None else max_iterations
        budget_ms = s.max_ms if max_ms is None else max_ms
        # checked before every evaluation, not only between iterations: one iteration may
        # hold tens of evaluations (line search, corrections)
        self._deadline = None if budget_ms is None else t0 + budget_ms / 1e3
        status = SolveStatus(groups=len(groups), stuck=list(self._stuck))
        self._trace = status.trace = [] if trace else None
        for self._gi, gp in enumerate(groups):
            for i in gp.value_batches:  # the batches with goal values (the others have none)
                gp.batches[i].refresh()
            q = self._solve_group(gp, q, budget_it, budget_ms, t0, status)
        model.q_to_joints(q, held=True)  # (read above; a solve replaces no joint's q)
        last = groups[-1].last if groups else None
        if last is not None and last.q is q:
            model.remember(q, last.state.T)  # the poses at q: readers need no FK
        status.ms = (time.perf_counter() - t0) * 1e3
        status.simplified = self._stepper.n_simplified
        status.predicted = self._stepper.n_predicted
        status.carried = self._stepper.n_carried
        status.converged = status.converged and not self._stuck
        return status

    # ---- one group ----------------------------------------------------------------------
    def _solve_group(self, gp, q, budget_it, budget_ms, t0, status):
        s = self.settings
        last = gp.last
        warm = last is not None and last.q.tobytes() == q.tobytes()  # the very same q
        carried, steps0 = None, self._stepper.n_steps
        if warm:  # only goal values changed
            # Goal values changed (a drag): a step is likely, so the Jacobians come at once,
            # unless the first step reuses an earlier solve's factorization (Stepper.carry).
            if self._stepper.carry(gp):
                carried = gp.carried
            ev = gp.evaluate(q, jac=carried is None, reuse=last, dirty=gp.value_batches)
        else:
            ev = gp.evaluate(q, jac=False)
        alpha = 1.0
        it = 0
        self._stepper.first = None  # this group's own first step, never the previous group's
        first_ok = [0 if ok else None for ok in ev.satisfied]
        reason = "converged"
        q_start = q
        tr = self._trace
        if tr is not None:
            tr.append(trace_row(self._gi, 0, ev, None, 0.0, gp.mu, t0))
        while not all(ev.satisfied):
            if it >= budget_it:
                reason = "budget"
                break
            if budget_ms is not None and (time.perf_counter() - t0) * 1e3 >= budget_ms:
                reason = "budget"
                break
            it += 1
            try:
                dq = self._trust_step(gp, ev, q)
                if all(map(ev.satisfied.__getitem__, gp.hard_levels)) and \
                        np.abs(dq).max(initial=0.0) < s.tol:
                    reason = "converged"  # only potential/posture left, asking for no motion
                    break
                bend = self._stepper.first_step(gp, dq, warm) if it == 1 else None
                new, alpha_used, dq = self._line_search(gp, ev, q, dq, alpha, bend)
            except _OutOfBudget:
                reason = "budget"
                break
            if it == 1:
                self._stepper.first_taken(dq, alpha_used)
            if new is None:
                reason = "stalled"
                break
            if gp.active[G.POTENTIAL]:
                gp.rescale_potential(ev, new, alpha_used * dq, alpha_used * self._stepper.cap)
            alpha = min(1.0, 2 * alpha_used)
            improved = any(not ev.satisfied[k] and ev.measure[k] - new.measure[k] > s.stall_tol
                           for k in gp.active_levels)
            q, ev = new.q, new
            if tr is not None:
                tr.append(trace_row(self._gi, it, ev, alpha_used * dq, alpha_used, gp.mu, t0))
            for k, ok in enumerate(ev.satisfied):
                if ok and first_ok[k] is None:
                    first_ok[k] = it
            if not improved:
                reason = "stalled"
                break
        if reason != "converged":  # (a least-squares compromise: its factorization says little)
            gp.carried = None
        elif warm:
            self._stepper.judge_carry(gp, carried, self._stepper.n_steps - steps0)
        self._record(gp, ev, it, first_ok, reason, t0, status)
        self._stepper.learn_bend(gp, q_start, ev if it and reason == "converged" else None)
        gp.last = ev
        return q

    def _trust_step(self, gp, ev, q):
        """The full prioritized step, with ``max_step`` as a trust region: while the raw step
        is far outside it, the deciding level (highest unsatisfied least-squares level) gets
        more Levenberg-Marquardt damping, which shortens the ill-conditioned directions instead
        of scaling every DoF alike (the uniform cap alone zig-zags near singular poses).
        _OutOfBudget between its steps past the deadline."""
        dq = self._stepper.step(gp, ev, q, upto=G.POSTURE)
        if self._stepper.cap > 0.5:
            return dq
        level = next((k for k in range(G.N_LEVELS) if gp.active[k] and not ev.satisfied[k]), -1)
        if level < 0 or level == G.POTENTIAL:
            return dq
        self._stepper.step(gp, ev, q, upto=level)  # is this level's own step too long?
        if self._stepper.cap > 0.5:
            return self._stepper.step(gp, ev, q, upto=G.POSTURE)  # no: lower levels' (uniformly capped)
        deadline = self._deadline
        for _ in range(8):
            if deadline is not None and time.perf_counter() > deadline:
                raise _OutOfBudget
            gp.raise_damping(ev, level, 4.0)
            self._stepper.step(gp, ev, q, upto=level)
            if self._stepper.cap > 0.5:
                break
        return self._stepper.step(gp, ev, q, upto=G.POSTURE)

    def _line_search(self, gp, ev, q, dq, alpha, bend=None):
        """Try ``q + alpha dq``; returns (accepted evaluation or None, alpha, the step used).
        The first trial of the full step also adds ``bend`` (a predicted correction, see
        :meth:`.Stepper.predicted_bend`); a redone or shortened step does not.

        A worsened higher level gets a Newton correction, else the step halves; an energy
        overshoot halves the step; a poor gain (SHORT) raises the Levenberg-Marquardt damping
        ``gp.mu`` of the deciding level and re-solves the step (first without the levels below
        it, whose nonlinear side effects may be the cause). Good gains relax it. A simplified
        Newton step that worsens a level or removes less than ``_CHORD_GAIN`` of the deciding
        error is replaced by the step with this point's own Jacobians.
        """
        s = self.settings
        upto = G.POSTURE
        chord = self._stepper.chorded
        deadline = self._deadline
        for _ in range(s.max_halvings):
            if deadline is not None and time.perf_counter() > deadline:
                raise _OutOfBudget
            step = dq if alpha == 1.0 else alpha * dq
            new = gp.evaluate(gp.advance(q, step, bend if alpha == 1.0 else None),
                              jac=not self._stepper.lazy(gp))
            bend = None
            if chord:  # the frozen linear model meets every level: it predicts 1 - alpha of each
                verdict, level, ratio = _compare(new, ev, s.tol, gp.active,
                                                 lambda k: (1 - alpha) * ev.measure[k],  # noqa: B023
                                                 _CHORD_GAIN)  # (called at once)
                if verdict == OK:
                    return new, alpha, dq
                self._stepper.unfreeze()
                dq = self._stepper.step(gp, ev, q, upto=upto)
                chord = False
                continue

            if self._stepper.complete is not None:  # it meets every level's linear model
                def predicted(k, alpha=alpha):
                    return (1 - alpha) * ev.measure[k]
            else:
                def predicted(k, step=step):
                    return gp.predict(ev, step, k)
            verdict, level, ratio = _compare(new, ev, s.tol, gp.active, predicted)
            if (verdict == WORSE and level != G.POTENTIAL and not ev.satisfied[level]
                    and all(ev.satisfied[:level])):
                verdict = SHORT  # the level being optimized got worse: a failed LM step
            if verdict == SHORT:
                if upto > level:  # first drop the lower levels, whose motion may be the cause
                    upto = level
                else:
                    gp.raise_damping(ev, level, 4.0)
                dq = self._stepper.step(gp, ev, q, upto=upto)
                continue
            if verdict == WORSE and level == G.POTENTIAL:  # energy overshoot: shorter step
                alpha *= 0.5
                continue
            if verdict == WORSE:
                new = self._correct(gp, ev, new, level)
                if new is None:
                    alpha *= 0.5
                    continue
                verdict, level, ratio = _compare(new, ev, s.tol, gp.active, predicted)
            if verdict != OK or level < 0:
                return new, alpha, dq
            if ratio > 0.75 and gp.mu[level]:  # the model is good: trust it more, quickly
                gp.mu[level] = gp.mu[level] / 10.0 if gp.mu[level] > 1e-10 else 0.0
            return new, alpha, dq
        return None, alpha, dq

    def _correct(self, gp, ev, new, level):
        """Newton steps from the trial, while the worsened ``level`` converges, until the trial
        is no worse than ``ev``; None if they fail. The first step is a full prioritized step
        (the higher levels are solved first, and the lower ones usually finish converging on
        the way); if it does not help, the steps keep to the levels the trial must not worsen:
        every level above the one the step was for (keeping to those down to ``level`` alone
        let the next one, a lock say, drift while ``level`` converged), and take in any level
        they leave out that then gets worse.

        While the last step's stacked factorization holds, the steps are simplified Newton
        steps with it (no new Jacobians); one that does not cut the worsened level tenfold is
        redone with the point's own Jacobians."""
        s = self.settings
        upto = G.POSTURE
        deciding = next(k for k in gp.active_levels if not ev.satisfied[k])
        protect = max((k for k in gp.active_levels if k < deciding), default=level)
        protect = max(protect, level)  # (a level below an unchanged deciding one got worse)
        trial = new
        newton = chords = 0
        deadline = self._deadline
        while newton < s.max_corrections:
            if deadline is not None and time.perf_counter() > deadline:
                raise _OutOfBudget
            before = new.measure[level]
            step = self._stepper.step(gp, new, new.q, upto=upto, damped=False)
            cand = gp.evaluate(gp.advance(new.q, step), jac=not self._stepper.lazy(gp))
            verdict, worse, _ = _compare(cand, ev, s.tol, gp.active)
            if verdict != WORSE:
                return cand
            if self._stepper.chorded:
                chords += 1
                if worse >= level and cand.measure[level] <= (1 - _CHORD_GAIN) * before \
                        and chords < _MAX_CHORDS:
                    new, level = cand, worse
                else:
                    self._stepper.unfreeze()  # again from ``new``, with its own Jacobians
                continue
            newton += 1
            new = cand
            if worse < level or new.measure[level] > 0.5 * before:
                if upto == protect:
                    return None
                upto, new = protect, trial  # the full step did not help: higher levels only
                continue
            level = worse
            upto = max(upto, level)  # a level the steps left out got worse: take it in
        return None

    def _record(self, gp, ev, it, first_ok, reason, t0, status):
        """Add the group's totals to ``status``, and its per-level part as deferred work
        (:meth:`.SolveStatus.defer`: the goal errors by name cost more than a drag frame
        can spare, and most frames never read them)."""
        status.iterations += it
        status.converged &= reason == "converged"
        status.stalled |= reason == "stalled"
        status.out_of_budget |= reason == "budget"
        status.defer(partial(_fill_levels, gp, ev, it, first_ok, self.settings.tol,
                             (time.perf_counter() - t0) * 1e3))
        if gp.spec.home is not None and reason != "converged":
            status.defer(partial(_fill_unreached, gp, ev, self.settings.tol, status))


def _fill_unreached(gp, ev, tol, status, levels):
    """Record in ``status`` the goals of the levels that must be met that one group (of a
    linkage with sublinkages) left unmet after its final evaluation ``ev``, by the sublinkage
    each belongs to (``levels`` is not used: this is deferred work like :func:`_fill_levels`)."""
    for k in REPORTED:
        if not gp.active[k] or ev.satisfied[k]:
            continue
        for goal, e in zip(gp.names[k], ev.goal_errors(k).tolist()):
            if e > tol:
                status.add_unreached(gp.spec.home.get(goal.owner), goal)


def _fill_levels(gp, ev, it, first_ok, tol, ms, levels):
    """Add one group's final evaluation ``ev`` (after ``it`` iterations; ``first_ok[k]``:
    the iteration level k was first met at, or None) to the per-level ``levels``."""
    for k, lv in enumerate(levels):
        if not gp.active[k]:
            continue
        lv.active = True
        if k == G.POTENTIAL:
            lv.error += ev.measure[k]
        else:
            lv.error = math.hypot(lv.error, ev.measure[k])
            ge = ev.goal_errors(k)
            lv.max_goal_error = max(lv.max_goal_error, float(ge.max(initial=0.0)))
            if not ev.satisfied[k]:
                lv.unmet += [nm for nm, e in zip(gp.names[k], ge.tolist()) if e > tol]
        lv.satisfied &= ev.satisfied[k]
        lv.iterations = max(lv.iterations, first_ok[k] if first_ok[k] is not None else it)
        lv.ms = ms
