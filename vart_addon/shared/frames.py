"""The scene's current frame, kept across work that steps through frames, and frame changes
that leave the animated values exact.

Bakes, trajectory sampling and the examples' checks call ``scene.frame_set`` frame after frame;
the user must find the scene on the frame (and subframe) they left it on, whether the work
finishes, raises or is cancelled. ``with kept_frame(scene):`` does that in one place.

Blender writes an animated value into a property only where it differs from the stored one in
single precision, so a joint's q written by a solve (double precision) within half a
single-precision step of its key survives ``frame_set``, on the current frame or any frame
where the value does not change. :func:`set_frame` is ``frame_set`` followed by
:func:`~vart_addon.bridge.animation.settle_animated`: every animated custom property then holds
exactly its animated value. Work that steps through frames calls it for its first frame; as
long as it writes no animated property, Blender's own writes keep them exact afterwards.
"""
from __future__ import annotations

from contextlib import contextmanager

from ..bridge import animation as A


def set_frame(scene, frame: int, subframe: float = 0.0, objects=None) -> int:
    """``scene.frame_set(frame, subframe=subframe)``, then every custom property that the
    animation of ``objects`` (default: the scene's objects) writes holds exactly its animated
    value. Returns how many values were not."""
    scene.frame_set(frame, subframe=subframe)
    n = 0
    for ob in scene.objects if objects is None else objects:
        if ob.animation_data is not None:
            n += A.settle_animated(ob)
    return n


@contextmanager
def kept_frame(scene):
    """Run the ``with`` body, then put ``scene`` back on the frame and subframe it was on,
    also when the body raises. Always through :func:`set_frame`, so the scene is evaluated
    there again, keys the body wrote show and animated values are exact. Yields the kept
    ``(frame, subframe)``."""
    frame, subframe = scene.frame_current, scene.frame_subframe
    try:
        yield frame, subframe
    finally:
        set_frame(scene, frame, subframe)


def run_steps(steps, progress=None):
    """Run a generator of frame steps (a bake's, a clearance check's: it yields ``(done,
    total)`` after each frame and returns its result) to its end, calling ``progress(done,
    total)`` after each step; returns the result."""
    while True:
        try:
            done, total = next(steps)
        except StopIteration as stop:
            return stop.value
        if progress is not None:
            progress(done, total)
