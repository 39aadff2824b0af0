"""Limit checks of a joint trajectory: positions outside their bounds and velocities over
their limits, found sample by sample and told by joint and time.

Plain Python + numpy. Units: rad and m (positions), rad/s and m/s (velocities), seconds.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

if TYPE_CHECKING:
    from .model import Trajectory

__all__ = ["Violation", "check_limits", "format_violations"]


@dataclasses.dataclass(frozen=True)
class Violation:
    """One sample beyond a limit. ``kind`` "position": ``value`` is the position at ``time``
    and ``limit`` the lower or upper bound it crosses (rad or m). ``kind`` "velocity": ``value``
    is the finite-difference velocity from ``time`` to the next sample and ``limit`` the signed
    bound it exceeds (rad/s or m/s)."""

    joint: str
    time: float
    kind: str
    value: float
    limit: float


def check_limits(traj: Trajectory, tol: float = 1e-9) -> list:
    """Every position outside [lower - tol, upper + tol] and every velocity (difference of
    consecutive samples over their time step) with |v| > limit + tol, as :class:`Violation` s
    sorted by time, then by joint order. ``tol`` is in the joint's units (rad, m, per s).
    Velocities are plain differences: :func:`unwrap` continuous joints first."""
    found = []
    p, t = traj.positions, traj.times
    for j, name in enumerate(traj.joint_names):
        for bound, sign in ((traj.lower[j], -1.0), (traj.upper[j], 1.0)):
            if math.isfinite(bound):
                for i in np.flatnonzero(sign * (p[:, j] - bound) > tol):
                    found.append((int(i), j, Violation(name, float(t[i]), "position",
                                                       float(p[i, j]), float(bound))))
        vmax = traj.velocity_limits[j]
        if vmax is not None and traj.n_times > 1:
            v = np.diff(p[:, j]) / np.diff(t)
            for i in np.flatnonzero(np.abs(v) > vmax + tol):
                found.append((int(i), j, Violation(name, float(t[i]), "velocity", float(v[i]),
                                                   math.copysign(vmax, v[i]))))
    found.sort(key=lambda x: (x[0], x[1], x[2].kind))
    return [v for _, _, v in found]


def format_violations(violations: Sequence[Violation], units: Optional[dict] = None,
                      max_lines: int = 20) -> list:
    """Human-readable lines, one per joint and crossed limit, giving the first and last time:
    ``knee: position above 1.5708 rad at t=1.2..1.8 s (7 samples, worst 1.63)``. ``units`` maps a joint
    name to "rad" or "m" (default "rad"). At most ``max_lines`` lines (the last says how many
    more)."""
    groups: dict = {}
    for v in violations:
        side = ("above" if v.value > v.limit else "below") if v.kind == "position" else "over"
        limit = abs(v.limit) if v.kind == "velocity" else v.limit
        groups.setdefault((v.joint, v.kind, side, limit), []).append(v)
    lines = []
    for (joint, kind, side, limit), vs in groups.items():
        unit = (units or {}).get(joint, "rad") + ("/s" if kind == "velocity" else "")
        worst = max(vs, key=lambda v: abs(v.value - v.limit)).value
        when = f"t={vs[0].time:g} s" if len(vs) == 1 else f"t={vs[0].time:g}..{vs[-1].time:g} s"
        lines.append(f"{joint}: {kind} {side} {limit:.6g} {unit} at {when} "
                     f"({len(vs)} sample{'s' * (len(vs) > 1)}, worst {worst:.6g})")
    if len(lines) > max_lines:
        lines = lines[:max_lines - 1] + [f"... and {len(lines) - max_lines + 1} more"]
    return lines
