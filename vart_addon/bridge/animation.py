"""F-curves of an ID on every supported Blender: the one place that knows the animation API.

Two kinds of action exist across Blender 4.2 to 5.x:

- **Legacy actions** (Blender < 4.4): the action holds its F-curves directly
  (``action.fcurves``, ``action.fcurves.new(path, index=, action_group=)``, ``action.groups``).
- **Slotted actions** (Blender >= 4.4, the only kind from 5.0 on): an action holds layers, each
  with strips; a keyframe strip holds one *channelbag* per action slot, and the F-curves live in
  the channelbag of the slot the ID is assigned to (``animation_data.action_slot``).
  ``Action.fcurve_ensure_for_datablock`` makes the slot, layer, strip and channelbag; it takes
  ``group_name`` from Blender 5.0 on (4.4 and 4.5 take three arguments), and 5.0 removed
  ``action.fcurves``.

Everything in vart that reads or makes F-curves goes through this module, so this knowledge
stays here; :data:`SLOTTED_FROM` and :data:`ENSURE_GROUP_FROM` are the two version lines.
"""
from __future__ import annotations

import re

import bpy

from .schema import q_data_path

#: The first Blender with slotted actions (layers, strips, channelbags, ``action_slot``).
SLOTTED_FROM = (4, 4, 0)
#: The first Blender whose ``Action.fcurve_ensure_for_datablock`` takes ``group_name``.
ENSURE_GROUP_FROM = (5, 0, 0)
_VERSION = tuple(bpy.app.version)  # of the running Blender: asked once, not per F-curve


def slotted_actions() -> bool:
    """True if this Blender's actions are slotted (4.4 and newer)."""
    return _VERSION >= SLOTTED_FROM


def _channelbags(idblock) -> list:
    """The channelbags of ``idblock``'s assigned slot in its action's keyframe strips (slotted
    actions); [] if it has no action or no slot."""
    ad = getattr(idblock, "animation_data", None)
    action = None if ad is None else ad.action
    slot = None if ad is None else ad.action_slot
    if action is None or slot is None:
        return []
    bags = []
    for layer in action.layers:
        for strip in layer.strips:
            if strip.type == 'KEYFRAME':
                bag = strip.channelbag(slot)
                if bag is not None:
                    bags.append(bag)
    return bags


def fcurves_of(idblock) -> list:
    """The F-curves animating ``idblock`` (an object, ...) in its assigned action (and slot);
    [] if it has no action."""
    ad = getattr(idblock, "animation_data", None)
    action = None if ad is None else ad.action
    if action is None:
        return []
    if not slotted_actions():
        return list(action.fcurves)
    return [fc for bag in _channelbags(idblock) for fc in bag.fcurves]


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


# ---- writing: F-curves made as needed, keys in bulk ----------------------------------------
#: The channel group of F-curves that :mod:`vart_addon.animation.bake` writes (and may rewrite): curves
#: in it are the solver's output, every other curve is what the user animated.
BAKE_GROUP = "Vart Bake"

# ``foreach_set`` on an enum takes the stored (DNA) value, not the item's position in the enum:
# keyframe types are KEYFRAME 0, EXTREME 1, BREAKDOWN 2, JITTER 3, MOVING_HOLD 4, GENERATED 5.
_INTERPOLATION = {"CONSTANT": 0, "LINEAR": 1, "BEZIER": 2}
_KEY_TYPE = {"KEYFRAME": 0, "EXTREME": 1, "BREAKDOWN": 2, "JITTER": 3, "MOVING_HOLD": 4,
             "GENERATED": 5}


def fcurve_map(idblock) -> dict:
    """``{(data_path, index): fcurve}`` of ``idblock``'s F-curves (one scan, for bulk work)."""
    return {(fc.data_path, fc.array_index): fc for fc in fcurves_of(idblock)}


def group_of(fc) -> str:
    """The name of the channel group of an F-curve ("" if none)."""
    g = fc.group
    return "" if g is None else g.name


def ensure_fcurve(idblock, data_path: str, index: int = 0, group: str = ""):
    """The F-curve of ``data_path[index]`` on ``idblock``, created if missing together with
    whatever it needs: animation data, an action (named like Blender names them,
    ``<name>Action``), and with slotted actions the action's slot for the ID, a layer, a
    keyframe strip and its channelbag. A new curve joins ``group``; an existing one keeps its
    group."""
    fc = find_fcurve(idblock, data_path, index)
    if fc is not None:
        return fc
    ad = idblock.animation_data or idblock.animation_data_create()
    if ad.action is None:
        ad.action = bpy.data.actions.new(f"{idblock.name}Action")
    action = ad.action
    if not slotted_actions():
        return action.fcurves.new(data_path, index=index, action_group=group)
    if _VERSION >= ENSURE_GROUP_FROM:
        return action.fcurve_ensure_for_datablock(idblock, data_path, index=index,
                                                  group_name=group)
    fc = action.fcurve_ensure_for_datablock(idblock, data_path, index=index)
    if group:
        set_group(idblock, fc, group)
    return fc


def write_keys(fc, frames, values, *, interpolation: str = "LINEAR",
               key_type: str = "KEYFRAME", replace=None) -> int:
    """Key ``values`` at ``frames`` (equal lengths) on F-curve ``fc`` in bulk: one
    ``keyframe_points.add`` and ``foreach_set`` of co / interpolation / type, then
    ``fc.update()`` (sorts, recomputes the automatic handles). Keys already on the curve in
    ``replace`` = (first, last) frame, inclusive (default: the span of ``frames``), are removed
    first; keys outside it are kept untouched. Returns the number of keys written."""
    import numpy as np
    frames = np.asarray(frames, dtype=np.float64).reshape(-1)
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    if frames.size != values.size:
        raise ValueError(f"{frames.size} frames but {values.size} values")
    if not frames.size:
        return 0
    remove_keys(fc, *((frames.min(), frames.max()) if replace is None else replace))
    kp = fc.keyframe_points
    n = len(kp)
    m = frames.size
    co = np.empty(2 * (n + m), dtype=np.float32)
    interp = np.empty(n + m, dtype=np.int32)
    kind = np.empty(n + m, dtype=np.int32)
    if n:
        kp.foreach_get("co", co[:2 * n])
        kp.foreach_get("interpolation", interp[:n])
        kp.foreach_get("type", kind[:n])
    co[2 * n::2] = frames
    co[2 * n + 1::2] = values
    interp[n:] = _INTERPOLATION[interpolation]
    kind[n:] = _KEY_TYPE[key_type]
    kp.add(m)
    kp.foreach_set("co", co)
    kp.foreach_set("interpolation", interp)
    kp.foreach_set("type", kind)
    fc.update()
    return m


def remove_keys(fc, first: float, last: float) -> int:
    """Remove the keys of F-curve ``fc`` on frames ``first``..``last`` (inclusive), keeping
    the others untouched (call ``fc.update()`` after). Returns how many keys remain."""
    import numpy as np
    kp = fc.keyframe_points
    n = len(kp)
    if not n:
        return 0
    co = np.empty(2 * n, dtype=np.float32)
    kp.foreach_get("co", co)
    inside = (co[0::2] >= first - 1e-4) & (co[0::2] <= last + 1e-4)
    if inside.all():
        kp.clear()
    else:
        for i in np.flatnonzero(inside)[::-1]:
            kp.remove(kp[int(i)], fast=True)
    return int(n - inside.sum())


def key_channels(idblock, data_path: str, frame: float, *, group: str = "",
                 options=frozenset()) -> bool:
    """Insert keys on every index of ``data_path`` at ``frame`` the way Blender's own keying
    does (user preferences for interpolation and handles, the channel group for new curves;
    ``options`` such as ``{'INSERTKEY_REPLACE'}``). True if a key was inserted.

    With ``INSERTKEY_REPLACE`` or ``INSERTKEY_AVAILABLE`` and no F-curve on ``data_path``
    nothing is called: Blender 5.0's ``keyframe_insert`` would still create an empty action
    and slot on the ID even though it inserts no key."""
    if {"INSERTKEY_REPLACE", "INSERTKEY_AVAILABLE"} & set(options) and not any(
            fc.data_path == data_path for fc in fcurves_of(idblock)):
        return False
    return bool(idblock.keyframe_insert(data_path=data_path, index=-1, frame=frame,
                                        group=group, options=set(options)))


def set_group(idblock, fc, group: str) -> None:
    """Move F-curve ``fc`` of ``idblock`` into the channel group ``group`` (made if missing;
    a group left empty disappears, as in Blender's own channel editing)."""
    if group_of(fc) == group:
        return
    if slotted_actions():
        groups = next(b for b in _channelbags(idblock) if fc in list(b.fcurves)).groups
    else:
        groups = idblock.animation_data.action.groups
    g = groups.get(group) or groups.new(group)
    fc.group = g


def sample(fc, frames):
    """Values of F-curve ``fc`` at ``frames`` (modifiers included, as Blender evaluates it;
    the keys' single-precision values), as a float64 array."""
    import numpy as np
    ev = fc.evaluate
    return np.fromiter((ev(float(f)) for f in frames), dtype=np.float64,
                       count=len(frames))


def animates(fc) -> bool:
    """True if Blender applies ``fc`` when it evaluates the animation: not muted, a valid
    path, and keys or modifiers that give it values."""
    return bool(not fc.mute and fc.is_valid and (len(fc.keyframe_points) or len(fc.modifiers)))


def remove_fcurve(idblock, fc) -> None:
    """Remove F-curve ``fc`` from ``idblock``'s action (its channelbag with slotted actions)."""
    if not slotted_actions():
        idblock.animation_data.action.fcurves.remove(fc)
        return
    for bag in _channelbags(idblock):
        if fc in list(bag.fcurves):
            bag.fcurves.remove(fc)
            return


def copy_fcurve(fc, idblock, data_path: str, index: int, values=None):
    """A copy of F-curve ``fc`` on ``idblock`` at ``data_path[index]`` (made in ``fc``'s
    channel group; an existing curve there is replaced): every key with its handles,
    interpolation, easing and type, and the curve's extrapolation. ``values(v)`` maps the key
    values (an array) and their handles' values when given. Modifiers are not copied.
    Returns the new curve."""
    import numpy as np
    old = find_fcurve(idblock, data_path, index)
    if old is not None:
        remove_fcurve(idblock, old)
    new = ensure_fcurve(idblock, data_path, index, group_of(fc))
    kp, n = fc.keyframe_points, len(fc.keyframe_points)
    new.keyframe_points.add(n)
    for attr in ("co", "handle_left", "handle_right"):
        co = np.empty(2 * n, dtype=np.float32)
        kp.foreach_get(attr, co)
        if values is not None:
            co[1::2] = values(co[1::2].astype(np.float64))
        new.keyframe_points.foreach_set(attr, co)
    for attr in ("interpolation", "type", "handle_left_type", "handle_right_type", "easing"):
        e = np.empty(n, dtype=np.int32)
        kp.foreach_get(attr, e)
        new.keyframe_points.foreach_set(attr, e)
    new.extrapolation = fc.extrapolation
    new.update()
    return new


# ---- animated custom properties: exactly what the animation wrote -----------------------------
#: The keys of a custom property's data path: ``["vart"]["joints"]["tilt"]["q"]``.
_PROP_KEYS = re.compile(r'\["((?:[^"\\]|\\.)*)"\]')


def animated_channels(idblock) -> list:
    """``(data_path, index)`` of the custom properties (paths ``["..."]...``) that
    ``idblock``'s animation writes: its action's F-curves that animate (:func:`animates`, not
    in a muted group) and its unmuted drivers."""
    out = [(fc.data_path, fc.array_index) for fc in fcurves_of(idblock)
           if fc.data_path.startswith('["') and animates(fc)
           and not (fc.group is not None and fc.group.mute)]
    ad = getattr(idblock, "animation_data", None)
    if ad is not None:
        out += [(d.data_path, d.array_index) for d in ad.drivers
                if d.data_path.startswith('["') and not d.mute]
    return out


def prop_node(idblock, path: str):
    """``(container, key)`` of the custom property at ``path`` (``["a"]["b"]...``) on
    ``idblock``: ``container[key]`` is its value. None if ``path`` is not a custom-property
    path; KeyError or TypeError if it does not resolve."""
    keys = _PROP_KEYS.findall(path)
    if not keys or "".join(f'["{k}"]' for k in keys) != path:
        return None
    node = idblock
    for k in keys[:-1]:
        node = node[k]
    return node, keys[-1]


def settle_animated(idblock, channels=None) -> int:
    """Make the custom properties that ``idblock``'s animation writes (``channels``: ``(data
    path, index)``, default :func:`animated_channels`) hold exactly the values it wrote, once
    Blender evaluated the animation at the frame (``scene.frame_set``). Returns how many
    values changed.

    Blender (4.2 to 5.2) writes an animated value into a property only where it differs from
    the stored one in single precision: a double-precision custom property written since (a
    solve's joint value, a drag, Python) that is within half a single-precision step of the
    animated value keeps the written value, also across ``frame_set`` (the same frame, or a
    frame where the curve is flat). Animated values are single precision (F-curves, NLA,
    drivers), so the stored value rounded to single precision is the animated one exactly.
    A path that does not resolve to a double-precision value is left alone."""
    import numpy as np
    n = 0
    for path, index in animated_channels(idblock) if channels is None else channels:
        try:
            found = prop_node(idblock, path)
            if found is None:
                continue
            node, key = found
            value = node[key]
            if isinstance(value, float):
                exact = float(np.float32(value))
                if exact != value:
                    node[key] = exact
                    n += 1
            elif getattr(value, "typecode", None) == "d" and 0 <= index < len(value):
                exact = float(np.float32(value[index]))
                if exact != value[index]:
                    value[index] = exact
                    n += 1
        except (KeyError, TypeError, IndexError):
            continue
    return n
