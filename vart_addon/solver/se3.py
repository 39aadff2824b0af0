"""SO(3) and SE(3) for the solver: exp/log maps, Jacobians, adjoints (numpy only).

Conventions used everywhere in ``vart_addon.solver``:

* A pose is a 4x4 homogeneous matrix ``T_a_b``: the pose of frame *b* expressed in frame *a*,
  so ``p_a = T_a_b @ p_b``. Units: metres.
* A twist is a 6-vector ``(v, w)``: linear part first, angular part second (rad, m).
  A *spatial* twist in frame *a* perturbs a pose on the left: ``T_a_b' = exp(xi) @ T_a_b``;
  ``w`` is the angular velocity in frame *a* and ``v`` the velocity of the point at *a*'s origin.
* Rotation vectors (the exponential coordinates of SO(3)) are kept within ``|angle| <= pi``.

Every function accepts batches: leading dimensions ``(...)`` broadcast. Small-angle branches use
Taylor series, so nothing divides by zero near angle 0 and the logarithm stays accurate near pi.
"""
from __future__ import annotations

import math

import numpy as np

_SMALL = 1e-4  # below this angle (rad) the Taylor branches are used; their error is < 1e-17


# hat(w) = (w @ _HAT9).reshape(3, 3): one matrix product instead of six assignments.
_HAT9 = np.array([[0, 0, 0, 0, 0, -1, 0, 1, 0],
                  [0, 0, 1, 0, 0, 0, -1, 0, 0],
                  [0, -1, 0, 1, 0, 0, 0, 0, 0]], dtype=float)


def hat(w: np.ndarray) -> np.ndarray:
    """Skew-symmetric matrix ``[w]x`` of 3-vectors ``w`` (..., 3) -> (..., 3, 3)."""
    w = np.asarray(w, dtype=float)
    return w.dot(_HAT9).reshape(w.shape[:-1] + (3, 3))


# cross(a, b) = (outer(a, b).reshape(9) @ _CROSS9): the antisymmetric part of a b^T.
_CROSS9 = np.zeros((9, 3))
_CROSS9[[5, 6, 1], [0, 1, 2]] = 1.0
_CROSS9[[7, 2, 3], [0, 1, 2]] = -1.0


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross products of 3-vectors (k, 3) x (k, 3) -> (k, 3), in two numpy calls (np.cross
    costs several times more on small batches)."""
    return (a[:, :, None] * b[:, None, :]).reshape(-1, 9).dot(_CROSS9)


def vee(K: np.ndarray) -> np.ndarray:
    """Inverse of :func:`hat` (uses the antisymmetric part)."""
    return 0.5 * np.stack([K[..., 2, 1] - K[..., 1, 2],
                           K[..., 0, 2] - K[..., 2, 0],
                           K[..., 1, 0] - K[..., 0, 1]], axis=-1)


def _angle(w: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("...i,...i->...", w, w))


def _coeffs(theta: np.ndarray, exact, taylor) -> np.ndarray:
    """Evaluate ``exact(theta)`` where theta is large and ``taylor(theta**2)`` where small."""
    small = theta < _SMALL
    if not small.any():
        return exact(theta)
    if small.all():
        return taylor(theta * theta)
    safe = np.where(small, 1.0, theta)
    return np.where(small, taylor(theta * theta), exact(safe))


def _one_minus_cos_over_t2(t):
    # (1 - cos t) / t^2 written as 2 sin^2(t/2) / t^2: no cancellation for small t.
    h = np.sin(0.5 * t) / t
    return 2 * h * h


# ---- one rotation at a time ----------------------------------------------------------------
# A drag usually moves one free joint: for a single rotation, plain Python floats are several
# times cheaper than a dozen numpy calls on 3-element arrays. Same formulas, same branches;
# tests compare them with the batched path.

def _one(x: np.ndarray, size: int) -> bool:
    return x.size == size and x.dtype == np.float64


def _abk_one(w, alpha_of, beta, gamma_of):
    """``alpha I + beta [w]x + gamma w w^T`` (3, 3) for one vector w; alpha, gamma from theta."""
    return np.array(_abk_rows(w, alpha_of, beta, gamma_of))


def _abk_rows(w, alpha_of, beta, gamma_of):
    """:func:`_abk_one` as nested lists of floats."""
    x, y, z = w
    t2 = x * x + y * y + z * z
    th = math.sqrt(t2)
    al, ga = alpha_of(th, t2), gamma_of(th, t2)
    be = beta(th, t2) if callable(beta) else beta
    return [[al + ga * x * x, ga * x * y - be * z, ga * x * z + be * y],
            [ga * x * y + be * z, al + ga * y * y, ga * y * z - be * x],
            [ga * x * z - be * y, ga * y * z + be * x, al + ga * z * z]]


def _exp_b(th, t2):  # (1 - cos t) / t^2
    if th < _SMALL:
        return 0.5 - t2 / 24 + t2 * t2 / 720
    h = math.sin(0.5 * th) / th
    return 2 * h * h


def _exp_a(th, t2):  # sin t / t
    return 1 - t2 / 6 + t2 * t2 / 120 if th < _SMALL else math.sin(th) / th


def _jlinv_d(th, t2):  # (1 - (t/2) cot(t/2)) / t^2
    if th < _SMALL:
        return 1 / 12 + t2 / 720 + t2 * t2 / 30240
    return (1 - 0.5 * th / math.tan(0.5 * th)) / t2


def _so3_exp_one(w: np.ndarray) -> np.ndarray:
    return _abk_one(w.reshape(3).tolist(), lambda th, t2: 1 - _exp_b(th, t2) * t2, _exp_a, _exp_b)


def _so3_jlinv_one(w: np.ndarray) -> np.ndarray:
    return _abk_one(w.reshape(3).tolist(), lambda th, t2: 1 - _jlinv_d(th, t2) * t2, -0.5,
                    _jlinv_d)


def _so3_log_one(R: np.ndarray):
    """log of one rotation, or None within ~2.6 degrees of pi (the batched path handles it)."""
    w = so3_log_floats(R.reshape(9).tolist())
    return None if w is None else np.array(w)


def so3_log_floats(r):
    """log of one rotation given as 9 floats (row-major) -> 3 floats, or None within ~2.6
    degrees of pi (use :func:`so3_log` there)."""
    r00, r01, r02, r10, r11, r12, r20, r21, r22 = r
    c = 0.5 * (r00 + r11 + r22 - 1.0)
    if c < -0.999:
        return None
    vx, vy, vz = 0.5 * (r21 - r12), 0.5 * (r02 - r20), 0.5 * (r10 - r01)
    th = math.atan2(math.sqrt(vx * vx + vy * vy + vz * vz), c)
    if th < _SMALL:
        t2 = th * th
        f = 1 + t2 / 6 + 7 * t2 * t2 / 360
    else:
        f = th / math.sin(th)
    return [f * vx, f * vy, f * vz]


def so3_right_jacobian_inv_floats(w) -> list:
    """:func:`so3_right_jacobian_inv` of one rotation vector (3 floats) as nested lists."""
    return _abk_rows([-w[0], -w[1], -w[2]], lambda th, t2: 1 - _jlinv_d(th, t2) * t2, -0.5,
                     _jlinv_d)


def so3_exp(w: np.ndarray) -> np.ndarray:
    """Rotation matrices ``exp([w]x)`` of rotation vectors ``w`` (..., 3) -> (..., 3, 3)."""
    w = np.asarray(w, dtype=float)
    if _one(w, 3):
        return _so3_exp_one(w).reshape(w.shape[:-1] + (3, 3))
    th = _angle(w)
    a = _coeffs(th, lambda t: np.sin(t) / t, lambda t2: 1 - t2 / 6 + t2 * t2 / 120)
    b = _coeffs(th, _one_minus_cos_over_t2, lambda t2: 0.5 - t2 / 24 + t2 * t2 / 720)
    K = hat(w)
    return np.eye(3) + a[..., None, None] * K + b[..., None, None] * (K @ K)


def rot_to_quat(R: np.ndarray) -> np.ndarray:
    """Unit quaternions ``(w, x, y, z)`` with ``w >= 0`` of rotation matrices (Shepperd's method)."""
    R = np.asarray(R, dtype=float)
    tr = R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2]
    cand = np.stack([tr, R[..., 0, 0], R[..., 1, 1], R[..., 2, 2]], axis=-1)
    k = np.argmax(cand, axis=-1)
    # Row k of this table is 4 * q_k * q for the pivot k (the largest of the four candidates).
    t = np.stack([
        np.stack([1 + tr, R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0],
                  R[..., 1, 0] - R[..., 0, 1]], -1),
        np.stack([R[..., 2, 1] - R[..., 1, 2], 1 + 2 * R[..., 0, 0] - tr,
                  R[..., 0, 1] + R[..., 1, 0], R[..., 0, 2] + R[..., 2, 0]], -1),
        np.stack([R[..., 0, 2] - R[..., 2, 0], R[..., 0, 1] + R[..., 1, 0],
                  1 + 2 * R[..., 1, 1] - tr, R[..., 1, 2] + R[..., 2, 1]], -1),
        np.stack([R[..., 1, 0] - R[..., 0, 1], R[..., 0, 2] + R[..., 2, 0],
                  R[..., 1, 2] + R[..., 2, 1], 1 + 2 * R[..., 2, 2] - tr], -1),
    ], axis=-2)
    row = np.take_along_axis(t, k[..., None, None], axis=-2)[..., 0, :]
    q = row / np.linalg.norm(row, axis=-1, keepdims=True)
    return np.where(q[..., :1] < 0, -q, q)


def quat_to_rot(q) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of quaternions (..., 4) ``(w, x, y, z)``, normalised
    first (:func:`rot_to_quat`'s inverse)."""
    q = np.asarray(q, dtype=float)
    w, x, y, z = np.moveaxis(q / np.linalg.norm(q, axis=-1, keepdims=True), -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], axis=-2)


def so3_log(R: np.ndarray) -> np.ndarray:
    """Rotation vectors (..., 3) of rotation matrices, with angle in [0, pi].

    The angle is ``atan2(|v|, cos)`` from the antisymmetric part ``v`` and the trace, accurate
    near 0; within ~2.6 degrees of pi, where ``v`` loses its direction, the quaternion
    (Shepperd) route is used instead.
    """
    R = np.asarray(R, dtype=float)
    if _one(R, 9):
        out = _so3_log_one(R)
        if out is not None:
            return out.reshape(R.shape[:-2] + (3,))
    v = 0.5 * np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0],
                        R[..., 1, 0] - R[..., 0, 1]], axis=-1)
    c = 0.5 * (R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2] - 1.0)
    s = _angle(v)
    th = np.arctan2(s, c)
    factor = _coeffs(th, lambda t: t / np.sin(t), lambda t2: 1 + t2 / 6 + 7 * t2 * t2 / 360)
    out = factor[..., None] * v
    near_pi = c < -0.999
    if np.any(near_pi):
        q = rot_to_quat(R[near_pi])
        w, u = q[..., 0], q[..., 1:]
        n = _angle(u)
        out[near_pi] = (2 * np.arctan2(n, w) / n)[..., None] * u
    return out


def so3_left_jacobian(w: np.ndarray) -> np.ndarray:
    """Left Jacobian ``J_l(w)``: ``exp(w + dw) ~= exp(J_l(w) dw) exp(w)``."""
    w = np.asarray(w, dtype=float)
    th = _angle(w)
    b = _coeffs(th, _one_minus_cos_over_t2, lambda t2: 0.5 - t2 / 24 + t2 * t2 / 720)
    c = _coeffs(th, lambda t: (t - np.sin(t)) / t ** 3, lambda t2: 1 / 6 - t2 / 120 + t2 * t2 / 5040)
    K = hat(w)
    return np.eye(3) + b[..., None, None] * K + c[..., None, None] * (K @ K)


def so3_left_jacobian_inv(w: np.ndarray) -> np.ndarray:
    """Inverse left Jacobian: ``log(exp(dw) exp(w)) ~= w + J_l^-1(w) dw``. Finite up to angle pi."""
    w = np.asarray(w, dtype=float)
    if _one(w, 3):
        return _so3_jlinv_one(w).reshape(w.shape[:-1] + (3, 3))
    th = _angle(w)
    d = _coeffs(th, lambda t: (1 - 0.5 * t / np.tan(0.5 * t)) / (t * t),
                lambda t2: 1 / 12 + t2 / 720 + t2 * t2 / 30240)
    K = hat(w)
    return np.eye(3) - 0.5 * K + d[..., None, None] * (K @ K)


def so3_right_jacobian_inv(w: np.ndarray) -> np.ndarray:
    """Inverse right Jacobian: ``log(exp(w) exp(dw)) ~= w + J_r^-1(w) dw``."""
    return so3_left_jacobian_inv(-np.asarray(w, dtype=float))


def make_pose(R: np.ndarray | None = None, p: np.ndarray | None = None) -> np.ndarray:
    """Homogeneous 4x4 pose(s) from rotation (..., 3, 3) and translation (..., 3)."""
    R = np.eye(3) if R is None else np.asarray(R, dtype=float)
    p = np.zeros(3) if p is None else np.asarray(p, dtype=float)
    shape = np.broadcast_shapes(R.shape[:-2], p.shape[:-1])
    T = np.zeros(shape + (4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = p
    T[..., 3, 3] = 1.0
    return T


def inverse(T: np.ndarray) -> np.ndarray:
    """Inverse of rigid poses: ``T_b_a`` from ``T_a_b``."""
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    return make_pose(Rt, -np.einsum("...ij,...j->...i", Rt, T[..., :3, 3]))


def adjoint(T: np.ndarray) -> np.ndarray:
    """Adjoint (..., 6, 6) mapping twists ``(v, w)`` in frame b to frame a, for ``T_a_b``."""
    R = T[..., :3, :3]
    out = np.zeros(T.shape[:-2] + (6, 6))
    out[..., :3, :3] = R
    out[..., 3:, 3:] = R
    out[..., :3, 3:] = hat(T[..., :3, 3]) @ R
    return out


def adjoint_inv(T: np.ndarray) -> np.ndarray:
    """Adjoint of the inverse pose, ``Ad(T^-1)``, without inverting T first."""
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    out = np.zeros(T.shape[:-2] + (6, 6))
    out[..., :3, :3] = Rt
    out[..., 3:, 3:] = Rt
    out[..., :3, 3:] = Rt @ hat(-T[..., :3, 3])
    return out


def se3_exp(xi: np.ndarray) -> np.ndarray:
    """Pose ``exp(xi)`` of twists ``xi = (v, w)`` (..., 6) -> (..., 4, 4)."""
    xi = np.asarray(xi, dtype=float)
    v, w = xi[..., :3], xi[..., 3:]
    return make_pose(so3_exp(w), np.einsum("...ij,...j->...i", so3_left_jacobian(w), v))


def se3_log(T: np.ndarray) -> np.ndarray:
    """Twist ``(v, w)`` (..., 6) with ``exp(xi) = T``; rotation angle in [0, pi]."""
    w = so3_log(T[..., :3, :3])
    v = np.einsum("...ij,...j->...i", so3_left_jacobian_inv(w), T[..., :3, 3])
    return np.concatenate([v, w], axis=-1)


def rot_z(theta: np.ndarray) -> np.ndarray:
    """Rotations about z by angles ``theta`` (...,) -> (..., 3, 3)."""
    theta = np.asarray(theta, dtype=float)
    c, s = np.cos(theta), np.sin(theta)
    R = np.zeros(theta.shape + (3, 3))
    R[..., 0, 0] = c
    R[..., 0, 1] = -s
    R[..., 1, 0] = s
    R[..., 1, 1] = c
    R[..., 2, 2] = 1.0
    return R


def snap_axes(R: np.ndarray, tol: float = 1e-6) -> np.ndarray:
    """A rotation (3, 3) whose columns within ``tol`` of a signed unit axis are made exact.

    Frames read from Blender (float32: the 3D cursor, object matrices) are about 1e-7 off the
    axes a user meant; for over-constrained mechanisms (a planar loop of revolutes) that tiny
    misalignment matters. Columns that are not near an axis are re-orthonormalized around the
    snapped ones, so the result stays a rotation close to ``R``.
    """
    R = np.array(R, dtype=float)
    near = np.round(R)
    snapped = [c for c in range(3)
               if np.abs(R[:, c] - near[:, c]).max() <= tol and np.abs(near[:, c]).sum() == 1]
    if not snapped:
        return R
    out = R.copy()
    for c in snapped:
        out[:, c] = near[:, c]
    if len(snapped) == 1:
        a = snapped[0]
        b, c = (a + 1) % 3, (a + 2) % 3  # keep the right-handed cyclic order
        x = out[:, b] - (out[:, b] @ out[:, a]) * out[:, a]
        out[:, b] = x / np.linalg.norm(x)
        out[:, c] = np.cross(out[:, a], out[:, b])
    elif len(snapped) == 2:
        free = ({0, 1, 2} - set(snapped)).pop()
        out[:, free] = np.cross(out[:, (free + 1) % 3], out[:, (free + 2) % 3])
    return out
