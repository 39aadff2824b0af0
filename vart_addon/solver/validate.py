"""Input checks shared by the solver's API: each returns a clean numpy value or raises VartError."""
from __future__ import annotations

import math

import numpy as np

from . import se3
from .errors import VartError
from .text import show

_LAST_ROW = np.array([0.0, 0.0, 0.0, 1.0])

#: The largest magnitude of a length (m) or a configuration value (m, rad) vart accepts: far
#: beyond any mechanism, far below what overflows Blender's single-precision matrices
#: (3.4e38) once multiplied through a chain. Finite is not enough: 1e39 m is finite in Python
#: and inf in ``matrix_world``.
MAX_MAGNITUDE = 1e6


def bounded(values, what: str) -> None:
    """VartError if a finite value is beyond :data:`MAX_MAGNITUDE` (infinities and NaN are
    the callers' business)."""
    big = [x for x in values if math.isfinite(x) and abs(x) > MAX_MAGNITUDE]
    if big:
        raise VartError(f"{what}: {big[0]:g} is beyond the {MAX_MAGNITUDE:g} (m, rad) a "
                        "scene can hold")


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
        raise VartError(f"{what}: expected a number, got {show(value)}") from None
    if not np.isfinite(x):
        raise VartError(f"{what}: must be finite, got {x}")
    return x


#: The largest mass (kg) a link may have and stiffness (N/m, N m/rad) a spring: far beyond
#: any machine (a ship is 1e8 kg), small enough that weights and energies (mass times gravity
#: times lengths up to MAX_MAGNITUDE, squared in the solver's scaling) stay finite doubles.
MAX_MASS, MAX_STIFFNESS = 1e12, 1e15


def amount(value, what: str, largest: float, unit: str) -> float:
    """A finite float in [0, ``largest``] (a mass, a stiffness)."""
    x = nonneg(value, what)
    if x > largest:
        raise VartError(f"{what}: {x:g} {unit} is beyond the {largest:g} {unit} a scene can hold")
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
        raise VartError(f"{what}: expected {size} numbers, got {show(value)}") from None
    if v.size != size:
        raise VartError(f"{what}: expected {size} values, got {v.size}")
    vals = v.tolist()
    if not all(map(math.isfinite, vals)) and (not inf_ok or any(x != x for x in vals)):
        raise VartError(f"{what}: must be finite, got {vals}")
    if not inf_ok:
        bounded(vals, what)
    return v


#: How far from orthonormal (largest entry of R^T R - I) a rotation is taken as it is: the
#: rounding of double-precision products (a frame computed from two poses is ~1e-16 off,
#: a rotation exp(log(R)) gives up to ~1e-15). Re-orthonormalizing those would move only
#: their last bits, and would move them again at every pass (issue 35: a model file read
#: back did not hold the frames it was written with, 7 of 250 random mechanisms).
ROUNDED = 1e-12


def pose(value, what: str, tol: float = 1e-6) -> np.ndarray:
    """A 4x4 rigid transform (orthonormal rotation within ``tol``), re-orthonormalized unless
    it is within :data:`ROUNDED` of orthonormal (so a pose it gave is given back as it is).

    The checks run on plain floats: a drag sets a target pose every frame."""
    T, _rows, dev = pose_rows(value, what, tol)
    return rigid(T, dev)


def rigid(T: np.ndarray, dev: float) -> np.ndarray:
    """A pose :func:`pose_rows` checked (``dev``: its rotation's deviation) made rigid in
    place: its last row exact, its rotation re-orthonormalized beyond :data:`ROUNDED`."""
    T[3] = _LAST_ROW
    if dev > ROUNDED:
        # exp(log(R)) is a rotation within the input's own error of R (float32 matrices from
        # Blender are ~1e-7 off); cheaper than the SVD of the nearest rotation, and as good.
        T[:3, :3] = se3.so3_exp(se3.so3_log(T[:3, :3]))
    return T


def pose_rows(value, what: str, tol: float = 1e-6):
    """The checks of :func:`pose`: ``(T, rows, dev)``, the value as a new 4x4 array, its rows
    as plain floats and its rotation's largest deviation from orthonormal (neither
    re-orthonormalized nor its last row made exact: a rotation within :data:`ROUNDED` is
    used as it is, as its rows)."""
    try:
        T = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise VartError(f"{what}: expected a 4x4 matrix") from None
    if T.shape != (4, 4):
        raise VartError(f"{what}: expected a 4x4 matrix, got shape {T.shape}")
    rows = T.tolist()
    if not all(map(math.isfinite, rows[0] + rows[1] + rows[2] + rows[3])):
        raise VartError(f"{what}: must be finite")
    bounded((rows[0][3], rows[1][3], rows[2][3]), f"{what}: translation")
    (a, b, c, _), (d, e, f, _), (g, h, i, _), last = rows
    dev = max(abs(a * a + d * d + g * g - 1.0), abs(b * b + e * e + h * h - 1.0),
              abs(c * c + f * f + i * i - 1.0), abs(a * b + d * e + g * h),
              abs(a * c + d * f + g * i), abs(b * c + e * f + h * i))  # of R^T R - I
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    off = max(abs(last[0]), abs(last[1]), abs(last[2]), abs(last[3] - 1.0))
    if dev > tol or det < 0 or off > tol:
        raise VartError(f"{what}: not a rigid transform (rotation must be orthonormal, "
                        "last row 0 0 0 1)")
    return T, rows, dev
