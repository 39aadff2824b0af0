"""URDF basics: the error type, value checks, rotation helpers and the ``Origin`` pose.

Pure Python + numpy, shared by the rest of the URDF model (:mod:`.geometry`,
:mod:`.model`, :mod:`.kinematics`). Import it through :mod:`vart_addon.formats.urdf.files`.

Units are SI: an ``Origin`` is a translation in metres and fixed-axis roll, pitch, yaw in
radians; rotations are 3x3 matrices, poses 4x4 homogeneous transforms.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np


class UrdfError(ValueError):
    """Invalid URDF text or model. The message names the offending element."""


@contextmanager
def context(label: str):
    """Prefix the message of any UrdfError raised inside with ``label: ``."""
    try:
        yield
    except UrdfError as e:
        raise UrdfError(f"{label}: {e}") from e.__cause__


def _finite(x: Any, what: str) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise UrdfError(f"{what} is not a number: {x!r}") from None
    if not math.isfinite(v):
        raise UrdfError(f"{what} is not finite: {v}")
    return v


def _vec(values: Any, n: int, what: str) -> tuple[float, ...]:
    try:
        vals = tuple(values)
    except TypeError:
        raise UrdfError(f"{what} is not a sequence: {values!r}") from None
    if len(vals) != n:
        raise UrdfError(f"{what} has {len(vals)} values, expected {n}")
    return tuple(_finite(v, what) for v in vals)


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)


def _opt_str(x: Any, what: str) -> Optional[str]:
    if x is not None and not isinstance(x, str):
        raise UrdfError(f"{what} must be a string or None, not {type(x).__name__}")
    return x or None


# ---------------------------------------------------------------- rotations


def rpy_to_matrix(rpy) -> np.ndarray:
    """3x3 rotation of URDF fixed-axis roll-pitch-yaw: ``Rz(yaw) @ Ry(pitch) @ Rx(roll)``."""
    r, p, y = (float(a) for a in rpy)
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def matrix_to_rpy(R) -> tuple[float, float, float]:
    """Fixed-axis (roll, pitch, yaw) of a rotation matrix, pitch in [-pi/2, pi/2].

    Robust at gimbal lock: yaw is taken from the first column (0 when cos(pitch) < 1e-14),
    then roll and pitch are read from ``Rz(yaw).T @ R = Ry(pitch) @ Rx(roll)``, which stays
    well conditioned for every yaw, so the angles always reproduce R to rounding error.
    """
    R = np.asarray(R, dtype=float)
    c = math.hypot(R[0, 0], R[1, 0])  # = cos(pitch) >= 0
    yaw = math.atan2(R[1, 0], R[0, 0]) if c > 1e-14 else 0.0  # error <= c when snapped to 0
    M = np.array([[math.cos(yaw), math.sin(yaw), 0.0], [-math.sin(yaw), math.cos(yaw), 0.0], [0, 0, 1]]) @ R
    pitch = math.atan2(-M[2, 0], c)  # M[0, 0] = c up to rounding; c >= 0 keeps |pitch| <= pi/2
    roll = math.atan2(-M[1, 2], M[1, 1])
    return (roll + 0.0, pitch + 0.0, yaw + 0.0)  # + 0.0 turns -0.0 into 0.0


def axis_angle_matrix(axis, angle: float) -> np.ndarray:
    """3x3 rotation by ``angle`` (rad) about the unit vector ``axis`` (Rodrigues)."""
    x, y, z = (float(a) for a in axis)
    K = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    return np.eye(3) + math.sin(angle) * K + (1.0 - math.cos(angle)) * (K @ K)


# ---------------------------------------------------------------- origin


@dataclass(frozen=True)
class Origin:
    """A pose ``<origin xyz rpy>``: translation (m) and fixed-axis roll, pitch, yaw (rad)."""

    xyz: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rpy: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def __post_init__(self):
        _set(self, "xyz", _vec(self.xyz, 3, "<origin> xyz"))
        _set(self, "rpy", _vec(self.rpy, 3, "<origin> rpy"))

    def matrix(self) -> np.ndarray:
        """4x4 homogeneous transform ``[[R, xyz], [0, 1]]`` with ``R = Rz(y) Ry(p) Rx(r)``."""
        T = np.eye(4)
        T[:3, :3] = rpy_to_matrix(self.rpy)
        T[:3, 3] = self.xyz
        return T

    @classmethod
    def from_matrix(cls, T, *, tol: float = 1e-6) -> "Origin":
        """Origin of a 4x4 rigid transform; raises UrdfError if T is not one (within ``tol``)."""
        T = np.asarray(T, dtype=float)
        if T.shape != (4, 4) or not np.all(np.isfinite(T)):
            raise UrdfError(f"transform must be a finite 4x4 matrix, got shape {T.shape}")
        R = T[:3, :3]
        if (np.abs(R.T @ R - np.eye(3)).max() > tol or abs(np.linalg.det(R) - 1.0) > tol
                or np.abs(T[3] - (0, 0, 0, 1)).max() > tol):
            raise UrdfError("transform is not a rigid transform (rotation not orthonormal)")
        return cls(tuple(T[:3, 3]), matrix_to_rpy(R))

    @property
    def is_identity(self) -> bool:
        return self.xyz == (0.0, 0.0, 0.0) and self.rpy == (0.0, 0.0, 0.0)


def _check_origin(o: Any) -> None:
    if not isinstance(o, Origin):
        raise UrdfError("origin must be an Origin")
