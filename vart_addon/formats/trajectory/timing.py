"""A trajectory's derivatives, and its timing fitted to the joints' limits.

Plain numpy (TOPP-RA, PyPI ``toppra``, is imported only when asked for). Units: seconds,
rad/s and m/s (velocities), rad/s^2 and m/s^2 (accelerations).

- :func:`with_derivatives`: velocities and accelerations at every sample, from the samples
  themselves (the baked curve at every frame: central differences inside, one-sided at the
  ends, numpy's ``gradient`` over the sample times), and the base's twists. Taken on the
  full-rate motion, before waypoints are picked, so a waypoint's velocity is the curve's,
  not a difference of waypoints.
- :func:`retime`: new sample times so that no joint exceeds its velocity limit or its
  acceleration limit (:class:`Limits`). ``"uniform"`` scales every time by one factor: the
  most loaded joint then meets its limit exactly (the motion gets slower or faster).
  ``"toppra"`` is time-optimal path parameterization (TOPP-RA): each stretch as fast as the
  limits allow, starting and ending at rest, never more than ``max_speedup`` times faster
  than the samples' own timing (a still stretch would otherwise take no time). A TOPP-RA
  result whose sampled velocities still pass a limit (the path is its cubic spline through
  the samples) is stretched uniformly by that much. Positions are never changed: each sample
  keeps its values and gets a new time.

Velocity and acceleration ratios are measured as the file states them: velocity as the
difference of consecutive samples over their time step (what :func:`.limits.check_limits`
checks) and as the sample derivative; acceleration as the derivative of the latter.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Optional

import numpy as np

from .base_motion import twists
from .model import Trajectory

__all__ = ["with_derivatives", "stopped_at_end", "Limits", "RetimeResult", "retime", "RETIME_METHODS",
           "TOPPRA_INSTALL"]

RETIME_METHODS = ("uniform", "toppra")
#: How to get TOPP-RA, said when it is asked for and missing.
TOPPRA_INSTALL = ("install it into Blender's Python: <blender>/<version>/python/bin/python3 -m "
                  "pip install toppra")


def with_derivatives(traj: Trajectory) -> Trajectory:
    """``traj`` with velocities and accelerations at every sample (and its base's twists)
    from its samples (see the module doc); zeros with fewer than two samples."""
    t, p = traj.times, traj.positions
    if traj.n_times < 2:
        v = np.zeros_like(p)
        a = np.zeros_like(p)
    else:
        v = np.gradient(p, t, axis=0)
        a = np.gradient(v, t, axis=0)
    base = traj.base
    if base is not None:
        bv, ba = twists(t, base.poses)
        base = base.replace(velocities=bv, accelerations=ba)
    return traj.replace(velocities=v, accelerations=a, base=base)


def stopped_at_end(traj: Trajectory) -> Trajectory:
    """``traj`` with its last sample at rest: velocities and accelerations 0 there (when it
    has them), everything else as it is. A joint trajectory controller refuses a goal whose
    last point moves (ros2_controllers' JTC, unless told otherwise); it then brings the joints
    to rest within the last stretch."""
    changes = {}
    for q in ("velocities", "accelerations"):
        d = getattr(traj, q)
        if d is not None and d.shape[0] and d[-1].any():
            d = d.copy()
            d[-1] = 0.0
            changes[q] = d
    return traj.replace(**changes) if changes else traj


@dataclasses.dataclass(frozen=True)
class Limits:
    """Per joint velocity limits (rad/s or m/s, None for none: default the trajectory's own
    ``velocity_limits``), and the defaults for joints without one: ``velocity`` (angular,
    rad/s), ``linear_velocity`` (m/s); acceleration limits ``acceleration`` (angular, rad/s^2)
    and ``linear_acceleration`` (m/s^2), and per joint ``accelerations`` (name -> rad/s^2 or
    m/s^2, a robot's joint_limits.yaml: they win). None means no limit."""

    velocity: Optional[float] = None
    linear_velocity: Optional[float] = None
    acceleration: Optional[float] = None
    linear_acceleration: Optional[float] = None
    accelerations: tuple = ()  #: (joint name, limit) pairs

    def __post_init__(self):
        for name, a in self.accelerations:
            if isinstance(a, bool) or not isinstance(a, (int, float)) or not math.isfinite(a) \
                    or a <= 0:
                raise ValueError(f"acceleration limit of {name!r} must be a positive number, "
                                 f"got {a!r}")
        for f in dataclasses.fields(self):
            if f.name == "accelerations":
                continue
            v = getattr(self, f.name)
            if v is not None and not (isinstance(v, (int, float)) and not isinstance(v, bool)
                                      and math.isfinite(v) and v > 0):
                raise ValueError(f"{f.name} limit must be a positive number or None, got {v!r}")

    def of(self, traj: Trajectory) -> tuple[np.ndarray, np.ndarray]:
        """``(vmax, amax)`` per joint of ``traj``; inf where there is no limit."""
        ang = np.array([k == "angular" for k in traj.kinds])
        dv = np.where(ang, self.velocity or np.inf, self.linear_velocity or np.inf)
        vmax = np.array([v if v is not None else d
                         for v, d in zip(traj.velocity_limits, dv)], float)
        amax = np.where(ang, self.acceleration or np.inf, self.linear_acceleration or np.inf)
        own = dict(self.accelerations)
        amax = np.array([own.get(n, a) for n, a in zip(traj.joint_names, amax)], float)
        return vmax.astype(float), amax


@dataclasses.dataclass(frozen=True)
class RetimeResult:
    """What :func:`retime` did: the ``trajectory`` (new times, derivatives), the ``method``
    used (``"uniform"``, or ``"toppra"``), the durations before and after (s), and
    ``notes`` (why TOPP-RA was not used...)."""

    trajectory: Trajectory
    method: str
    duration_before: float
    duration_after: float
    notes: tuple = ()

    def summary(self) -> str:
        return (f"re-timed ({self.method}) from {self.duration_before:.4g} s to "
                f"{self.duration_after:.4g} s")


def load_ratio(traj: Trajectory, vmax: np.ndarray, amax: np.ndarray) -> float:
    """How far past its limits the most loaded joint goes: max over joints and samples of
    |velocity| / vmax and sqrt(|acceleration| / amax) (1 = exactly at a limit)."""
    if traj.n_times < 2:
        return 0.0
    d = with_derivatives(traj)
    assert d.velocities is not None and d.accelerations is not None
    fwd = np.diff(traj.positions, axis=0) / np.diff(traj.times)[:, None]
    r = max(float((np.abs(fwd) / vmax).max(initial=0.0)),
            float((np.abs(d.velocities) / vmax).max(initial=0.0)))
    return max(r, math.sqrt(float((np.abs(d.accelerations) / amax).max(initial=0.0))))


def _scaled(traj: Trajectory, factor: float) -> Trajectory:
    t0 = traj.times[0]
    return with_derivatives(traj.replace(times=t0 + (traj.times - t0) * factor))


def retime(traj: Trajectory, limits: Limits, method: str = "uniform",
           max_speedup: float = 10.0) -> RetimeResult:
    """New times for ``traj``'s samples within ``limits`` (see the module doc). ValueError
    when no joint has a limit, for an unknown method, or (``"toppra"``) when TOPP-RA is not
    installed, saying how to install it."""
    if method not in RETIME_METHODS:
        raise ValueError(f"re-timing method must be one of {', '.join(RETIME_METHODS)}, "
                         f"got {method!r}")
    vmax, amax = limits.of(traj)
    if not (np.isfinite(vmax).any() or np.isfinite(amax).any()):
        raise ValueError("cannot re-time: no joint has a velocity limit (none in the URDF) "
                         "and no default velocity or acceleration limit is set")
    before = float(traj.times[-1] - traj.times[0]) if traj.n_times else 0.0
    notes: list = []
    if traj.n_times < 3:
        return RetimeResult(with_derivatives(traj), method, before, before)
    if method == "toppra":
        out = _toppra(traj, vmax, amax, max_speedup, notes)
        if out is not None:
            r = load_ratio(out, vmax, amax)
            if r > 1.0:  # the spline's limits are met; the samples' differences, nearly
                out = _scaled(out, r * (1 + 1e-12))
            return RetimeResult(out, "toppra", before, float(out.times[-1] - out.times[0]),
                                tuple(notes))
        method = "uniform"
    r = load_ratio(traj, vmax, amax)
    if r == 0.0:
        notes.append("nothing moves: timing kept")
        return RetimeResult(with_derivatives(traj), method, before, before, tuple(notes))
    out = _scaled(traj, r * (1 + 1e-12))
    return RetimeResult(out, "uniform", before, float(out.times[-1] - out.times[0]),
                        tuple(notes))


def _toppra(traj: Trajectory, vmax: np.ndarray, amax: np.ndarray, max_speedup: float,
            notes: list) -> Optional[Trajectory]:
    """TOPP-RA's times for the samples, or None (with a note) when it finds none."""
    try:
        import toppra
        import toppra.algorithm
        import toppra.constraint
    except ImportError:
        raise ValueError(f"TOPP-RA re-timing needs the toppra package: {TOPPRA_INSTALL}; "
                         "or choose uniform re-timing") from None
    s = traj.times - traj.times[0]
    # the path parameter as one more coordinate, its speed capped: still stretches end
    path = toppra.SplineInterpolator(s, np.c_[traj.positions, s])
    big = 1e12  # "no limit" for TOPP-RA's bounds
    v = np.r_[np.where(np.isfinite(vmax), vmax, big), max_speedup]
    a = np.r_[np.where(np.isfinite(amax), amax, big), big]
    cons = [toppra.constraint.JointVelocityConstraint(np.c_[-v, v]),
            toppra.constraint.JointAccelerationConstraint(np.c_[-a, a])]
    algo = toppra.algorithm.TOPPRA(cons, path, gridpoints=s,
                                   parametrizer="ParametrizeConstAccel")
    sdd, sd, _v = algo.compute_parameterization(0.0, 0.0)[:3]
    if sd is None or not np.isfinite(sd).all():
        notes.append("TOPP-RA found no parameterization: re-timed uniformly instead")
        return None
    sd = np.maximum(np.asarray(sd, float), 0.0)
    ds = np.diff(s)
    mean = 0.5 * (sd[:-1] + sd[1:])
    if (mean <= 0).any():
        notes.append("TOPP-RA stopped on the path: re-timed uniformly instead")
        return None
    t = traj.times[0] + np.r_[0.0, np.cumsum(ds / mean)]
    return with_derivatives(traj.replace(times=t))

