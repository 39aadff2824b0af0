"""What the bakes of a scene own: the frame ranges they baked, and their keys.

A bake *owns* the range it baked. The ranges live in the scene, ``scene["vart_bakes"]`` (an
ID property saved with the .blend and restored by undo: a list of ``[first, last]`` frames,
inclusive, sorted, never overlapping). A new bake of ``start..end`` (:func:`claim`):

- takes over every earlier bake it overlaps: the keys of those bakes, on every F-curve of the
  bake's channel group (:data:`vart_addon.bridge.animation.BAKE_GROUP`) of every link object,
  are removed over the union of the ranges (baking 1-24 after a bake of 1-48 leaves nothing
  on 25-48), and F-curves left without keys are removed;
- records its own range; earlier bakes it does not overlap stay, with their keys, and are
  reported (:func:`baked_ranges`).

A scene baked before ranges were recorded has bake keys but no record: its range is read
off the keys of its bake curves (first to last key), so it is still owned and exported.

:func:`uncovered` answers what an export asks: which frames of a range no bake covers.
"""
from __future__ import annotations

import numpy as np

from ..bridge import animation as A
from ..bridge import schema as S

#: The scene's ID property holding the baked ranges.
KEY = "vart_bakes"


def _bake_curves(objects):
    """(object, F-curve) of every F-curve in the bake group of ``objects``."""
    for ob in objects:
        for fc in A.fcurves_of(ob):
            if A.group_of(fc) == A.BAKE_GROUP:
                yield ob, fc


def _keyed_span(objects) -> tuple[int, int] | None:
    """First and last frame keyed on any bake curve of ``objects`` (rounded), or None."""
    lo, hi = np.inf, -np.inf
    for _, fc in _bake_curves(objects):
        kp = fc.keyframe_points
        if len(kp):
            co = np.empty(2 * len(kp), dtype=np.float32)
            kp.foreach_get("co", co)
            lo, hi = min(lo, float(co[0::2].min())), max(hi, float(co[0::2].max()))
    return None if lo > hi else (int(round(lo)), int(round(hi)))


def _link_objects(scene) -> list:
    return [ob for ob in scene.objects if S.is_link(ob)]


def baked_ranges(scene, objects=None) -> list[tuple[int, int]]:
    """The frame ranges ``(first, last)`` (inclusive, sorted) the bakes of ``scene`` own; for
    a scene baked before ranges were recorded, the span of its bake keys (``objects``: the
    link objects to read, default every link of the scene); [] if nothing was baked."""
    stored = scene.get(KEY)
    if stored is not None:
        try:
            return sorted((int(a), int(b)) for a, b in stored)
        except (TypeError, ValueError):
            pass  # a corrupt record: read the keys instead
    span = _keyed_span(_link_objects(scene) if objects is None else objects)
    return [] if span is None else [span]


def uncovered(scene, start: int, end: int, objects=None) -> list[tuple[int, int]]:
    """The sub-ranges of ``start..end`` (inclusive) that no bake of ``scene`` covers, in
    order; [] if every frame of it was baked."""
    gaps, f = [], int(start)
    for a, b in baked_ranges(scene, objects):
        if b < f:
            continue
        if a > end:
            break
        if a > f:
            gaps.append((f, a - 1))
        f = max(f, b + 1)
        if f > end:
            break
    if f <= end:
        gaps.append((f, int(end)))
    return gaps


def describe(ranges) -> str:
    """``[(1, 24), (30, 40)]`` -> ``"1-24, 30-40"``."""
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in ranges)


def claim(scene, start: int, end: int, objects) -> list[tuple[int, int]]:
    """Make the bake of ``start..end`` the owner of its range (see the module doc): remove the
    bake-group keys of ``objects`` over the union of ``start..end`` and every earlier range
    it overlaps (empty F-curves removed), record the new range, and return the earlier
    ranges that remain (not overlapped; their keys kept). Call it when the bake's keys are
    about to be written."""
    start, end = int(start), int(end)
    ranges = baked_ranges(scene, objects)
    lo, hi = start, end
    kept = []
    for a, b in ranges:
        if b >= start and a <= end:
            lo, hi = min(lo, a), max(hi, b)
        else:
            kept.append((a, b))
    for ob, fc in list(_bake_curves(objects)):
        if not len(fc.keyframe_points):
            continue
        if A.remove_keys(fc, lo, hi):
            fc.update()
        else:
            A.remove_fcurve(ob, fc)
    scene[KEY] = [list(r) for r in sorted(kept + [(start, end)])]
    return kept


def forget(scene) -> None:
    """Forget every recorded range (after the bake keys themselves were removed)."""
    if KEY in scene:
        del scene[KEY]
