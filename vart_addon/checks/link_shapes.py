"""The clearance check's geometry of links (:mod:`.clearance`): each link's triangles in its own
frame with what is known of them once (boxes, triangle boxes, a BVH tree), and the broad and
narrow phases between two links placed at world poses.

- :class:`LinkShape`: a link's triangles (vertices ``v``, m, link frame; triangles ``t``),
  its box in its own frame, each triangle's box, and a BVH tree of the whole built on first
  use (``mathutils.bvhtree``).
- broad phase: :func:`world_boxes` (every link's world box from its own box's eight corners:
  no vertex is moved) and :func:`boxes_cross` (two boxes oriented with their links, by
  separating axes: exact for boxes);
- narrow phase, :func:`pair_depth`: the triangles of each link whose box meets the other
  link's box (in that link's frame; blocks of BLOCK triangles tested first) are the only ones
  that can cross the other's, and of those, the ones whose box meets the box of what the
  other link kept (:func:`candidates`); link ``a``'s own tree (built once, in its frame) is
  crossed with a tree of ``b``'s kept triangles posed in ``a``'s frame (``BVHTree.overlap``;
  ``a`` is the link that kept the larger share of its triangles). A pair of triangles
  that cross is always among them (the crossing point lies on both, so in both triangles'
  boxes and in every box around either set), so the answer is that of all triangles. Its depth:
  the deepest vertex of a crossing triangle, within the other link's box, behind the other
  link's nearest face (each link's whole tree, in its own frame), 0 when only edges cross.
- :class:`Crossings`: the pairs of a check crossed frame after frame, each pair's answer kept
  while its relative pose does not move;
- :func:`lowest_z`: a link's lowest world height (m), exact for a mesh.

Frames: ``T`` is ``T_world_link`` (4x4, rigid); boxes are ``(lo, hi)`` corner pairs (m).
"""
from __future__ import annotations

import numpy as np
from mathutils import Vector
from mathutils.bvhtree import BVHTree

_CORNERS = np.array([(i, j, k) for i in (0, 1) for j in (0, 1) for k in (0, 1)], float)
#: Triangles per block of a link's triangles (a block's box is tested before its triangles).
BLOCK = 64
#: Cells along each axis of a link's box by which its triangles are ordered into blocks.
_CELLS = 16


class LinkShape:
    """A link's geometry in its own frame (see the module doc)."""

    def __init__(self, v: np.ndarray, t: np.ndarray):
        self.v = np.ascontiguousarray(v, float)
        self.lo, self.hi = self.v.min(axis=0), self.v.max(axis=0)
        self.corners = self.lo + _CORNERS * (self.hi - self.lo)
        self.file_t = np.asarray(t, np.int64)  # in the file's order: the tree's (see tree)
        self._tree: BVHTree | None = None
        self._sorted = False

    def _sort(self) -> None:
        """The triangles in blocks of BLOCK near each other (sorted by the cell of a grid over
        the box their centre is in), each block's box tested before its triangles' (made
        when a crossing first needs them: most links never get that far)."""
        tri = self.v[self.file_t]  # k x 3 x 3
        cell = np.clip(((tri.mean(axis=1) - self.lo) / np.maximum(self.hi - self.lo, 1e-12)
                        * _CELLS).astype(np.int64), 0, _CELLS - 1)
        order = np.argsort((cell[:, 0] * _CELLS + cell[:, 1]) * _CELLS + cell[:, 2],
                           kind="stable")
        self._t = np.ascontiguousarray(self.file_t[order])
        tri = tri[order]
        lo, hi = tri.min(axis=1), tri.max(axis=1)
        starts = np.arange(0, len(self._t), BLOCK)
        block_lo = np.minimum.reduceat(lo, starts) if len(starts) else lo
        block_hi = np.maximum.reduceat(hi, starts) if len(starts) else hi
        # boxes as rows (lo, -hi): a box meets the box (qlo, qhi) when all six are <= (qhi,
        # -qlo); the triangles' in whole blocks, the last one filled with boxes that meet none
        boxes = np.full((len(starts) * BLOCK, 6), np.inf)
        boxes[:len(self._t)] = np.hstack([lo, -hi])
        self._tri_boxes = boxes.reshape(len(starts), BLOCK, 6)
        self._block_boxes = np.hstack([block_lo, -block_hi])
        self._sorted = True

    @property
    def t(self) -> np.ndarray:
        """The triangles (k x 3 vertex indices), in block order."""
        if not self._sorted:
            self._sort()
        return self._t

    @property
    def tree(self) -> BVHTree:
        """The BVH tree of every triangle, in the link frame (built once, in the triangles'
        own order: a point equally near two faces gets the face a tree of the world would)."""
        tree = self._tree
        if tree is None:
            tree = self._tree = _tree_of(self.v, self.file_t)
        return tree

    def crossing(self, T_self_other: np.ndarray, lo, hi) -> "Rows":
        """This link's triangles whose box meets the box ``lo``, ``hi`` of another frame,
        posed at ``T_self_other`` in this link's frame (tested against a box around it): the
        blocks' boxes first, then their triangles'."""
        if not self._sorted:
            self._sort()
        q = _posed_box(T_self_other, lo, hi)
        blocks = np.flatnonzero((self._block_boxes <= q).all(axis=1))
        boxes = self._tri_boxes[blocks]  # blocks x BLOCK x 6
        i, j = np.nonzero((boxes <= q).all(axis=2))
        return Rows(blocks[i] * BLOCK + j, boxes[i, j])

    def holds(self, points: np.ndarray) -> np.ndarray:
        """Which points (n x 3, link frame) lie in the link's box: the others are not inside
        it."""
        return ((points >= self.lo) & (points <= self.hi)).all(axis=1)


class Rows:
    """Triangles of a link kept by a crossing: their indices ``rows`` (in block order,
    ascending) and boxes ``boxes`` (rows ``(lo, -hi)``, link frame)."""

    def __init__(self, rows: np.ndarray, boxes: np.ndarray):
        self.rows, self.boxes = rows, boxes

    def __len__(self) -> int:
        return len(self.rows)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The box (link frame) of these triangles."""
        m = self.boxes.min(axis=0)
        return m[:3], -m[3:]

    def crossing(self, T_self_other: np.ndarray, lo, hi) -> "Rows":
        """Those of these triangles whose box meets the box ``lo``, ``hi`` of another frame
        posed at ``T_self_other`` (as :meth:`LinkShape.crossing`)."""
        keep = (self.boxes <= _posed_box(T_self_other, lo, hi)).all(axis=1)
        return Rows(self.rows[keep], self.boxes[keep])


def _posed_box(T: np.ndarray, lo, hi) -> np.ndarray:
    """``(hi, -lo)`` of the box around the box ``lo``, ``hi`` posed at ``T``."""
    c = lo + _CORNERS * (hi - lo)
    c = c @ T[:3, :3].T + T[:3, 3]
    return np.concatenate([c.max(axis=0), -c.min(axis=0)])


def world_boxes(shapes: list, poses: list) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, hi)``, each n x 3: the world box of each shape's own box at its pose."""
    out_lo, out_hi = np.empty((len(shapes), 3)), np.empty((len(shapes), 3))
    for i, (s, T) in enumerate(zip(shapes, poses)):
        c = s.corners @ T[:3, :3].T + T[:3, 3]
        out_lo[i], out_hi[i] = c.min(axis=0), c.max(axis=0)
    return out_lo, out_hi


def boxes_cross(a: LinkShape, Ta: np.ndarray, b: LinkShape, Tb: np.ndarray) -> bool:
    """Whether the two links' own boxes, at their world poses, overlap (15 separating axes;
    touching counts)."""
    Ra, Rb = Ta[:3, :3], Tb[:3, :3]
    ea, eb = (a.hi - a.lo) / 2, (b.hi - b.lo) / 2
    d = (Tb[:3, :3] @ ((b.lo + b.hi) / 2) + Tb[:3, 3]) - (Ra @ ((a.lo + a.hi) / 2) + Ta[:3, 3])
    R = Ra.T @ Rb  # b's axes in a's
    A = np.abs(R) + 1e-12
    t = Ra.T @ d
    if (np.abs(t) > ea + A @ eb).any():
        return False
    if (np.abs(R.T @ t) > A.T @ ea + eb).any():
        return False
    ea, eb, t, A, R = ea.tolist(), eb.tolist(), t.tolist(), A.tolist(), R.tolist()
    for i in range(3):  # the nine axes a_i x b_j
        i1, i2 = (i + 1) % 3, (i + 2) % 3
        for j in range(3):
            j1, j2 = (j + 1) % 3, (j + 2) % 3
            ra = ea[i1] * A[i2][j] + ea[i2] * A[i1][j]
            rb = eb[j1] * A[i][j2] + eb[j2] * A[i][j1]
            if abs(t[i2] * R[i1][j] - t[i1] * R[i2][j]) > ra + rb:
                return False
    return True


def relative(Ta: np.ndarray, Tb: np.ndarray) -> np.ndarray:
    """``T_a_b = inv(Ta) @ Tb`` of two rigid poses (4x4), without a general inverse."""
    Ra_t = Ta[:3, :3].T
    out = np.eye(4)
    out[:3, :3] = Ra_t @ Tb[:3, :3]
    out[:3, 3] = Ra_t @ (Tb[:3, 3] - Ta[:3, 3])
    return out


def _subset_tree(shape: LinkShape, rows: np.ndarray, T: np.ndarray | None = None) -> BVHTree:
    """A BVH tree of the shape's triangles ``rows``, posed at ``T`` (default: in its own
    frame); only the vertices they use are copied."""
    used, local = np.unique(shape.t[rows], return_inverse=True)
    v = shape.v[used] if T is None else shape.v[used] @ T[:3, :3].T + T[:3, 3]
    return _tree_of(v, local.reshape(-1, 3))


def _tree_of(v: np.ndarray, t: np.ndarray) -> BVHTree:
    """A BVH tree of triangles ``t`` (k x 3 indices) of vertices ``v`` (n x 3)."""
    tree = BVHTree.FromPolygons(v.tolist(), t.tolist())
    assert tree is not None  # (the stubs say it may be None)
    return tree


def depth_inside(tree: BVHTree, points: np.ndarray) -> float:
    """The largest distance (m) of a point behind the nearest face of ``tree``; 0 if none."""
    worst = 0.0
    for p in map(Vector, points.tolist()):
        co, normal, _, dist = tree.find_nearest(p)
        if co is not None and dist > worst and (p - co).dot(normal) < 0.0:
            worst = dist
    return float(worst)


def candidates(a: LinkShape, T_ab: np.ndarray, b: LinkShape, T_ba: np.ndarray):
    """The triangles of ``a`` and of ``b`` (rows in block order, of ``a.t`` and ``b.t``) that
    may cross a triangle of the other, ``b`` at ``T_ab`` in ``a``'s frame (``T_ba`` its
    inverse): those whose box meets the other link's box, then of those, the ones whose box
    meets the box of what the other kept. Either is empty when nothing can cross."""
    kept_a, kept_b = a.crossing(T_ab, b.lo, b.hi), b.crossing(T_ba, a.lo, a.hi)
    if len(kept_a) and len(kept_b):  # again, against the box of what the other kept
        kept_a = kept_a.crossing(T_ab, *kept_b.bounds())
        if len(kept_a):
            kept_b = kept_b.crossing(T_ba, *kept_a.bounds())
    return kept_a.rows, kept_b.rows


def pair_depth(a: LinkShape, Ta: np.ndarray, b: LinkShape, Tb: np.ndarray) -> float | None:
    """The depth (m) of links ``a`` and ``b`` at world poses ``Ta``, ``Tb`` when any of their
    triangles cross, else None (see the module doc)."""
    T_ab, T_ba = relative(Ta, Tb), relative(Tb, Ta)  # b in a's frame, a in b's
    rows_a, rows_b = candidates(a, T_ab, b, T_ba)
    if not len(rows_a) or not len(rows_b):
        return None
    if len(rows_b) * len(a.t) > len(rows_a) * len(b.t):  # a: the link kept the most of
        a, b, T_ab, T_ba, rows_a, rows_b = b, a, T_ba, T_ab, rows_b, rows_a
    tree_a, tri_a = a.tree, a.file_t  # a's own tree (built once) in its own frame
    hits = tree_a.overlap(_subset_tree(b, rows_b, T_ab))  # in a's frame
    if not hits:
        return None
    # the vertices of the crossing triangles, each in the other link's frame
    pa = a.v[np.unique(tri_a[[h[0] for h in hits]])]
    pb = b.v[np.unique(b.t[rows_b[[h[1] for h in hits]]])]
    pa, pb = pa @ T_ba[:3, :3].T + T_ba[:3, 3], pb @ T_ab[:3, :3].T + T_ab[:3, 3]
    return max(depth_inside(b.tree, pa[b.holds(pa)]), depth_inside(a.tree, pb[a.holds(pb)]))


class Crossings:
    """The link ``pairs`` of a check (names of ``shapes``, in the order ``names``), crossed
    frame after frame: world boxes, then oriented boxes (:func:`boxes_cross`), then the
    triangles (:func:`pair_depth`); a pair whose relative pose has moved none of its vertices
    more than ``same_pose`` (m) keeps its last answer."""

    def __init__(self, shapes: dict, pairs: list, names: list, same_pose: float):
        self.shapes, self.pairs, self.same_pose = shapes, pairs, same_pose
        index = {nm: i for i, nm in enumerate(names)}
        self.ia = np.array([index[a] for a, _ in pairs], dtype=np.int64)
        self.ib = np.array([index[b] for _, b in pairs], dtype=np.int64)
        # how far a vertex of b lies from b's origin at most (m): bounds what a rotation moves
        self.reach = {nm: float(np.abs(s.corners).max() * np.sqrt(3.0))
                      for nm, s in shapes.items()}
        self.last: dict = {}  # pair -> (T_ab, depth or None) of its last crossing

    def frame(self, poses: dict, lo: np.ndarray, hi: np.ndarray, moved=None) -> dict:
        """``(a, b)`` -> depth (m) of the pairs in contact at ``poses``; ``lo``, ``hi`` the
        links' world boxes (in the order of the check's names); ``moved``: the links whose
        pose changed since the last frame (None: any may have)."""
        out: dict = {}
        if not len(self.pairs):
            return out
        meet = ((lo[self.ia] <= hi[self.ib]) & (lo[self.ib] <= hi[self.ia])).all(axis=1)
        for k in np.flatnonzero(meet):
            a, b = self.pairs[k]
            Ta, Tb = poses[a], poses[b]
            kept = self.last.get((a, b))
            if kept is not None and moved is not None and a not in moved and b not in moved:
                d = kept[1]  # neither link moved since
            elif kept is not None and self._same(kept[0], relative(Ta, Tb), b):
                d = kept[1]
            else:
                sa, sb = self.shapes[a], self.shapes[b]
                d = pair_depth(sa, Ta, sb, Tb) if boxes_cross(sa, Ta, sb, Tb) else None
                self.last[(a, b)] = (relative(Ta, Tb), d)
            if d is not None:
                out[(a, b)] = d
        return out

    def _same(self, T_old: np.ndarray, T_new: np.ndarray, b: str) -> bool:
        """Whether no vertex of ``b`` moved more than ``same_pose`` (m) in ``a``'s frame (the
        Frobenius norm of the rotations' difference bounds how far it turns a point)."""
        D = T_new[:3] - T_old[:3]
        moved = float(np.sqrt((D[:, :3] ** 2).sum())) * self.reach[b] \
            + float(np.sqrt((D[:, 3] ** 2).sum()))
        return moved <= self.same_pose


def lowest_z(shape: LinkShape, T: np.ndarray) -> float:
    """The lowest world height (m) of the link's vertices at pose ``T``."""
    return float((shape.v @ T[2, :3]).min() + T[2, 3])


def world_points(shape: LinkShape, T: np.ndarray) -> np.ndarray:
    """The link's vertices (n x 3) in the world at pose ``T``."""
    return shape.v @ T[:3, :3].T + T[:3, 3]
