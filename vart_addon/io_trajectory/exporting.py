"""Trajectory export: a frame range of a scene, sampled (:mod:`.sampling`), written to a .csv,
.json or .path file.

**Export** (:func:`export_trajectory`): sample, then
:func:`~vart_addon.formats.trajectory.files.export_trajectory` (real joints unless
``include_virtual``, continuous ones unwrapped, limits checked on every frame, waypoints,
atomic write). *Decision: limit violations do not block the export* (unless
``refuse_violations``): they are returned and reported (WARNING, by joint and time) and the
file is written. A bake keeps tree joints within their limits, so violations come from
closure joints (penalised, not hard) or hand keys; the file is the evidence to inspect, and a
real controller enforces its own limits. Pipelines that must not write such a file pass
``refuse_violations=True``: nothing is written and the error lists them. An empty range, a
scene without real joints (nothing to export), an unknown extension or an unwritable path
raise :class:`TrajectoryError` before anything is written; an existing file is left untouched.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import bpy
import numpy as np

from ..formats.trajectory import files as TIO
from ..formats.trajectory import model as TR
from ..solver.text import show
from .joint_columns import TrajectoryError, format_of
from .sampling import _frame_range, sample_trajectory

__all__ = ["export_trajectory", "ExportResult"]


def _step(what: str, v) -> float:
    ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
    if not (ok and math.isfinite(v) and v > 0):
        raise TrajectoryError(f"{what} must be a positive finite number, got {show(v)}")
    return float(v)


@dataclass
class ExportResult:
    """What :func:`export_trajectory` wrote: ``written`` (the waypoints, as in the file),
    ``violations`` (limit violations on every frame), ``notes`` (velocity limits that could not
    be read...)."""

    path: str
    written: TR.Trajectory
    frame_start: int
    frame_end: int
    violations: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    @property
    def frames(self) -> int:
        return self.frame_end - self.frame_start + 1

    @property
    def units(self) -> dict:
        return dict(zip(self.written.joint_names, self.written.units))

    def violation_lines(self, max_lines: int = 20) -> list[str]:
        return TR.format_violations(self.violations, self.units, max_lines)

    def summary(self) -> str:
        w = self.written
        head = (f"Exported {w.n_times} waypoints of {w.n_joints} joint values (frames "
                f"{self.frame_start}-{self.frame_end}, {self.frames} frames) to {self.path}")
        if self.violations:
            joints = sorted({v.joint for v in self.violations})
            head += (f"; {len(self.violations)} limit violations on {len(joints)} joint"
                     + ("s" if len(joints) != 1 else "") + ": "
                     + "; ".join(self.violation_lines(5)))
        return head


def export_trajectory(scene, path, *, frame_start=None, frame_end=None,
                      include_virtual: bool = False, every_frame: bool = False,
                      angle_step: float = math.radians(2.0), length_step: float = 0.02,
                      refuse_violations: bool = False, source: str = "auto") -> ExportResult:
    """Sample ``scene`` (default: the context's) over the frame range and write ``path``
    (.csv, .json or .path, by extension) atomically: real joints (and virtual ones if
    ``include_virtual``), waypoints whenever a joint moved ``angle_step`` rad or
    ``length_step`` m (or ``every_frame``). Returns an :class:`ExportResult`; limit violations
    are in it and do not stop the export unless ``refuse_violations``. Raises
    :class:`TrajectoryError` (SchemaError for a corrupt scene) with nothing written."""
    scene = scene or bpy.context.scene
    path = os.fspath(path)
    format_of(path)
    angle_step, length_step = _step("angle_step", angle_step), _step("length_step", length_step)
    notes: list = []
    traj = sample_trajectory(scene, frame_start, frame_end, source=source, notes=notes)
    start, end = _frame_range(scene, frame_start, frame_end)
    try:
        if refuse_violations:
            full = TR.unwrap(TR.select(traj, include_virtual))
            found = TR.check_limits(full)
            if found:
                lines = TR.format_violations(found, dict(zip(full.joint_names, full.units)))
                raise TrajectoryError(f"not exported: {len(found)} limit violations: "
                                      + "; ".join(lines))
        written, violations = TIO.export_trajectory(
            traj, path, include_virtual=include_virtual, every_frame=every_frame,
            angle_step=angle_step, length_step=length_step)
    except TrajectoryError:
        raise
    except (ValueError, OSError) as e:
        raise TrajectoryError(f"{e}; nothing was written" if isinstance(e, ValueError)
                              else str(e)) from None
    return ExportResult(path, written, start, end, violations, notes)
