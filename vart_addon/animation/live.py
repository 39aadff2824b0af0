"""Live mode: scrub, play and render what is keyed without baking first.

With the scene's *Live* toggle on (``scene.vart.live``, Vart sidebar > Animation), every
frame change (scrubbing, playback, ``scene.frame_set``, rendering an animation) shows the
frame solved exactly as Bake Range would solve it (:mod:`.frame_step`, the step both share):
a chain from the scene's first frame, each frame warm-started from the one before with the
frame's animated values as goals. Frame ``f`` is reached by solving through the frames not
yet remembered before it (frame 40 straight from frame 1 solves 2..40), so the order frames
are visited in never changes a pose. The poses are written to the links and the joints' q
(not keyed). Frames outside the scene's frame range are not solved.

What is remembered (:mod:`.live_cache`) is shown again at the cost of writing it; an edited
key forgets the frames from the first one it changes, any other edit (a goal, a joint, the
solver settings), undo, loading a file and another scene forget them all.

The chain starts from the *seed*: the scene as it was at the first frame when live mode
started solving (an edit of the mechanism's structure that keeps its links carries the seed's
link poses into the new spanning tree). Turning live mode off puts the links back there (so Bake Range, which starts
from the scene as it is, bakes the motion live mode showed), unmutes the bake's curves (muted
while live) and removes live mode's timeline markers. A bake run while live mode is on does
the same for its duration (:func:`paused`).

Safety: frames with unmet goals get a timeline marker (``vart unmet: goal, ...``) and the
Vart status says what is unmet at the frame shown; an error is shown in the status, never
raised into playback or rendering. The handlers are added once and removed on unregister.
"""
from __future__ import annotations

from contextlib import contextmanager

import bpy
import numpy as np
from bpy.app.handlers import persistent

from ..bridge import animation as A
from ..bridge import build as B
from ..bridge import joint_values as JV
from ..bridge import scene_key
from ..bridge import schema as S
from ..bridge import sublinkages as SL
from ..properties import LIVE_TOGGLED, store_status, summary
from ..shared import handlers as H
from ..shared.bridge_cache import bridge_for, cached_bridge, keep_goals, release_kept, solve_kw
from ..shared.edit_count import edit_count
from .bake_result import BakeError
from .frame_step import FrameSolver
from .inputs_at import InputPoser, nested_frame_set_safe, plain
from .live_cache import LiveCache, LiveFrame, scan, unmute_bake_curves

#: Name prefix of the timeline markers live mode puts on frames with unmet goals.
MARKER = "vart unmet"

#: Live mode's memory, by ``scene_key`` of the scene.
_caches: dict[int, LiveCache] = {}
#: Nonzero while live mode must not react to frame changes (its own stepping, a bake).
_hold = [0]
#: The last error printed (printed once, not at every frame).
_last_error = [""]


def is_live(scene) -> bool:
    settings = getattr(scene, "vart", None)
    return bool(getattr(settings, "live", False))


def cache_of(scene) -> LiveCache:
    """Live mode's memory of ``scene`` (made if missing)."""
    return _caches.setdefault(scene_key(scene), LiveCache())


def link_objects(scene) -> dict:
    return {ob.name: ob for ob in scene.objects if S.is_link(ob)}


# ---- showing a frame --------------------------------------------------------------------------
def show_frame(scene) -> None:
    """Show ``scene``'s current frame solved (see the module doc), if live mode is on. Never
    raises: an error goes to the Vart status (and is printed once)."""
    if _hold[0] or not is_live(scene):
        return
    try:
        _show(scene, cache_of(scene))
    except Exception as e:  # noqa: BLE001 - nothing may raise into playback or rendering
        _report_error(scene, e)


def _show(scene, cache: LiveCache) -> None:
    f = scene.frame_current
    obs = link_objects(scene)
    kw = solve_kw(scene, bake=True)
    curves, driven = scan(obs)
    static = cache.static_signature(obs, curves, driven,
                                    (scene.frame_start, kw["settings"], kw["gravity"],
                                     SL.read_hierarchy(scene, obs.values())),  # sublinkages
                                    edit_count())
    _unmark(scene, cache.validate(static, curves))
    bridge = cached_bridge(scene)  # with the chain's goals, if it kept them there
    if cache.solver is not None and (bridge is not cache.solver.bridge
                                     or bridge.linkage is not cache.solver.lk):
        _unmark(scene, cache.forget())  # the bridge was rebuilt (another scene, an edit)
    start, end = scene.frame_start, scene.frame_end
    if not start <= f <= end:
        _set_status(scene, cache, f, f"Live: frame {f} is outside the frame range "
                    f"{start}-{end}; it is not solved")
        return
    entry = cache.frames.get(f)
    if entry is None:
        entry = _solve_through(scene, cache, f, kw, curves, driven)
    assert cache.solver is not None  # frames are remembered with their chain
    bridge = cache.solver.bridge
    lk = bridge.linkage
    assert lk is not None  # the chain's solver holds it
    lk.model().q_to_joints(entry.q)
    # no view-layer update here: Blender evaluates what a frame-change handler wrote (and
    # an update would run every depsgraph handler once more per frame)
    written = bridge.write_back(evaluate=False, obs=obs, closure_q=entry.closure_q)
    entry.closure_q = written.closure_q
    text = _frame_text(f, entry)
    if cache.shown != (f, text):  # the status of the frame shown (not rewritten per frame)
        store_status(scene, entry.status)
        _set_status(scene, cache, f, text)


def _solve_through(scene, cache: LiveCache, f: int, kw: dict, curves: dict,
                   driven: tuple) -> LiveFrame:
    """Solve the frames after the last remembered one up to ``f`` (from the scene's first
    frame if none is), each warm-started from the one before, remember them and return
    ``f``'s. Each frame's inputs are posed from their F-curves (:mod:`.inputs_at`): a frame
    change inside the frame-change handler crashes Blender 4.2 to 5.0 later on, and while
    an animation renders, Blender evaluates it into the render's own copy of the scene, not
    into the objects the handler reads. Where the animation is not plain, the frames before
    ``f`` are reached by frame changes on Blender 5.2 and later; on older ones ``f`` is then
    solved from the last remembered frame and not remembered (its status says so). Where
    Blender evaluated a frame, the animated custom properties (``curves``, ``driven``:
    ``(link, data path, index)``) are made exactly their animated values first
    (:func:`.bridge.animation.settle_animated`: live mode itself writes the joints' q, and
    Blender does not rewrite a q within single precision of its key); posed ones already are.

    The chain's goals stay on the scene's bridge afterwards (:func:`keep_goals`: whoever
    asks for the bridge next takes them off), so the next frame change solves with the
    solver's analysis of them as it is (once per chain, not once per frame)."""
    if cache.solver is None:
        _unmark(scene)  # markers of a forgotten chain (undo, a file)
        cache.solver = FrameSolver.start(bridge_for(scene), kw["settings"], kw["gravity"])
        cache.start = scene.frame_start
    solver = cache.solver
    bridge = solver.bridge
    assert cache.start is not None
    last = cache.last
    prev = None if last is None else cache.frames[last].q
    first = cache.start if last is None else last + 1
    poser = InputPoser(solver.obs, curves) if plain(solver.obs, curves, driven) else None
    alone = (poser is None and first < f and prev is not None
             and not nested_frame_set_safe())
    if alone:
        first = f
    frame, subframe = scene.frame_current, scene.frame_subframe
    settle: dict = {}  # what Blender evaluates (posed values are exact already)
    for n, path, i in (list(curves) + list(driven)) if poser is None else ():
        if path.startswith('["') and n in solver.obs:
            settle.setdefault(n, []).append((path, i))
    checkpoint = bridge.checkpoint()
    keep_goals(bridge, lambda: solver.release(bridge.checkpoint()))
    _hold[0] += 1
    try:
        for g in range(first, f + 1):
            if poser is not None:
                poser.pose(g)
            elif (scene.frame_current, scene.frame_subframe) != (g, 0.0):
                scene.frame_set(g)
            for n, props in settle.items():
                A.settle_animated(solver.obs[n], props)
            if prev is None:
                prev = _seed(cache, bridge, solver)
            sol = solver.solve(g, prev)
            prev = sol.q
            if alone:
                return LiveFrame(np.array(sol.q, float), sol.status, list(sol.unmet),
                                 alone=True)
            cache.remember(g, sol.q, sol.status, sol.unmet, curves)
            if sol.unmet:
                _mark(scene, g, sol.unmet)
        return cache.frames[f]
    except BaseException:  # the bridge back as it was before this pass, without the goals
        if poser is not None:
            poser.restore()
        release_kept()
        bridge.rollback(checkpoint)
        raise
    finally:
        try:
            if (scene.frame_current, scene.frame_subframe) != (frame, subframe):
                scene.frame_set(frame, subframe=subframe)
        finally:
            _hold[0] -= 1


def _seed(cache: LiveCache, bridge, solver: FrameSolver) -> np.ndarray:
    """The configuration a chain starts from, at its first frame: the remembered seed, in
    the linkage as it is now (:func:`_seed_q`), with the animated joints at their values
    here; without one (or with other links), the scene as it is (synced here), which becomes
    the seed. A structure edit once replaced the seed by the scene as live mode had moved it
    (issue 35: a tree flag edited into a cycle, and turning live mode off put links up to
    1.74 m from where the chain started)."""
    if bridge.sync() or bridge.linkage is not solver.lk:
        raise BakeError("the mechanism's structure changed at the first frame (animated "
                        "joint types, frames, parents or tree flags); only values can be "
                        "animated")
    model = solver.model
    now = model.q_from_joints()
    q = _seed_q(cache, bridge.data, solver.lk)
    if q is None:
        cache.seed = (B.resolved_structure_key(bridge.data, solver.lk), now.copy(),
                      JV.placement(solver.lk))
        return now
    for jn in solver.inputs.joints:
        sl = model.slice_of(solver.lk.joints[jn])
        q[sl] = now[sl]
    return q


def _seed_q(cache: LiveCache, data, lk) -> np.ndarray | None:
    """The seed's configuration for the linkage ``lk`` built from ``data`` (a copy): as
    remembered while its structure, as resolved, is the same; after a structure change that
    keeps the links (a tree flag, a joint's type or frames), the seed's placement in the new
    spanning tree, which becomes the seed. None without a seed or when the links changed."""
    if cache.seed is None:
        return None
    key = B.resolved_structure_key(data, lk)
    if cache.seed[0] == key:
        return cache.seed[1].copy()
    q = JV.q_at(lk, cache.seed[2])
    if q is not None:
        cache.seed = (key, q.copy(), cache.seed[2])
    return q


def restore_seed(scene) -> bool:
    """Put the links and joint values of ``scene`` back where live mode's chain started
    (the scene before live mode solved), if it remembers that and the links are the same
    (see :func:`_seed_q`). True if it did."""
    cache = _caches.get(scene_key(scene))
    if cache is None or cache.seed is None:
        return False
    bridge = bridge_for(scene)
    bridge.sync()
    q = None if bridge.linkage is None else _seed_q(cache, bridge.data, bridge.linkage)
    if q is None:
        return False
    bridge.linkage.model().q_to_joints(q)
    bridge.write_back()
    return True


# ---- status and markers -----------------------------------------------------------------------
def _frame_text(f: int, entry) -> str:
    alone = (" (solved from the last frame solved before it; play through to it for the "
             "bake's answer)" if entry.alone else "")
    if entry.unmet:
        return (f"Live, frame {f}: unmet {', '.join(entry.unmet)} ({summary(entry.status)})"
                + alone)
    return f"Live, frame {f}: {summary(entry.status)}{alone}"


def _set_status(scene, cache: LiveCache, f: int, text: str) -> None:
    if cache.shown != (f, text):
        scene.vart.status_summary = text
        cache.shown = (f, text)


def _report_error(scene, e: Exception) -> None:
    text = f"Live, frame {scene.frame_current}: not solved: {e}"
    try:
        scene.vart.status_summary = text
        cache = _caches.get(scene_key(scene))
        if cache is not None:
            cache.shown = None
    except Exception:  # noqa: BLE001 - e.g. a scene being freed
        pass
    if text != _last_error[0]:
        _last_error[0] = text
        print(f"vart: {text}")


def _mark(scene, frame: int, unmet: list) -> None:
    scene.timeline_markers.new(f"{MARKER}: {', '.join(unmet)}", frame=frame)


def _unmark(scene, frames=None) -> None:
    """Remove live mode's markers (on ``frames`` only, if given)."""
    if frames is not None:
        frames = set(frames)
        if not frames:
            return
    markers = scene.timeline_markers
    for m in [m for m in markers if m.name.startswith(MARKER)]:
        if frames is None or m.frame in frames:
            markers.remove(m)


def markers(scene) -> dict:
    """Live mode's markers of ``scene``: frame -> marker name."""
    return {m.frame: m.name for m in scene.timeline_markers if m.name.startswith(MARKER)}


# ---- on and off -------------------------------------------------------------------------------
def on_toggle(scene, on: bool) -> None:
    """The Live toggle changed (``properties.LIVE_TOGGLED``). On: start afresh and show the
    current frame. Off: links back where the chain started, bake curves unmuted, markers
    removed, the current frame evaluated again (a bake's keys show)."""
    if on:
        _caches.pop(scene_key(scene), None)
        # the animation applied again before the handler shows the frame (values written
        # since, e.g. an animated joint's q by a solve, are the animation's again; the ones
        # Blender leaves, within single precision of it, the handler settles)
        scene.frame_set(scene.frame_current, subframe=scene.frame_subframe)
        return
    try:
        restore_seed(scene)
    except Exception as e:  # noqa: BLE001 - turning off must always succeed
        _report_error(scene, e)
    _caches.pop(scene_key(scene), None)
    unmute_bake_curves(link_objects(scene))
    _unmark(scene)
    scene.vart.status_summary = "Live off"
    _hold[0] += 1
    try:
        scene.frame_set(scene.frame_current, subframe=scene.frame_subframe)
    finally:
        _hold[0] -= 1


@contextmanager
def paused(scene):
    """Live mode stands aside while the body steps through frames itself (a bake): the
    scene is put back where live mode's chain started (as with live mode off, so the bake
    starts from the same place), frame changes are not solved, and afterwards the current
    frame is shown again (live mode remembers what it solved)."""
    live = is_live(scene)
    if live:
        try:
            restore_seed(scene)
        except Exception as e:  # noqa: BLE001 - the bake reports its own errors
            _report_error(scene, e)
    _hold[0] += 1
    try:
        yield
    finally:
        _hold[0] -= 1
        if live:
            cache = _caches.get(scene_key(scene))
            if cache is not None:
                cache.shown = None
            show_frame(scene)


def forget_all(keep_seeds: bool = True) -> None:
    """Forget every remembered frame (undo, redo); with ``keep_seeds`` False, everything
    (a file loaded)."""
    if not keep_seeds:
        _caches.clear()
        return
    for cache in _caches.values():
        cache.forget()
        cache.shown = None


# ---- handlers ---------------------------------------------------------------------------------
@persistent
def on_frame_change(scene, depsgraph=None):
    show_frame(scene)


@persistent
def on_load_post(*_args):
    forget_all(keep_seeds=False)


@persistent
def on_undo_redo(*_args):
    forget_all()


def _handlers():
    h = bpy.app.handlers
    return ((h.frame_change_post, on_frame_change), (h.load_post, on_load_post),
            (h.undo_post, on_undo_redo), (h.redo_post, on_undo_redo))


def register() -> None:
    for handlers, fn in _handlers():
        H.add(handlers, fn)
    H.add(LIVE_TOGGLED, on_toggle)
    forget_all(keep_seeds=False)


def unregister() -> None:
    for handlers, fn in _handlers():
        H.remove(handlers, fn)
    H.remove(LIVE_TOGGLED, on_toggle)
    forget_all(keep_seeds=False)
