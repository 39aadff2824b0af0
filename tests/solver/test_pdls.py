"""The prioritized step of vart_addon/solver/pdls.py against an independent reference.

Reference (scipy): Siciliano-Slotine recursion with explicit pseudo-inverses and null-space
projectors, ``dq_k = dq_{k-1} + (J_k P_{k-1})^+ (r_k - J_k dq_{k-1})``,
``P_k = I - [J_1; ...; J_k]^+ [J_1; ...; J_k]``. Both the fast path (conditioning proved
by the trace of the inverse Gram matrix) and the eigendecomposition path (rank-deficient or
near-singular levels, structurally zero rows) are exercised.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import null_space, pinv

from vart_addon.solver.pdls import prioritized_step, stacked, stacked_step


def reference(levels, n):
    dq = np.zeros(n)
    stack = np.zeros((0, n))
    for J, r in levels:
        P = np.eye(n) - pinv(stack) @ stack if stack.size else np.eye(n)
        dq = dq + pinv(J @ P, rtol=1e-10) @ (r - J @ dq)
        stack = np.vstack([stack, J])
    return dq


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([(3, 2, 12), (18, 6, 42), (5, 5, 8)]))
def test_full_rank_levels_match_the_reference(seed, dims):
    rng = np.random.default_rng(seed)
    m1, m2, n = dims
    levels = [(rng.standard_normal((m1, n)), rng.standard_normal(m1)),
              (rng.standard_normal((m2, n)), rng.standard_normal(m2))]
    np.testing.assert_allclose(prioritized_step(levels, n), reference(levels, n),
                               rtol=1e-8, atol=1e-9)
    fast = stacked_step(levels, n)
    if m1 + m2 < n:  # a random stack with fewer rows than DoF is well conditioned here
        np.testing.assert_allclose(fast, reference(levels, n), rtol=1e-8, atol=1e-9)
    else:
        assert fast is None  # as many rows as DoF or more: never taken as the shortcut


def test_conflicting_lower_level_acts_only_in_the_null_space():
    rng = np.random.default_rng(3)
    n = 6
    J1, J2 = rng.standard_normal((4, n)), rng.standard_normal((4, n))  # 4 + 4 > 6: conflict
    levels = [(J1, rng.standard_normal(4)), (J2, rng.standard_normal(4))]
    dq = prioritized_step(levels, n)
    np.testing.assert_allclose(J1 @ dq, levels[0][1], atol=1e-10)  # level 1 exact
    np.testing.assert_allclose(dq, reference(levels, n), atol=1e-9)
    # level 2 gets the least-squares best within null(J1)
    N = null_space(J1)
    y = np.linalg.lstsq(J2 @ N, levels[1][1] - J2 @ dq, rcond=None)[0]
    assert np.linalg.norm(y) < 1e-9


def test_rank_deficient_and_structurally_zero_rows_use_the_pseudo_inverse():
    rng = np.random.default_rng(5)
    n = 7
    A = rng.standard_normal((2, n))
    J1 = np.vstack([A, A.sum(0), np.zeros(n)])  # rank 2 of 4 rows, one row exactly zero
    r1 = J1 @ rng.standard_normal(n)  # consistent
    J2 = rng.standard_normal((2, n))
    levels = [(J1, r1), (J2, rng.standard_normal(2))]
    dq = prioritized_step(levels, n)
    assert np.isfinite(dq).all()
    np.testing.assert_allclose(J1 @ dq, r1, atol=1e-9)
    np.testing.assert_allclose(dq, reference(levels, n), atol=1e-8)


@pytest.mark.parametrize("sigma", [1e-2, 2e-3, 5e-4, 1e-6])
def test_near_singular_level_is_damped_and_bounded(sigma):
    """Below sigma0 the smallest direction is damped (step bounded); above it, exact."""
    n = 3
    J = np.diag([1.0, 1.0, sigma])
    r = np.array([0.0, 0.0, 1e-3])
    dq = prioritized_step([(J, r)], n, sigma0=1e-3, lambda_max=0.05)
    exact = r[2] / sigma
    if sigma > 1e-3:
        assert dq[2] == pytest.approx(exact, rel=1e-9)
    else:
        assert 0 < dq[2] < exact
        lam2 = 0.05 ** 2 * (1 - sigma ** 2 / 1e-6)
        assert dq[2] == pytest.approx(sigma * r[2] / (sigma ** 2 + lam2), rel=1e-9)


def test_extra_damping_shortens_the_step_but_not_the_projector():
    rng = np.random.default_rng(8)
    n = 6
    J1, J2 = rng.standard_normal((2, n)), rng.standard_normal((2, n))
    r1, r2 = rng.standard_normal(2), rng.standard_normal(2)
    plain = prioritized_step([(J1, r1), (J2, r2)], n)
    damped = prioritized_step([(J1, r1), (J2, r2)], n, extra=[10.0, 0.0])
    assert np.linalg.norm(J1 @ damped - r1) > 1e-3  # level 1 no longer met exactly
    # level 2 still acts only in null(J1): its part of the step is orthogonal to J1's rows
    lvl1_only = prioritized_step([(J1, r1)], n, extra=[10.0])
    np.testing.assert_allclose(J1 @ (damped - lvl1_only), 0, atol=1e-10)
    assert np.linalg.norm(plain - damped) > 1e-3


def test_stacked_shortcut_refuses_conflicts_and_near_singular_stacks():
    rng = np.random.default_rng(11)
    n = 6
    J1 = rng.standard_normal((3, n))
    # a lower level asking again for what the first one fixes: rank-deficient stack
    J2 = np.vstack([J1[0] + 1e-9 * rng.standard_normal(n), rng.standard_normal(n)])
    levels = [(J1, rng.standard_normal(3)), (J2, rng.standard_normal(2))]
    assert stacked_step(levels, n) is None
    # a first level with a tiny singular value (< sigma0): the prioritized step damps it
    J1s = np.diag([1.0, 1.0, 1e-5, 0, 0, 0])[:3]
    assert stacked_step([(J1s, np.ones(3))], n) is None


def test_stacked_shortcut_drops_structurally_zero_rows():
    rng = np.random.default_rng(12)
    n = 5
    J1 = np.vstack([rng.standard_normal((2, n)), np.zeros((3, n))])  # planar-loop style
    levels = [(J1, rng.standard_normal(5)), (rng.standard_normal((1, n)), np.ones(1))]
    np.testing.assert_allclose(stacked_step(levels, n), reference(levels, n), atol=1e-10)
    np.testing.assert_allclose(stacked_step(levels, n), prioritized_step(levels, n), atol=1e-12)


def test_a_stacked_factorization_solves_other_right_hand_sides_exactly():
    """What a simplified Newton step relies on: the factorization of one stack gives the
    minimum-norm solution for the same rows with any other right-hand side (structurally zero
    rows dropped: their entries are ignored)."""
    rng = np.random.default_rng(13)
    n = 9
    J1 = np.vstack([rng.standard_normal((3, n)), np.zeros((1, n))])
    J2 = rng.standard_normal((2, n))
    st_ = stacked([(J1, np.zeros(4)), (J2, np.zeros(2))], n)
    assert st_.n_rows == 6
    stack = np.vstack([J1[:3], J2])
    for _ in range(3):
        rhs = rng.standard_normal(6)
        dq = st_.solve(rhs)
        np.testing.assert_allclose(dq, pinv(stack) @ np.delete(rhs, 3), atol=1e-12)
        np.testing.assert_allclose(stack @ dq, np.delete(rhs, 3), atol=1e-12)
    assert not stacked([(np.zeros((2, n)), np.ones(2))], n).solve(np.ones(2)).any()
    assert not stacked([], n).solve(np.zeros(0)).any()
