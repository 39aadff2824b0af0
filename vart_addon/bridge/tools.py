"""Tools and their waypoints as Blender keeps them: custom properties of the tool's link object.

- ``ob["vart_tool"]`` (bool): the link is a *tool* (an arm's tool centre point: URDF's
  ``tool0``, ``flange`` or ``*_tcp`` frame, or a virtual link fixed to the flange);
- ``ob["vart_waypoint"]`` (7 floats, keyed): the tool's world pose at a waypoint, position
  x y z (m) and rotation quaternion w x y z (:func:`vart_addon.solver.waypoints.quat_pose`);
  the frames where it has keys are the waypoints;
- ``ob["vart_move"]`` (int, keyed): the move into the waypoint at that frame, an index of
  :data:`vart_addon.solver.waypoints.MOVES` (0 Linear, 1 Joint);
- ``ob["vart_ease"]`` (int 0 or 1, keyed): whether that move is eased.

Every channel is keyed at every waypoint, with linear interpolation: what lies between two
keys is never read, but an edit of a waypoint then changes the curves' values from the
waypoint before it on, which is where the motion changes (live mode forgets its frames from
the first changed value).

They live beside ``ob["vart"]``, not in it: the solver never reads them (the bake and live
mode turn them into goals frame by frame, :mod:`vart_addon.animation.waypoint_goals`), so
editing them never rebuilds the linkage. Keys are read from the F-curves' keyframe points
(the waypoints are the keys, not what lies between them); moving a waypoint's keys in the
Dope Sheet moves the waypoint.
"""
from __future__ import annotations

import re

import numpy as np

from ..solver.errors import VartError
from ..solver.waypoints import MOVES, Waypoints, pose_values, waypoints
from . import animation as A
from .errors import BridgeError

TOOL_KEY = "vart_tool"
WAYPOINT_KEY = "vart_waypoint"
MOVE_KEY = "vart_move"
EASE_KEY = "vart_ease"
#: The F-curve data paths of a waypoint, and how many values each holds.
PATHS = {f'["{WAYPOINT_KEY}"]': 7, f'["{MOVE_KEY}"]': 1, f'["{EASE_KEY}"]': 1}
#: The channel group waypoint keys are made in.
GROUP = "Vart Waypoints"


#: Link names that are tool frames (REP-199's ``tool0`` and ``flange``, and ``tcp`` / ``*_tcp``;
#: a prefix for robots with several arms, as ``left_tool0``).
TOOL_NAME = re.compile(r"^(?:.*[_-])?(?:tool0|flange|tcp)$", re.IGNORECASE)


def tool_names(parents: dict) -> list[str]:
    """The links of a robot to mark as tools, from its tree (link -> parent link or None):
    those named as tool frames (:data:`TOOL_NAME`), each the deepest of its chain (UR's
    ``tool0`` hangs from ``flange``: ``tool0``)."""
    named = [n for n in parents if TOOL_NAME.match(n)]
    above = set()
    for n in named:
        p = parents.get(n)
        while p is not None:
            above.add(p)
            p = parents.get(p)
    return [n for n in named if n not in above]


def is_tool(ob) -> bool:
    """True if link object ``ob`` is marked as a tool."""
    return bool(ob.get(TOOL_KEY, False)) if ob is not None else False


def set_tool(ob, on: bool = True) -> None:
    """Mark (or unmark) link object ``ob`` as a tool."""
    if on:
        ob[TOOL_KEY] = True
    elif TOOL_KEY in ob:
        del ob[TOOL_KEY]


def _curves(ob) -> dict:
    """(data path, index) -> F-curve of ``ob``'s waypoint channels (unmuted, keyed)."""
    return {k: fc for k, fc in A.fcurve_map(ob).items()
            if k[0] in PATHS and not fc.mute and len(fc.keyframe_points)}


def has_waypoints(ob) -> bool:
    """True if ``ob`` has keyed waypoint poses."""
    return any(p == f'["{WAYPOINT_KEY}"]' for p, _i in _curves(ob))


def _key_values(fc) -> dict:
    n = len(fc.keyframe_points)
    co = np.empty(2 * n)
    fc.keyframe_points.foreach_get("co", co)
    return dict(zip(co[0::2].tolist(), co[1::2].tolist()))


def fingerprint(ob) -> tuple:
    """What the waypoints of ``ob`` depend on (its waypoint channels' keys), to tell when
    they may have changed without reading them."""
    return tuple((k, tuple(sorted(_key_values(fc).items())))
                 for k, fc in sorted(_curves(ob).items()))


def read_waypoints(ob) -> Waypoints | None:
    """The waypoints keyed on ``ob`` (None if it has none). BridgeError naming the object and
    the property when they are not whole waypoints: a pose channel without a key at a frame
    where another has one, or values that are not a pose or a move."""
    curves = _curves(ob)
    pose = f'["{WAYPOINT_KEY}"]'
    if not any(p == pose for p, _i in curves):
        return None
    keys = {k: _key_values(fc) for k, fc in curves.items()}
    frames = sorted({f for (p, _i), kv in keys.items() if p == pose for f in kv})
    where = f"link {ob.name!r}: {pose}"
    values, moves, eases = [], [], []
    for f in frames:
        row = []
        for i in range(7):
            kv = keys.get((pose, i))
            if kv is None or f not in kv:
                raise BridgeError(f"{where}[{i}] has no key on frame {f:g}, where the "
                                  "waypoint's other values are keyed: key the whole pose "
                                  "(Key Waypoint)")
            row.append(kv[f])
        values.append(row)
        moves.append(_step_value(keys.get((f'["{MOVE_KEY}"]', 0)), f, 0.0))
        eases.append(_step_value(keys.get((f'["{EASE_KEY}"]', 0)), f, 0.0))
    try:
        return waypoints(frames, values, moves, eases, f"link {ob.name!r}", pose,
                         f'["{MOVE_KEY}"]')
    except VartError as e:
        raise BridgeError(str(e)) from None


def _step_value(kv: dict | None, frame: float, default: float) -> float:
    """The value of a constant-interpolated channel at ``frame``: its key there, else the
    last key before it, else ``default``."""
    if not kv:
        return default
    before = [f for f in kv if f <= frame]
    return kv[max(before)] if before else kv[min(kv)]


def key_waypoint(ob, frame: float, T_world_tool, move: str, ease: bool) -> None:
    """Key a waypoint on ``ob`` at ``frame``: its pose ``T_world_tool`` (4x4, m) and the move
    into it (a name of :data:`MOVES`), replacing one already there."""
    if move not in MOVES:
        raise BridgeError(f"link {ob.name!r}: move {move!r} is not one of {', '.join(MOVES)}")
    ob[WAYPOINT_KEY] = pose_values(T_world_tool)
    ob[MOVE_KEY] = MOVES.index(move)
    ob[EASE_KEY] = int(bool(ease))
    for path in PATHS:
        A.key_channels(ob, path, float(frame), group=GROUP)
    for fc in _curves(ob).values():
        for kp in fc.keyframe_points:
            kp.interpolation = 'LINEAR'


def remove_waypoint(ob, frame: float) -> bool:
    """Remove the waypoint keyed on ``ob`` at ``frame`` (every channel's key there). True if
    there was one."""
    removed = False
    for fc in _curves(ob).values():
        before = len(fc.keyframe_points)
        removed |= A.remove_keys(fc, float(frame), float(frame)) < before
        fc.update()
    return removed
