"""The cached scene bridge and the solve settings of a scene.

Between user actions the bridge re-reads and validates the scene and patches its linkage
instead of rebuilding it (Blender stays the source of truth; undo and file loads are seen as
changes), so every operator, panel and example asks for the scene's bridge here.
"""
from __future__ import annotations

import dataclasses

from ..bridge import SceneBridge, scene_key

#: The one cached bridge, keyed by its scene's ``scene_key`` (session uid). Cleared on
#: unregister; an edit that fails drops its cached linkage.
_bridge_cache: dict = {}


#: Goals left on the cached bridge's linkage between their owner's uses, as ``[(bridge,
#: release)]``: live mode keeps its chain's input targets there from frame to frame, so the
#: solver analyses them once per chain instead of once per frame (a goal added or removed
#: means a new analysis: about 40 ms on the 271-link tower).
_kept: list = []


def keep_goals(bridge, release) -> None:
    """Leave goals of one's own on ``bridge``'s linkage between uses: :func:`bridge_for`
    calls ``release()`` (which takes them off) before it hands the bridge to anyone, the
    owner included; :func:`clear_bridge_cache` forgets it with the bridge."""
    _kept[:] = [(bridge, release)]


def release_kept() -> None:
    """Take the goals :func:`keep_goals` left on the cached bridge off it (if any)."""
    if _kept:
        (_bridge, release), = _kept
        _kept.clear()
        release()


def cached_bridge(scene):
    """The cached bridge of ``scene`` as it is (goals :func:`keep_goals` left included), or
    None if the cache holds another scene's or none: for the owner of kept goals."""
    bridge = _bridge_cache.get(scene_key(scene))
    if bridge is not None:
        bridge.scene = scene
    return bridge


def bridge_for(scene):
    """The cached :class:`~vart_addon.bridge.SceneBridge` of ``scene`` (a new one for another
    scene, replacing the old), without goals another user kept on it (:func:`keep_goals`)."""
    release_kept()
    # a wrong hit (an address key of older Blenders) costs nothing: the bridge re-reads and
    # validates the scene anyway
    uid = scene_key(scene)
    bridge = _bridge_cache.get(uid)
    if bridge is None:
        _bridge_cache.clear()
        bridge = _bridge_cache[uid] = SceneBridge(scene)
    bridge.scene = scene  # the live reference (an older one may be stale after an undo)
    return bridge


def clear_bridge_cache() -> None:
    _bridge_cache.clear()
    _kept.clear()


#: Iterations a one-shot solve (Operate Joint, Solve) may take at least: a big move must
#: converge or stop improving, not stop at a drag's cap (story 2's 1.3 m trench takes 7; a
#: move out of reach stalls in tens).
ONE_SHOT_ITERATIONS = 1000


def solve_kw(scene, *, one_shot: bool = False, bake: bool = False) -> dict:
    """``settings`` and ``gravity`` of a solve with the scene's settings (keyword arguments of
    :func:`vart_addon.bridge.edits.edit`, and of the bake). ``one_shot``: a solve the user
    asked for once (not a drag frame): no time budget and at least
    :data:`ONE_SHOT_ITERATIONS`, so it ends converged or where it stops improving. ``bake``:
    each frame of a bake: no time budget, the scene's iterations."""
    from ..properties import gravity_of, solver_settings
    settings = solver_settings(scene)
    if one_shot:
        settings = dataclasses.replace(
            settings, max_ms=None,
            max_iterations=max(settings.max_iterations, ONE_SHOT_ITERATIONS))
    elif bake:
        settings = dataclasses.replace(settings, max_ms=None)
    return {"settings": settings, "gravity": gravity_of(scene)}
