"""The scene's current frame, kept across work that steps through frames.

Bakes, trajectory sampling and the examples' checks call ``scene.frame_set`` frame after frame;
the user must find the scene on the frame (and subframe) they left it on, whether the work
finishes, raises or is cancelled. ``with kept_frame(scene):`` does that in one place.
"""
from __future__ import annotations

from contextlib import contextmanager


@contextmanager
def kept_frame(scene):
    """Run the ``with`` body, then put ``scene`` back on the frame and subframe it was on,
    also when the body raises. Always through ``scene.frame_set``, so the scene is evaluated
    there again and keys the body wrote show. Yields the kept ``(frame, subframe)``."""
    frame, subframe = scene.frame_current, scene.frame_subframe
    try:
        yield frame, subframe
    finally:
        scene.frame_set(frame, subframe=subframe)
