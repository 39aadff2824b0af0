"""Support polygons in the ground plane (2-D, metres; numpy only): hulls, margins, the region a
centre of mass may take, and the nearest point of it.

- :func:`plane_axes`: two world axes spanning the plane perpendicular to gravity, so world
  points become 2-D points of the ground plane (``E @ p``);
- :func:`convex_hull`: the hull of the contacts' points, counter-clockwise;
- :func:`support_margin`: the signed distance of a point to a hull (positive inside), what the
  statics check reports;
- :func:`shrink` and :func:`region`: the hull with every edge moved in by a margin, and when
  that is empty the deepest part of the hull there is (the balance goal's region);
- :func:`nearest`: the point of a convex region nearest a point, and the distance to it;
  :class:`Region` (a region's edges prepared): that, and the signed distance (outside
  minus the depth inside) with its gradient.
"""
from __future__ import annotations

import numpy as np

#: Below this length (m) two points of a hull are one.
SAME = 1e-12


def plane_axes(gravity=None) -> np.ndarray:
    """(2, 3): orthonormal world axes of the plane perpendicular to ``gravity`` (m/s^2, world;
    None or zero: -z), such that they and "up" (against gravity) are right-handed: for
    gravity along -z, the world's x and y."""
    g = np.zeros(3) if gravity is None else np.asarray(gravity, float).reshape(3)
    n = float(np.linalg.norm(g))
    up = np.array([0.0, 0.0, 1.0]) if not np.isfinite(n) or n < 1e-12 else -g / n
    a = np.array([1.0, 0.0, 0.0]) if abs(up[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    e1 = a - (a @ up) * up
    e1 /= np.linalg.norm(e1)
    return np.stack([e1, np.cross(up, e1)])


def convex_hull(points) -> np.ndarray:
    """The convex hull (k, 2) of 2-D points, counter-clockwise (Andrew's monotone chain);
    fewer than 3 points (or all on a line): the distinct points, or the segment's two ends."""
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


def _edges(H: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Outward unit normals (k, 2) and offsets (k,) of a counter-clockwise hull's edges: the
    hull is ``n . x <= b``."""
    d = np.roll(H, -1, axis=0) - H
    n = np.stack([d[:, 1], -d[:, 0]], axis=1)
    n /= np.linalg.norm(n, axis=1)[:, None]
    return n, np.einsum("ij,ij->i", n, H)


def shrink(H: np.ndarray, margin: float) -> np.ndarray:
    """The counter-clockwise hull ``H`` (k >= 3) with every edge moved in by ``margin`` (m):
    its vertices (possibly a point or a segment, repeated), or (0, 2) when nothing is left."""
    n, b = _edges(H)
    poly = H
    for ni, bi in zip(n, b - margin):
        if not len(poly):
            break
        s = poly @ ni - bi  # > 0: outside this edge's half-plane
        nxt = np.roll(poly, -1, axis=0)
        sn = np.roll(s, -1)
        out = []
        for p, q, sp, sq in zip(poly, nxt, s, sn):
            if sp <= 0:
                out.append(p)
            if sp * sq < 0:
                out.append(p + (q - p) * (sp / (sp - sq)))
        poly = np.array(out, dtype=float).reshape(-1, 2)
    return _clean(poly)


def _clean(poly: np.ndarray) -> np.ndarray:
    """``poly`` without vertices within :data:`SAME` of the one before (a point, a segment or
    a polygon with no edge shorter than that)."""
    if len(poly) < 2:
        return poly
    keep = [poly[0]]
    for p in poly[1:]:
        if np.abs(p - keep[-1]).max() > SAME:
            keep.append(p)
    while len(keep) > 1 and np.abs(keep[-1] - keep[0]).max() <= SAME:
        keep.pop()
    return np.array(keep, dtype=float)


def region(points, margin: float) -> tuple[np.ndarray, float]:
    """Where the centre of mass may be: ``(vertices (k, 2), margin kept)``. The hull of
    ``points`` (2-D) with its edges moved in by ``margin``; when that leaves nothing (or the
    hull has no area: fewer than three contacts, or all on a line), the deepest part of the
    hull there is and the margin it keeps (less than asked: found to 1e-12 m). No points:
    an empty region, margin 0."""
    H = convex_hull(points)
    if len(H) < 3:
        return H, 0.0
    inner = shrink(H, margin)
    if len(inner) or margin <= 0:
        return (inner if margin > 0 else H), float(margin)
    lo, hi = 0.0, float(margin)
    best = H
    while hi - lo > SAME:
        mid = 0.5 * (lo + hi)
        got = shrink(H, mid)
        if len(got):
            lo, best = mid, got
        else:
            hi = mid
    return best, lo


def nearest(R: np.ndarray, x) -> tuple[np.ndarray, float]:
    """``(point, distance)``: the point of the convex region ``R`` (vertices counter-clockwise;
    a point or a segment too) nearest ``x`` (2-D), and how far it is (0 inside)."""
    return Region(R).nearest(x)


class Region:
    """A convex region (vertices ``R`` counter-clockwise; a point or a segment too) with its
    edges prepared, for many :meth:`nearest` points and :meth:`signed_distance` s (the
    balance goal's, every evaluation)."""

    def __init__(self, R: np.ndarray):
        R = np.asarray(R, float).reshape(-1, 2)
        self.vertices = R
        self.a = R if len(R) > 2 else R[:1]
        self.d = (np.roll(R, -1, axis=0) if len(R) > 2 else R[1:]) - self.a
        dd = np.einsum("ij,ij->i", self.d, self.d)
        self.dd = np.where(dd > 0, dd, 1.0)
        self.n: np.ndarray | None = None
        self.b: np.ndarray | None = None
        if len(R) > 2:
            self.n, self.b = _edges(R)

    def _depth(self, x):
        """``(n . x - b)`` per edge (all <= 0 inside), or None for a point or segment."""
        return None if self.n is None or self.b is None else self.n.dot(x) - self.b

    def _on_boundary(self, x) -> tuple[np.ndarray, float]:
        """The nearest point of the edges (or of the point) to ``x``, and its distance."""
        if len(self.vertices) == 1:
            return self.vertices[0].copy(), float(np.linalg.norm(x - self.vertices[0]))
        t = ((x - self.a) * self.d).sum(axis=1) / self.dd
        q = self.a + np.minimum(np.maximum(t, 0.0), 1.0)[:, None] * self.d
        dist = np.linalg.norm(x - q, axis=1)
        i = int(dist.argmin())
        return q[i], float(dist[i])

    def nearest(self, x) -> tuple[np.ndarray, float]:
        """``(point, distance)``: the point of the region nearest ``x``, 0 inside."""
        x = np.asarray(x, float)
        s = self._depth(x)
        if s is not None and s.max() <= 0:
            return x.copy(), 0.0
        return self._on_boundary(x)

    def signed_distance(self, x) -> tuple[float, np.ndarray]:
        """``(d, n)``: how far ``x`` (2-D) is outside the region, minus how deep inside it is,
        and ``n``, the gradient of ``d`` in ``x`` (a unit vector: from the nearest point
        outside; the nearest edge's outward normal inside). On a point or segment region (no
        inside) at distance 0, ``n`` is zero."""
        x = np.asarray(x, float)
        s = self._depth(x)
        if s is not None and self.n is not None:
            i = int(s.argmax())
            if s[i] <= 0:
                return float(s[i]), self.n[i]
        q, dist = self._on_boundary(x)
        return (dist, (x - q) / dist) if dist > 0 else (0.0, np.zeros(2))
