"""Joint trajectories out of and into a Blender scene: the bpy side of
:mod:`vart_addon.solver.trajectory` and :mod:`vart_addon.solver.trajectory_io`.

**Columns.** Every joint with a value (not ``fixed``) gives one column per DoF. A 1-DoF joint's
column is named like the joint; a multi-DoF joint's columns are ``joint/tx``, ``joint/rz``,
``joint/wx``... (the DoF names of :mod:`~vart_addon.solver.joint_types`, and MoveIt's
``joint/x`` convention for planar and floating joints). Columns are sorted by joint name, DoF
in order. Per column, from the stored joint (:mod:`.bridge.schema`): its kind (rad or m,
``JointType.is_angular``), position limits, virtual flag, and *continuous* for a rotation about
z (revolute, cylindrical, pin-slider, planar; not helical, whose rotation carries a
translation) without limits: exports unwrap those, never wrapping to +-pi. Velocity limits come
from the URDF the robot was imported from (the text its collection keeps, see
:mod:`.io_urdf.importer`): a 1-DoF joint of the collection named like a URDF joint (or like
it with Blender's ``.001`` suffix, as an import renames clashing joints) gets that joint's
``<limit velocity>`` when it is positive.

**Sampling** (:func:`sample_trajectory`): one sample per frame of the range, time
``(frame - start) / fps`` (``fps / fps_base``), each joint's value as the animation gives it.
``source="fcurves"`` evaluates the q F-curves directly (:func:`.bridge.animation.sample`;
a joint without an active curve keeps its stored value): fast, nothing in the scene changes.
``source="scene"`` steps the scene (``frame_set``) and reads the stored q: NLA strips, action
influence and drivers included; the current frame is restored. ``"auto"`` (default) takes
F-curves unless some link uses NLA tracks, an action influence below 1, tweak mode, or drivers
on its vart properties. Values are what the F-curves hold: single precision (about 7
significant digits).

**Export** (:func:`export_trajectory`): sample, then
:func:`~vart_addon.solver.trajectory_io.export_trajectory` (real joints unless
``include_virtual``, continuous ones unwrapped, limits checked on every frame, waypoints,
atomic write). *Decision: limit violations do not block the export* (unless
``refuse_violations``): they are returned and reported (WARNING, by joint and time) and the
file is written. A bake keeps tree joints within their limits, so violations come from
closure joints (penalised, not hard) or hand keys; the file is the evidence to inspect, and a
real controller enforces its own limits. Pipelines that must not write such a file pass
``refuse_violations=True``: nothing is written and the error lists them. An empty range, a
scene without real joints (nothing to export), an unknown extension or an unwritable path
raise :class:`TrajectoryError` before anything is written; an existing file is left untouched.

**Import** (:func:`import_trajectory`, :func:`apply_trajectory`): a .csv, .json or .path file
(a .path has no joint names: its columns are the scene's real joint columns in export order,
or all of them if the count says so). File columns are matched to scene columns by name; a
.csv's units must agree with the scene's joint kinds. *Decision: the file's values are keyed
on the tree joints' q* (bulk, :func:`.bridge.animation.write_keys`, linear interpolation, key
type KEYFRAME, channel group "Vart", keys of the file's frame span replaced; a curve that an
earlier bake wrote is moved out of the "Vart Bake" group), so they are what the user animated:
editable in the Graph Editor, inputs of the next bake. Then the existing bake
(:func:`vart_addon.bake.bake`) runs over the frames spanned (``bake=True``, default), so every
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
import re
from dataclasses import dataclass, field

import bpy
import numpy as np

from .bridge import BridgeError, SceneBridge
from .bridge import animation as A
from .bridge import schema as S
from .solver import trajectory as TR
from .solver import trajectory_io as TIO
from .solver.joint_types import CATALOG

__all__ = ["TrajectoryError", "Column", "columns", "sample_trajectory", "export_trajectory",
           "ExportResult", "read_trajectory", "apply_trajectory", "import_trajectory",
           "ImportResult", "velocity_limits", "FORMATS"]

FORMATS = TIO.FORMATS
#: Rotations about z that are periodic (a helical joint's carries its translation).
_PERIODIC = frozenset(("revolute", "cylindrical", "pin-slider", "planar"))
#: Blender's frame bounds (MINAFRAME, MAXFRAME).
MIN_FRAME, MAX_FRAME = -1048574, 1048574
SOURCES = ("auto", "fcurves", "scene")


class TrajectoryError(BridgeError):
    """A trajectory export or import that cannot be done; nothing was written or changed."""


# ---- columns ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Column:
    """One DoF of a scene joint as a trajectory column."""

    name: str
    joint: str
    index: int
    child: str          # the joint's child object (where its q is stored)
    kind: str           # "angular" | "linear"
    continuous: bool
    lower: float
    upper: float
    velocity: float | None
    virtual: bool
    jtype: str


def column_names(joint: str, jtype: str) -> list[str]:
    """The column names of a joint: its name for one DoF, ``joint/<dof>`` for more."""
    jt = CATALOG[jtype]
    return [joint] if jt.dof == 1 else [f"{joint}/{n}" for n in jt.layout]


def _link_objects(scene) -> dict:
    return {ob.name: ob for ob in scene.objects if S.is_link(ob)}


def _base_name(name: str) -> str:
    return re.sub(r"\.\d{3}$", "", name)


def velocity_limits(scene, data=None, notes=None) -> dict:
    """Joint name -> velocity limit (rad/s or m/s) from the URDFs the scene's robots were
    imported from (see the module doc). ``notes`` (a list) receives a line per URDF that
    could not be read again."""
    from .io_urdf.importer import SOURCE_KEY
    from .solver import urdf
    obs = _link_objects(scene)
    data = data if data is not None else S.read_scene(obs.values())
    out = {}
    for coll in scene.collection.children_recursive:
        src = coll.get(SOURCE_KEY)
        if src is None:
            continue
        source = str(src.get("file", ""))
        text = str(src.get("text", ""))
        try:
            robot = urdf.read_urdf(text, source_name=os.path.basename(source)) if text else \
                urdf.read_urdf(source)
        except (OSError, urdf.UrdfError) as e:
            if notes is not None:
                notes.append(f"velocity limits of {coll.name!r} unknown: its URDF cannot be "
                             f"read again ({e})")
            continue
        vel = {j.name: j.limit.velocity for j in robot.joints
               if j.limit is not None and j.limit.velocity > 0
               and j.type in ("revolute", "continuous", "prismatic")}
        if not vel:
            continue
        members = {ob.name for ob in coll.all_objects}
        for jn, j in data.joints.items():
            if j.child not in members or j.dof != 1 or jn in out:
                continue
            v = vel.get(jn, vel.get(_base_name(jn)))
            if v is not None:
                out[jn] = float(v)
    return out


def columns(scene, data=None, *, velocities: bool = True, notes=None) -> list[Column]:
    """The scene's trajectory columns (every joint with a value, sorted by name)."""
    obs = _link_objects(scene)
    data = data if data is not None else S.read_scene(obs.values())
    vel = velocity_limits(scene, data, notes) if velocities else {}
    out = []
    for jn, j in data.joints.items():  # sorted by name
        jt = CATALOG[j.type]
        if not jt.dof:
            continue
        ang = jt.is_angular()
        for i, name in enumerate(column_names(jn, j.type)):
            lo, hi = float(j.lower[i]), float(j.upper[i])
            cont = bool(jt.layout[i] == "rz" and j.type in _PERIODIC
                        and math.isinf(lo) and math.isinf(hi))
            out.append(Column(name, jn, i, j.child, "angular" if ang[i] else "linear", cont,
                              lo, hi, vel.get(jn) if jt.dof == 1 else None, bool(j.virtual),
                              j.type))
    return out


# ---- sampling -----------------------------------------------------------------------------
def fps_of(scene) -> float:
    r = scene.render
    return float(r.fps) / float(r.fps_base)


def _frame_range(scene, frame_start, frame_end) -> tuple[int, int]:
    start = scene.frame_start if frame_start is None else frame_start
    end = scene.frame_end if frame_end is None else frame_end
    for what, v in (("frame_start", start), ("frame_end", end)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TrajectoryError(f"{what} must be a whole frame number, got {v!r}")
    start, end = int(start), int(end)
    if end < start:
        raise TrajectoryError(f"empty frame range: frame {end} is before frame {start}; "
                              "nothing was exported")
    return start, end


def _needs_scene(obs: dict) -> bool:
    """True if the F-curves alone do not tell the motion (NLA, influence, drivers)."""
    for ob in obs.values():
        ad = ob.animation_data
        if ad is None:
            continue
        if len(ad.nla_tracks) or ad.use_tweak_mode or ad.action_influence < 1.0:
            return True
        if any(d.data_path.startswith(f'["{S.KEY}"]') and not d.mute for d in ad.drivers):
            return True
    return False


def sample_trajectory(scene=None, frame_start=None, frame_end=None, *, source: str = "auto",
                      velocities: bool = True, notes=None) -> TR.Trajectory:
    """Every joint column of ``scene`` (virtual ones included, flagged) at every frame of
    ``frame_start``..``frame_end`` (inclusive; default: the scene's range). See the module
    doc for ``source``. Raises :class:`TrajectoryError` (empty range, no joints) or
    SchemaError (a corrupt scene)."""
    scene = scene or bpy.context.scene
    if source not in SOURCES:
        raise TrajectoryError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
    start, end = _frame_range(scene, frame_start, frame_end)
    obs = _link_objects(scene)
    if not obs:
        raise TrajectoryError("nothing to export: the scene has no links (Vart > Make Links)")
    data = S.read_scene(obs.values())
    cols = columns(scene, data, velocities=velocities, notes=notes)
    if not cols:
        raise TrajectoryError("nothing to export: the scene has no joints with a value")
    frames = np.arange(start, end + 1, dtype=float)
    P = np.empty((frames.size, len(cols)))
    if source == "scene" or (source == "auto" and _needs_scene(obs)):
        frame0, sub0 = scene.frame_current, scene.frame_subframe
        try:
            for k, f in enumerate(frames):
                scene.frame_set(int(f))
                groups = {}
                for c, col in enumerate(cols):
                    g = groups.get(col.joint)
                    if g is None:
                        g = groups[col.joint] = obs[col.child][S.KEY]["joints"][col.joint]["q"]
                    P[k, c] = g[col.index]
        finally:
            scene.frame_set(frame0, subframe=sub0)
    else:
        maps = {}
        for c, col in enumerate(cols):
            ob = obs[col.child]
            fmap = maps.get(ob.name)
            if fmap is None:
                fmap = maps[ob.name] = A.fcurve_map(ob)
            fc = fmap.get((S.q_data_path(col.joint), col.index))
            if fc is not None and A.animates(fc):
                P[:, c] = A.sample(fc, frames)
            else:
                P[:, c] = data.joints[col.joint].q[col.index]
    if not np.isfinite(P).all():
        k, c = np.argwhere(~np.isfinite(P))[0]
        raise TrajectoryError(f"joint column {cols[c].name!r} is not finite at frame "
                              f"{int(frames[k])}")
    try:
        return TR.Trajectory([c.name for c in cols], (frames - start) / fps_of(scene), P,
                             kinds=[c.kind for c in cols],
                             continuous=[c.continuous for c in cols],
                             lower=[c.lower for c in cols], upper=[c.upper for c in cols],
                             velocity_limits=[c.velocity for c in cols],
                             virtual=[c.virtual for c in cols])
    except ValueError as e:
        raise TrajectoryError(f"the scene's joints cannot be exported: {e}") from None


# ---- export -------------------------------------------------------------------------------
def _extension(path) -> str:
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in FORMATS:
        raise TrajectoryError(f"unknown trajectory format {ext or '(no extension)'!r} for "
                              f"'{os.fspath(path)}': use .csv, .json or .path")
    return ext


def _step(what: str, v) -> float:
    ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
    if not (ok and math.isfinite(v) and v > 0):
        raise TrajectoryError(f"{what} must be a positive finite number, got {v!r}")
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
    _extension(path)
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


# ---- import -------------------------------------------------------------------------------
def read_trajectory(path, scene=None, cols=None) -> TR.Trajectory:
    """Read a trajectory file for ``scene``: a .path's columns are named after the scene's
    real joint columns (or all columns, if that is the count); the kinds of .json and .path
    columns are the scene's. Raises :class:`TrajectoryError`."""
    scene = scene or bpy.context.scene
    path = os.fspath(path)
    ext = _extension(path)
    if cols is None:
        obs = _link_objects(scene)
        cols = columns(scene, S.read_scene(obs.values()), velocities=False)
    try:
        traj = TIO.load_trajectory(path)
    except (ValueError, OSError) as e:
        raise TrajectoryError(str(e)) from None
    by_name = {c.name: c for c in cols}
    try:
        if ext == ".path":
            real = [c for c in cols if not c.virtual]
            pick = real if len(real) == traj.n_joints else \
                cols if len(cols) == traj.n_joints else None
            if pick is None:
                raise TrajectoryError(
                    f"{path}: milestones have {traj.n_joints} values, but the scene has "
                    f"{len(real)} real joint values ({len(cols)} with the virtual ones); a "
                    ".path file has no joint names, so its values must be those, in the "
                    "order of an export: " + ", ".join(c.name for c in real[:12])
                    + (" ..." if len(real) > 12 else ""))
            return traj.replace(joint_names=[c.name for c in pick],
                                kinds=[c.kind for c in pick])
        if ext == ".json":
            return traj.replace(kinds=[by_name[n].kind if n in by_name else k
                                       for n, k in zip(traj.joint_names, traj.kinds)])
    except ValueError as e:
        if isinstance(e, TrajectoryError):
            raise
        raise TrajectoryError(f"{path}: {e}") from None
    for n, k in zip(traj.joint_names, traj.kinds):  # .csv states its units
        c = by_name.get(n)
        if c is not None and c.kind != k:
            raise TrajectoryError(f"{path}: column {n!r} is in [{TR.UNITS[k]}] but joint "
                                  f"{c.joint!r} of the scene is {c.kind} "
                                  f"([{TR.UNITS[c.kind]}])")
    return traj


@dataclass
class ImportResult:
    """What :func:`apply_trajectory` did: ``keyed`` (columns keyed), ``keys`` (keys written),
    ``first_frame`` / ``last_frame`` (the keys' span), ``missing_in_scene`` (file columns no
    scene joint has), ``not_in_file`` (real scene columns the file lacks),
    ``follow_solve`` (file columns of closure joints and mimic followers, not keyed),
    ``bake`` (the :class:`~vart_addon.bake.BakeResult`, or None) and ``bake_error``."""

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
    bake: object = None
    bake_error: str = ""

    def warnings(self, most: int = 6) -> list[str]:
        def names(xs):
            return ", ".join(xs[:most]) + (f" and {len(xs) - most} more" if len(xs) > most
                                          else "")
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
        if self.bake is not None:
            s += f"; baked {self.bake.frames} frames"
        return s


def apply_trajectory(scene, traj: TR.Trajectory, start_frame=None, *, path: str = "",
                     bake: bool = True, bridge: SceneBridge | None = None, settings=None,
                     gravity=None, progress=None, cols=None) -> ImportResult:
    """Key ``traj`` onto the scene's joints from ``start_frame`` (default: the scene's start)
    and, with ``bake``, bake the frames it spans (see the module doc). ``settings``,
    ``gravity`` and ``progress`` go to the bake. Raises :class:`TrajectoryError` (or
    SchemaError) with nothing changed when nothing can be keyed."""
    from .bake import BAKE_GROUP, JOINT_GROUP, bake as run_bake
    scene = scene or bpy.context.scene
    if not isinstance(traj, TR.Trajectory):
        raise TrajectoryError(f"expected a Trajectory, got {type(traj).__name__}")
    if traj.n_times == 0 or traj.n_joints == 0:
        raise TrajectoryError("nothing to import: the trajectory is empty")
    start = float(scene.frame_start if start_frame is None else start_frame)
    if not math.isfinite(start):
        raise TrajectoryError(f"start frame must be finite, got {start_frame!r}")
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
    for c, values in keyable:
        ob = obs[c.child]
        fc = A.ensure_fcurve(ob, S.q_data_path(c.joint), c.index, JOINT_GROUP)
        if A.group_of(fc) == BAKE_GROUP:
            A.set_group(ob, fc, JOINT_GROUP)
        res.keys += A.write_keys(fc, frames, values, interpolation="LINEAR")
        res.keyed.append(c.name)
        if c.joint not in res.joints:
            res.joints.append(c.joint)
    if bake:
        first = math.floor(frames[0] + 1e-4)
        last = max(math.ceil(frames[-1] - 1e-4), first)
        try:
            res.bake = run_bake(scene, first, last, bridge=bridge, settings=settings,
                                gravity=gravity, progress=progress)
        except BridgeError as e:
            res.bake_error = str(e)
    return res


def import_trajectory(scene, path, *, start_frame=None, bake: bool = True,
                      bridge: SceneBridge | None = None, settings=None, gravity=None,
                      progress=None) -> ImportResult:
    """Read ``path`` (:func:`read_trajectory`) and key it onto ``scene``
    (:func:`apply_trajectory`). Raises :class:`TrajectoryError` with nothing changed when the
    file cannot be read or matches nothing."""
    scene = scene or bpy.context.scene
    path = os.fspath(path)
    _extension(path)
    obs = _link_objects(scene)
    if not obs:
        raise TrajectoryError("nothing to import onto: the scene has no links "
                              "(Vart > Make Links)")
    cols = columns(scene, S.read_scene(obs.values()), velocities=False)
    traj = read_trajectory(path, scene, cols)
    return apply_trajectory(scene, traj, start_frame, path=path, bake=bake, bridge=bridge,
                            settings=settings, gravity=gravity, progress=progress, cols=cols)
