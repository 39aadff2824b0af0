"""Joint trajectories for export: the data, unwrapping, waypoint decimation and limit checks.

Plain Python + numpy. Units everywhere: time in seconds, angular joints in radians (rad, rad/s),
linear joints in metres (m, m/s). The file formats live in :mod:`.files`.

A typical export (what :func:`.files.export_trajectory` does)::

    traj = Trajectory(names, times, positions, kinds=..., virtual=...)   # from the bake
    full = unwrap(select(traj))               # real joints only, continuous joints unwrapped
    problems = check_limits(full)             # report these by joint and time
    save_trajectory(decimate(full), "motion.csv")

Errors are :class:`ValueError` with a message naming the joint, sample or argument at fault.
"""

from __future__ import annotations

import dataclasses
import math
import unicodedata
from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

from ...solver.text import show
from .base_motion import BaseMotion
from .limits import Violation, check_limits, format_violations  # re-exported: their old home

__all__ = ["Trajectory", "Violation", "KINDS", "UNITS", "unwrap", "waypoint_indices", "decimate",
           "select", "check_limits", "format_violations"]

KINDS = ("angular", "linear")
UNITS = {"angular": "rad", "linear": "m"}
_TWO_PI = 2.0 * math.pi


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


@dataclasses.dataclass(frozen=True, eq=False)
class Trajectory:
    """Positions of named joints sampled at increasing times. Immutable (arrays are read-only).

    - ``joint_names``: unique non-empty names, one per column.
    - ``times``: shape (n,), seconds, finite, strictly increasing. n may be 0 (an empty bake);
      writers refuse to write an empty trajectory.
    - ``positions``: shape (n, m), finite; radians for angular joints, metres for linear ones.
    - ``kinds``: per joint "angular" (rad) or "linear" (m); default all angular.
    - ``continuous``: per joint, True for an unbounded revolute (angular only, no position limits);
      :func:`unwrap` makes its values continuous. Default all False.
    - ``lower`` / ``upper``: per-joint position limits (rad or m), may be -inf / +inf (default).
    - ``velocity_limits``: per joint a positive bound on |velocity| (rad/s or m/s) or None (none).
    - ``virtual``: per joint, True for a virtual joint (left out of exports by :func:`select`).
    - ``velocities`` / ``accelerations``: None, or shape (n, m) like ``positions`` (rad/s or
      m/s; rad/s^2 or m/s^2), the motion's derivatives at each sample (:mod:`.timing`).
    - ``base``: None, or the :class:`~.base_motion.BaseMotion` of the robot's floating root
      link at the same samples (its world pose; None when the root is fixed to the world).
    """

    if TYPE_CHECKING:
        # What the fields hold once __post_init__ has checked and normalized the arguments
        # (the constructor's own signature is below; the fields at run time in the else).
        joint_names: tuple[str, ...]
        times: np.ndarray
        positions: np.ndarray
        kinds: tuple[str, ...]
        continuous: tuple[bool, ...]
        lower: np.ndarray
        upper: np.ndarray
        velocity_limits: tuple[Optional[float], ...]
        virtual: tuple[bool, ...]
        velocities: Optional[np.ndarray]
        accelerations: Optional[np.ndarray]
        base: Optional[BaseMotion]

        def __init__(self, joint_names: Sequence[str], times: np.ndarray,
                     positions: np.ndarray, kinds: Optional[Sequence[str]] = None,
                     continuous: Optional[Sequence[bool]] = None,
                     lower: Optional[Sequence[float] | np.ndarray] = None,
                     upper: Optional[Sequence[float] | np.ndarray] = None,
                     velocity_limits: Optional[Sequence[Optional[float]]] = None,
                     virtual: Optional[Sequence[bool]] = None,
                     velocities: Optional[np.ndarray] = None,
                     accelerations: Optional[np.ndarray] = None,
                     base: Optional[BaseMotion] = None) -> None: ...
    else:
        joint_names: Sequence[str]
        times: np.ndarray
        positions: np.ndarray
        kinds: Optional[Sequence[str]] = None
        continuous: Optional[Sequence[bool]] = None
        lower: Optional[Sequence[float] | np.ndarray] = None
        upper: Optional[Sequence[float] | np.ndarray] = None
        velocity_limits: Optional[Sequence[Optional[float]]] = None
        virtual: Optional[Sequence[bool]] = None
        velocities: Optional[np.ndarray] = None
        accelerations: Optional[np.ndarray] = None
        base: Optional[BaseMotion] = None

    def __post_init__(self):
        setf = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen dataclass)
        names = tuple(self.joint_names) if not isinstance(self.joint_names, str) else None
        if names is None or not all(isinstance(n, str) for n in names):
            raise ValueError("joint_names must be a sequence of strings")
        for n in names:
            if not n or n != n.strip() or any(unicodedata.category(c) in ("Cc", "Cs") for c in n):
                raise ValueError(f"joint name {n!r} must be non-empty text without surrounding "
                                 "spaces or control characters")
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"duplicate joint names: {', '.join(map(repr, dup))}")
        m = len(names)
        setf("joint_names", names)

        t = _float_array(self.times, "times")
        if t.ndim != 1:
            raise ValueError(f"times must be one-dimensional, got shape {t.shape}")
        n = t.shape[0]
        p = _float_array(self.positions, "positions")
        if p.size == 0 and p.ndim < 2:
            p = p.reshape(n, m)
        if p.shape != (n, m):
            raise ValueError(f"positions have shape {p.shape}, expected (n_times, n_joints) = "
                             f"({n}, {m})")
        _finite(t, "times", lambda i: f"sample {i}")
        _finite(p, "positions", lambda i: f"joint {names[i[1]]!r} at t={show(t[i[0]])} s")
        back = np.flatnonzero(np.diff(t) <= 0)
        if back.size:
            i = int(back[0])
            raise ValueError(f"times must be strictly increasing: sample {i + 1} "
                             f"(t={show(t[i + 1])} s) does not come after t={show(t[i])} s")
        setf("times", _frozen(t))
        setf("positions", _frozen(p))

        kinds = _per_joint(self.kinds, m, "kinds", "angular")
        for name, k in zip(names, kinds):
            if k not in KINDS:
                raise ValueError(f"joint {name!r}: kind {k!r} must be 'angular' or 'linear'")
        setf("kinds", kinds)
        setf("continuous", tuple(bool(c) for c in _per_joint(self.continuous, m, "continuous", False)))
        setf("virtual", tuple(bool(v) for v in _per_joint(self.virtual, m, "virtual", False)))

        lo = _limits(self.lower, m, "lower", -math.inf)
        hi = _limits(self.upper, m, "upper", math.inf)
        for j, name in enumerate(names):
            if lo[j] > hi[j]:
                raise ValueError(f"joint {name!r}: lower limit {show(lo[j])} is above upper {show(hi[j])}")
            if self.continuous[j]:
                if kinds[j] != "angular":
                    raise ValueError(f"joint {name!r}: only angular joints can be continuous")
                if math.isfinite(lo[j]) or math.isfinite(hi[j]):
                    raise ValueError(f"joint {name!r}: a continuous joint has no position limits")
        setf("lower", _frozen(lo))
        setf("upper", _frozen(hi))

        vel = []
        for name, v in zip(names, _per_joint(self.velocity_limits, m, "velocity_limits", None)):
            if v is not None:
                try:
                    v = float(v)
                except (TypeError, ValueError):
                    raise ValueError(f"joint {name!r}: velocity limit {show(v)} is not a number") from None
                if not v > 0:  # also NaN
                    raise ValueError(f"joint {name!r}: velocity limit {show(v)} must be positive "
                                     "(None for no limit)")
            vel.append(v)
        setf("velocity_limits", tuple(vel))

        for what in ("velocities", "accelerations"):
            d = getattr(self, what)
            if d is not None:
                d = _float_array(d, what)
                if d.shape != (n, m):
                    raise ValueError(f"{what} have shape {d.shape}, expected ({n}, {m})")
                _finite(d, what, lambda i: f"joint {names[i[1]]!r} at t={show(t[i[0]])} s")
                setf(what, _frozen(d))
        if self.base is not None:
            if not isinstance(self.base, BaseMotion):
                raise ValueError(f"base must be a BaseMotion, got {type(self.base).__name__}")
            if self.base.n_times != n:
                raise ValueError(f"base {self.base.link!r} has {self.base.n_times} poses for "
                                 f"{n} samples")

    # ------------------------------------------------------------ views

    @property
    def n_times(self) -> int:
        return int(self.times.shape[0])

    @property
    def n_joints(self) -> int:
        return len(self.joint_names)

    @property
    def units(self) -> tuple:
        """Per joint "rad" or "m"."""
        return tuple(UNITS[k] for k in self.kinds)

    def replace(self, **changes) -> "Trajectory":
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)

    def rows(self, index) -> "Trajectory":
        """The samples at ``index`` (indices, slice or boolean mask), same joints."""
        pick = lambda a: None if a is None else a[index]  # noqa: E731
        return self.replace(times=self.times[index], positions=self.positions[index],
                            velocities=pick(self.velocities),
                            accelerations=pick(self.accelerations),
                            base=None if self.base is None else self.base.rows(index))

    def columns(self, index: Sequence[int]) -> "Trajectory":
        """The joints at the given column indices, in that order, with their metadata."""
        idx = [int(i) for i in index]
        pick = lambda seq: [seq[i] for i in idx]  # noqa: E731
        return Trajectory(pick(self.joint_names), self.times, self.positions[:, idx],
                          pick(self.kinds), pick(self.continuous), self.lower[idx],
                          self.upper[idx], pick(self.velocity_limits), pick(self.virtual),
                          None if self.velocities is None else self.velocities[:, idx],
                          None if self.accelerations is None else self.accelerations[:, idx],
                          self.base)

    def __eq__(self, other):
        if not isinstance(other, Trajectory):
            return NotImplemented
        return (self.joint_names == other.joint_names and self.kinds == other.kinds
                and self.continuous == other.continuous and self.virtual == other.virtual
                and self.velocity_limits == other.velocity_limits
                and all(np.array_equal(getattr(self, f), getattr(other, f))
                        for f in ("times", "positions", "lower", "upper"))
                and all(_same(getattr(self, f), getattr(other, f))
                        for f in ("velocities", "accelerations"))
                and self.base == other.base)

    __hash__ = None  # type: ignore[assignment]  # unhashable: equal by value, holds arrays


def _same(a: Optional[np.ndarray], b: Optional[np.ndarray]) -> bool:
    return (a is None and b is None) or (a is not None and b is not None
                                         and np.array_equal(a, b))


def _float_array(x, what: str) -> np.ndarray:
    try:
        a = np.array(x, dtype=float)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{what} must be numbers: {e}") from None
    return a


def _finite(a: np.ndarray, what: str, where) -> None:
    bad = np.argwhere(~np.isfinite(a))
    if bad.size:
        at = tuple(int(k) for k in bad[0])
        i = at[0] if len(at) == 1 else at
        raise ValueError(f"{what} must be finite: {show(a[i])} ({where(i)})")


def _per_joint(x, m: int, what: str, default) -> tuple:
    if x is None:
        return (default,) * m
    if isinstance(x, (str, bytes)):
        raise ValueError(f"{what} must be a sequence with one entry per joint")
    vals = tuple(x.tolist() if isinstance(x, np.ndarray) else x)
    if len(vals) != m:
        raise ValueError(f"{what} has {len(vals)} entries for {m} joints")
    return vals


def _limits(x, m: int, what: str, default: float) -> np.ndarray:
    a = _float_array([default] * m if x is None else x, f"{what} limits")
    if a.shape != (m,):
        raise ValueError(f"{what} limits have shape {a.shape} for {m} joints")
    if np.isnan(a).any():
        raise ValueError(f"{what} limits must not be NaN (use ±inf for no limit)")
    return a


# ---------------------------------------------------------------- processing


def unwrap(traj: Trajectory) -> Trajectory:
    """Continuous joints made continuous in time: each sample is shifted by a whole number of
    turns so consecutive samples differ by at most pi. The first sample keeps its value, and
    values are never wrapped back into [-pi, pi] (10 turns export as 0 .. 20 pi). Samples that
    need no shift keep their exact value. Other joints are returned unchanged."""
    cols = [j for j, c in enumerate(traj.continuous) if c]
    if not cols or traj.n_times < 2:
        return traj
    p = traj.positions.copy()
    d = np.diff(p[:, cols], axis=0)
    turns = np.cumsum(-np.round(d / _TWO_PI), axis=0)
    p[1:, cols] = p[1:, cols] + _TWO_PI * turns
    return traj.replace(positions=p)


def _thresholds(traj: Trajectory, angle_step: float, length_step: float) -> np.ndarray:
    for what, v in (("angle_step", angle_step), ("length_step", length_step)):
        ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
        if not (ok and math.isfinite(v) and v > 0):
            raise ValueError(f"{what} must be a positive finite number, got {show(v)}")
    return np.array([angle_step if k == "angular" else length_step for k in traj.kinds], float)


def waypoint_indices(traj: Trajectory, angle_step: float = math.radians(2.0),
                     length_step: float = 0.02, every_frame: bool = False) -> np.ndarray:
    """Indices of the samples kept as waypoints: the first and the last always; in between, a
    sample whenever any joint has moved at least its threshold since the last waypoint
    (``angle_step`` rad for angular joints, ``length_step`` m for linear ones); every sample
    if ``every_frame``. Movement is the plain difference of values: :func:`unwrap` first.

    So between consecutive waypoints no joint moves more than its threshold plus one sample's
    motion, and the samples skipped in between stay within the threshold of the earlier one."""
    thr = _thresholds(traj, angle_step, length_step)
    n = traj.n_times
    if every_frame or n <= 2:
        return np.arange(n)
    p = traj.positions
    keep, last = [0], p[0]
    for i in range(1, n - 1):
        if (np.abs(p[i] - last) >= thr).any():
            keep.append(i)
            last = p[i]
    keep.append(n - 1)
    return np.array(keep)


def decimate(traj: Trajectory, angle_step: float = math.radians(2.0), length_step: float = 0.02,
             every_frame: bool = False) -> Trajectory:
    """The trajectory at its waypoints only (see :func:`waypoint_indices`)."""
    return traj.rows(waypoint_indices(traj, angle_step, length_step, every_frame))


def select(traj: Trajectory, include_virtual: bool = False) -> Trajectory:
    """The joints to export: the real ones, plus the virtual ones if ``include_virtual``.
    Raises ValueError when nothing is left to export."""
    if traj.n_joints == 0:
        raise ValueError("nothing to export: the trajectory has no joints")
    idx = [j for j, v in enumerate(traj.virtual) if include_virtual or not v]
    if not idx:
        raise ValueError(f"nothing to export: all {traj.n_joints} joints are virtual "
                         "(include virtual joints to export them)")
    return traj if len(idx) == traj.n_joints else traj.columns(idx)
