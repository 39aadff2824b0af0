"""A small dense convex quadratic program solver (numpy only): what the statics check solves
per frame (a few dozen variables and constraints).

:func:`solve_qp` minimises ``1/2 x^T P x + c^T x`` subject to ``A x = b`` and ``G x <= h``
(``P`` symmetric positive semidefinite) by a primal-dual interior-point method with
Mehrotra's predictor-corrector (Nocedal & Wright, *Numerical Optimization*, 2nd ed.,
section 16.6). Each iteration solves the reduced KKT system
``[[P + G^T (Z/S) G, A^T], [A, 0]] [dx; dy] = r`` densely; a tiny diagonal regularisation
keeps it solvable when ``P`` is singular on a direction no constraint bounds.

Scipy is not needed (Blender bundles numpy only); the tests compare it with scipy's HiGHS.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Relative tolerance on the residuals and the duality gap.
TOL = 1e-9
MAX_ITERATIONS = 60


@dataclass
class QPResult:
    """``x`` (the minimiser), ``y`` (multipliers of ``A x = b``), ``z`` (of ``G x <= h``,
    >= 0), whether it ``converged`` and after how many ``iterations``; ``gap`` the final
    complementarity ``s^T z / m`` and ``residual`` the largest scaled primal residual."""

    x: np.ndarray
    y: np.ndarray
    z: np.ndarray
    converged: bool
    iterations: int
    gap: float
    residual: float


def _step_to_boundary(v, dv) -> float:
    """The largest step in (0, 1] keeping ``v + a dv >= 0`` (``v > 0``)."""
    neg = dv < 0
    if not neg.any():
        return 1.0
    return float(min(1.0, (-v[neg] / dv[neg]).min()))


class _KKT:
    """The reduced KKT system ``[[P + G^T diag(d) G, A^T], [A, -reg]] [x; y] = [r_x; r_y]``
    of each iteration. Variables that no inequality bounds (columns of ``G`` all zero: the
    statics' loop and anchor wrenches, hundreds in a tower of loops) keep a constant block:
    when ``P`` is positive definite there, they are eliminated once (``P_ff``'s inverse and
    its Schur complement) and each iteration solves only for the bounded variables and the
    multipliers."""

    def __init__(self, P, A, G):
        n, p = P.shape[0], A.shape[0]
        self.P, self.A, self.G, self.n, self.p = P, A, G, n, p
        self.reg = 1e-12 * (1.0 + np.abs(P).max(initial=0.0))
        free = ~np.any(G != 0, axis=0) if G.shape[0] else np.ones(n, bool)
        self.free, self.bound = np.flatnonzero(free), np.flatnonzero(~free)
        self.Pinv = None
        if len(self.free) > 8:
            Pff = P[np.ix_(self.free, self.free)] + self.reg * np.eye(len(self.free))
            try:
                L = np.linalg.cholesky(Pff)
            except np.linalg.LinAlgError:
                L = None
            if L is not None:
                Linv = np.linalg.inv(L)
                self.Pinv = Linv.T @ Linv
                # the bounded variables' and multipliers' coupling through the free ones
                C = np.concatenate([P[np.ix_(self.free, self.bound)], A[:, self.free].T], axis=1)
                self.W = self.Pinv @ C  # P_ff^-1 [P_fb, A_f^T]
                self.S = C.T @ self.W
                nb = len(self.bound)
                self.K0 = np.zeros((nb + p, nb + p))
                self.K0[:nb, nb:], self.K0[nb:, :nb] = A[:, self.bound].T, A[:, self.bound]
                self.K0[nb:, nb:] = -self.reg * np.eye(p)
                self.K0 -= self.S
                self.Gb = G[:, self.bound]
                self.Pbb = P[np.ix_(self.bound, self.bound)] + self.reg * np.eye(nb)
        if self.Pinv is None:
            self.K = np.zeros((n + p, n + p))
            self.K[:n, n:], self.K[n:, :n] = A.T, A
            self.K[n:, n:] = -self.reg * np.eye(p)

    def solve(self, rhs_x, rhs_y, d):
        """``(x, y)`` of the system for ``d`` (the inequalities' z / s)."""
        if self.Pinv is None:
            n = self.n
            self.K[:n, :n] = self.P + (self.G.T * d) @ self.G + self.reg * np.eye(n)
            sol = _solve(self.K, np.concatenate([rhs_x, rhs_y]))
            return sol[:n], sol[n:]
        nb = len(self.bound)
        K = self.K0.copy()
        K[:nb, :nb] += self.Pbb + (self.Gb.T * d) @ self.Gb
        rf = rhs_x[self.free]
        sol = _solve(K, np.concatenate([rhs_x[self.bound], rhs_y]) - self.W.T @ rf)
        x = np.empty(self.n)
        x[self.bound] = sol[:nb]
        x[self.free] = self.Pinv @ rf - self.W @ sol
        return x, sol[nb:]


def _solve(K, rhs):
    try:
        return np.linalg.solve(K, rhs)
    except np.linalg.LinAlgError:  # singular to working precision: least squares
        return np.linalg.lstsq(K, rhs, rcond=None)[0]


def solve_qp(P, c, A, b, G, h, *, tol: float = TOL,
             max_iterations: int = MAX_ITERATIONS) -> QPResult:
    """Solve the QP above (shapes: ``P`` n x n, ``c`` n, ``A`` p x n, ``b`` p, ``G`` m x n,
    ``h`` m; ``p`` or ``m`` may be 0). ``A`` must have full row rank (give elastic slacks
    otherwise). Never raises for an infeasible or unbounded problem: ``converged`` is then
    False and ``x`` the last iterate."""
    P, c = np.asarray(P, float), np.asarray(c, float)
    A, b = np.asarray(A, float).reshape(-1, len(c)), np.asarray(b, float)
    G, h = np.asarray(G, float).reshape(-1, len(c)), np.asarray(h, float)
    n, p, m = len(c), len(b), len(h)
    x, y = np.zeros(n), np.zeros(p)
    s, z = np.ones(m), np.ones(m)
    scale_p = 1.0 + max(np.abs(b).max(initial=0.0), np.abs(h).max(initial=0.0))
    scale_d = 1.0 + np.abs(c).max(initial=0.0)
    solve = _KKT(P, A, G).solve

    # a starting point (as CVXOPT's coneqp): the minimiser of the problem with the
    # inequalities as least-squares terms, its slacks and multipliers shifted inside
    if m:
        x, y = solve(-c + G.T @ h, b, np.ones(m))
        r = G @ x - h  # = z of that problem; s = -r
        s = -r + max(0.0, float(r.max(initial=0.0))) + 1.0
        z = r + max(0.0, float(-r.min(initial=0.0))) + 1.0
    it, converged = 0, False
    gap = res = np.inf
    while it < max_iterations:
        it += 1
        r_d = P @ x + c + A.T @ y + G.T @ z
        r_p = A @ x - b
        r_g = G @ x + s - h
        gap = float(s @ z / m) if m else 0.0
        res = max(np.abs(r_p).max(initial=0.0), np.abs(r_g).max(initial=0.0)) / scale_p
        if (res < tol and np.abs(r_d).max(initial=0.0) / scale_d < tol
                and gap < tol * (1.0 + abs(float(c @ x)))):
            converged = True
            break
        d = z / s
        if not np.isfinite(d).all() or d.max(initial=0.0) > 1e30:
            break  # the iterates ran off (an infeasible or unbounded problem)
        # predictor (affine scaling): r_sz = s z
        rx = -r_d + G.T @ (z - d * r_g) if m else -r_d
        dx, dy = solve(rx, -r_p, d)
        ds = -r_g - G @ dx
        dz = -z - d * ds
        if m:
            a_aff = min(_step_to_boundary(s, ds), _step_to_boundary(z, dz))
            mu_aff = float((s + a_aff * ds) @ (z + a_aff * dz) / m)
            sigma = (mu_aff / gap) ** 3 if gap > 0 else 0.0
            # corrector: r_sz = s z + ds dz - sigma mu
            r_sz = s * z + ds * dz - sigma * gap
            rx = -r_d + G.T @ ((r_sz - z * r_g) / s)
            dx, dy = solve(rx, -r_p, d)
            ds = -r_g - G @ dx
            dz = (-r_sz - z * ds) / s
            a = min(1.0, 0.995 * min(_step_to_boundary(s, ds), _step_to_boundary(z, dz)))
        else:
            a = 1.0
        x, y = x + a * dx, y + a * dy
        s, z = s + a * ds, z + a * dz
    return QPResult(x, y, z, converged, it, gap, res)
