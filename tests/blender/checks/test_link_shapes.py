"""The clearance check's pieces (issue 32.4) give what the plain computation gives: the broad
and narrow phases of :func:`vart_addon.checks.link_shapes.pair_depth` (boxes of blocks and
triangles, only the triangles in the other link's box crossed) find the crossings and depth
that every triangle of one link crossed with every triangle of the other finds; the poses of
many links read together (:func:`vart_addon.bridge.poses.rigid_poses`) are those read one by
one, to the bit, and a bad matrix is refused with the same message."""
from __future__ import annotations

import numpy as np
import pytest

from vart_addon.bridge import BridgeError
from vart_addon.bridge import poses as P
from vart_addon.checks import link_shapes as LS
from vart_addon.solver import se3


def torus(R: float, r: float, n: int = 48, m: int = 24):
    """A closed torus about z (vertices, triangles): n x m quads split in two, 2nm
    triangles (several blocks of LS.BLOCK)."""
    u, w = np.meshgrid(np.linspace(0, 2 * np.pi, n, endpoint=False),
                       np.linspace(0, 2 * np.pi, m, endpoint=False), indexing="ij")
    v = np.stack([(R + r * np.cos(w)) * np.cos(u), (R + r * np.cos(w)) * np.sin(u),
                  r * np.sin(w)], axis=-1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(n), np.arange(m), indexing="ij")
    a, b = i * m + j, ((i + 1) % n) * m + j
    c, d = ((i + 1) % n) * m + (j + 1) % m, i * m + (j + 1) % m
    t = np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3),
                        np.stack([a, c, d], -1).reshape(-1, 3)])
    return v, t


def plain_hits(a, Ta, b, Tb) -> list:
    """Every triangle of b (posed in a's frame) against every triangle of a: (index in
    a.file_t, index in b.file_t) of each crossing."""
    T_ab = LS.relative(Ta, Tb)
    return a.tree.overlap(LS._tree_of(b.v @ T_ab[:3, :3].T + T_ab[:3, 3], b.file_t))


def plain_depth(a, Ta, b, Tb):
    """pair_depth without a broad or narrow phase (:func:`plain_hits`)."""
    T_ab, T_ba = LS.relative(Ta, Tb), LS.relative(Tb, Ta)
    hits = plain_hits(a, Ta, b, Tb)
    if not hits:
        return None
    pa = a.v[np.unique(a.file_t[[h[0] for h in hits]])]
    pb = b.v[np.unique(b.file_t[[h[1] for h in hits]])]
    pa, pb = pa @ T_ba[:3, :3].T + T_ba[:3, 3], pb @ T_ab[:3, :3].T + T_ab[:3, 3]
    return max(LS.depth_inside(b.tree, pa[b.holds(pa)]), LS.depth_inside(a.tree, pb[a.holds(pb)]))


def triangles(shape, rows) -> set:
    return {tuple(tri) for tri in shape.file_t[rows].tolist()}


def test_the_phases_keep_every_crossing_and_the_depth():
    """At random poses, deep and grazing (b moved along a random direction to where the
    plain crossing starts, then a little in or out)."""
    rng = np.random.default_rng(32)
    a, b = LS.LinkShape(*torus(0.3, 0.08)), LS.LinkShape(*torus(0.2, 0.05, 40, 20))
    assert len(a.t) > 10 * LS.BLOCK
    crossing = missing = 0
    for k in range(120):
        Ta = se3.make_pose(se3.so3_exp(rng.normal(size=3)), rng.normal(scale=0.1, size=3))
        Tb = se3.make_pose(se3.so3_exp(rng.normal(size=3)), Ta[:3, 3])
        if k % 2:  # grazing: out along d until apart, then back to near the first touch
            d = rng.normal(size=3)
            d *= 0.02 / np.linalg.norm(d)
            while plain_hits(a, Ta, b, Tb):
                Tb[:3, 3] += d
            Tb[:3, 3] -= d * rng.uniform(0.0, 0.3)
        else:
            Tb[:3, 3] += rng.normal(scale=0.25, size=3)
        hits = plain_hits(a, Ta, b, Tb)
        rows_a, rows_b = LS.candidates(a, LS.relative(Ta, Tb), b, LS.relative(Tb, Ta))
        assert triangles(a, [i for i, _ in hits]) <= {tuple(t) for t in a.t[rows_a].tolist()}
        assert triangles(b, [j for _, j in hits]) <= {tuple(t) for t in b.t[rows_b].tolist()}
        got, want = LS.pair_depth(a, Ta, b, Tb), plain_depth(a, Ta, b, Tb)
        if want is None:
            missing += 1
            assert got is None
        else:
            crossing += 1
            assert got == pytest.approx(want, abs=1e-12)
    assert crossing > 20 and missing > 20  # both kinds of pose were met


def test_link_poses_read_together_are_those_read_one_by_one():
    rng = np.random.default_rng(7)
    ms = []
    for k in range(40):
        M = se3.make_pose(None, rng.normal(size=3))
        # no scale, a uniform one, one along each of the link's own axes (no shear)
        s = 1.0 if k % 3 == 0 else rng.uniform(0.5, 2.0) if k % 3 == 1 else \
            rng.uniform(0.5, 2.0, size=3)
        M[:3, :3] = se3.so3_exp(rng.normal(size=3)) * s
        ms.append(tuple(float(x) for x in M.astype(np.float32).ravel()))  # as Blender keeps it
    names = [f"link{k}" for k in range(len(ms))]
    together = P.rigid_poses(ms, names)
    for m, nm, T in zip(ms, names, together):
        assert np.array_equal(T, P.rigid_and_scale(m, nm)[0])
    assert P.rigid_poses([], []) == []
    mirrored = np.diag([1.0, 1.0, -1.0, 1.0])
    with pytest.raises(BridgeError, match="'link40': negative") as caught:
        P.rigid_poses(ms + [tuple(mirrored.ravel())], names + ["link40"])
    with pytest.raises(BridgeError) as single:
        P.rigid_and_scale(tuple(mirrored.ravel()), "link40")
    assert str(caught.value) == str(single.value)
