"""The cached scene bridge and the solve settings of a scene.

Between user actions the bridge re-reads and validates the scene and patches its linkage
instead of rebuilding it (Blender stays the source of truth; undo and file loads are seen as
changes), so every operator, panel and example asks for the scene's bridge here.
"""
from __future__ import annotations

from ..bridge import SceneBridge, scene_key

#: The one cached bridge, keyed by its scene's ``scene_key`` (session uid). Cleared on
#: unregister; an edit that fails drops its cached linkage.
_bridge_cache: dict = {}


def bridge_for(scene):
    """The cached :class:`~vart_addon.bridge.SceneBridge` of ``scene`` (a new one for another
    scene, replacing the old)."""
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


def solve_kw(scene) -> dict:
    """Keyword arguments of :func:`vart_addon.bridge.edits.edit` for a solve with the scene's
    settings and gravity."""
    from ..properties import gravity_of, solver_settings
    return {"settings": solver_settings(scene), "gravity": gravity_of(scene)}
