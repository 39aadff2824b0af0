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
   that a trial worsened gets Newton corrections on the levels down to it; an energy overshoot
   halves the step. Good gains relax the damping.

It stops when every level is satisfied (or only potential/posture remain and ask for no
motion), when an iteration improves no level by more than ``stall_tol`` (an over-constrained
level has reached its least-squares compromise), or when a budget runs out.
"""
from __future__ import annotations

import gc
import math
import time
from dataclasses import dataclass, field

import numpy as np

from . import goals as G
from .evaluation import GroupProblem, Evaluation
from .pdls import prioritized_step, stacked_step
from .topology import analyse


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


@dataclass
class LevelStatus:
    """Result of one priority level: error (norm of its rows; energy in J for potential)."""

    name: str
    error: float = 0.0
    max_goal_error: float = 0.0
    satisfied: bool = True
    unmet: list = field(default_factory=list)
    iterations: int = 0
    ms: float = 0.0
    active: bool = False


@dataclass
class SolveStatus:
    """Outcome of :meth:`Solver.solve`: per-level status, totals, goals left unmet by name."""

    levels: list
    iterations: int = 0
    ms: float = 0.0
    converged: bool = True
    stalled: bool = False
    out_of_budget: bool = False
    groups: int = 0
    stuck: list = field(default_factory=list)

    @property
    def unmet(self) -> list:
        return [n for lv in self.levels[:G.POSTURE] if lv.name != "potential" for n in lv.unmet]

    def level(self, name: str) -> LevelStatus:
        return self.levels[G.LEVEL_NAMES.index(name)]


_SOFT = (G.POTENTIAL, G.POSTURE)  # levels that need not reach zero


OK, WORSE, SHORT = "ok", "worse", "short"


def _compare(new: Evaluation, old: Evaluation, tol: float, active, predicted=None, eta=0.25):
    """Lexicographic acceptance of ``new`` against ``old``: ``(verdict, level, ratio)``.

    ``WORSE`` at the highest level that got worse. Otherwise the highest unsatisfied level
    that improved decides: ``SHORT`` if it gained less than ``eta`` of the decrease its linear
    model predicted (``predicted(k)``: sufficient decrease, which stops Gauss-Newton overshoot
    such as zig-zag near a singular, out-of-reach pose), else ``OK``; ``ratio`` is actual /
    predicted gain.
    """
    for k in range(6):
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
        self._stack_hint = True  # try the stacked shortcut (see pdls.stacked_step)

    def _analysis(self):
        lk = self.linkage
        key = (lk.topology_version, lk.goals_version)
        if key != self._version:
            model = lk.model()
            specs, self._stuck = analyse(lk, model)
            self._groups = [GroupProblem(model, s, self.settings.tol) for s in specs]
            self._version = key
        return self._groups

    def solve(self, max_iterations: int | None = None, max_ms: float | None = None) -> SolveStatus:
        """Move every tree joint so the goals hold in priority order; returns the status.

        Python's cyclic garbage collector is paused while it runs: a solve creates no
        reference cycles, and one collection of a large session's heap (tens of ms in Blender
        or a long test run) would otherwise eat the time budget of an interactive solve and
        stop it early, at a point that depends on when the collector happened to run."""
        if not gc.isenabled():
            return self._solve(max_iterations, max_ms)
        gc.disable()
        try:
            return self._solve(max_iterations, max_ms)
        finally:
            gc.enable()

    def _solve(self, max_iterations, max_ms) -> SolveStatus:
        s = self.settings
        self._stack_hint = True
        groups = self._analysis()
        model = self.linkage.model()
        q = model.q_from_joints()
        t0 = time.perf_counter()
        budget_it = s.max_iterations if max_iterations is None else max_iterations
        budget_ms = s.max_ms if max_ms is None else max_ms
        status = SolveStatus(levels=[LevelStatus(n) for n in G.LEVEL_NAMES], groups=len(groups),
                             stuck=list(self._stuck))
        for gp in groups:
            for b in gp.spec.batches:
                b.refresh()
            q = self._solve_group(gp, q, budget_it, budget_ms, t0, status)
        model.q_to_joints(q)
        last = groups[-1].last if groups else None
        if last is not None and last.state is not None and last.q is q:
            model.remember(q, last.state.T)  # the poses at q: readers need no FK
        status.ms = (time.perf_counter() - t0) * 1e3
        status.converged = status.converged and not self._stuck
        return status

    # ---- one group ----------------------------------------------------------------------
    def _solve_group(self, gp, q, budget_it, budget_ms, t0, status):
        s = self.settings
        last = gp.last
        if last is not None and np.array_equal(last.q, q):  # warm: only goal values changed
            ev = gp.evaluate(q, jac=True, reuse=last, dirty=gp.value_batches)
        else:
            ev = gp.evaluate(q, jac=True)
        alpha = 1.0
        it = 0
        first_ok = [0 if ok else None for ok in ev.satisfied]
        reason = "converged"
        while not all(ev.satisfied):
            if it >= budget_it:
                reason = "budget"
                break
            if budget_ms is not None and (time.perf_counter() - t0) * 1e3 >= budget_ms:
                reason = "budget"
                break
            it += 1
            dq = self._trust_step(gp, ev, q)
            if np.abs(dq).max(initial=0.0) < s.tol and all(
                    ok for k, ok in enumerate(ev.satisfied) if k not in _SOFT):
                reason = "converged"  # only potential/posture left, and they ask for no motion
                break
            new, alpha_used, dq = self._line_search(gp, ev, q, dq, alpha)
            if new is None:
                reason = "stalled"
                break
            if gp.active[G.POTENTIAL]:
                gp.rescale_potential(ev, new, alpha_used * dq, alpha_used * self._cap)
            alpha = min(1.0, 2 * alpha_used)
            improved = any(not ev.satisfied[k] and ev.measure[k] - new.measure[k] > s.stall_tol
                           for k in range(6) if gp.active[k])
            q, ev = new.q, new
            for k, ok in enumerate(ev.satisfied):
                if ok and first_ok[k] is None:
                    first_ok[k] = it
            if not improved:
                reason = "stalled"
                break
        self._record(gp, ev, it, first_ok, reason, t0, status)
        gp.last = ev
        return q

    def _trust_step(self, gp, ev, q):
        """The full prioritized step, with ``max_step`` as a trust region: while the raw step
        is far outside it, the deciding level (highest unsatisfied least-squares level) gets
        more Levenberg-Marquardt damping, which shortens the ill-conditioned directions instead
        of scaling every DoF alike (the uniform cap alone zig-zags near singular poses)."""
        dq = self._step(gp, ev, q, upto=5)
        level = next((k for k in range(6) if gp.active[k] and not ev.satisfied[k]), -1)
        if self._cap > 0.5 or level < 0 or level == G.POTENTIAL:
            return dq
        self._step(gp, ev, q, upto=level)  # is it this level's own step that is too long?
        if self._cap > 0.5:
            return self._step(gp, ev, q, upto=5)  # no: lower levels' (uniformly capped)
        for _ in range(8):
            gp.raise_damping(ev, level, 4.0)
            self._step(gp, ev, q, upto=level)
            if self._cap > 0.5:
                break
        return self._step(gp, ev, q, upto=5)

    def _line_search(self, gp, ev, q, dq, alpha):
        """Try ``q + alpha dq``; returns (accepted evaluation or None, alpha, the step used).

        A worsened higher level gets a Newton correction, else the step halves; an energy
        overshoot halves the step; a poor gain (SHORT) raises the Levenberg-Marquardt damping
        ``gp.mu`` of the deciding level and re-solves the step (first without the levels below
        it, whose nonlinear side effects may be the cause). Good gains relax it.
        """
        s = self.settings
        upto = 5
        for _ in range(s.max_halvings):
            step = alpha * dq
            new = gp.evaluate(gp.advance(q, step), jac=True)

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
                dq = self._step(gp, ev, q, upto=upto)
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
        the way); if it does not help, the steps keep to the levels down to ``level``."""
        s = self.settings
        upto = 5
        trial = new
        for _ in range(s.max_corrections):
            before = new.measure[level]
            step = self._step(gp, new, new.q, upto=upto, damped=False)
            new = gp.evaluate(gp.advance(new.q, step), jac=True)
            verdict, worse, _ = _compare(new, ev, s.tol, gp.active)
            if verdict != WORSE:
                return new
            if worse < level or new.measure[level] > 0.5 * before:
                if upto == level:
                    return None
                upto, new = level, trial  # the full step did not help: higher levels only
                continue
            level = worse
        return None

    def _step(self, gp, ev, q, upto: int, damped: bool = True) -> np.ndarray:
        """Prioritized increment over the group's columns: Levenberg-Marquardt damping
        ``gp.mu`` per level, the step capped to ``max_step`` per
        DoF, then tree-joint limits: a DoF the capped step would carry past its limit is
        clamped there and dropped, and the others are solved again."""
        s = self.settings
        levels, extra = [], []
        for k in gp.active_levels:
            if k > upto:
                break
            e, J = ev.levels[k]
            levels.append(gp.potential_rows(ev) if k == G.POTENTIAL else (J, -e))
            extra.append(gp.mu[k] if damped else 0.0)
        n = len(gp.cols)
        if not any(extra):
            extra = None
        part = None
        if extra is None and self._stack_hint:
            part = stacked_step(levels, n, s.sigma0)
            self._stack_hint = part is not None  # a conflict: do not retry in this solve
        if part is None:
            part = prioritized_step(levels, n, s.sigma0, s.lambda_max, extra)
        dq = self._capped(part)
        if not gp.limited:
            return dq
        qc = q if gp.all_cols else q[gp.cols]
        lo, hi = gp.lower - qc, gp.upper - qc
        over = (dq > hi) | (dq < lo)
        if not over.any():
            return dq
        free = np.ones(n, bool)
        fixed = np.zeros(n)
        for _ in range(3):
            fixed[over] = np.clip(dq[over], lo[over], hi[over])
            free &= ~over
            dq = fixed.copy()
            if not free.any():
                break
            lv = [(J[:, free], r - J[:, ~free] @ fixed[~free]) for J, r in levels]
            dq[free] = self._capped(prioritized_step(lv, int(free.sum()), s.sigma0,
                                                     s.lambda_max, extra))
            over = free & ((dq > hi) | (dq < lo))
            if not over.any():
                break
        return dq

    def _capped(self, part: np.ndarray) -> np.ndarray:
        """``part`` scaled so no DoF moves more than ``max_step``; the scale is kept in
        ``self._cap`` (the trust region reads it)."""
        big = np.abs(part).max(initial=0.0)
        self._cap = self.settings.max_step / big if big > self.settings.max_step else 1.0
        return part * self._cap if self._cap != 1.0 else part

    def _record(self, gp, ev, it, first_ok, reason, t0, status):
        ms = (time.perf_counter() - t0) * 1e3
        status.iterations += it
        status.converged &= reason == "converged"
        status.stalled |= reason == "stalled"
        status.out_of_budget |= reason == "budget"
        for k, lv in enumerate(status.levels):
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
                    lv.unmet += [nm for nm, e in zip(gp.names[k], ge.tolist())
                                 if e > self.settings.tol]
            lv.satisfied &= ev.satisfied[k]
            lv.iterations = max(lv.iterations, first_ok[k] if first_ok[k] is not None else it)
            lv.ms = ms
