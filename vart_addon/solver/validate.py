"""Input checks shared by the solver's API: each returns a clean numpy value or raises VartError."""
from __future__ import annotations

import numpy as np

from . import se3
from .errors import VartError

_EYE3 = np.eye(3)
_LAST_ROW = np.array([0.0, 0.0, 0.0, 1.0])


def name(value, what: str) -> str:
    """A non-empty string name of a link or joint."""
    if not isinstance(value, str) or not value.strip():
        raise VartError(f"a {what} name must be a non-empty string, got {value!r}")
    return value


def finite(value, what: str) -> float:
    """A finite float."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise VartError(f"{what}: expected a number, got {value!r}") from None
    if not np.isfinite(x):
        raise VartError(f"{what}: must be finite, got {x}")
    return x


def nonneg(value, what: str) -> float:
    """A finite float >= 0."""
    x = finite(value, what)
    if x < 0:
        raise VartError(f"{what}: must be >= 0, got {x}")
    return x


def vec(value, size: int, what: str, inf_ok: bool = False) -> np.ndarray:
    """A float vector of exactly ``size`` entries, finite (or +-inf when ``inf_ok``), never NaN."""
    try:
        v = np.array(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise VartError(f"{what}: expected {size} numbers, got {value!r}") from None
    if v.size != size:
        raise VartError(f"{what}: expected {size} values, got {v.size}")
    if np.isnan(v).any() or (not inf_ok and not np.isfinite(v).all()):
        raise VartError(f"{what}: must be finite, got {v.tolist()}")
    return v


def pose(value, what: str, tol: float = 1e-6) -> np.ndarray:
    """A 4x4 rigid transform (orthonormal rotation within ``tol``), re-orthonormalized."""
    try:
        T = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise VartError(f"{what}: expected a 4x4 matrix") from None
    if T.shape != (4, 4):
        raise VartError(f"{what}: expected a 4x4 matrix, got shape {T.shape}")
    if not np.isfinite(T).all():
        raise VartError(f"{what}: must be finite")
    R = T[:3, :3]
    dev = np.abs(R.T @ R - _EYE3).max()
    (a, b, c), (d, e, f), (g, h, i) = R.tolist()
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    if dev > tol or det < 0 or np.abs(T[3] - _LAST_ROW).max() > tol:
        raise VartError(f"{what}: not a rigid transform (rotation must be orthonormal, "
                        "last row 0 0 0 1)")
    out = np.eye(4)
    # exp(log(R)) is a rotation within the input's own error of R (float32 matrices from
    # Blender are ~1e-7 off); cheaper than the SVD of the nearest rotation, and as good here.
    out[:3, :3] = R if dev < 1e-15 else se3.so3_exp(se3.so3_log(R))
    out[:3, 3] = T[:3, 3]
    return out
