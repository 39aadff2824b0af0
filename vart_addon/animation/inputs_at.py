"""The animated inputs at a frame other than the scene's, posed from their F-curves.

Live mode (:mod:`.live`) solves the frames between the last one it remembers and the frame
shown from inside Blender's frame-change handler. Changing the frame from inside that handler
(``scene.frame_set`` nested in ``frame_change_post``) leaves Blender 4.2, 4.5 and 5.0 in a
state where a later update of a tagged object crashes Blender (fixed in 5.2; the fixed case is
``tests/blender/animation/test_live_frames_between.py``). And while an animation renders, the
handler runs with the animation evaluated into the render's own copy of the scene: the objects
it reads keep the values of the frame shown before. So each frame is posed without changing
the frame: each animating curve's value there (``FCurve.evaluate``) is written where Blender's
animation writes it, and an animated link's world matrix is set from its channels
(``matrix_basis``), as evaluating it would set it.

That is what Blender's evaluation gives when the scene's animation is plain (:func:`plain`):
F-curves of each object's action, at full influence, no NLA strips and no drivers on what
is animated, and animated links without a parent or constraints. Other scenes are solved
through frame changes on Blender 5.2 and later, and from the nearest remembered frame on older
ones (live mode says so in its status).
"""
from __future__ import annotations

import bpy

from ..bridge import animation as A
from ..bridge import schema as S

#: The transform channels a link's animation can carry.
TRANSFORM_PATHS = ("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle",
                   "scale", "delta_location", "delta_rotation_euler",
                   "delta_rotation_quaternion", "delta_scale")

#: Nested frame changes are safe from this Blender version on (see the module doc).
NESTED_FRAME_SET = (5, 2, 0)


def nested_frame_set_safe() -> bool:
    return tuple(bpy.app.version) >= NESTED_FRAME_SET


def plain(obs: dict, curves: dict, driven: tuple) -> bool:
    """True if the animation of the link objects ``obs`` (name -> object; ``curves``:
    ``(object, data path, index) -> F-curve`` of what animates them, ``driven``: the driven
    vart paths) is posed exactly by :class:`InputPoser` (see the module doc)."""
    if driven:
        return False
    animated = {n for n, _p, _i in curves}
    for n in animated:
        ob = obs[n]
        ad = ob.animation_data
        if ad is None:
            continue
        if getattr(ad, "use_tweak_mode", False) or any(not t.mute for t in ad.nla_tracks):
            return False
        if ad.action_influence != 1.0 or ad.action_blend_type != 'REPLACE':
            return False
        if any(not d.mute and (d.data_path in TRANSFORM_PATHS or d.data_path.startswith('["'))
               for d in ad.drivers):
            return False
        moves = any(p in TRANSFORM_PATHS for m, p, _i in curves if m == n)
        if moves and (ob.parent is not None or any(c.enabled for c in ob.constraints)):
            return False
    return True


class InputPoser:
    """Poses the animated values of ``curves`` (``(object, data path, index) -> F-curve``) on
    the objects ``obs`` at any frame (:meth:`pose`), and puts back what they held when it was
    made (:meth:`restore`, when solving fails). Only what the solve reads is posed:
    ``["vart"]`` properties, and the world matrix of a link whose transform is animated (set
    from its posed channels, as evaluating it would)."""

    def __init__(self, obs: dict, curves: dict):
        self.items = []
        moved = {}
        for (n, path, idx), fc in curves.items():
            if path in TRANSFORM_PATHS or path.startswith(f'["{S.KEY}"]'):
                self.items.append((obs[n], path, idx, fc))
            if path in TRANSFORM_PATHS:
                moved[n] = obs[n]
        self.moved = list(moved.values())
        self.saved = [_read(ob, path, idx) for ob, path, idx, _fc in self.items]
        self.saved_world = [ob.matrix_world.copy() for ob in self.moved]

    def pose(self, frame: int) -> None:
        for ob, path, idx, fc in self.items:
            _write(ob, path, idx, fc.evaluate(float(frame)))
        for ob in self.moved:  # no parent, no constraint (plain): the world is the basis
            ob.matrix_world = ob.matrix_basis.copy()

    def restore(self) -> None:
        """The evaluated world matrices first: setting one rewrites the channels from it,
        which are then put back exactly."""
        for ob, M in zip(self.moved, self.saved_world):
            ob.matrix_world = M
        for (ob, path, idx, _fc), v in zip(self.items, self.saved):
            if v is not None:
                _write(ob, path, idx, v)


def _node(ob, path: str):
    """(container, key) of a custom-property path, or (the RNA array, None)."""
    found = A.prop_node(ob, path)
    return found if found is not None else (getattr(ob, path), None)


def _read(ob, path: str, idx: int):
    try:
        node, key = _node(ob, path)
        value = node[key] if key is not None else node
        return float(value[idx]) if hasattr(value, "__len__") else float(value)
    except (KeyError, IndexError, TypeError, AttributeError):
        return None


def _write(ob, path: str, idx: int, v: float) -> None:
    try:
        node, key = _node(ob, path)
        if key is None:
            node[idx] = v
            return
        value = node[key]
        if hasattr(value, "__len__"):
            value[idx] = v
        else:
            node[key] = v
    except (KeyError, IndexError, TypeError, AttributeError):
        pass  # a path that does not resolve: Blender's animation writes nothing there either
