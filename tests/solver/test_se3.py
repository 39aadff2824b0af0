"""SO(3)/SE(3) maps of vart_addon/solver/se3.py: exp/log round trips near 0, near pi and at
random, agreement with scipy, Jacobians against central finite differences, no NaN anywhere.

scipy is only an independent reference here: ``Rotation.from_rotvec`` for so3_exp and
``scipy.linalg.expm`` of the 4x4 twist matrix for se3_exp.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import expm
from scipy.spatial.transform import Rotation

from vart_addon.solver import se3

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # no NaN, no overflow

PI = math.pi
FAST = settings(max_examples=60, deadline=None)

unit = st.tuples(*[st.floats(-1, 1, allow_nan=False)] * 3).map(np.array).filter(
    lambda v: np.linalg.norm(v) > 1e-3).map(lambda v: v / np.linalg.norm(v))
vec3 = st.tuples(*[st.floats(-4, 4, allow_nan=False)] * 3).map(np.array)


def rotvec(axis, angle):
    return np.asarray(axis, float) * angle


def twist_matrix(xi):
    M = np.zeros((4, 4))
    M[:3, :3] = se3.hat(xi[3:])
    M[:3, 3] = xi[:3]
    return M


def same_rotvec(a, b, tol):
    """Equal rotation vectors, allowing w ~ -w at exactly the angle pi."""
    if np.abs(a - b).max() <= tol:
        return True
    return abs(np.linalg.norm(a) - PI) < tol and np.abs(a + b).max() <= tol


# ---- hat / vee ------------------------------------------------------------------------------
@FAST
@given(vec3, vec3)
def test_hat_is_cross_product_and_vee_inverts_it(a, b):
    np.testing.assert_allclose(se3.hat(a) @ b, np.cross(a, b), atol=1e-12)
    np.testing.assert_array_equal(se3.vee(se3.hat(a)), a)
    assert np.array_equal(se3.hat(a).T, -se3.hat(a))


@FAST
@given(vec3, vec3, vec3)
def test_batched_cross_matches_numpy(a, b, c):
    A, B = np.array([a, b, c]), np.array([b, c, a])
    np.testing.assert_allclose(se3.cross(A, B), np.cross(A, B), atol=1e-12)


# ---- exp / log round trips -----------------------------------------------------------------
@pytest.mark.parametrize("angle", [0.0, 1e-12, 1e-9, 3e-9, 1e-8, 1e-7, 1e-6, 1e-5, 9.99e-5,
                                   1e-4, 1.0001e-4, 1e-3])
def test_so3_round_trip_near_zero(angle):
    rng = np.random.default_rng(int(angle * 1e12) % 1000)
    axes = rng.normal(size=(20, 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    w = axes * angle
    R = se3.so3_exp(w)
    assert np.isfinite(R).all()
    np.testing.assert_allclose(R, Rotation.from_rotvec(w).as_matrix(), atol=1e-15, rtol=0)
    back = se3.so3_log(R)
    assert np.isfinite(back).all()
    # Relative accuracy: the tiny angle must come back with its own digits, not rounded to 0.
    np.testing.assert_allclose(back, w, atol=1e-15 * angle + 1e-300, rtol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(back, axis=1), angle, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("eps", [0.0, 1e-12, 1e-9, 1e-7, 1e-5, 1e-3])
def test_so3_round_trip_near_pi(eps):
    rng = np.random.default_rng(7)
    axes = rng.normal(size=(40, 3))
    axes[:3] = np.eye(3)  # the coordinate axes are the hardest pivots for the quaternion
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    w = axes * (PI - eps)
    R = se3.so3_exp(w)
    assert np.isfinite(R).all()
    np.testing.assert_allclose(R, Rotation.from_rotvec(w).as_matrix(), atol=1e-14, rtol=0)
    back = se3.so3_log(R)
    assert np.isfinite(back).all()
    assert (np.linalg.norm(back, axis=1) <= PI + 1e-15).all()
    for a, b in zip(back, w):
        assert same_rotvec(a, b, 1e-10), (a, b)
    np.testing.assert_allclose(se3.so3_exp(back), R, atol=1e-14)


@FAST
@given(unit, st.floats(0, PI))
def test_so3_exp_matches_scipy_and_log_inverts_it(axis, angle):
    w = rotvec(axis, angle)
    R = se3.so3_exp(w)
    np.testing.assert_allclose(R, Rotation.from_rotvec(w).as_matrix(), atol=1e-14)
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-14)
    assert np.linalg.det(R) == pytest.approx(1.0, abs=1e-14)
    assert same_rotvec(se3.so3_log(R), w, 1e-9)


@FAST
@given(st.integers(0, 2**32 - 1))
def test_so3_log_of_random_rotations(seed):
    R = Rotation.random(16, random_state=seed).as_matrix()
    w = se3.so3_log(R)
    assert (np.linalg.norm(w, axis=1) <= PI + 1e-15).all()
    np.testing.assert_allclose(se3.so3_exp(w), R, atol=1e-14)
    ref = Rotation.from_matrix(R).as_rotvec()
    for a, b in zip(w, ref):
        assert same_rotvec(a, b, 1e-9)


def test_so3_log_of_rotations_by_pi_about_the_axes_and_diagonals():
    axes = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (1, 0, 1), (0, 1, 1), (1, 1, 1), (1, -1, 0)]
    for a in axes:
        a = np.array(a, float) / np.linalg.norm(a)
        R = 2 * np.outer(a, a) - np.eye(3)  # exactly a half turn about a
        w = se3.so3_log(R)
        assert np.isfinite(w).all()
        assert same_rotvec(w, PI * a, 1e-12), (a, w)


def test_so3_log_batches_over_leading_dims():
    rng = np.random.default_rng(1)
    w = rng.normal(size=(2, 3, 5, 3))
    w *= (rng.uniform(0, PI - 1e-3, size=(2, 3, 5, 1)) / np.linalg.norm(w, axis=-1, keepdims=True))
    R = se3.so3_exp(w)
    assert R.shape == (2, 3, 5, 3, 3)
    np.testing.assert_allclose(se3.so3_log(R), w, atol=1e-12)
    for idx in np.ndindex(2, 3, 5):
        np.testing.assert_allclose(R[idx], se3.so3_exp(w[idx]), atol=1e-15)


@FAST
@given(vec3, unit, st.floats(0, PI - 1e-6))
def test_se3_exp_matches_matrix_exponential_and_log_inverts_it(v, axis, angle):
    xi = np.concatenate([v, rotvec(axis, angle)])
    T = se3.se3_exp(xi)
    np.testing.assert_allclose(T, expm(twist_matrix(xi)), atol=1e-11)
    np.testing.assert_allclose(se3.se3_log(T), xi, atol=1e-9)


@pytest.mark.parametrize("angle", [0.0, 1e-12, 1e-9, 1e-7, 1e-5, 1e-4, PI - 1e-5, PI - 1e-9, PI])
def test_se3_round_trip_near_zero_and_pi_is_finite(angle):
    rng = np.random.default_rng(3)
    axes = rng.normal(size=(10, 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    xi = np.concatenate([rng.normal(size=(10, 3)), axes * angle], axis=1)
    T = se3.se3_exp(xi)
    assert np.isfinite(T).all()
    np.testing.assert_allclose(T, np.stack([expm(twist_matrix(x)) for x in xi]), atol=1e-11)
    back = se3.se3_log(T)
    assert np.isfinite(back).all()
    np.testing.assert_allclose(se3.se3_exp(back), T, atol=1e-10)
    if angle < PI - 1e-6:
        np.testing.assert_allclose(back, xi, atol=1e-10)


# ---- poses, inverse, adjoint ---------------------------------------------------------------
def random_poses(rng, n):
    R = Rotation.random(n, random_state=rng.integers(1 << 31)).as_matrix()
    return se3.make_pose(R, rng.normal(size=(n, 3)))


def test_inverse_and_adjoints():
    rng = np.random.default_rng(11)
    T = random_poses(rng, 30)
    np.testing.assert_allclose(se3.inverse(T), np.linalg.inv(T), atol=1e-12)
    xi = rng.normal(size=(30, 6))
    # Ad(T) maps a twist in b to a: T hat(xi) T^-1 = hat(Ad xi)
    lhs = T @ np.stack([twist_matrix(x) for x in xi]) @ np.linalg.inv(T)
    ad = np.einsum("kij,kj->ki", se3.adjoint(T), xi)
    np.testing.assert_allclose(lhs, np.stack([twist_matrix(x) for x in ad]), atol=1e-12)
    np.testing.assert_allclose(se3.adjoint_inv(T), se3.adjoint(se3.inverse(T)), atol=1e-12)
    np.testing.assert_allclose(se3.adjoint_inv(T) @ se3.adjoint(T),
                               np.broadcast_to(np.eye(6), (30, 6, 6)), atol=1e-12)
    # exp(Ad xi) = T exp(xi) T^-1
    np.testing.assert_allclose(se3.se3_exp(ad), T @ se3.se3_exp(xi) @ se3.inverse(T), atol=1e-10)


def test_rot_z_and_quaternion():
    th = np.linspace(-7, 7, 57)
    np.testing.assert_allclose(se3.rot_z(th), Rotation.from_euler("z", th[:, None]).as_matrix(), atol=1e-15)
    R = Rotation.random(50, random_state=5)
    q = se3.rot_to_quat(R.as_matrix())
    ref = R.as_quat()[:, [3, 0, 1, 2]]  # scipy is scalar-last
    ref = np.where(ref[:, :1] < 0, -ref, ref)
    np.testing.assert_allclose(q, ref, atol=1e-14)
    assert (q[:, 0] >= 0).all()
    # and back: any length, either sign, one or many
    np.testing.assert_allclose(se3.quat_to_rot(-3.0 * q), R.as_matrix(), atol=1e-14)
    np.testing.assert_allclose(se3.quat_to_rot(q[7]), R.as_matrix()[7], atol=1e-14)


# ---- Jacobians against finite differences ---------------------------------------------------
def fd(f, x, h=1e-6):
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        cols.append((f(x + e) - f(x - e)) / (2 * h))
    return np.stack(cols, axis=-1)


jac_angles = st.floats(0, PI - 1e-2) | st.sampled_from([0.0, 1e-9, 1e-6, 1e-4, 2e-4, 0.5, 3.0])


@FAST
@given(unit, jac_angles)
def test_so3_left_jacobian_matches_finite_differences(axis, angle):
    w = rotvec(axis, angle)
    R = se3.so3_exp(w)
    # exp(w + dw) ~= exp(J_l dw) exp(w)
    num = fd(lambda x: se3.so3_log(se3.so3_exp(x) @ R.T), w.copy())
    Jl = se3.so3_left_jacobian(w)
    assert np.isfinite(Jl).all()
    np.testing.assert_allclose(Jl, num, atol=1e-7)
    np.testing.assert_allclose(se3.so3_left_jacobian_inv(w) @ Jl, np.eye(3), atol=1e-10)


@FAST
@given(unit, jac_angles)
def test_so3_inverse_jacobians_match_finite_differences(axis, angle):
    w = rotvec(axis, angle)
    R = se3.so3_exp(w)
    left = fd(lambda d: se3.so3_log(se3.so3_exp(d) @ R), np.zeros(3))
    right = fd(lambda d: se3.so3_log(R @ se3.so3_exp(d)), np.zeros(3))
    np.testing.assert_allclose(se3.so3_left_jacobian_inv(w), left, atol=1e-7)
    np.testing.assert_allclose(se3.so3_right_jacobian_inv(w), right, atol=1e-7)


def test_jacobians_are_finite_and_continuous_at_the_taylor_switch_and_at_pi():
    axis = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
    for f in (se3.so3_exp, se3.so3_left_jacobian, se3.so3_left_jacobian_inv,
              se3.so3_right_jacobian_inv):
        below, above = f(axis * (1e-4 - 1e-12)), f(axis * (1e-4 + 1e-12))
        np.testing.assert_allclose(below, above, atol=1e-13)
        for a in (0.0, 1e-300, 1e-150, 1e-9, PI - 1e-12, PI):
            assert np.isfinite(f(axis * a)).all(), (f.__name__, a)
    for a in (0.0, 1e-300, 1e-9, PI - 1e-12, PI):
        T = se3.se3_exp(np.concatenate([[1, 2, 3], axis * a]))
        assert np.isfinite(se3.se3_log(T)).all()


# ---- snapping float32 frames onto exact axes --------------------------------------------------
def test_snap_axes_makes_near_axis_columns_exact_and_keeps_a_rotation():
    rng = np.random.default_rng(3)
    tilt = se3.so3_exp([3e-8, -2e-8, 0.7])  # z a hair off the world z, turned 0.7 rad about it
    S = se3.snap_axes(tilt)
    np.testing.assert_array_equal(S[:, 2], [0.0, 0.0, 1.0])
    np.testing.assert_allclose(S.T @ S, np.eye(3), atol=1e-15)
    assert np.linalg.det(S) == pytest.approx(1.0, abs=1e-15)
    np.testing.assert_allclose(S, tilt, atol=1e-7)  # still the frame the user meant
    flip = se3.so3_exp([np.pi / 2 + 4e-8, 0, 0]) @ se3.so3_exp([0, 0, np.pi / 2 - 5e-8])
    F = se3.snap_axes(flip)
    assert set(np.unique(F)) <= {-1.0, 0.0, 1.0} and np.linalg.det(F) == 1.0
    R = se3.so3_exp(rng.normal(size=3))  # a generic rotation is left as it is
    np.testing.assert_array_equal(se3.snap_axes(R), R)


@pytest.mark.parametrize("angle", [0.0, 1e-12, 1e-8, 9.99e-5, 1e-4, 1.0001e-4, 0.3, 2.0,
                                   PI - 0.05, PI - 1e-3, PI - 1e-9, PI])
@pytest.mark.parametrize("axis", [(1, 0, 0), (0, 0, -1), (0.6, -0.48, 0.64)])
def test_single_rotation_fast_path_matches_the_batched_path(angle, axis):
    """One rotation goes through plain-float code; a batch of two through numpy. Same results."""
    w = rotvec(axis, angle)
    pair = np.stack([w, np.array([0.1, 0.2, 0.3])])
    R_one, R_two = se3.so3_exp(w), se3.so3_exp(pair)
    np.testing.assert_allclose(R_one, R_two[0], rtol=0, atol=5e-16)
    np.testing.assert_allclose(se3.so3_exp(w[None])[0], R_one, rtol=0, atol=0)
    np.testing.assert_allclose(se3.so3_log(R_one), se3.so3_log(R_two)[0], rtol=0, atol=5e-16)
    for f in (se3.so3_left_jacobian_inv, se3.so3_right_jacobian_inv):
        np.testing.assert_allclose(f(w), f(pair)[0], rtol=1e-14, atol=4e-16)
    assert se3.so3_log(R_one[None]).shape == (1, 3) and se3.so3_exp(w[None]).shape == (1, 3, 3)
