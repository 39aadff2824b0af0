"""The geometry of support (numpy only): support polygons, the centre of mass's margin in them,
and friction cones as pyramids.

- :func:`convex_hull` and :func:`support_margin`: 2-D, in the ground plane (m), the solver's
  (:mod:`vart_addon.solver.support_polygon`, which the balance goal uses too);
- :func:`friction_pyramid`: the edges of a pyramid inscribed in a Coulomb friction cone, so
  a force that is a non-negative combination of them lies inside the cone (a check that finds
  such forces never accepts one the cone refuses; with ``FACETS`` edges it may refuse a force
  using more than ``cos(pi / FACETS)`` of the friction, 92 % with 8).
"""
from __future__ import annotations

import math

import numpy as np

from ..solver.support_polygon import convex_hull, support_margin  # noqa: F401  (re-exported)

#: Edges of the friction pyramids.
FACETS = 8


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
