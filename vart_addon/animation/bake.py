"""Key Pose and Bake: from what the user animated to keyframes of every link and joint value.

**Key Pose** (:func:`.keying.key_pose`) keys every link's transform and every joint's q at a
frame (:mod:`.keying`).

**Bake** (:func:`bake`) over a frame range:

1. *Inputs* are the F-curves on link objects that are not in the :data:`BAKE_GROUP` channel
   group (curves there are the output of an earlier bake): animated joint values, link
   transforms and other vart properties, each made a goal as :mod:`.bake_inputs` says.
2. Each frame: ``scene.frame_set``, the inputs become goals, the solver runs warm-started
   from the previous frame's solution, and every link's pose and every joint's q are
   collected (nothing is written to the scene while it runs: a failure keys nothing).
3. The bake takes over its range (:mod:`.bake_record`): keys of earlier bakes it overlaps
   are removed over their whole range, and its range is recorded.
4. Keys are written in bulk per F-curve: every link's location and rotation channel, every
   joint's q, in curves of the BAKE_GROUP; input curves whose goal held stay as the user
   made them (:mod:`.bake_keys`).

Afterwards the F-curves are the motion: playback needs no solver. What the bake did, and the
frames where a goal was unmet, is its :class:`BakeResult` (:mod:`.bake_result`).
"""
from __future__ import annotations

import time
from dataclasses import replace

import bpy
import numpy as np

from ..bridge import SceneBridge
from ..bridge import animation as A
from ..bridge import build as B
from ..bridge import poses as P
from ..bridge import schema as S
from ..bridge.scene import closure_qs
from ..shared.frames import kept_frame
from ..solver import Settings, VartError
from .bake_inputs import TARGET, find_inputs
from .bake_keys import Keyer, write_baked
from .bake_record import claim
from .bake_result import BakeError, BakeResult

BAKE_GROUP = A.BAKE_GROUP


# ---- bake -------------------------------------------------------------------------------------
def _release(bridge, lk, data, inputs, checkpoint):
    """Take the bake's own goals off the linkage (stored goals as the data says; the link
    targets the bridge holds are re-applied by the rollback) and put the bridge's cache back
    to where it was: the next sync reconciles it with the scene (now keyed) without
    rebuilding the linkage."""
    try:
        if bridge.linkage is lk:
            if inputs.sync:  # goals followed the animation: patch them back to the data's
                B.patch_goals(lk, bridge.data, data)
            for jn in inputs.joints:
                B.apply_joint_goals(lk, data.joints[jn])
            for ln in inputs.links:
                lk.clear_link_target(ln)
        bridge.rollback(checkpoint)
    except Exception:  # never leave a half-restored cache behind
        bridge.invalidate()


def _input_errors(lk, inputs, poses, targets) -> dict:
    """Goal name -> how far the solution is from each input's target (largest DoF error, m
    or rad; for a link the larger of its position error and rotation angle, masked)."""
    out = {}
    for jn, (_, mask) in inputs.joints.items():
        j = lk.joints[jn]
        out[TARGET.goal_id(j)] = float(np.abs(j.q - targets[jn])[mask].max())
    for ln, mask in inputs.links.items():
        T, Tt = poses[ln], targets[ln]
        e = 0.0
        if mask[:3].any():
            e = float(np.linalg.norm((T[:3, 3] - Tt[:3, 3])[mask[:3]]))
        if mask[3:].any():
            c = (np.trace(T[:3, :3] @ Tt[:3, :3].T) - 1.0) / 2.0
            e = max(e, float(np.arccos(np.clip(c, -1.0, 1.0))))
        out[TARGET.goal_id(lk.roots[ln])] = e
    return out


#: How close a solution must come to an animated value (m, rad) for its goal to count as met:
#: F-curves hold single-precision values, so animated poses and values agree with each other
#: only to about 1e-7 relative.
INPUT_TOL = 1e-5


def bake(scene=None, frame_start=None, frame_end=None, *, bridge: SceneBridge | None = None,
         settings: Settings | None = None, gravity=None, progress=None,
         input_tol: float = INPUT_TOL) -> BakeResult:
    """Bake ``frame_start``..``frame_end`` (inclusive; default: the scene's range) of
    ``scene`` (see the module doc). ``settings``: the solver's per frame (default: the
    bridge's; the bend predictor always off); ``gravity``: m/s^2 or None;
    ``progress(done, total)`` is called after each frame. An animated input counts as met
    within ``input_tol``; every other goal as the solver's tolerance says. Raises
    :class:`BakeError` (or SchemaError for a corrupt scene) with nothing keyed and the
    current frame restored."""
    steps = bake_steps(scene, frame_start, frame_end, bridge=bridge, settings=settings,
                       gravity=gravity, input_tol=input_tol)
    while True:
        try:
            done, total = next(steps)
        except StopIteration as stop:
            return stop.value
        if progress is not None:
            progress(done, total)


def bake_steps(scene=None, frame_start=None, frame_end=None, *,
               bridge: SceneBridge | None = None, settings: Settings | None = None,
               gravity=None, input_tol: float = INPUT_TOL):
    """:func:`bake` one frame at a time: a generator that yields ``(done, total)`` after each
    solved frame and returns the :class:`BakeResult` (``StopIteration.value``) once the keys
    are written. Closing it before the end (``steps.close()``, e.g. on Esc) stops the bake
    cleanly: nothing is keyed, the bridge is released and the current frame restored.
    Errors are raised by the ``next()`` that meets them, as :func:`bake` raises them."""
    t_start = time.perf_counter()
    scene = scene or bpy.context.scene
    start = int(scene.frame_start if frame_start is None else frame_start)
    end = int(scene.frame_end if frame_end is None else frame_end)
    if end < start:
        raise BakeError(f"empty frame range: frame {end} is before frame {start}; nothing "
                        "was baked")
    bridge = bridge or SceneBridge(scene)
    bridge.sync()
    obs = bridge.objects()
    if not obs:
        raise BakeError("nothing to bake: the scene has no links (Vart > Make Links)")
    lk, data = bridge.linkage, bridge.data
    assert lk is not None  # synced
    inputs = find_inputs(obs, data, lk)
    if not inputs:
        raise BakeError("nothing to bake: nothing is animated. Keyframe a joint's value, a "
                        "target, a lock or a link's transform (Key Pose keys the current "
                        "pose) and bake again")
    n = end - start + 1
    res = BakeResult(start, end, inputs=inputs.described)
    keyers = {nm: Keyer(ob, obs) for nm, ob in obs.items()}
    model = lk.model()
    names = list(obs)
    idx = np.array([model.index[nm] for nm in names])
    jlist = [(jn, j) for jn, j in lk.joints.items() if j.dof]
    T_out = np.empty((n, len(names), 4, 4))
    q_out = {jn: np.empty((n, j.dof)) for jn, j in jlist}
    lk.set_gravity(gravity)
    old_settings = bridge.settings
    # Without the bend predictor (solver.Settings), each frame's pose is a function of the
    # previous one's and the frame's goals only: re-baking part of a range gives the same keys.
    settings = replace(settings or old_settings, predict_bend=False)
    with kept_frame(scene):  # back on the user's frame, whatever happens below
        checkpoint = bridge.checkpoint()
        try:
            prev = None
            for k in range(n):
                f = start + k
                scene.frame_set(f)
                if inputs.sync or k == 0:  # first frame: start from the scene as it is there
                    if bridge.sync() or bridge.linkage is not lk:
                        raise BakeError(f"frame {f}: the mechanism's structure is animated "
                                        "(joint types, frames, parents or tree flags); only "
                                        "values can be baked")
                if prev is not None:
                    model.q_to_joints(prev)
                targets = {}
                for jn, (child, mask) in inputs.joints.items():
                    targets[jn] = np.array(obs[child][S.KEY]["joints"][jn]["q"], float)
                    lk.set_target(jn, targets[jn], mask)
                for ln, mask in inputs.links.items():
                    targets[ln] = P.rigid_and_scale(P.observe(obs[ln]), ln)[0]
                    lk.set_link_target(ln, targets[ln], mask)
                st = bridge.solve(settings if k == 0 else None, sync=False)
                res.solve_ms += st.ms
                q = model.q_from_joints()
                prev = q
                T = model.fk(q)
                if not np.isfinite(T).all():
                    raise BakeError(f"frame {f}: the solution is not finite; nothing was keyed")
                T_out[k] = T[idx]
                poses = {nm: T[i] for nm, i in model.index.items() if nm is not None}
                fits = closure_qs(lk, poses)
                for jn, j in jlist:
                    q_out[jn][k] = j.q if j.is_tree else fits[jn]
                for kr in keyers.values():
                    kr.record()
                res.statuses.append(st)
                errs = _input_errors(lk, inputs, poses, targets)
                for g, e in errs.items():
                    res.input_error[g] = max(res.input_error.get(g, 0.0), e)
                unmet = [g for g in st.unmet if g not in errs]
                unmet += [g for g, e in errs.items() if e > input_tol]
                if unmet:
                    res.unmet[f] = unmet
                if st.stuck:
                    res.stuck[f] = list(st.stuck)
                yield k + 1, n
        except VartError as e:
            raise BakeError(f"frame {f}: {e}; nothing was keyed") from None
        finally:
            bridge.settings = old_settings
            if bridge.solver is not None:
                bridge.solver.settings = old_settings
            _release(bridge, lk, data, inputs, checkpoint)
        res.others = claim(scene, start, end, list(obs.values()))
        write_baked(res, obs, names, T_out, q_out, jlist, data, inputs, keyers, start)
    res.total_ms = (time.perf_counter() - t_start) * 1e3
    return res
