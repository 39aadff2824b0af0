"""What the overlay draws for tools and their waypoints, in world coordinates (pure numpy, no
bpy).

- a **tool**: its frame as three axes (x red, y green, z blue), longer than a joint's glyph;
- its **waypoints**: each waypoint's frame as smaller axes, and the path between them: a
  solid line along a Linear move (the tool's origin follows it), a dashed one along a Joint
  move (the origin's path is the joints', not that line).
"""
from __future__ import annotations

import numpy as np

from ..solver.waypoints import LINEAR, Waypoints
from .geometry import Style, dashed, segments

AXIS_COLORS = ((0.95, 0.25, 0.25, 1.0), (0.35, 0.85, 0.35, 1.0), (0.30, 0.50, 1.0, 1.0))
#: The tool's axes, x y z.
TOOL_AXES = tuple(Style(c, 3.0) for c in AXIS_COLORS)
#: A waypoint's axes.
WAYPOINT_AXES = tuple(Style(c, 1.5) for c in AXIS_COLORS)
CYAN = (0.20, 0.85, 0.95, 1.0)
LINEAR_PATH = Style(CYAN, 2.0)
JOINT_PATH = Style(CYAN, 1.5, dashed=True)


def axes(T: np.ndarray, length: float, styles) -> dict:
    """``{Style: segment end points}`` of frame ``T`` (4x4, world)'s three axes."""
    T = np.asarray(T, float)
    o = T[:3, 3]
    return {s: np.array([o, o + length * T[:3, i]]) for i, s in enumerate(styles)}


def tool_segments(T_world_tool: np.ndarray, waypoints: Waypoints | None, size: float) -> dict:
    """``{Style: (2n, 3) segment end points}`` of a tool at ``T_world_tool`` and its
    ``waypoints`` (None: none); ``size``: the overlay's glyph size (m)."""
    out: dict = {}

    def add(style, seg):
        if len(seg):
            out[style] = np.concatenate([out[style], seg]) if style in out else seg

    for style, seg in axes(T_world_tool, 1.5 * size, TOOL_AXES).items():
        add(style, seg)
    if waypoints is None:
        return out
    for T in waypoints.T:
        for style, seg in axes(T, 0.6 * size, WAYPOINT_AXES).items():
            add(style, seg)
    for b in range(1, len(waypoints)):
        line = np.array([waypoints.T[b - 1][:3, 3], waypoints.T[b][:3, 3]])
        if waypoints.moves[b] == LINEAR:
            add(LINEAR_PATH, segments(line))
        else:
            add(JOINT_PATH, dashed(line, 0.18 * size, 0.12 * size))
    return out
