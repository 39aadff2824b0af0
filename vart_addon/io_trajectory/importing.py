"""Trajectory import: a .csv, .json or .path file read for a scene and keyed onto its joints,
then baked.

**Import** (:func:`import_trajectory`, :func:`apply_trajectory`): a .csv, .json or .path file
(a .path has no joint names: its columns are the scene's real joint columns in export order,
or all of them if the count says so). File columns are matched to scene columns by name; a
.csv's units must agree with the scene's joint kinds. *Decision: the file's values are keyed
on the tree joints' q* (bulk, :func:`.bridge.animation.write_keys`, linear interpolation, key
type KEYFRAME, channel group "Vart", keys of the file's frame span replaced; a curve that an
earlier bake wrote is moved out of the "Vart Bake" group), so they are what the user animated:
editable in the Graph Editor, inputs of the next bake. Then the existing bake
(:func:`vart_addon.animation.bake.bake`) runs over the frames spanned (``bake=True``, default), so every
link's pose and every other joint's value (closures, joints not in the file) get keys too and
playback needs no solver. Closure joints and mimic followers are not keyed (their values
follow the solve: a closure's q is output only, a follower's is its leader's). Frame =
``start_frame + time * fps``, so waypoints between frames give keys between frames. File
columns not in the scene, and real scene columns not in the file, are listed in the result
(``missing_in_scene``, ``not_in_file``). A file that cannot be read or matches no keyable
joint raises :class:`TrajectoryError` with nothing changed. A bake that fails after the keys
were written leaves the keys (``bake_error`` says why): they are valid animation, and the
operator's undo step removes them.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import bpy
import numpy as np

from ..bridge import BridgeError, SceneBridge
from ..bridge import animation as A
from ..bridge import schema as S
from ..formats.trajectory import files as TIO
from ..formats.trajectory import model as TR
from ..solver.text import listed, show
from ..solver.validate import MAX_MAGNITUDE
from .joint_columns import TrajectoryError, _link_objects, columns, format_of
from .robot_base import robot_tree
from .sampling import fps_of

if TYPE_CHECKING:  # the bake is imported when it runs
    from ..animation.bake_result import BakeResult

__all__ = ["read_trajectory", "apply_trajectory", "import_trajectory", "ImportResult"]

#: Blender's frame bounds (MINAFRAME, MAXFRAME).
MIN_FRAME, MAX_FRAME = -1048574, 1048574


def read_trajectory(path, scene=None, cols=None) -> TR.Trajectory:
    """Read a trajectory file for ``scene``: a .path's columns are named after the scene's
    real joint columns (or all columns, if that is the count); the kinds of .json and .path
    columns are the scene's. Raises :class:`TrajectoryError`."""
    scene = scene or bpy.context.scene
    path = os.fspath(path)
    fmt = format_of(path)
    if cols is None:
        obs = _link_objects(scene)
        cols = columns(scene, S.read_scene(obs.values()), velocities=False)
    try:
        traj = TIO.load_trajectory(path)
    except (ValueError, OSError) as e:
        raise TrajectoryError(str(e)) from None
    by_name = {c.name: c for c in cols}
    try:
        if fmt.layout is not TIO.NAMED:  # the robot's configuration, or the scene's columns
            layout = _config_layout(scene, fmt.layout)
            if layout is not None and layout.size == traj.n_joints:
                return layout.from_config(traj)
            real = [c for c in cols if not c.virtual]
            pick = real if len(real) == traj.n_joints else \
                cols if len(cols) == traj.n_joints else None
            if pick is None:
                raise TrajectoryError(
                    f"{path}: milestones have {traj.n_joints} values, but the robot's "
                    f"{fmt.layout.title} has {layout.size if layout else 'no'} entries and the "
                    f"scene has {len(real)} real joint values ({len(cols)} with the virtual "
                    f"ones); a {fmt.extension} file has no joint names, so its values must be "
                    "one of those, in the order of an export: "
                    + ", ".join(c.name for c in real[:12]) + (" ..." if len(real) > 12 else ""))
            return traj.replace(joint_names=[c.name for c in pick],
                                kinds=[c.kind for c in pick])
        if not fmt.units:  # the scene's kinds
            return traj.replace(kinds=[by_name[n].kind if n in by_name else k
                                       for n, k in zip(traj.joint_names, traj.kinds)])
    except ValueError as e:
        if isinstance(e, TrajectoryError):
            raise
        raise TrajectoryError(f"{path}: {e}") from None
    for n, k in zip(traj.joint_names, traj.kinds):  # the file states its units
        c = by_name.get(n)
        if c is not None and c.kind != k:
            raise TrajectoryError(f"{path}: column {n!r} is in [{TR.UNITS[k]}] but joint "
                                  f"{c.joint!r} of the scene is {c.kind} "
                                  f"([{TR.UNITS[c.kind]}])")
    return traj


def _config_layout(scene, kind):
    """The configuration layout of class ``kind`` of the scene's robot, or None when it has
    none."""
    try:
        tree = robot_tree(scene)
        return None if tree is None else tree.config_layout(kind)
    except BridgeError:
        return None


@dataclass
class ImportResult:
    """What :func:`apply_trajectory` did: ``keyed`` (columns keyed), ``keys`` (keys written),
    ``first_frame`` / ``last_frame`` (the keys' span), ``missing_in_scene`` (file columns no
    scene joint has), ``not_in_file`` (real scene columns the file lacks),
    ``follow_solve`` (file columns of closure joints and mimic followers, not keyed),
    ``bake`` (the :class:`~vart_addon.animation.bake.BakeResult`, or None) and ``bake_error``."""

    path: str
    trajectory: TR.Trajectory
    start_frame: float
    first_frame: float = 0.0
    last_frame: float = 0.0
    keyed: list = field(default_factory=list)
    joints: list = field(default_factory=list)
    keys: int = 0
    missing_in_scene: list = field(default_factory=list)
    not_in_file: list = field(default_factory=list)
    follow_solve: list = field(default_factory=list)
    bake: BakeResult | None = None
    bake_error: str = ""
    base: str = ""
    base_skipped: str = ""

    def warnings(self, most: int = 6) -> list[str]:
        def names(xs):
            return listed(xs, most)
        out = []
        if self.missing_in_scene:
            out.append(f"{len(self.missing_in_scene)} joint values of the file are not in "
                       f"the scene (ignored): {names(self.missing_in_scene)}")
        if self.not_in_file:
            out.append(f"{len(self.not_in_file)} real joint values of the scene are not in "
                       f"the file (left as animated): {names(self.not_in_file)}")
        if self.follow_solve:
            out.append(f"{len(self.follow_solve)} joint values of closure or mimic joints "
                       f"follow the solve (not keyed): {names(self.follow_solve)}")
        if self.base_skipped:
            out.append(self.base_skipped)
        if self.bake_error:
            out.append(f"bake failed (the imported keys stay): {self.bake_error}")
        elif self.bake is not None and (self.bake.unmet or self.bake.stuck):
            out.append(self.bake.summary())
        return out

    def summary(self) -> str:
        s = (f"Imported {os.path.basename(self.path) or 'trajectory'}: "
             f"{self.trajectory.n_times} waypoints, {self.keys} keys on {len(self.keyed)} "
             f"joint values of {len(self.joints)} joints, frames {self.first_frame:g}-"
             f"{self.last_frame:g}")
        if self.base:
            s += f"; base {self.base!r} keyed"
        if self.bake is not None:
            s += f"; baked {self.bake.frames} frames"
        return s


def _check_range(c, values, times) -> None:
    """TrajectoryError naming the column, the time and the value if a value is beyond the
    joint's limits (continuous joints have none) or beyond what a scene can hold
    (:data:`~vart_addon.solver.validate.MAX_MAGNITUDE`): a bake could not use it."""
    unit = TR.UNITS[c.kind]
    big = np.flatnonzero(np.abs(values) > MAX_MAGNITUDE)
    if big.size:
        i = int(big[0])
        raise TrajectoryError(f"column {c.name!r} at t={show(times[i])} s: {show(values[i])} "
                              f"{unit} is beyond the {MAX_MAGNITUDE:g} a scene can hold; "
                              "nothing was keyed")
    tol = 1e-9 * max(1.0, abs(c.lower) if math.isfinite(c.lower) else 1.0,
                     abs(c.upper) if math.isfinite(c.upper) else 1.0)
    out = np.flatnonzero((values < c.lower - tol) | (values > c.upper + tol))
    if out.size and not c.continuous:
        i = int(out[0])
        raise TrajectoryError(f"column {c.name!r} at t={show(times[i])} s: {show(values[i])} "
                              f"{unit} is outside the joint's limits [{show(c.lower)}, "
                              f"{show(c.upper)}] ({out.size} samples); nothing was keyed")


def apply_trajectory(scene, traj: TR.Trajectory, start_frame=None, *, path: str = "",
                     bake: bool = True, bridge: SceneBridge | None = None, settings=None,
                     gravity=None, progress=None, cols=None) -> ImportResult:
    """Key ``traj`` onto the scene's joints from ``start_frame`` (default: the scene's start)
    and, with ``bake``, bake the frames it spans (see the module doc). ``settings``,
    ``gravity`` and ``progress`` go to the bake. Raises :class:`TrajectoryError` (or
    SchemaError) with nothing changed when nothing can be keyed."""
    from ..animation.bake import BAKE_GROUP
    from ..animation.bake import bake as run_bake
    from ..animation.keying import JOINT_GROUP
    scene = scene or bpy.context.scene
    if not isinstance(traj, TR.Trajectory):
        raise TrajectoryError(f"expected a Trajectory, got {type(traj).__name__}")
    if traj.n_times == 0 or traj.n_joints == 0:
        raise TrajectoryError("nothing to import: the trajectory is empty")
    start = float(scene.frame_start if start_frame is None else start_frame)
    if not math.isfinite(start):
        raise TrajectoryError(f"start frame must be finite, got {show(start_frame)}")
    frames = start + traj.times * fps_of(scene)
    if frames[0] < MIN_FRAME or frames[-1] > MAX_FRAME:
        raise TrajectoryError(f"the trajectory spans frames {frames[0]:g}-{frames[-1]:g}, "
                              f"beyond Blender's limits ({MIN_FRAME}..{MAX_FRAME})")
    obs = _link_objects(scene)
    if not obs:
        raise TrajectoryError("nothing to import onto: the scene has no links "
                              "(Vart > Make Links)")
    bridge = bridge or SceneBridge(scene)
    bridge.sync()  # validates the scene; the linkage says which joints are in the tree
    lk, data = bridge.linkage, bridge.data
    assert lk is not None and data is not None  # synced
    cols = cols if cols is not None else columns(scene, data, velocities=False)
    by_name = {c.name: c for c in cols}
    res = ImportResult(path, traj, start, float(frames[0]), float(frames[-1]))
    keyable = []
    for k, name in enumerate(traj.joint_names):
        c = by_name.get(name)
        if c is None:
            res.missing_in_scene.append(name)
        elif not lk.joints[c.joint].is_tree or data.joints[c.joint].mimic is not None:
            res.follow_solve.append(name)
        else:
            keyable.append((c, traj.positions[:, k]))
    in_file = set(traj.joint_names)
    res.not_in_file = [c.name for c in cols if not c.virtual and c.name not in in_file]
    if not keyable:
        why = (f"none of its {traj.n_joints} joint values is a joint of this scene"
               if not res.follow_solve else "its joints in this scene are closure or mimic "
               "joints, whose values follow the solve")
        raise TrajectoryError(f"nothing to import: {why} (file: "
                              + ", ".join(traj.joint_names[:8])
                              + (" ..." if traj.n_joints > 8 else "") + "; scene: "
                              + ", ".join(c.name for c in cols[:8])
                              + (" ..." if len(cols) > 8 else "") + ")")
    for c, values in keyable:  # nothing is keyed unless every value can be
        _check_range(c, values, traj.times)
    for c, values in keyable:
        ob = obs[c.child]
        fc = A.ensure_fcurve(ob, S.q_data_path(c.joint), c.index, JOINT_GROUP)
        if A.group_of(fc) == BAKE_GROUP:
            A.set_group(ob, fc, JOINT_GROUP)
        res.keys += A.write_keys(fc, frames, values, interpolation="LINEAR")
        res.keyed.append(c.name)
        if c.joint not in res.joints:
            res.joints.append(c.joint)
    if traj.base is not None and traj.base.moves():
        _key_base(traj.base, obs, frames, res)
    if bake:
        first = math.floor(frames[0] + 1e-4)
        last = max(math.ceil(frames[-1] - 1e-4), first)
        try:
            res.bake = run_bake(scene, first, last, bridge=bridge, settings=settings,
                                gravity=gravity, progress=progress)
        except BridgeError as e:
            res.bake_error = str(e)
    return res


def _key_base(base, obs: dict, frames, res: ImportResult) -> None:
    """Key the base link's location and rotation (its world poses; the bake takes them as a
    target on the link); a base link the scene lacks, or one under a Blender parent, is a
    warning."""
    from ..animation.bake_keys import Keyer
    from ..animation.keying import JOINT_GROUP, rotation_path
    from ..formats.trajectory.base_motion import matrices
    ob = obs.get(base.link)
    if ob is None or ob.parent is not None:
        res.base_skipped = (f"the base motion of {base.link!r} was not imported: "
                            + ("no such link in the scene" if ob is None else
                               f"it has a Blender parent ({ob.parent.name!r})"))
        return
    kr = Keyer(ob, obs)
    loc, rot = kr.channels(kr.world(matrices(base.poses)))
    for path, values in (("location", loc), (rotation_path(ob), rot)):
        for i in range(values.shape[1]):
            fc = A.ensure_fcurve(ob, path, i, JOINT_GROUP)
            if A.group_of(fc) == A.BAKE_GROUP:
                A.set_group(ob, fc, JOINT_GROUP)
            res.keys += A.write_keys(fc, frames, values[:, i], interpolation="LINEAR")
    res.base = base.link


def import_trajectory(scene, path, *, start_frame=None, bake: bool = True,
                      bridge: SceneBridge | None = None, settings=None, gravity=None,
                      progress=None) -> ImportResult:
    """Read ``path`` (:func:`read_trajectory`) and key it onto ``scene``
    (:func:`apply_trajectory`). Raises :class:`TrajectoryError` with nothing changed when the
    file cannot be read or matches nothing."""
    scene = scene or bpy.context.scene
    path = os.fspath(path)
    format_of(path)
    obs = _link_objects(scene)
    if not obs:
        raise TrajectoryError("nothing to import onto: the scene has no links "
                              "(Vart > Make Links)")
    cols = columns(scene, S.read_scene(obs.values()), velocities=False)
    traj = read_trajectory(path, scene, cols)
    return apply_trajectory(scene, traj, start_frame, path=path, bake=bake, bridge=bridge,
                            settings=settings, gravity=gravity, progress=progress, cols=cols)
