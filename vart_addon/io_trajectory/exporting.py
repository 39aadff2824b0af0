"""Trajectory export: a frame range of a scene, sampled (:mod:`.sampling`), written to a file
of a format of :data:`~vart_addon.formats.trajectory.files.TABLE` (.csv, .json, .path,
.goal.json).

**Export** (:func:`export_trajectory`): refuse a range no bake covers (``require_bake``),
sample the joints and the floating base (:mod:`.robot_base`), keep the joints the exported
URDF drives (for a controller's goal, an *actuated* format, less the mimic followers), or
those of one planning group of the robot's SRDF (:mod:`.joint_groups`), then
:func:`~vart_addon.formats.trajectory.files.export_motion` (real joints unless
``include_virtual``, continuous ones unwrapped, the base if it moves, optional re-timing
within the joints' limits, velocities and accelerations from every frame, limits checked on
every frame, waypoints, a ``.path`` in the robot's Klampt layout, atomic write).

*Decision: an export needs a bake of its range* (``require_bake=True``, and always from the
operator): the joints a bake does not key (the ones that follow virtual joints) hold stale
values otherwise. A scene whose motion is keyed on every real joint directly (a hand-keyed
arm, an imported trajectory not baked) passes ``require_bake=False`` to export the keys as
they are. *Decision: limit violations do not block the export* (unless
``refuse_violations``): they are returned and reported (WARNING, by joint and time) and the
file is written. A bake keeps tree joints within their limits, so violations come from
closure joints (penalised, not hard) or hand keys; the file is the evidence to inspect, and a
real controller enforces its own limits. Pipelines that must not write such a file pass
``refuse_violations=True``: nothing is written and the error lists them. An empty range, a
scene without real joints (nothing to export), an unknown extension or an unwritable path
raise :class:`TrajectoryError` before anything is written; an existing file is left untouched.
"""
from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass, field

import bpy
import numpy as np

from ..animation import bake_record
from ..formats.trajectory import files as TIO
from ..formats.trajectory import model as TR
from ..formats.trajectory.codecs import check_exportable
from ..formats.trajectory.ros_goal import GoalTolerances
from ..formats.trajectory.timing import Limits, RetimeResult
from ..formats.trajectory.timing import retime as retime_motion
from ..solver.text import show
from .joint_columns import TrajectoryError, acceleration_limits, format_of
from .joint_groups import group_joints
from .robot_base import robot_tree, sample_base
from .sampling import _frame_range, sample_trajectory

__all__ = ["export_trajectory", "export_timing", "ExportResult"]


def _step(what: str, v) -> float:
    ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
    if not (ok and math.isfinite(v) and v > 0):
        raise TrajectoryError(f"{what} must be a positive finite number, got {show(v)}")
    return float(v)


@dataclass
class ExportResult:
    """What :func:`export_trajectory` wrote: ``written`` (the waypoints, as in the file; for a
    ``.path``, the robot's Klampt configurations), ``violations`` (limit violations on every
    frame), ``notes`` (velocity limits that could not be read...), ``base`` (the floating
    base link exported, or None) and ``timing`` (the re-timing, or None)."""

    path: str
    written: TR.Trajectory
    frame_start: int
    frame_end: int
    violations: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    base: str | None = None
    timing: RetimeResult | None = None

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
        if self.base:
            head += f"; base {self.base!r} included"
        if self.timing is not None:
            head += "; " + self.timing.summary()
        if self.violations:
            joints = sorted({v.joint for v in self.violations})
            head += (f"; {len(self.violations)} limit violations on {len(joints)} joint"
                     + ("s" if len(joints) != 1 else "") + ": "
                     + "; ".join(self.violation_lines(5)))
        return head


def _check_baked(scene, start: int, end: int, what: str = "not exported") -> None:
    gaps = bake_record.uncovered(scene, start, end)
    if gaps:
        where = ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in gaps)
        raise TrajectoryError(
            f"{what}: frames {where} of {start}-{end} are not baked, so the joints that "
            f"follow the virtual ones have no values there; bake them first (Vart > Animation "
            f"> Bake Range over {start}-{end})")


#: URDF joint types a joint trajectory controller drives (one value each).
_DRIVEN = ("revolute", "continuous", "prismatic")


def _joint_of(column: str) -> str:
    """The joint of a column: ``joint`` or, of a joint with several values, ``joint/entry``."""
    return column.split("/")[0]


def _listed(names: list) -> str:
    return ", ".join(names[:8]) + (" ..." if len(names) > 8 else "")


def _urdf_joints_only(traj, tree, notes: list, actuated: bool = False):
    """``traj`` with only the real joints the exported URDF has as driven 1-DoF joints (what a
    ros2_control controller accepts; ``actuated``: less the mimic followers, which no
    controller commands); the others (loop closures, ball joints, floating ones) left out,
    said in ``notes``. Virtual columns stay (export_motion drops them)."""
    driven = {j.name for j in tree.robot.joints if j.type in _DRIVEN}
    followers = {j.name for j in tree.robot.joints if j.mimic is not None} if actuated \
        else set()
    keep, gone, mimics = [], [], []
    for k, (name, virtual) in enumerate(zip(traj.joint_names, traj.virtual)):
        joint = name if name in driven else _joint_of(name)
        if joint in followers and not virtual:
            mimics.append(joint)
        elif virtual or joint in driven:
            keep.append(k)
        elif joint not in gone:
            gone.append(joint)
    if gone:
        notes.append(f"left out: {len(gone)} real joints the exported URDF does not drive "
                     f"(loop closures, ball and floating joints): {_listed(gone)}")
    if mimics:
        notes.append(f"left out: {len(mimics)} mimic joints, which follow their leaders (a "
                     f"controller commands the leaders): {_listed(mimics)}")
    return traj if len(keep) == traj.n_joints else traj.columns(keep)


def _group_only(traj, scene, group: str, srdf, notes: list):
    """``traj`` with only the joints of planning group ``group`` (:mod:`.joint_groups`), in
    the group's order; the others left out, said in ``notes``. TrajectoryError when none of
    the group's joints is left to export."""
    order = {n: i for i, n in enumerate(group_joints(scene, group, srdf))}
    keep = sorted((k for k, n in enumerate(traj.joint_names) if _joint_of(n) in order),
                  key=lambda k: (order[_joint_of(traj.joint_names[k])], k))
    if not keep:
        raise TrajectoryError(f"nothing to export: joint group {group!r} has no joint "
                              f"that moves and that this export writes (its joints: "
                              f"{_listed(list(order)) or 'none'})")
    kept = set(keep)
    gone = sorted({_joint_of(n) for k, n in enumerate(traj.joint_names)
                   if k not in kept and not traj.virtual[k]})
    if gone:
        notes.append(f"left out of joint group {group!r}: {_listed(gone)}")
    return traj.columns(keep)


def _motion(scene, start: int, end: int, source: str, require_bake: bool,
            include_virtual: bool, actuated: bool, group, srdf, retime, limits, notes: list,
            refusal: str = "not exported"):
    """``(trajectory, robot tree or None, limits)``: what an export of frames
    ``start``..``end`` samples (every column at every frame; the joints the exported URDF
    drives, less mimic followers for an ``actuated`` format, unless ``include_virtual``;
    one planning group's; the floating base's poses), with ``limits`` completed by the
    robot's joint_limits.yaml acceleration limits when re-timing. ``refusal``: how a refusal
    of frames not baked begins."""
    traj = sample_trajectory(scene, start, end, source=source, notes=notes)
    if require_bake:
        _check_baked(scene, start, end, refusal)
    tree = robot_tree(scene)
    if tree is not None and not include_virtual:
        traj = _urdf_joints_only(traj, tree, notes, actuated)
    if group:
        traj = _group_only(traj, scene, group, srdf, notes)
    if tree is not None and tree.floating:
        frames = np.arange(start, end + 1)
        traj = traj.replace(base=sample_base(scene, tree, frames))
    own = acceleration_limits(scene) if retime else {}  # the robot's joint_limits.yaml
    if own:
        limits = dataclasses.replace(limits or Limits(), accelerations=tuple(
            sorted({**own, **dict((limits or Limits()).accelerations)}.items())))
    return traj, tree, limits


def export_timing(scene, retime: str, *, frame_start=None, frame_end=None,
                  limits: Limits | None = None, include_virtual: bool = False,
                  actuated: bool = False, group: str | None = None, srdf=None,
                  max_speedup: float = 10.0, source: str = "auto",
                  require_bake: bool = True) -> RetimeResult:
    """The re-timing :func:`export_trajectory` gives the frame range with the same
    arguments (``actuated``: for a controller's goal, ``.goal.json``), without writing a
    file: ``result.trajectory.times`` holds each frame's new time (s, the range's first
    frame at 0), e.g. for the physics replay of the motion the robot is sent
    (:func:`vart_addon.checks.replay.replay_scene_steps`). Raises :class:`TrajectoryError`
    (no joint with a limit, TOPP-RA not installed, an unknown method...)."""
    scene = scene or bpy.context.scene
    start, end = _frame_range(scene, frame_start, frame_end)
    traj, _, limits = _motion(scene, start, end, source, require_bake, include_virtual,
                              actuated, group, srdf, retime, limits, [], "cannot re-time")
    try:
        full = TR.unwrap(TR.select(traj, include_virtual))
        check_exportable(full)
        return retime_motion(full, limits or Limits(), retime, max_speedup)
    except (ValueError, TypeError) as e:
        raise TrajectoryError(f"frames {start}-{end}: {e}") from None


def export_trajectory(scene, path, *, frame_start=None, frame_end=None,
                      include_virtual: bool = False, every_frame: bool = False,
                      angle_step: float = math.radians(2.0), length_step: float = 0.02,
                      refuse_violations: bool = False, source: str = "auto",
                      require_bake: bool = True, derivatives: bool | None = None,
                      retime: str | None = None, limits: Limits | None = None,
                      max_speedup: float = 10.0, group: str | None = None, srdf=None,
                      tolerances: GoalTolerances | None = None) -> ExportResult:
    """Sample ``scene`` (default: the context's) over the frame range and write ``path``
    (.csv, .json, .path or .goal.json, by extension) atomically: the real joints the exported
    URDF drives (its revolute, continuous and prismatic joints; loop closures, ball and
    floating joints left out with a note), or every joint with ``include_virtual``, the
    floating base's pose when it moves, waypoints whenever a joint moved ``angle_step`` rad
    or ``length_step`` m (or ``every_frame``). ``require_bake``: refuse a range no bake
    covers (see the module doc). ``derivatives``: velocities and accelerations (default: in
    JSON and goals only). ``retime``: None (the scene's timing), ``"uniform"`` or
    ``"toppra"``, within the URDF's velocity limits (its joint_limits.yaml's, when the robot
    was imported with one, and that file's acceleration limits) and ``limits``
    (:class:`~vart_addon.formats.trajectory.timing.Limits`: defaults for joints without one,
    acceleration limits). ``group``: only the joints of this planning group of the robot's
    SRDF (``srdf``: its path; default the groups the import kept, :mod:`.joint_groups`), in
    the group's order.
    A controller's goal (``.goal.json``) names the actuated joints only (no mimic followers,
    no floating base) and carries ``tolerances``
    (:class:`~vart_addon.formats.trajectory.ros_goal.GoalTolerances`, default all 0: the
    controller's). Returns an :class:`ExportResult`; limit violations are in it and do
    not stop the export unless ``refuse_violations``. Raises :class:`TrajectoryError`
    (SchemaError for a corrupt scene) with nothing written."""
    scene = scene or bpy.context.scene
    path = os.fspath(path)
    fmt = format_of(path)
    angle_step, length_step = _step("angle_step", angle_step), _step("length_step", length_step)
    start, end = _frame_range(scene, frame_start, frame_end)
    notes: list = []
    traj, tree, limits = _motion(scene, start, end, source, require_bake, include_virtual,
                                 fmt.actuated, group, srdf, retime, limits, notes)
    layout = tree.config_layout(fmt.layout) if fmt.layout is not TIO.NAMED and \
        tree is not None else None
    try:
        if refuse_violations:
            full = TR.unwrap(TR.select(traj, include_virtual))
            found = [v for v in TR.check_limits(full)  # re-timing keeps velocities in
                     if not (retime and v.kind == "velocity")]
            if found:
                lines = TR.format_violations(found, dict(zip(full.joint_names, full.units)))
                raise TrajectoryError(f"not exported: {len(found)} limit violations: "
                                      + "; ".join(lines))
        done = TIO.export_motion(
            traj, path, include_virtual=include_virtual, every_frame=every_frame,
            angle_step=angle_step, length_step=length_step, derivatives=derivatives,
            retime=retime, limits=limits, max_speedup=max_speedup, layout=layout,
            options=tolerances)
    except TrajectoryError:
        raise
    except (ValueError, TypeError, OSError) as e:
        raise TrajectoryError(f"{e}; nothing was written" if not isinstance(e, OSError)
                              else str(e)) from None
    notes.extend(done.notes)
    base = traj.base.link if traj.base is not None and not fmt.actuated and (
        layout is not None or traj.base.moves()) else None
    if done.timing is not None:
        notes.extend(done.timing.notes)
    return ExportResult(path, done.written, start, end, done.violations, notes, base,
                        done.timing)
