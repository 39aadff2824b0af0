"""The statics' quadratic program solver (physics/qp.py) against scipy's HiGHS on random
linear programs and against known answers of small QPs."""
from __future__ import annotations

import numpy as np
import pytest

from vart_addon.physics.qp import TOL, solve_qp

linprog = pytest.importorskip("scipy.optimize").linprog


@pytest.mark.parametrize("seed", range(40))
def test_random_bounded_linear_programs_reach_highs_optimum(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 30)), int(rng.integers(1, 60))
    p = int(rng.integers(0, min(n, 6)))
    x0 = rng.normal(size=n)
    G = np.vstack([rng.normal(size=(m, n)), np.eye(n), -np.eye(n)])
    box = 5.0 + np.abs(x0).max()
    h = np.concatenate([G[:m] @ x0 + rng.uniform(0.1, 1.0, m), np.full(2 * n, box)])
    A = rng.normal(size=(p, n))
    b = A @ x0
    c = rng.normal(size=n)
    r = solve_qp(np.zeros((n, n)), c, A, b, G, h)
    ref = linprog(c, A_ub=G, b_ub=h, A_eq=A if p else None, b_eq=b if p else None,
                  bounds=(None, None), method="highs")
    assert r.converged and ref.status == 0
    scale = 1.0 + abs(ref.fun)
    assert c @ r.x == pytest.approx(ref.fun, abs=1e3 * TOL * scale * (1 + box))
    assert (G @ r.x - h).max() <= 1e3 * TOL * (1 + box)
    if p:
        assert np.abs(A @ r.x - b).max() <= 1e3 * TOL * (1 + np.abs(b).max())


def test_a_projection_onto_a_box_and_a_plane():
    """min |x - a|^2 on x1 + x2 + x3 = 1, 0 <= x <= 0.5: the answer by hand."""
    a = np.array([0.9, 0.4, -0.2])
    P, c = 2 * np.eye(3), -2 * a
    G = np.vstack([np.eye(3), -np.eye(3)])
    h = np.r_[np.full(3, 0.5), np.zeros(3)]
    r = solve_qp(P, c, np.ones((1, 3)), np.ones(1), G, h)
    assert r.converged
    np.testing.assert_allclose(r.x, [0.5, 0.5, 0.0], atol=1e-7)


def test_an_infeasible_problem_returns_unconverged_without_raising():
    G = np.array([[1.0], [-1.0]])
    h = np.array([-1.0, -1.0])  # x <= -1 and x >= 1
    r = solve_qp(np.eye(1), np.zeros(1), np.zeros((0, 1)), np.zeros(0), G, h)
    assert not r.converged and np.isfinite(r.x).all()


def test_variables_no_inequality_bounds_are_eliminated_to_the_same_answer():
    """Free variables (a tower's loop wrenches: columns of G all zero) are eliminated once;
    the answer is the dense method's."""
    from vart_addon.physics import qp
    rng = np.random.default_rng(3)
    n_free, n_bound, p, m = 30, 12, 4, 20
    n = n_free + n_bound
    M = rng.normal(size=(n, n))
    P = M.T @ M + 0.5 * np.eye(n)
    c = rng.normal(size=n)
    A = rng.normal(size=(p, n))
    x0 = rng.normal(size=n)
    b = A @ x0
    G = np.zeros((m, n))
    G[:, n_free:] = rng.normal(size=(m, n_bound))
    h = G @ x0 + rng.uniform(0.1, 1.0, m)
    kkt = qp._KKT(P, A, G)
    assert kkt.Pinv is not None and len(kkt.free) == n_free
    d = rng.uniform(0.1, 10.0, m)
    rx, ry = rng.normal(size=n), rng.normal(size=p)
    x, y = kkt.solve(rx, ry, d)
    K = np.block([[P + (G.T * d) @ G, A.T], [A, np.zeros((p, p))]])
    ref = np.linalg.solve(K, np.concatenate([rx, ry]))
    np.testing.assert_allclose(np.concatenate([x, y]), ref, rtol=1e-8, atol=1e-9)
    r = solve_qp(P, c, A, b, G, h)
    assert r.converged and (G @ r.x <= h + 1e-7).all()
    np.testing.assert_allclose(A @ r.x, b, atol=1e-7)
