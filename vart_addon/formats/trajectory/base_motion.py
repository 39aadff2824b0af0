"""A floating base's motion: the world pose of a robot's root link at each sample of a
trajectory, and the conversions the file formats need.

Plain numpy. A pose row is ``x y z qx qy qz qw``: the translation of ``T_world_base`` in
metres and its rotation as a unit quaternion (x y z w order, as ROS
``geometry_msgs/Transform``), in the world frame (``frame``, "world"). Twists (velocities and
accelerations, rows ``vx vy vz wx wy wz``) are those of ``geometry_msgs/Twist``: the linear part
is the derivative of the translation (m/s, m/s^2), the angular part the angular velocity of
the base expressed in the world frame (rad/s) and its derivative (rad/s^2).

Klampt's floating base (what its URDF loader gives a robot's root: six configuration entries,
checked by loading a robot in Klampt 0.10) is ``x y z rz ry rx``: the translation, then Euler
angles with ``R = Rz(rz) @ Ry(ry) @ Rx(rx)``: :func:`klampt_entries` and
:func:`from_klampt_entries`.
"""
from __future__ import annotations

import dataclasses
from typing import Optional

import numpy as np

from ...solver import se3

__all__ = ["BaseMotion", "POSE_FIELDS", "TWIST_FIELDS", "KLAMPT_FIELDS", "pose_rows",
           "matrices", "twists", "klampt_entries", "from_klampt_entries"]

#: The fields of a pose row, a twist row, and Klampt's six floating-base entries.
POSE_FIELDS = ("x", "y", "z", "qx", "qy", "qz", "qw")
TWIST_FIELDS = ("vx", "vy", "vz", "wx", "wy", "wz")
KLAMPT_FIELDS = ("x", "y", "z", "rz", "ry", "rx")


def _rows_of(a, width: int, n: int, what: str) -> np.ndarray:
    try:
        out = np.array(a, dtype=float)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{what} must be numbers: {e}") from None
    if out.shape != (n, width):
        raise ValueError(f"{what} have shape {out.shape}, expected ({n}, {width})")
    if not np.isfinite(out).all():
        raise ValueError(f"{what} must be finite")
    out.setflags(write=False)
    return out


@dataclasses.dataclass(frozen=True, eq=False)
class BaseMotion:
    """The world pose of link ``link`` (the robot's root) at each of ``n`` samples:
    ``poses`` (n, 7) rows ``x y z qx qy qz qw`` (quaternions normalised on construction),
    optional ``velocities`` / ``accelerations`` (n, 6) twist rows (see the module doc).
    ``frame`` names the frame the poses are in (ROS ``header.frame_id``)."""

    link: str
    poses: np.ndarray
    velocities: Optional[np.ndarray] = None
    accelerations: Optional[np.ndarray] = None
    frame: str = "world"

    def __post_init__(self):
        setf = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen dataclass)
        if not isinstance(self.link, str) or not self.link or self.link != self.link.strip():
            raise ValueError(f"base link name {self.link!r} must be non-empty text")
        p = np.array(self.poses, dtype=float) if not isinstance(self.poses, np.ndarray) \
            else self.poses.astype(float)
        if p.ndim != 2 or p.shape[1] != 7:
            raise ValueError(f"base poses of {self.link!r} have shape {p.shape}, expected "
                             "(n, 7): x y z qx qy qz qw")
        n = p.shape[0]
        norm = np.linalg.norm(p[:, 3:], axis=1) if n else np.zeros(0)
        if n and not (np.isfinite(p).all() and (norm > 1e-9).all()):
            raise ValueError(f"base poses of {self.link!r} must be finite with non-zero "
                             "quaternions")
        p = p.copy()
        if n:
            p[:, 3:] /= norm[:, None]
        setf("poses", _rows_of(p, 7, n, f"base poses of {self.link!r}"))
        for what in ("velocities", "accelerations"):
            v = getattr(self, what)
            if v is not None:
                setf(what, _rows_of(v, 6, n, f"base {what} of {self.link!r}"))

    @property
    def n_times(self) -> int:
        return int(self.poses.shape[0])

    def rows(self, index) -> "BaseMotion":
        """The samples at ``index`` (indices, slice or mask)."""
        pick = lambda a: None if a is None else a[index]  # noqa: E731
        return dataclasses.replace(self, poses=self.poses[index],
                                   velocities=pick(self.velocities),
                                   accelerations=pick(self.accelerations))

    def replace(self, **changes) -> "BaseMotion":
        return dataclasses.replace(self, **changes)

    def moves(self, length_tol: float = 1e-6, angle_tol: float = 1e-6) -> bool:
        """True if the pose changes over the samples by more than ``length_tol`` m or
        ``angle_tol`` rad from the first one."""
        if self.n_times < 2:
            return False
        d = np.abs(self.poses[:, :3] - self.poses[0, :3]).max()
        dots = np.clip(np.abs(self.poses[:, 3:] @ self.poses[0, 3:]), 0.0, 1.0)
        return bool(d > length_tol or (2.0 * np.arccos(dots)).max() > angle_tol)

    def __eq__(self, other):
        if not isinstance(other, BaseMotion):
            return NotImplemented
        same = lambda a, b: (a is None and b is None) or (  # noqa: E731
            a is not None and b is not None and np.array_equal(a, b))
        return (self.link == other.link and self.frame == other.frame
                and np.array_equal(self.poses, other.poses)
                and same(self.velocities, other.velocities)
                and same(self.accelerations, other.accelerations))

    __hash__ = None  # type: ignore[assignment]


# ---------------------------------------------------------------- rotations


def _rot_of(q: np.ndarray) -> np.ndarray:
    """Rotation matrices (n, 3, 3) of quaternions (n, 4) x y z w (normalised first)."""
    return se3.quat_to_rot(np.asarray(q, float)[:, [3, 0, 1, 2]])


def pose_rows(T) -> np.ndarray:
    """Pose rows (n, 7) ``x y z qx qy qz qw`` of world poses T (n, 4, 4); consecutive
    quaternions are kept in the same hemisphere (no sign flips along the motion)."""
    T = np.asarray(T, dtype=float)
    q = np.roll(se3.rot_to_quat(T[:, :3, :3]), -1, axis=1)  # (w x y z) -> (x y z w)
    for k in range(1, q.shape[0]):
        if q[k] @ q[k - 1] < 0:
            q[k] = -q[k]
    return np.concatenate([T[:, :3, 3], q], axis=1)


def matrices(poses) -> np.ndarray:
    """World poses (n, 4, 4) of pose rows (n, 7)."""
    p = np.asarray(poses, dtype=float)
    T = np.tile(np.eye(4), (p.shape[0], 1, 1))
    T[:, :3, :3] = _rot_of(p[:, 3:])
    T[:, :3, 3] = p[:, :3]
    return T


def twists(times, poses) -> tuple[np.ndarray, np.ndarray]:
    """``(velocities, accelerations)`` (n, 6) of a base sampled at ``times`` (s), from the
    samples themselves: central differences inside, one-sided at the ends (numpy's
    ``gradient``). Angular velocity from the relative rotation between neighbours, in the
    world frame. Fewer than two samples: zeros."""
    t = np.asarray(times, dtype=float)
    p = np.asarray(poses, dtype=float)
    n = t.shape[0]
    if n < 2:
        return np.zeros((n, 6)), np.zeros((n, 6))
    R = _rot_of(p[:, 3:])
    lin = np.gradient(p[:, :3], t, axis=0)
    ang = np.empty((n, 3))
    lo = np.r_[0, np.arange(n - 2), n - 2]
    hi = np.r_[1, np.arange(2, n), n - 1]
    rel = np.einsum("nij,nkj->nik", R[hi], R[lo])  # R_hi R_lo^T: the turn, in world axes
    ang[:] = se3.so3_log(rel) / (t[hi] - t[lo])[:, None]
    vel = np.concatenate([lin, ang], axis=1)
    return vel, np.gradient(vel, t, axis=0)


# ---------------------------------------------------------------- Klampt's floating base


def klampt_entries(poses) -> np.ndarray:
    """Klampt's six floating-base entries (n, 6) ``x y z rz ry rx`` of pose rows (n, 7):
    R = Rz(rz) Ry(ry) Rx(rx), ry in [-pi/2, pi/2]; rz and rx kept continuous along the rows."""
    p = np.asarray(poses, dtype=float)
    R = _rot_of(p[:, 3:])
    ry = np.arcsin(np.clip(-R[:, 2, 0], -1.0, 1.0))
    rz = np.arctan2(R[:, 1, 0], R[:, 0, 0])
    rx = np.arctan2(R[:, 2, 1], R[:, 2, 2])
    out = np.concatenate([p[:, :3], np.stack([rz, ry, rx], axis=1)], axis=1)
    if out.shape[0] > 1:
        out[:, 3] = np.unwrap(out[:, 3])
        out[:, 5] = np.unwrap(out[:, 5])
    return out


def from_klampt_entries(entries) -> np.ndarray:
    """Pose rows (n, 7) of Klampt floating-base entries (n, 6) ``x y z rz ry rx``."""
    e = np.asarray(entries, dtype=float)
    cz, sz = np.cos(e[:, 3]), np.sin(e[:, 3])
    cy, sy = np.cos(e[:, 4]), np.sin(e[:, 4])
    cx, sx = np.cos(e[:, 5]), np.sin(e[:, 5])
    R = np.empty((e.shape[0], 3, 3))
    R[:, 0] = np.stack([cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx], -1)
    R[:, 1] = np.stack([sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx], -1)
    R[:, 2] = np.stack([-sy, cy * sx, cy * cx], -1)
    T = np.tile(np.eye(4), (e.shape[0], 1, 1))
    T[:, :3, :3] = R
    T[:, :3, 3] = e[:, :3]
    return pose_rows(T)
