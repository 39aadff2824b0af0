"""Glyph geometry of the joint overlay, in world coordinates (pure numpy, no bpy).

The viewport overlay (:mod:`vart_addon.overlay.drawing`) draws what this module computes, so the
geometry is tested with plain pytest. Each joint becomes line segments, grouped by
:class:`Style` (colour, width, dashed):

- a glyph at its *mobility frame* (fixed in the parent link) that shows its axes, built from
  the joint type's configuration layout (:data:`vart_addon.solver.joint_types.CATALOG`):
  an **arc** about z for a rotation about z (with a needle at the current angle), a **helix**
  for a helical joint, a **ball** (three great circles) for a free rotation, an **arrow**
  (double-headed) per translation axis, a **plane patch** in xy when exactly x and y translate,
  a small **cube** for a fixed joint;
- a **link line** parent link origin -> mobility frame origin -> child-side frame origin ->
  child link origin (the middle piece shows a closure joint that is not assembled);
- for a joint to the world (no parent link) a **ground** symbol under the mobility frame.

Colours are MSim's: tree joints ultramarine, closure joints purple, locked joints red (locked
wins); virtual joints are lighter and dashed. The active joint is drawn wider. A joint whose
child link is in a sublinkage has a ``shade`` (its sublinkage's colour,
:func:`sublinkage_color`): its link line is drawn in that colour, a little wider, with a
**diamond** at the child link's origin, so each sublinkage shows as one colour.

Input is a :class:`JointGlyph` per joint (see :func:`glyph_from_joint` to make one from the
bridge's ``JointData`` and link poses); output an :class:`OverlayGeometry` whose ``batches``
map each style to a (2n, 3) float32 array of segment end points (``'LINES'`` order).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..solver.joint_types import CATALOG

# ---- colours (linear RGBA) ------------------------------------------------------------------
ULTRAMARINE = (0.25, 0.40, 1.00, 1.0)
PURPLE = (0.66, 0.25, 0.90, 1.0)
RED = (0.95, 0.12, 0.10, 1.0)
LIGHTEN = 0.5          # virtual joints: this far towards white
LINK_ALPHA = 0.7       # link lines are a little fainter than glyphs

WIDTH_GLYPH = 2.0
WIDTH_ACTIVE = 4.0
WIDTH_LINK = 1.5
WIDTH_SHADE = 2.5

#: Sublinkage colours: Blender's collection colour tags (default theme, as the Outliner shows
#: them), so a sublinkage has its collection's colour; a collection without a tag takes one in
#: turn by its place among the sublinkages.
TAG_COLORS = {
    "COLOR_01": (0.89, 0.38, 0.36, 1.0), "COLOR_02": (0.95, 0.64, 0.33, 1.0),
    "COLOR_03": (0.88, 0.82, 0.35, 1.0), "COLOR_04": (0.49, 0.77, 0.40, 1.0),
    "COLOR_05": (0.36, 0.64, 0.82, 1.0), "COLOR_06": (0.55, 0.43, 0.84, 1.0),
    "COLOR_07": (0.74, 0.38, 0.58, 1.0), "COLOR_08": (0.54, 0.42, 0.31, 1.0),
}

ARC_SPAN = np.deg2rad(300.0)   # an open arc, so the direction of positive rotation shows
SEGMENTS = 32                  # segments per full circle


@dataclass(frozen=True)
class Style:
    """How a set of segments is drawn: RGBA colour, line width in pixels, dashed or not."""

    color: tuple
    width: float
    dashed: bool = False


@dataclass(frozen=True)
class JointGlyph:
    """What the overlay needs of one joint. Poses are 4x4 world matrices (metres);
    ``parent_origin`` is None for a joint to the world (the ground)."""

    name: str
    jtype: str
    T_world_mob: np.ndarray
    T_world_cframe: np.ndarray
    parent_origin: np.ndarray | None
    child_origin: np.ndarray
    q: tuple = ()
    pitch: float = 0.0
    tree: bool = True
    locked: bool = False
    virtual: bool = False
    active: bool = False
    shade: tuple | None = None  # RGBA of the child link's sublinkage, None: not in one


@dataclass
class OverlayGeometry:
    """Segments grouped by style: ``{Style: float32 array (2n, 3)}``, pairs of end points."""

    batches: dict

    @property
    def segment_count(self) -> int:
        return sum(len(v) // 2 for v in self.batches.values())


# ---- colours --------------------------------------------------------------------------------
def joint_color(tree: bool, locked: bool, virtual: bool) -> tuple:
    """MSim's colour of a joint: red if locked, else ultramarine (tree) or purple (closure);
    lighter if virtual."""
    base = RED if locked else (ULTRAMARINE if tree else PURPLE)
    if not virtual:
        return base
    return tuple(c + (1.0 - c) * LIGHTEN for c in base[:3]) + (base[3],)


def sublinkage_color(color_tag: str, index: int) -> tuple:
    """The colour of a sublinkage: its collection's colour tag's, else the ``index``-th tag's
    (its place among the scene's sublinkages)."""
    tags = list(TAG_COLORS)
    return TAG_COLORS.get(color_tag, TAG_COLORS[tags[index % len(tags)]])


def joint_styles(g: JointGlyph) -> tuple[Style, Style]:
    """(glyph style, link-line style) of a joint; the link line takes the sublinkage's shade."""
    c = joint_color(g.tree, g.locked, g.virtual)
    glyph = Style(c, WIDTH_ACTIVE if g.active else WIDTH_GLYPH, g.virtual)
    if g.shade is not None:
        return glyph, Style(tuple(g.shade), WIDTH_SHADE, g.virtual)
    link = Style(c[:3] + (c[3] * LINK_ALPHA,), WIDTH_LINK, g.virtual)
    return glyph, link


# ---- primitives in a local frame (polylines, (n, 3) arrays) ---------------------------------
def _circle(r: float, a0: float = 0.0, span: float = 2 * np.pi, plane=(0, 1), z=0.0):
    n = max(4, int(np.ceil(SEGMENTS * span / (2 * np.pi))))
    t = a0 + np.linspace(0.0, span, n + 1)
    P = np.zeros((n + 1, 3))
    P[:, plane[0]], P[:, plane[1]] = r * np.cos(t), r * np.sin(t)
    normal = 3 - plane[0] - plane[1]
    P[:, normal] = z
    return P


def _axis(a: int) -> np.ndarray:
    e = np.zeros(3)
    e[a] = 1.0
    return e


def _arrowheads(tip: np.ndarray, back: np.ndarray, side: np.ndarray, s: float) -> list:
    """Two barbs at ``tip`` pointing back along ``back`` (unit), spread along ``side``."""
    return [np.array([tip - 0.25 * s * back + 0.12 * s * side, tip,
                      tip - 0.25 * s * back - 0.12 * s * side])]


def arc(s: float, angle: float | None = None) -> list:
    """Rotation about z: an open arc of radius ``s`` in the xy plane, an arrowhead at its
    end (the positive direction), the z axis, and a needle at ``angle`` (the current q)."""
    P = _circle(s, 0.0, ARC_SPAN)
    end = P[-1]
    tangent = np.array([-np.sin(ARC_SPAN), np.cos(ARC_SPAN), 0.0])
    out = [P, np.array([[0, 0, -0.6 * s], [0, 0, 0.6 * s]])]
    out += _arrowheads(end, tangent, end / s, s)
    if angle is not None:
        d = np.array([np.cos(angle), np.sin(angle), 0.0])
        out.append(np.array([0.55 * s * d, 1.2 * s * d]))
    return out


def helix(s: float, pitch: float = 1.0, turns: float = 2.0) -> list:
    """Helical joint: a helix of radius ``0.8 s`` about z between z = -s and z = +s that
    advances along +z for positive rotation when ``pitch`` >= 0 (right-handed), along -z
    otherwise; and the z axis."""
    n = int(SEGMENTS * turns)
    t = np.linspace(0.0, 2 * np.pi * turns, n + 1)
    z = np.linspace(-s, s, n + 1) * (1.0 if pitch >= 0 else -1.0)
    P = np.stack([0.8 * s * np.cos(t), 0.8 * s * np.sin(t), z], 1)
    return [P, np.array([[0, 0, -1.3 * s], [0, 0, 1.3 * s]])]


def arrow(a: int, s: float) -> list:
    """Translation along axis ``a`` (0 x, 1 y, 2 z): a double-headed arrow from -1.3 s to
    +1.3 s on that axis."""
    e = _axis(a)
    side = _axis((a + 1) % 3)
    out = [np.array([-1.3 * s * e, 1.3 * s * e])]
    out += _arrowheads(1.3 * s * e, e, side, s)
    out += _arrowheads(-1.3 * s * e, -e, side, s)
    return out


def ball(s: float) -> list:
    """Free rotation: three great circles of radius ``0.7 s``."""
    r = 0.7 * s
    return [_circle(r, plane=(0, 1)), _circle(r, plane=(1, 2)), _circle(r, plane=(2, 0))]


def plane_patch(s: float) -> list:
    """Translation in x and y: a square patch of half-size 1.2 s in the xy plane, with a
    cross through its centre."""
    h = 1.2 * s
    sq = np.array([[-h, -h, 0], [h, -h, 0], [h, h, 0], [-h, h, 0], [-h, -h, 0]], float)
    return [sq, np.array([[-h, 0, 0], [h, 0, 0]]), np.array([[0, -h, 0], [0, h, 0]])]


def cube(s: float) -> list:
    """Fixed joint: a cube of half-size 0.3 s (its 12 edges)."""
    h = 0.3 * s
    c = np.array([[x, y, z] for x in (-h, h) for y in (-h, h) for z in (-h, h)])
    edges = [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7),
             (0, 4), (1, 5), (2, 6), (3, 7)]
    return [c[[i, j]] for i, j in edges]


def local_glyph(jtype: str, s: float, q=(), pitch: float = 0.0) -> list:
    """The polylines of a joint type's glyph in its mobility frame, for glyph size ``s``.

    Built from the type's configuration layout, so every catalog type is covered: rotation
    about z -> arc (helix if helical), free rotation -> ball, x and y translation -> plane
    patch, any other translation axis -> arrow, no DoF -> cube.
    """
    jt = CATALOG[jtype]
    out: list = []
    if jt.dof == 0:
        return cube(s)
    if jt.rot == "z":
        if jt.helical:
            out += helix(s, pitch)
        else:
            angle = float(q[jt.rz_idx]) if len(q) == jt.dof else None
            out += arc(s, angle)
    elif jt.rot == "free":
        out += ball(s)
    axes = set(jt.trans_axes)
    if axes == {0, 1}:
        out += plane_patch(s)
        axes = set()
    for a in sorted(axes):
        out += arrow(a, s)
    return out


def diamond(s: float) -> list:
    """A sublinkage member's mark: an octahedron of half-size 0.35 s (its 12 edges)."""
    h = 0.35 * s
    tips = [np.array(v, float) * h for v in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0),
                                             (0, 0, 1), (0, 0, -1))]
    return [np.array([tips[a], tips[b]]) for a in range(2) for b in range(2, 6)] + \
        [np.array([tips[a], tips[b]]) for a in (2, 3) for b in (4, 5)]


def ground(s: float) -> list:
    """The ground symbol, in world axes relative to a point: a stem down from the point and
    three bars of decreasing length (world xy plane) under it."""
    out = [np.array([[0, 0, 0], [0, 0, -0.8 * s]], float)]
    for k, half in enumerate((0.6, 0.4, 0.2)):
        z = -0.8 * s - 0.15 * s * k
        out.append(np.array([[-half * s, 0, z], [half * s, 0, z]]))
    return out


# ---- transforms, dashes, segments ----------------------------------------------------------
def transform(T: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Points (n, 3) from a local frame to the world by the pose T (4x4)."""
    T = np.asarray(T, float)
    return P @ T[:3, :3].T + T[:3, 3]


def segments(P: np.ndarray) -> np.ndarray:
    """A polyline (n, 3) as segment end points (2(n-1), 3)."""
    P = np.asarray(P, float)
    if len(P) < 2:
        return np.zeros((0, 3))
    return np.stack([P[:-1], P[1:]], 1).reshape(-1, 3)


def dashed(P: np.ndarray, dash: float, gap: float) -> np.ndarray:
    """A polyline (n, 3) cut into dashes of length ``dash`` separated by ``gap`` (measured
    along the polyline), as segment end points (2m, 3)."""
    P = np.asarray(P, float)
    if len(P) < 2 or dash <= 0:
        return segments(P)
    seg = np.linalg.norm(np.diff(P, axis=0), axis=1)
    cum = np.concatenate([[0.0], np.cumsum(seg)])
    total = cum[-1]
    if total <= 0:
        return np.zeros((0, 3))
    period = dash + gap
    starts = np.arange(0.0, total, period)
    ends = np.minimum(starts + dash, total)
    out = []
    for a, b in zip(starts, ends):
        inside = (cum > a) & (cum < b)
        pts = [_at(P, cum, a), *P[inside], _at(P, cum, b)]
        out.append(segments(np.array(pts)))
    return np.concatenate(out) if out else np.zeros((0, 3))


def _at(P, cum, t):
    i = int(np.clip(np.searchsorted(cum, t, side="right") - 1, 0, len(P) - 2))
    L = cum[i + 1] - cum[i]
    u = 0.0 if L <= 0 else (t - cum[i]) / L
    return P[i] + u * (P[i + 1] - P[i])


# ---- joints ---------------------------------------------------------------------------------
def link_polyline(g: JointGlyph) -> np.ndarray:
    """Parent link origin (if any) -> mobility frame origin -> child-side frame origin -> child
    link origin, with repeated points removed."""
    pts = [] if g.parent_origin is None else [np.asarray(g.parent_origin, float)]
    pts += [np.asarray(g.T_world_mob, float)[:3, 3], np.asarray(g.T_world_cframe, float)[:3, 3],
            np.asarray(g.child_origin, float)]
    keep = [pts[0]]
    for p in pts[1:]:
        if np.linalg.norm(p - keep[-1]) > 1e-9:
            keep.append(p)
    return np.array(keep)


def joint_segments(g: JointGlyph, size: float) -> dict:
    """``{Style: (2n, 3) segment end points}`` of one joint: glyph, link line and, for a joint
    to the world, the ground symbol."""
    glyph_style, link_style = joint_styles(g)
    dash, gap = 0.18 * size, 0.12 * size

    def cut(P):
        return dashed(P, dash, gap) if g.virtual else segments(P)

    glyph = [transform(g.T_world_mob, P) for P in local_glyph(g.jtype, size, g.q, g.pitch)]
    if g.parent_origin is None:
        origin = np.asarray(g.T_world_mob, float)[:3, 3]
        glyph += [P + origin for P in ground(size)]
    out = {glyph_style: np.concatenate([cut(P) for P in glyph])}
    line = cut(link_polyline(g))
    if g.shade is not None:
        origin = np.asarray(g.child_origin, float)
        line = np.concatenate([line] + [segments(P + origin) for P in diamond(size)])
    if len(line):
        out.setdefault(link_style, np.zeros((0, 3)))
        out[link_style] = np.concatenate([out[link_style], line])
    return out


def build(glyphs, size: float) -> OverlayGeometry:
    """The overlay of many joints, segments of equal style merged into one array each (so
    the overlay makes one draw call per style)."""
    parts: dict = {}
    for g in glyphs:
        for style, seg in joint_segments(g, size).items():
            parts.setdefault(style, []).append(seg)
    return OverlayGeometry({st: np.concatenate(v).astype(np.float32) for st, v in parts.items()})


def auto_size(glyphs, default: float = 0.1, fraction: float = 0.2,
              lo: float = 0.01, hi: float = 10.0) -> float:
    """A glyph size for a whole scene: ``fraction`` of the median distance between joined
    link origins, clamped to [lo, hi]; ``default`` when there is nothing to measure."""
    d = []
    for g in glyphs:
        P = link_polyline(g)
        if len(P) > 1:
            d.append(float(np.linalg.norm(np.diff(P, axis=0), axis=1).sum()))
    d = [x for x in d if x > 1e-6]
    if not d:
        return default
    return float(np.clip(fraction * np.median(d), lo, hi))


def glyph_from_joint(j, poses: dict, active: str = "", shade=None) -> JointGlyph | None:
    """A :class:`JointGlyph` from a bridge ``JointData`` (duck-typed: ``name``, ``child``,
    ``type``, ``parent``, ``T_parent_mob``, ``T_child_frame`` (16 floats row-major), ``q``,
    ``pitch``, ``tree``, ``locked``, ``virtual``) and world poses of links by name (4x4);
    ``shade``: the colour of its child link's sublinkage, or None.
    None if the child, or a named parent, has no pose (not in the scene)."""
    if j.child not in poses or (j.parent is not None and j.parent not in poses):
        return None
    T_child = np.asarray(poses[j.child], float)
    T_parent = np.eye(4) if j.parent is None else np.asarray(poses[j.parent], float)
    return JointGlyph(
        name=j.name, jtype=j.type,
        T_world_mob=T_parent @ np.asarray(j.T_parent_mob, float).reshape(4, 4),
        T_world_cframe=T_child @ np.asarray(j.T_child_frame, float).reshape(4, 4),
        parent_origin=None if j.parent is None else T_parent[:3, 3].copy(),
        child_origin=T_child[:3, 3].copy(), q=tuple(j.q), pitch=float(j.pitch),
        tree=bool(j.tree), locked=bool(j.locked), virtual=bool(j.virtual),
        active=(j.name == active), shade=shade)
