"""Sampling: the joint columns of a scene (:mod:`.joint_columns`) at every frame of a range, the
first step of a trajectory export (:mod:`.exporting`).

**Sampling** (:func:`sample_trajectory`): one sample per frame of the range, time
``(frame - start) / fps`` (``fps / fps_base``), each joint's value as the animation gives it.
``source="fcurves"`` evaluates the q F-curves directly (:func:`.bridge.animation.sample`;
a joint without an active curve keeps its stored value): fast, nothing in the scene changes.
``source="scene"`` steps the scene (``frame_set``) and reads the stored q: NLA strips, action
influence and drivers included; the current frame is restored. A q its action's F-curves or a
driver animate reads as the animation's single-precision value also where a solve wrote a
value within single precision of it (:func:`.shared.frames.set_frame`). ``"auto"`` (default) takes
F-curves unless some link uses NLA tracks, an action influence below 1, tweak mode, or drivers
on its vart properties. Values are what the F-curves hold: single precision (about 7
significant digits).
"""
from __future__ import annotations

from typing import Any

import bpy
import numpy as np

from ..bridge import animation as A
from ..bridge import joint_values as JV
from ..bridge import schema as S
from ..formats.trajectory import model as TR
from ..shared.frames import kept_frame, set_frame
from ..solver.text import show
from .joint_columns import TrajectoryError, _link_objects, columns

__all__ = ["sample_trajectory"]

SOURCES = ("auto", "fcurves", "scene")


def fps_of(scene) -> float:
    r = scene.render
    return float(r.fps) / float(r.fps_base)


def _frame_range(scene, frame_start, frame_end) -> tuple[int, int]:
    start = scene.frame_start if frame_start is None else frame_start
    end = scene.frame_end if frame_end is None else frame_end
    for what, v in (("frame_start", start), ("frame_end", end)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TrajectoryError(f"{what} must be a whole frame number, got {show(v)}")
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
        with kept_frame(scene):
            for k, f in enumerate(frames):
                if k == 0:  # animated values exact (see shared.frames); Blender keeps them so
                    set_frame(scene, int(f), objects=obs.values())
                else:
                    scene.frame_set(int(f))
                groups: dict[str, Any] = {}
                for c, col in enumerate(cols):
                    g = groups.get(col.joint)
                    if g is None:  # a q stored as a number is one value (issue 35)
                        g = groups[col.joint] = JV.stored_q(obs[col.child], col.joint,
                                                            data.joints[col.joint].dof)
                    P[k, c] = g[col.index]
    else:
        maps: dict[str, dict] = {}
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

