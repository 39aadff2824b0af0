"""Curves in Blender's own plots: a joint's velocity, acceleration, and the physics replay's
tracking error and actuator force, keyed as F-curves beside its value ``q``.

Each joint's curves are animatable custom properties of its child link object, in the group
``ob["vart_plots"][joint]`` (:data:`PLOTS_KEY`), one float per DoF (index as in ``q``), keyed
at every frame of the range in the channel group *Vart Plots* (:data:`GROUP`), so the Graph
Editor draws them over the timeline next to ``["vart"]["joints"][joint]["q"]``:

- ``velocity`` (rad/s or m/s) and ``acceleration`` (rad/s^2 or m/s^2):
  :func:`key_motion_curves`, from each joint's q F-curves sampled at every frame, central
  differences over the frame times (``(frame - start) / fps``; one-sided at the ends, numpy's
  ``gradient``), as the trajectory export takes them;
- ``tracking_error`` (rad or m, target - reached) and ``force`` (N m or N, the actuator's):
  :func:`key_replay_curves`, from a :class:`vart_addon.physics.replay.ReplayResult`.

:func:`peaks` reads the curves back: per joint, the largest |velocity|, |acceleration| and
|force|, each with its frame and as a fraction of its limit (velocity and effort: the URDF the
robot was imported from; acceleration: the limits given, 0 none), worst first.
:func:`store_peaks` puts them in ``scene.vart.peaks`` for the sidebar list.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass

import bpy
import numpy as np

from ..bridge import animation as A
from ..bridge import schema as S
from ..io_urdf.exporter import source_template
from ..physics.replay import ReplayResult

__all__ = ["GROUP", "PLOTS_KEY", "Peak", "key_motion_curves", "key_replay_curves", "peaks",
           "plot_path", "store_peaks", "urdf_limits"]

PLOTS_KEY = "vart_plots"
GROUP = "Vart Plots"
MOTION = ("velocity", "acceleration")
REPLAY = ("tracking_error", "force")


def plot_path(joint: str, quantity: str) -> str:
    """The data path of a joint's plotted ``quantity`` on its child link object."""
    return f'["{PLOTS_KEY}"]["{joint}"]["{quantity}"]'


def _joints(scene) -> dict:
    """Joint name -> (child link object, its stored values ``q``) of every joint in the
    scene, read through the schema (:func:`vart_addon.bridge.schema.read_object`: a ``q``
    stored as a plain number is one value; a malformed one raises its SchemaError)."""
    out = {}
    for ob in scene.objects:
        if not S.is_link(ob):
            continue
        for j in S.read_object(ob)[1]:
            out[j.name] = (ob, j.q)
    return out


def key_plot(ob, joint: str, quantity: str, frames, values) -> int:
    """Key ``values`` (frames x DoF) of ``joint``'s ``quantity`` on ``ob`` at ``frames``
    (replacing the curves' keys in that span). Returns the number of keys written."""
    values = np.asarray(values, float).reshape(len(frames), -1)
    group = ob.get(PLOTS_KEY)
    if group is None:
        ob[PLOTS_KEY] = {}
        group = ob[PLOTS_KEY]
    if joint not in group:
        group[joint] = {}
    group[joint][quantity] = [float(v) for v in values[0]]
    path = plot_path(joint, quantity)
    span = (float(frames[0]), float(frames[-1]))
    n = 0
    for i in range(values.shape[1]):
        fc = A.ensure_fcurve(ob, path, i, GROUP)
        n += A.write_keys(fc, frames, values[:, i], replace=span)
    # a new custom property and its curves reach the depsgraph's animation only when the
    # object is tagged: without it, frame changes leave the property at its first value
    ob.update_tag()
    return n


def _range(scene, start, end) -> list[int]:
    start = int(scene.frame_start if start is None else start)
    end = int(scene.frame_end if end is None else end)
    if end <= start:
        raise ValueError(f"velocities need two or more frames, got {start}-{end}")
    return list(range(start, end + 1))


def _fps(scene) -> float:
    return float(scene.render.fps) / float(scene.render.fps_base)


def key_motion_curves(scene=None, frame_start=None, frame_end=None, *, progress=None) -> dict:
    """Key velocity and acceleration curves of every joint whose q is animated over the frame
    range (default the scene's; ValueError for fewer than two frames). Returns joint ->
    ``(velocity, acceleration)``, frames x DoF arrays (rad/s, rad/s^2 or m/s, m/s^2).
    ``progress(done, total)`` is called after each joint."""
    scene = scene or bpy.context.scene
    frames = _range(scene, frame_start, frame_end)
    t = (np.array(frames, float) - frames[0]) / _fps(scene)
    out = {}
    joints = _joints(scene)
    for k, (joint, (ob, stored)) in enumerate(joints.items()):
        if progress is not None:
            progress(k, len(joints))
        curves = A.q_fcurves(ob, joint)
        if not any(A.animates(fc) for fc in curves.values()):
            continue
        q = np.column_stack([A.sample(curves[i], frames) if i in curves else
                             np.full(len(frames), float(stored[i]))
                             for i in range(len(stored))])
        v = np.gradient(q, t, axis=0)
        a = np.gradient(v, t, axis=0)
        key_plot(ob, joint, "velocity", frames, v)
        key_plot(ob, joint, "acceleration", frames, a)
        out[joint] = (v, a)
    return out


def key_replay_curves(scene, result: ReplayResult, first_frame: int) -> list[str]:
    """Key tracking error and force curves of the replayed joints (frames from
    ``first_frame``, as far as the replay went) on the joints of the same name. Returns the
    joints keyed."""
    n = result.frames_done
    frames = list(range(int(first_frame), int(first_frame) + n))
    joints = _joints(scene)
    keyed = []
    for i, name in enumerate(result.joints):
        if name not in joints or n == 0:
            continue
        ob, _ = joints[name]
        key_plot(ob, name, "tracking_error", frames, result.error[:n, i])
        key_plot(ob, name, "force", frames, result.force[:n, i])
        keyed.append(name)
    return keyed


@dataclass
class Peak:
    """A joint's largest |value| of each plotted quantity (``velocity``, ``acceleration``,
    ``force``: (value, frame, fraction of the limit or nan without one)), ``worst`` the
    largest fraction (nan when no quantity has a limit), ``link`` its child object's name."""

    joint: str
    link: str
    velocity: tuple
    acceleration: tuple
    force: tuple

    @property
    def worst(self) -> float:
        fr = [q[2] for q in (self.velocity, self.acceleration, self.force) if q[2] == q[2]]
        return max(fr) if fr else float("nan")

    @property
    def worst_frame(self) -> int:
        """The frame of the worst fraction (else of the largest velocity)."""
        qs = [q for q in (self.velocity, self.acceleration, self.force) if q[2] == q[2]]
        return int(max(qs, key=lambda q: q[2])[1]) if qs else int(self.velocity[1])


def _largest(ob, joint: str, quantity: str):
    """(largest |key value| over every DoF, its frame) of a plotted quantity, or None."""
    best = None
    for fc in A.fcurves_of(ob):
        if fc.data_path != plot_path(joint, quantity) or not len(fc.keyframe_points):
            continue
        co = np.empty(2 * len(fc.keyframe_points), np.float32)
        fc.keyframe_points.foreach_get("co", co)
        k = int(np.argmax(np.abs(co[1::2])))
        v = abs(float(co[2 * k + 1]))
        if best is None or v > best[0]:
            best = (v, int(round(float(co[2 * k]))))
    return best


def urdf_limits(scene) -> dict:
    """Joint name -> (velocity limit, effort limit) from the URDF the robot came from, or
    the joint_limits.yaml it was imported with where that gives one (0: none)."""
    from ..io_urdf.importer import SOURCE_KEY
    obs = {ob.name: ob for ob in scene.objects if S.is_link(ob)}
    template = source_template(obs, list(obs), os.getcwd(), [])
    if template is None:
        return {}
    out = {j.name: (float(j.limit.velocity), float(j.limit.effort))
           for j in template.joints if j.limit is not None}
    for coll in scene.collection.children_recursive:
        listed = (coll.get(SOURCE_KEY) or {}).get("joint_limits") or {}
        for name, lim in dict(listed.get("joints", {})).items():
            v, e = out.get(name, (0.0, 0.0))
            out[name] = (float(lim.get("velocity", v)), float(lim.get("effort", e)))
    return out


def peaks(scene=None, *, acceleration_limit: float = 0.0,
          linear_acceleration_limit: float = 0.0) -> list[Peak]:
    """Per joint with plotted curves, its :class:`Peak`, worst fraction first (joints without
    any limit last, by largest velocity). ``acceleration_limit`` (rad/s^2) and
    ``linear_acceleration_limit`` (m/s^2) apply to revolute and prismatic joints; 0: none."""
    scene = scene or bpy.context.scene
    limits = urdf_limits(scene)
    out = []
    for joint, (ob, _) in _joints(scene).items():
        if joint not in ob.get(PLOTS_KEY, {}):
            continue
        jtype = str(ob[S.KEY]["joints"][joint].get("type", ""))
        vel_lim, effort = limits.get(joint, (0.0, 0.0))
        acc_lim = linear_acceleration_limit if jtype == "prismatic" else acceleration_limit
        row = {}
        for quantity, lim in (("velocity", vel_lim), ("acceleration", acc_lim),
                              ("force", effort)):
            got = _largest(ob, joint, quantity)
            v, f = got if got is not None else (0.0, scene.frame_start)
            row[quantity] = (v, f, v / lim if lim > 0 and got is not None else math.nan)
        out.append(Peak(joint, ob.name, **row))
    return sorted(out, key=lambda p: (math.isnan(p.worst), -(0 if math.isnan(p.worst)
                                                               else p.worst),
                                      -p.velocity[0]))


def store_peaks(scene) -> list[Peak]:
    """:func:`peaks` with the scene's acceleration limits, written to ``scene.vart.peaks``
    (one row per joint, worst first) for the sidebar list."""
    sv = scene.vart
    found = peaks(scene, acceleration_limit=sv.plot_acceleration_limit,
                  linear_acceleration_limit=sv.plot_linear_acceleration_limit)
    sv.peaks.clear()
    for p in found:
        row = sv.peaks.add()
        row.name, row.link, row.frame = p.joint, p.link, p.worst_frame
        row.worst = p.worst if p.worst == p.worst else -1.0
        row.velocity, row.acceleration, row.force = (
            q[2] if q[2] == q[2] else -1.0 for q in (p.velocity, p.acceleration, p.force))
    sv["peaks_index"] = -1  # no row chosen: a click picks one (and jumps)
    return found
