"""The geometry of a viewport drag, as Blender's own G and R do it (numpy only, no bpy).

The modal operators (:mod:`.operators.animate`) turn the mouse into rays through the 3D view
(``bpy_extras.view3d_utils``) and hand them here; everything that decides *what pose the mouse
asks for* is in these pure functions, so it is tested without a window:

- translation: free in the view plane through the grabbed point; along an axis (the point of
  the axis line nearest the mouse ray); in a plane (Shift+X/Y/Z: every axis but that one);
- rotation: about the view axis through the pivot by the angle the mouse swept around the
  pivot on screen, or about a constrained axis (flipped when it points away from the viewer,
  so the object turns the way the mouse goes);
- constraints cycle like Blender's: X = global X, X again = local X, X a third time = none;
- Ctrl snaps to increments, Shift makes the motion ten times finer from where it was pressed
  (:class:`Precision`).

Vectors are 3-arrays in world coordinates (metres); screen points are (x, y) region pixels;
angles are radians; poses are 4x4 rigid matrices.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

AXIS_INDEX = {"X": 0, "Y": 1, "Z": 2}

#: Default snapping increments (Ctrl), and with Shift held too (precise snapping).
SNAP_LENGTH, SNAP_LENGTH_FINE = 0.1, 0.01
SNAP_ANGLE, SNAP_ANGLE_FINE = math.radians(5.0), math.radians(1.0)
#: How much finer a Shift-held motion is.
PRECISE_FACTOR = 0.1

_EPS = 1e-12


@dataclass(frozen=True)
class Constraint:
    """An axis constraint: ``axis`` "X" / "Y" / "Z"; ``space`` "GLOBAL" or "LOCAL" (the grabbed
    link's own axes); ``plane``: move in the plane normal to the axis instead of along it."""

    axis: str
    space: str = "GLOBAL"
    plane: bool = False

    def label(self) -> str:
        """"along X (global)", "in plane YZ (local)"."""
        if self.plane:
            return f"in plane {''.join(a for a in 'XYZ' if a != self.axis)} ({self.space.lower()})"
        return f"along {self.axis} ({self.space.lower()})"


def next_constraint(current: Constraint | None, axis: str, plane: bool = False):
    """The constraint after pressing ``axis`` (with Shift: ``plane``): global, then local, then
    none; another axis or kind starts again at global."""
    if axis not in AXIS_INDEX:
        raise ValueError(f"axis must be X, Y or Z, not {axis!r}")
    if current is None or current.axis != axis or current.plane != plane:
        return Constraint(axis, "GLOBAL", plane)
    if current.space == "GLOBAL":
        return Constraint(axis, "LOCAL", plane)
    return None


def axis_vector(c: Constraint, T0) -> np.ndarray:
    """The constraint's axis in world coordinates (unit): a world axis, or a column of the
    grabbed pose's rotation for ``LOCAL``."""
    i = AXIS_INDEX[c.axis]
    if c.space == "LOCAL":
        v = np.asarray(T0, float)[:3, i]
        return v / np.linalg.norm(v)
    v = np.zeros(3)
    v[i] = 1.0
    return v


# ---- rays, planes and lines -------------------------------------------------------------------
def ray_plane(origin, direction, point, normal):
    """Where the ray ``origin + t direction`` (any t) meets the plane through ``point`` with
    ``normal``; None if the ray is parallel to it."""
    o, d = np.asarray(origin, float), np.asarray(direction, float)
    n = np.asarray(normal, float)
    den = float(d @ n)
    if abs(den) < _EPS * max(1.0, np.linalg.norm(d) * np.linalg.norm(n)):
        return None
    t = float((np.asarray(point, float) - o) @ n) / den
    return o + t * d


def ray_line(origin, direction, point, axis):
    """The point of the line ``point + s axis`` nearest to the ray ``origin + t direction``;
    None if they are parallel (the mouse cannot say where along the line)."""
    o, d = np.asarray(origin, float), np.asarray(direction, float)
    p, a = np.asarray(point, float), np.asarray(axis, float)
    w = p - o
    aa, dd, ad = a @ a, d @ d, a @ d
    den = aa * dd - ad * ad
    if den < 1e-10 * aa * dd:
        return None
    s = (ad * (d @ w) - dd * (a @ w)) / den
    return p + s * a


def translation(ray_start: tuple[Any, Any], ray_now: tuple[Any, Any], grab_point, view_dir,
                constraint: Constraint | None = None, T0=None):
    """How far the mouse moved the grabbed point: ``(delta, scalar)``. ``ray_*`` are
    ``(origin, direction)`` through the mouse at the start and now (in the current view, so
    the drag survives navigation); ``view_dir`` points from the viewer into the scene.
    ``scalar`` is the signed length along a constrained axis (None otherwise). A degenerate
    view (ray parallel to the plane or axis) gives a zero delta."""
    g = np.asarray(grab_point, float)
    if constraint is None:
        a = ray_plane(*ray_start, g, view_dir)
        b = ray_plane(*ray_now, g, view_dir)
        return (np.zeros(3) if a is None or b is None else b - a), None
    axis = axis_vector(constraint, T0 if T0 is not None else np.eye(4))
    if constraint.plane:
        a = ray_plane(*ray_start, g, axis)
        b = ray_plane(*ray_now, g, axis)
        if a is None or b is None:
            return np.zeros(3), None
        d = b - a
        return d - (d @ axis) * axis, None
    a = ray_line(*ray_start, g, axis)
    b = ray_line(*ray_now, g, axis)
    if a is None or b is None:
        return np.zeros(3), 0.0
    s = float((b - a) @ axis)
    return s * axis, s


def screen_angle(pivot, start, now) -> float:
    """Signed angle (rad, counter-clockwise on screen, y up) swept by the mouse from ``start``
    to ``now`` around ``pivot``; 0 when either is on the pivot."""
    p = np.asarray(pivot, float)
    u, v = np.asarray(start, float) - p, np.asarray(now, float) - p
    if np.hypot(*u) < 1e-9 or np.hypot(*v) < 1e-9:
        return 0.0
    return math.atan2(u[0] * v[1] - u[1] * v[0], u @ v)


def unwrap(angle: float, previous: float) -> float:
    """``angle`` plus the multiple of 2 pi nearest to ``previous`` (so turning the mouse
    round the pivot several times keeps adding up)."""
    return angle + 2 * math.pi * round((previous - angle) / (2 * math.pi))


def rotation_axis(view_dir, constraint: Constraint | None = None, T0=None) -> np.ndarray:
    """The axis a counter-clockwise screen sweep turns about, counter-clockwise as the viewer
    sees it: toward the viewer (``-view_dir``) when free; the constrained axis, flipped if it
    points away from the viewer."""
    toward = -np.asarray(view_dir, float)
    toward = toward / np.linalg.norm(toward)
    if constraint is None:
        return toward
    a = axis_vector(constraint, T0 if T0 is not None else np.eye(4))
    return -a if a @ toward < 0 else a


# ---- modifiers --------------------------------------------------------------------------------
def snap(value, increment: float):
    """``value`` (a number or an array, per component) rounded to multiples of
    ``increment``."""
    if increment <= 0:
        return value
    return np.round(np.asarray(value, float) / increment) * increment \
        if np.ndim(value) else round(float(value) / increment) * increment


class Precision:
    """Shift held = the motion is ``factor`` times finer, counted from where Shift was pressed
    (and no jump when it is released: the motion goes on from where it is)."""

    def __init__(self, factor: float = PRECISE_FACTOR):
        self.factor = factor
        self.on = False
        self.raw0 = None
        self.out0 = None
        self.last = None

    def __call__(self, raw, precise: bool):
        raw = np.asarray(raw, float)
        if precise != self.on:
            self.on = precise
            self.raw0 = raw
            self.out0 = raw if self.last is None else self.last
        if self.raw0 is None:
            out = raw
        else:
            out = self.out0 + (self.factor if precise else 1.0) * (raw - self.raw0)
        self.last = out
        return out if out.ndim else float(out)


# ---- poses ------------------------------------------------------------------------------------
def translated(T0, delta) -> np.ndarray:
    """``T0`` moved by ``delta`` (world), same orientation."""
    T = np.array(T0, float)
    T[:3, 3] += np.asarray(delta, float)
    return T


def axis_angle_matrix(axis, angle: float) -> np.ndarray:
    """3x3 rotation by ``angle`` about unit ``axis`` (Rodrigues)."""
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * (K @ K)


def rotated(T0, pivot, axis, angle: float) -> np.ndarray:
    """``T0`` turned by ``angle`` about the world line through ``pivot`` along ``axis``."""
    R = axis_angle_matrix(axis, angle)
    p = np.asarray(pivot, float)
    T = np.array(T0, float)
    T[:3, :3] = R @ T[:3, :3]
    T[:3, 3] = R @ (T[:3, 3] - p) + p
    return T


# ---- text -------------------------------------------------------------------------------------
def status_text(status, ms: float | None = None) -> str:
    """The solver's part of the header: the error of each unmet level (or "ok"), and the
    milliseconds per update."""
    if status is None:
        parts = ["not solved yet"]
    else:
        bad = [f"{lv.name} {lv.error:.1e}" for lv in status.levels
               if lv.active and not lv.satisfied and lv.name not in ("potential", "posture")]
        parts = ["unmet: " + ", ".join(bad)] if bad else ["goals met"]
        if getattr(status, "stuck", None):
            parts.append("stuck: " + ", ".join(status.stuck))
    if ms is not None:
        parts.append(f"{ms:.1f} ms/update")
    return " | ".join(parts)


def length_text(v: float) -> str:
    return f"{v:+.4f} m"


def angle_text(a: float) -> str:
    return f"{math.degrees(a):+.2f}\u00b0"
