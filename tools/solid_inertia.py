"""A link's inertial from its mass and its own visual geometry (a dev tool of
``tools/make_assets.py``; not shipped).

:func:`uniform_inertial` spreads a link's mass (kg) over its visual primitives (boxes,
cylinders, spheres and closed triangle meshes) at one uniform density, each primitive a solid
(overlaps counted twice), and returns the URDF ``<inertial>``: the centre of mass in the link
frame (m) and the inertia tensor about it (kg m^2, axes of the link frame). The figures it
makes are derived from the mass and the geometry, never chosen.
"""
from __future__ import annotations

import math

import numpy as np

from vart_addon.formats.urdf import files as U


def mesh_moments(vertices, triangles) -> tuple[float, np.ndarray, np.ndarray]:
    """(volume m^3, centroid m, second moment ``S = integral of (x - c)(x - c)^T dV`` m^5) of
    the solid a closed, outward-wound triangle mesh bounds (tetrahedra from the origin)."""
    v = np.asarray(vertices, float)
    a, b, c = (v[np.asarray(triangles)[:, k]] for k in range(3))
    vol = np.einsum("ij,ij->i", a, np.cross(b, c)) / 6.0       # signed, per tetrahedron
    total = float(vol.sum())
    centroid = ((a + b + c) / 4.0 * vol[:, None]).sum(axis=0) / total
    s = a + b + c
    # a tetrahedron (0, a, b, c): integral of x x^T dV = vol / 20 (a a^T + b b^T + c c^T + s s^T)
    S0 = sum(np.einsum("i,ij,ik->jk", vol, p, p) for p in (a, b, c, s)) / 20.0
    return total, centroid, S0 - total * np.outer(centroid, centroid)


def primitive_moments(geometry, meshes) -> tuple[float, np.ndarray]:
    """(volume m^3, second moment about its own centre, in its own frame, m^5) of a URDF
    geometry; a mesh's (vertices, triangles) come from ``meshes[filename]`` (its centre is
    taken as the origin of its frame: true of the prisms this tool makes)."""
    if isinstance(geometry, U.Box):
        x, y, z = geometry.size
        vol = x * y * z
        return vol, vol / 12.0 * np.diag([x * x, y * y, z * z])
    if isinstance(geometry, U.Cylinder):
        r, h = geometry.radius, geometry.length
        vol = math.pi * r * r * h
        return vol, vol * np.diag([r * r / 4.0, r * r / 4.0, h * h / 12.0])
    if isinstance(geometry, U.Sphere):
        r = geometry.radius
        vol = 4.0 / 3.0 * math.pi * r ** 3
        return vol, vol * r * r / 5.0 * np.eye(3)
    if isinstance(geometry, U.Mesh):
        vol, centroid, S = mesh_moments(*meshes[geometry.filename])
        if np.abs(centroid).max() > 1e-9:
            raise ValueError(f"mesh {geometry.filename} is not centred on its origin")
        return vol, S
    raise ValueError(f"no volume for {geometry!r}")


def uniform_inertial(mass: float, visuals, meshes=None) -> U.Inertial:
    """The ``<inertial>`` of ``mass`` kg spread at one density over ``visuals`` (see the
    module doc)."""
    parts = []
    for vis in visuals:
        vol, S = primitive_moments(vis.geometry, meshes or {})
        R = U.rpy_to_matrix(vis.origin.rpy)
        parts.append((vol, np.asarray(vis.origin.xyz, float), R @ S @ R.T))
    total = sum(p[0] for p in parts)
    com = sum(p[0] * p[1] for p in parts) / total
    S = sum(Sp + vol * np.outer(c - com, c - com) for vol, c, Sp in parts)
    inertia = mass / total * (np.trace(S) * np.eye(3) - S)    # I = tr(S) 1 - S, per density
    rows, cols = np.triu_indices(3)     # ixx, ixy, ixz, iyy, iyz, izz
    return U.Inertial(mass=float(mass), origin=U.Origin(tuple(_rounded(x) for x in com)),
                      inertia=tuple(_rounded(x) for x in inertia[rows, cols]))


def _rounded(x) -> float:
    """``x`` to 1e-12 (m, kg m^2): rounding noise of the sums (1e-17, numpy-version dependent)
    would otherwise make the generated file differ between environments."""
    return round(float(x), 12) + 0.0
