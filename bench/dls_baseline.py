"""A plain damped-least-squares solver, the baseline vart's method is compared with
(bench/method_compare.py): the textbook iteration on the same linkage, goals and error rows.

One system, no priorities: the rows of every goal that must be met (invariants, limits,
locks, targets; not postures nor the potential) are stacked with equal weights, and each
iteration takes

    dq = J^T (J J^T + lambda^2 I)^-1 (-e)

with a constant ``lambda`` (Wampler 1986; Buss 2004, "Introduction to inverse kinematics with
Jacobian transpose, pseudoinverse and damped least squares methods"), scaled down so no DoF
moves more than ``Settings.max_step`` (the protocol's cap), then clamped to the tree joints'
limits. No line search, no adaptive damping, no null-space projection. It stops when every
goal is within ``Settings.tol`` (converged), when the stacked error improves by less than
``Settings.stall_tol`` (stalled), or after ``Settings.max_iterations``.

Errors, Jacobians, solve groups and the limit clamp are vart's own (``GroupProblem`` of
:mod:`vart_addon.solver.evaluation`), so both methods solve exactly the same equations and are
measured the same way. :class:`PlainDLS` has ``Solver``'s ``solve()`` and returns a
``SolveStatus`` (with ``trace=True``, its ``trace`` of TraceRows), so it drops into
``vart_bench.run_problem`` as ``prob.solver``.
"""
from __future__ import annotations

import time

import numpy as np

from vart_addon.solver import Settings, SolveStatus
from vart_addon.solver import goals as G
from vart_addon.solver.evaluation import GroupProblem
from vart_addon.solver.levels import LEVEL_NAMES, REPORTED
from vart_addon.solver.sparse_rows import dense
from vart_addon.solver.status import LevelStatus
from vart_addon.solver.topology import analyse
from vart_addon.solver.trace import row as trace_row

#: The constant damping (rad or m): vart's largest singularity damping, Settings.lambda_max.
DEFAULT_LAMBDA = Settings().lambda_max


class PlainDLS:
    """Plain damped least squares over a linkage's goals (see the module doc)."""

    def __init__(self, linkage, settings: Settings | None = None, damping: float = DEFAULT_LAMBDA):
        self.linkage, self.settings, self.damping = linkage, settings or Settings(), damping
        self._version = None
        self._groups: list[GroupProblem] = []

    def _analysis(self):
        lk = self.linkage
        key = (lk.topology_version, lk.goals_version)
        if key != self._version:
            model = lk.model()
            specs, _ = analyse(lk, model)
            self._groups = [GroupProblem(model, s, self.settings.tol) for s in specs]
            self._version = key
        return self._groups

    def solve(self, max_iterations: int | None = None, max_ms: float | None = None,
              trace: bool = False) -> SolveStatus:
        """Solve every group in turn from the linkage's q; returns the status (``max_ms`` is
        not used: the baseline has no time budget)."""
        s = self.settings
        t0 = time.perf_counter()
        groups = self._analysis()
        model = self.linkage.model()
        q = model.q_from_joints()
        budget = s.max_iterations if max_iterations is None else max_iterations
        levels = [LevelStatus(n) for n in LEVEL_NAMES]
        status = SolveStatus(levels=levels, groups=len(groups))
        status.trace = [] if trace else None
        lam2 = self.damping ** 2
        for g, gp in enumerate(groups):
            for i in gp.value_batches:
                gp.batches[i].refresh()
            hard = [k for k in gp.active_levels if k in REPORTED]
            ev = gp.evaluate(q, jac=True)
            damping = [lam2 if k in hard else 0.0 for k in range(len(LEVEL_NAMES))]
            if trace:
                status.trace.append(trace_row(g, 0, ev, None, 0.0, damping, t0))
            it, reason = 0, "converged"
            while not all(ev.satisfied[k] for k in hard):
                if it >= budget:
                    reason = "budget"
                    break
                it += 1
                e = np.concatenate([ev.levels[k][0] for k in hard])
                J = np.concatenate([dense(ev.levels[k][1]) for k in hard])  # no structure
                dq = J.T.dot(np.linalg.solve(J.dot(J.T) + lam2 * np.eye(len(e)), -e))
                big = np.abs(dq).max(initial=0.0)
                if big > s.max_step:
                    dq *= s.max_step / big
                new = gp.evaluate(gp.advance(q, dq), jac=True)
                before = float(e.dot(e)) ** 0.5
                after = float(np.linalg.norm(np.concatenate([new.levels[k][0] for k in hard])))
                q, ev = new.q, new
                if trace:
                    status.trace.append(trace_row(g, it, ev, dq, 1.0, damping, t0))
                if before - after <= s.stall_tol:
                    reason = "stalled"
                    break
            status.iterations += it
            status.converged &= reason == "converged"
            status.stalled |= reason == "stalled"
            status.out_of_budget |= reason == "budget"
            for k in gp.active_levels:
                lv = levels[k]
                lv.active = True
                if k != G.POTENTIAL:
                    lv.error = float(np.hypot(lv.error, ev.measure[k]))
                    lv.max_goal_error = max(lv.max_goal_error,
                                            float(ev.goal_errors(k).max(initial=0.0)))
                lv.satisfied &= bool(ev.satisfied[k]) or k not in REPORTED
        model.q_to_joints(q)
        status.ms = (time.perf_counter() - t0) * 1e3
        return status
