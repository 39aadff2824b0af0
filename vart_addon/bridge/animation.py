"""F-curves of an ID through Blender's slotted actions (Blender >= 4.4; the only kind in 5.0).

In Blender 5.0 an action holds layers, each with strips; a keyframe strip holds one
*channelbag* per action slot, and the F-curves live in the channelbag of the slot the ID is
assigned to (``animation_data.action_slot``). ``action.fcurves`` no longer exists. Everything
that looks for F-curves goes through :func:`fcurves_of`, so this knowledge stays here.
"""
from __future__ import annotations

from .schema import q_data_path


def fcurves_of(idblock) -> list:
    """The F-curves animating ``idblock`` (an object, ...) in its assigned action and slot;
    [] if it has no action. Older Blenders (legacy actions) use ``action.fcurves``."""
    ad = getattr(idblock, "animation_data", None)
    action = None if ad is None else ad.action
    if action is None:
        return []
    layers = getattr(action, "layers", None)
    slot = getattr(ad, "action_slot", None)
    if layers is None or (slot is None and not len(layers)):
        return list(getattr(action, "fcurves", ()))  # pragma: no cover - Blender < 4.4
    if slot is None:
        return []
    out = []
    for layer in layers:
        for strip in layer.strips:
            if strip.type != 'KEYFRAME':
                continue
            bag = strip.channelbag(slot)
            if bag is not None:
                out.extend(bag.fcurves)
    return out


def find_fcurve(idblock, data_path: str, index: int = 0):
    """The F-curve of ``data_path[index]`` on ``idblock``, or None."""
    for fc in fcurves_of(idblock):
        if fc.data_path == data_path and fc.array_index == index:
            return fc
    return None


def q_fcurves(child_ob, joint: str) -> dict:
    """F-curves of a joint's q on its child object, by DoF index."""
    path = q_data_path(joint)
    return {fc.array_index: fc for fc in fcurves_of(child_ob) if fc.data_path == path}


def keyframe_q(child_ob, joint: str, frame: float | None = None, index: int = -1) -> bool:
    """Insert a keyframe on a joint's q (all DoF when ``index`` is -1) at ``frame`` (default:
    the current frame). Returns True if Blender inserted it."""
    kw = {} if frame is None else {"frame": frame}
    return bool(child_ob.keyframe_insert(data_path=q_data_path(joint), index=index, **kw))
