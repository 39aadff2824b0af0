"""Derivatives of relative-pose quantities that the joint catalog (:mod:`.joint_types`) builds
its residuals and fitted configurations from: a point, the twist angle about z, and the swing of
the z axis, each with its derivative with respect to a spatial twist ``xi = (v, w)`` in the
mobility frame, perturbing the pose on the left (``T' = exp(xi) @ T``). Batched: rotations
(k, 3, 3), points (k, 3).
"""
from __future__ import annotations

import numpy as np

from . import se3

TWO_PI = 2.0 * np.pi
# hat(e_m) for m = x, y, z: d(R)/d(w_m) = _HATS[m] @ R under a left perturbation.
_HATS = se3.hat(np.eye(3))


# d p / d xi = [I | -[p]x] is affine in p: (p @ _DP_LIN).reshape(3, 6) + _DP_CONST.
_DP_CONST = np.hstack([np.eye(3), np.zeros((3, 3))])
_DP_LIN = np.zeros((3, 3, 6))
_DP_LIN[:, :, 3:] = -_HATS
_DP_LIN = _DP_LIN.reshape(3, 18)


def dp_dxi(p: np.ndarray) -> np.ndarray:
    """d p / d xi (k, 3, 6) for a point p under a spatial twist: ``dp = v + w x p``."""
    return p.dot(_DP_LIN).reshape(p.shape[:-1] + (3, 6)) + _DP_CONST


def fit_rz(R: np.ndarray, p: np.ndarray, pitch, helical: bool):
    """Twist angle about z of R (k,) and its derivative wrt xi (k, 6)."""
    a = R[:, 1, 0] - R[:, 0, 1]
    b = R[:, 0, 0] + R[:, 1, 1]
    th = np.arctan2(a, b)
    dR = np.einsum("mij,kjl->kmil", _HATS, R)  # (k, m, 3, 3): dR / dw_m
    da = dR[:, :, 1, 0] - dR[:, :, 0, 1]
    db = dR[:, :, 0, 0] + dR[:, :, 1, 1]
    n2 = a * a + b * b
    n2 = np.where(n2 > 1e-300, n2, 1.0)
    dth = np.zeros((R.shape[0], 6))
    dth[:, 3:] = (b[:, None] * da - a[:, None] * db) / n2[:, None]
    if helical:
        pitch = np.broadcast_to(np.asarray(pitch, dtype=float), th.shape)
        has = pitch != 0
        turns = np.round((TWO_PI * p[:, 2] / np.where(has, pitch, 1.0) - th) / TWO_PI)
        th = th + np.where(has, TWO_PI * turns, 0.0)
    return th, dth


# The linear maps of e = R z used by swing, as one product e @ _SW_WB: the first two columns
# give w = (-e_y, e_x), the other six B = [[e_z, 0, -e_x], [0, e_z, -e_y]] row-major (the
# derivative of w under a rotation, see swing).
_SW_WB = np.zeros((3, 8))
_SW_WB[[1, 0], [0, 1]] = -1.0, 1.0
_SW_WB[[2, 2, 0, 1], [2, 6, 4, 7]] = 1.0, 1.0, -1.0, -1.0


def _swing_coeffs(ang, s, ez):
    """phi = a / sin a and c = (d phi / d a) / sin a, as (k, 1) columns (Taylor series for
    small a); plain floats when every angle is so small that the series is exactly 1 and 1/3
    (a held closure: the usual case)."""
    top = ang.max(initial=0.0)
    if top < 1e-8:  # a^2 / 6 < 1e-17: below half an ulp of 1
        return 1.0, 1.0 / 3.0
    small = ang < 1e-4

    def taylor(a):
        a2 = a * a
        return 1 + a2 * (1 / 6 + a2 * (7 / 360)), 1 / 3 + a2 * (7 / 90)

    def exact(a, s):
        return a / s, (s - a * ez) / (s * s * s)
    if top < 1e-4:
        phi, c = taylor(ang)
    elif not small.any():
        phi, c = exact(ang, s)
    else:
        s_safe = np.where(small, 1.0, s)
        (pt, ct), (pe, ce) = taylor(ang), exact(np.where(small, 1.0, ang), s_safe)
        phi, c = np.where(small, pt, pe), np.where(small, ct, ce)
    return phi[:, None], c[:, None]


def swing(R: np.ndarray, jacobian: bool = True):
    """Swing of the z axis: the rotation vector (x, y rows) taking z to ``R @ z``, and d/d xi
    (None without ``jacobian``).

    ``r = (a / sin a) * (-e_y, e_x)`` with ``e = R z`` and ``a`` the angle between z and e;
    its norm is the tilt angle a (rad). At an exact flip (a = pi) it returns (pi, 0).
    Under a rotation dw, ``de = dw x e``: d(-e_y, e_x) = B dw, and with |e| = 1 the sine
    ``s = |(e_x, e_y)|`` changes by ``ds = e_z da`` where ``s da = wt . dw`` with
    ``w = (-e_y, e_x)`` and ``wt = (w, 0)``; so
    ``dr = phi B dw + (dphi/da) (w / s) (wt . dw) / s``.
    """
    k = R.shape[0]
    e = R[:, :, 2]
    WB = e.dot(_SW_WB)  # (-e_y, e_x), then B row-major
    w = WB[:, :2]
    s = np.hypot(w[:, 0], w[:, 1])
    ez = e[:, 2]
    ang = np.arctan2(s, ez)
    flip = None  # where z turned exactly onto -z, if anywhere
    if ez.min() < 0:
        f = (s <= 1e-300) & (ez < 0)
        if f.any():
            flip = f
    phi, c = _swing_coeffs(ang, np.where(flip, 1.0, s) if flip is not None else s, ez)
    r = phi * w
    if flip is not None:
        r[flip] = (np.pi, 0.0)
        c = np.where(flip[:, None], 0.0, c)
    if not jacobian:
        return r, None
    J = np.zeros((k, 2, 6))
    J[:, :, 3:] = (phi * WB[:, 2:]).reshape(k, 2, 3)
    J[:, :, 3:5] += (c * w)[:, :, None] * w[:, None, :]  # (c w) wt^T, wt = (w, 0)
    return r, J
