"""Where a posed robot touches the ground, and how far its loaded contacts slide (numpy only).

Contacts (:func:`find_contacts`) at one pose, as :class:`~.statics.Contact` points:

- **pins** (:class:`Pin`): a point of a link the scene holds on the ground (a virtual joint
  from the world standing at the wheel's contact point); a contact when the point is within
  ``tolerance`` of the surface (or below it);
- **geometry**: every other link's candidate points (its mesh vertices, in its frame) within
  ``tolerance`` of the surface: the corners of their convex hull in the surface's plane (at
  most :data:`MAX_POINTS`, spread evenly along it) become point contacts, so a sole resting
  flat is four corners and a wheel's tread a line.

Each contact is named after what makes it (the pin's name, ``ground under <link>``); a
*group* is the points of one name. The surface is :class:`GroundPlane` (z = 0) or anything
with its ``distance`` method (a ground mesh, in Blender).

**Slip** (:func:`group_slip`): between two poses, how far the group's *touching* material
points travel along the surface, their mean (m): the pin's point, or the link's points within
:data:`LOWEST_BAND` of the tolerance above its lowest (a sole's whole face when it rests
flat, its toe when it tips; a wheel's lowest rim vertices, not the ones its tessellation
leaves a few millimetres up). The link carries them from the first pose to the second, so a
wheel steering about its contact point does not slip, one dragged along does, and a sole
spinning in place scrubs. A wheel rolling by ``a`` rad per frame step lifts its touching
point: a rim point ``b`` rad ahead of straight down travels ``r a + r (sin(b - a) - sin b)``
(``r (a - sin a)`` at the bottom; a 0.2 m wheel with 32 sides turning 0.2 rad per frame, 1 m/s
at 24 frames/s: up to 0.8 mm), which the check's slip tolerance must leave room for.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .statics import Contact
from .support import convex_hull

#: Contact points per link that touches by its geometry.
MAX_POINTS = 8
#: Default contact tolerance (m) and friction coefficient.
TOLERANCE, MU = 0.005, 0.8
#: A link's touching points (for slip) are those within this share of the tolerance above
#: its lowest.
LOWEST_BAND = 0.1


@dataclass(frozen=True)
class Touch:
    """What of a contact group touches, for slip: its ``link``, the touching points
    ``local`` (k, 3) in the link's frame (m) and the surface's unit ``normal`` (world)."""

    link: str
    local: np.ndarray
    normal: np.ndarray


@dataclass(frozen=True)
class Pin:
    """A point of ``link`` held on the ground: ``name`` (the joint that holds it), ``local``
    (3,) the point in the link's frame (m)."""

    name: str
    link: str
    local: np.ndarray


class GroundPlane:
    """The plane z = ``height`` (m), its normal +z."""

    def __init__(self, height: float = 0.0):
        self.height = float(height)

    def distance(self, points):
        """(signed distance (n,) m above the surface, unit normals (n, 3) out of it) of world
        ``points`` (n, 3)."""
        P = np.asarray(points, float).reshape(-1, 3)
        n = np.zeros_like(P)
        n[:, 2] = 1.0
        return P[:, 2] - self.height, n


def _transform(T, local):
    return local @ T[:3, :3].T + T[:3, 3]


def find_contacts(poses, points: dict, pins=(), *, surface=None, tolerance: float = TOLERANCE,
                  mu: float = MU) -> tuple[list[Contact], dict]:
    """The contacts at ``poses`` (link -> ``T_world_link``): ``points`` maps a link to its
    candidate points (n, 3) in its frame, ``pins`` are :class:`Pin`; see the module doc.
    Returns ``(contacts, touches)``: the point contacts, and per group its :class:`Touch`."""
    surface = surface or GroundPlane()
    out: list[Contact] = []
    touches: dict = {}
    pinned = set()
    for pin in pins:
        T = poses.get(pin.link)
        if T is None:
            continue
        p = _transform(T, np.asarray(pin.local, float)[None])
        d, n = surface.distance(p)
        if d[0] <= tolerance:
            pinned.add(pin.link)
            local = np.asarray(pin.local, float)
            out.append(Contact(pin.name, pin.link, p[0], n[0], mu, local))
            touches[pin.name] = Touch(pin.link, local[None], n[0])
    for link, local in points.items():
        T = poses.get(link)
        if T is None or link in pinned or not len(local):
            continue
        local = np.asarray(local, float)
        P = _transform(T, local)
        d, n = surface.distance(P)
        near = np.flatnonzero(d <= tolerance)
        if not len(near):
            continue
        normal = n[near].mean(axis=0)
        normal /= np.linalg.norm(normal)
        name = f"ground under {link}"
        for k in _spread(P[near], normal):
            i = near[k]
            out.append(Contact(name, link, P[i], normal, mu, local[i]))
        lowest = near[d[near] <= d[near].min() + LOWEST_BAND * tolerance]
        touches[name] = Touch(link, local[lowest], normal)
    return out, touches


def _spread(P, normal) -> list[int]:
    """Indices of the points of ``P`` (n, 3) on the convex hull of their projection on the
    plane normal to ``normal``: at most :data:`MAX_POINTS`, spread along the hull."""
    a = np.array([1.0, 0.0, 0.0]) if abs(normal[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    t1 = np.cross(normal, a)
    t1 /= np.linalg.norm(t1)
    t2 = np.cross(normal, t1)
    uv = np.stack([P @ t1, P @ t2], axis=1)
    hull = convex_hull(uv)
    key = {(float(u), float(v)): i for i, (u, v) in enumerate(uv)}
    idx = [key[(float(u), float(v))] for u, v in hull]
    if len(idx) > MAX_POINTS:
        idx = [idx[int(k)] for k in np.linspace(0, len(idx), MAX_POINTS, endpoint=False)]
    return idx


def group_slip(touch: Touch, T_before, T_after) -> float:
    """How far (m) the touching points of a group (:class:`Touch`) travel along the surface
    from link pose ``T_before`` to ``T_after``: the mean length of their displacements
    without their component along the normal."""
    local = np.asarray(touch.local, float).reshape(-1, 3)
    if not len(local):
        return 0.0
    n = np.asarray(touch.normal, float)
    n = n / np.linalg.norm(n)
    d = _transform(T_after, local) - _transform(T_before, local)
    return float(np.linalg.norm(d - np.outer(d @ n, n), axis=1).mean())
