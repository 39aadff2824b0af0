"""The geometry of support (numpy only): support polygons, the centre of mass's margin in them,
and friction cones as pyramids.

- :func:`convex_hull` and :func:`support_margin`: 2-D, in the ground plane (m);
- :func:`friction_pyramid`: the edges of a pyramid inscribed in a Coulomb friction cone, so
  a force that is a non-negative combination of them lies inside the cone (a check that finds
  such forces never accepts one the cone refuses; with ``FACETS`` edges it may refuse a force
  using more than ``cos(pi / FACETS)`` of the friction, 92 % with 8).
"""
from __future__ import annotations

import math

import numpy as np

#: Edges of the friction pyramids.
FACETS = 8


def convex_hull(points) -> np.ndarray:
    """The convex hull (k, 2) of 2-D points, counter-clockwise (Andrew's monotone chain)."""
    P = sorted({(float(x), float(y)) for x, y in points})
    if len(P) < 3:
        return np.array(P, dtype=float).reshape(-1, 2)

    def half(seq):
        out: list = []
        for p in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1]) -
                                     (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(p)
        return out
    lower, upper = half(P), half(reversed(P))
    return np.array(lower[:-1] + upper[:-1], dtype=float)


def _segment_distance(p, a, b) -> float:
    ab = b - a
    t = 0.0 if not ab.any() else float(np.clip((p - a) @ ab / (ab @ ab), 0.0, 1.0))
    return float(np.linalg.norm(p - (a + t * ab)))


def support_margin(com, points) -> float:
    """Signed distance (m) from ``com`` (2-D) to the convex hull of ``points`` (2-D): positive
    inside (the distance to the nearest edge), negative outside; minus the distance to a
    point or segment when the hull has no area; NaN without a centre of mass or contacts."""
    com = np.asarray(com, float)
    if not np.isfinite(com).all() or not len(points):
        return float("nan")
    H = convex_hull(points)
    if len(H) == 1:
        return -float(np.linalg.norm(com - H[0]))
    edges = list(zip(H, np.roll(H, -1, axis=0)))
    if len(H) == 2:
        edges = edges[:1]
    dist = min(_segment_distance(com, a, b) for a, b in edges)
    if len(H) < 3:
        return -dist
    inside = all((b[0] - a[0]) * (com[1] - a[1]) - (b[1] - a[1]) * (com[0] - a[0]) > 0
                 for a, b in edges)  # left of every counter-clockwise edge
    return dist if inside else -dist


def tangent_basis(normal) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors completing the unit ``normal`` to a right-handed frame."""
    n = np.asarray(normal, float)
    a = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    t1 = np.cross(n, a)
    t1 /= np.linalg.norm(t1)
    return t1, np.cross(n, t1)


def friction_pyramid(normal, mu: float, facets: int = FACETS) -> np.ndarray:
    """(facets, 3): the edges ``n + mu (cos a t1 + sin a t2)`` of the pyramid inscribed in the
    friction cone of unit ``normal`` and coefficient ``mu`` (>= 0; 0: the normal alone)."""
    n = np.asarray(normal, float)
    if mu <= 0:
        return n[None, :].copy()
    t1, t2 = tangent_basis(n)
    a = 2.0 * math.pi * np.arange(facets) / facets
    return n + mu * (np.cos(a)[:, None] * t1 + np.sin(a)[:, None] * t2)
