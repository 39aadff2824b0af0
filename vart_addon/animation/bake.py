"""Key Pose and Bake: from what the user animated to keyframes of every link and joint value.

**Key Pose** (:func:`.keying.key_pose`) keys every link's transform and every joint's q at a
frame (:mod:`.keying`).

**Bake** (:func:`bake`) over a frame range:

1. *Inputs* are the F-curves on link objects that are not in the :data:`BAKE_GROUP` channel
   group (curves there are the output of an earlier bake): animated joint values, link
   transforms and other vart properties, each made a goal as :mod:`.bake_inputs` says.
2. Each frame: ``scene.frame_set`` (the first through :func:`.shared.frames.set_frame`, so
   animated values written since, within single precision of their keys, are the keys'
   again), the inputs become goals, the solver runs warm-started
   from the previous frame's solution (:mod:`.frame_step`, the step live mode shares), and
   every link's pose and every joint's q are collected (nothing is written to the scene
   while it runs: a failure keys nothing).
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

import bpy
import numpy as np

from ..bridge import SceneBridge
from ..bridge import animation as A
from ..bridge.joint_values import closure_qs
from ..shared.frames import kept_frame, run_steps, set_frame
from ..solver import Settings, VartError
from .bake_inputs import last_key
from .bake_keys import Keyer, write_baked
from .bake_record import claim
from .bake_result import BakeError, BakeResult
from .frame_step import INPUT_TOL, FrameSolver
from .live import paused as live_paused

BAKE_GROUP = A.BAKE_GROUP


# ---- bake -------------------------------------------------------------------------------------
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
    return run_steps(steps, progress)


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
    stepper = FrameSolver.start(bridge, settings, gravity, input_tol)
    lk, data, obs, inputs = stepper.lk, stepper.data, stepper.obs, stepper.inputs
    n = end - start + 1
    res = BakeResult(start, end, inputs=inputs.described, last_key=last_key(obs, inputs))
    keyers = {nm: Keyer(ob, obs) for nm, ob in obs.items()}
    model = stepper.model
    names = list(obs)
    idx = np.array([model.index[nm] for nm in names])
    jlist = [(jn, j) for jn, j in lk.joints.items() if j.dof]
    T_out = np.empty((n, len(names), 4, 4))
    q_out = {jn: np.empty((n, j.dof)) for jn, j in jlist}
    # live mode stands aside (the bake starts where live mode started); back on the user's
    # frame, whatever happens below
    with live_paused(scene), kept_frame(scene):
        checkpoint = bridge.checkpoint()
        try:
            prev = None
            for k in range(n):
                f = start + k
                if k == 0:  # animated values exact (written since, e.g. by a solve: frames.py)
                    set_frame(scene, f, objects=obs.values())
                else:  # nothing writes them while the bake steps: Blender keeps them exact
                    scene.frame_set(f)
                sol = stepper.solve(f, prev)
                prev = sol.q
                res.solve_ms += sol.status.ms
                T_out[k] = sol.T[idx]
                fits = closure_qs(lk, sol.poses)
                for jn, j in jlist:
                    q_out[jn][k] = j.q if j.is_tree else fits[jn]
                for kr in keyers.values():
                    kr.record()
                res.statuses.append(sol.status)
                for g, e in sol.input_error.items():
                    res.input_error[g] = max(res.input_error.get(g, 0.0), e)
                for t, d in sol.deviation.items():
                    res.deviation[t] = max(res.deviation.get(t, 0.0), d)
                if sol.unmet:
                    res.unmet[f] = sol.unmet
                if sol.status.stuck:
                    res.stuck[f] = list(sol.status.stuck)
                yield k + 1, n
        except VartError as e:
            raise BakeError(f"frame {f}: {e}; nothing was keyed") from None
        finally:
            stepper.release(checkpoint)
        res.others = claim(scene, start, end, list(obs.values()))
        write_baked(res, obs, names, T_out, q_out, jlist, data, inputs, keyers, start)
    res.total_ms = (time.perf_counter() - t_start) * 1e3
    return res
