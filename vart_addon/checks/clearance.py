"""Clearance check of a baked range: ground penetration and collisions between links.

:func:`check_clearance` steps through the frames (``scene.frame_set``, the current frame is
kept) and, at each one, places every link's geometry where its baked pose puts it:

- *geometry*: the evaluated meshes (modifiers applied) of each link object and of its non-link
  descendants, as the URDF export takes them (:func:`vart_addon.io_urdf.exporter.geometry_objects`),
  read once at the first frame in the link's frame ``T_world_link`` (links are rigid);
- *virtual links* with geometry (a rock the camera inspects) count against the robot's links,
  not against the ground or each other: they stand for the world or for intent; a link a
  fixed joint holds to the world (an arm's base, mounted) is not checked against the ground;
- *ground*: the plane z = 0 (world) by default: a link's depth is how far its lowest vertex is
  below it (exact for a mesh); or any mesh object (``ground=``, read once at the first frame,
  world frame): a link vertex is inside when it lies behind the nearest ground face (its
  normal points out), its depth is the distance to that face;
- *link pairs*: every pair of links with geometry that no joint connects directly (real or
  virtual; the pairs a joint connects touch by design), except (``ignore_touching``, the
  default) links two joints apart through a third link that already cross at the robot's
  zero configuration (every real tree joint at 0, as its URDF defines the robot): a thigh
  modelled sunk into the deck around its small hip link touches it at every pose (a
  collision matrix leaves such "default" pairs out too), and the pairs of the scene's
  *Ignored Pairs* (``scene.vart.clearance_ignored``: an SRDF's ``disable_collisions``, or
  pairs added by hand; ``ignore=`` to give others). The broad phase and the narrow phase are
  :mod:`.link_shapes`': world boxes of each link's own box, then the two links' boxes
  oriented with them, then only the triangles in the other link's box crossed by Blender's
  ``mathutils.bvhtree.BVHTree.overlap``; the depth is that of the deepest vertex of a
  crossing triangle inside the other link (0 when only edges cross: a contact all the same).
  A pair whose relative pose has moved none of its vertices more than :data:`SAME_POSE` (m)
  since it was last crossed keeps that answer (two links on a joint that does not move).

A contact counts when its depth exceeds ``tolerance`` (m; link pairs: any crossing triangles).
What was found is a :class:`ClearanceResult`: per pair (``(link, GROUND)`` for the ground),
the depth at each frame, m. :func:`put_markers` puts a timeline marker at the first frame of
each contact (each run of consecutive frames).
"""
from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field

import bpy
import numpy as np
from mathutils.bvhtree import BVHTree

from ..bridge import BridgeError, SceneBridge
from ..bridge import poses as P
from ..io_urdf.exporter import depsgraph_of, geometry_objects, mesh_in_frame
from ..shared.frames import kept_frame, run_steps
from ..solver.text import frame_ranges
from . import link_shapes as LS

#: The name of the ground in a contact pair.
GROUND = "ground"
#: Default depth below which a ground contact is not counted (m): single-precision keys and
#: faceted meshes leave a resting wheel within about 1e-6 m of the plane.
TOLERANCE = 1e-4
#: Prefix of the timeline markers :func:`put_markers` makes (and replaces).
MARKER_PREFIX = "contact: "
#: A pair whose relative pose moved none of its vertices further than this (m) since its last
#: crossing keeps that answer (single-precision keys of two links on a still joint differ by
#: about 1e-7 m).
SAME_POSE = 1e-6


class ClearanceError(BridgeError):
    """A clearance check that cannot run (empty range, no geometry, a bad ground object);
    nothing was changed."""


@dataclass
class Contact:
    """One pair in contact over a range: ``a`` / ``b`` (``b`` is :data:`GROUND` for the
    ground), the frames, the largest depth (m) and the frame where it was largest."""

    a: str
    b: str
    frames: list
    depth: float
    worst_frame: int

    def line(self) -> str:
        return (f"{self.a} / {self.b} {self.depth * 1e3:.1f} mm at frame {self.worst_frame} "
                f"(frames {frame_ranges(self.frames)})")


@dataclass
class ClearanceResult:
    """What :func:`check_clearance` found. ``depth``: ``(a, b)`` -> {frame: depth m} for every
    frame where the pair was in contact; ``ground``: what the ground was; ``links``: how many
    links had geometry; ``pairs``: how many link pairs were checked; ``ignored``: the pairs
    left out because they touch at the robot's zero configuration; ``excluded``: the pairs
    left out because the ignored pairs name them; ``ms``: wall time."""

    frame_start: int
    frame_end: int
    ground: str = "plane z = 0"
    tolerance: float = TOLERANCE
    depth: dict = field(default_factory=dict)
    links: int = 0
    pairs: int = 0
    ms: float = 0.0
    ignored: list = field(default_factory=list)
    excluded: list = field(default_factory=list)

    @property
    def frames(self) -> int:
        return self.frame_end - self.frame_start + 1

    def contacts(self) -> list[Contact]:
        """Every pair in contact, deepest first."""
        out = []
        for (a, b), per_frame in self.depth.items():
            worst = max(per_frame, key=lambda f: per_frame[f])
            out.append(Contact(a, b, sorted(per_frame), per_frame[worst], worst))
        return sorted(out, key=lambda c: (-c.depth, c.a, c.b))

    def frames_in_contact(self) -> list[int]:
        return sorted({f for per_frame in self.depth.values() for f in per_frame})

    def first_frames(self) -> list[tuple[int, str, str]]:
        """(frame, a, b) of the first frame of each contact (each run of consecutive frames
        of a pair), in frame order."""
        out = []
        for (a, b), per_frame in self.depth.items():
            fs = sorted(per_frame)
            out += [(f, a, b) for i, f in enumerate(fs) if i == 0 or fs[i - 1] != f - 1]
        return sorted(out)

    def summary(self, most: int = 8) -> str:
        head = (f"Clearance of frames {self.frame_start}-{self.frame_end} ({self.frames} "
                f"frames, {self.links} links, ground {self.ground}, {self.ms / 1e3:.2f} s)")
        if self.ignored:
            head += (f"; {len(self.ignored)} pairs that touch at the robot's zero "
                     "configuration left out")
        if self.excluded:
            head += f"; {len(self.excluded)} ignored pairs left out"
        contacts = self.contacts()
        if not contacts:
            return head + ". No contact"
        lines = [c.line() for c in contacts[:most]]
        if len(contacts) > most:
            lines.append(f"and {len(contacts) - most} more pairs")
        return (f"{head}. Contacts on {len(self.frames_in_contact())} of {self.frames} "
                f"frames: " + "; ".join(lines))


# ---- geometry ---------------------------------------------------------------------------------
@dataclass
class _LinkMesh:
    """A link's triangles in its own frame: vertices (n x 3, m) and triangles (k x 3)."""

    v: np.ndarray
    t: np.ndarray


def link_meshes(obs: dict, depsgraph) -> dict:
    """Link name -> its evaluated geometry in the link frame (:class:`_LinkMesh`), for the
    links of ``obs`` (name -> object) that have any, at the current frame."""
    out = {}
    for n, ob in obs.items():
        T = P.rigid_and_scale(P.observe(ob), n)[0]
        vs, ts, k = [], [], 0
        for g in geometry_objects(ob, []):
            v, t = mesh_in_frame(g, depsgraph, T)
            if len(t):
                vs.append(v)
                ts.append(t + k)
                k += len(v)
        if vs:
            out[n] = _LinkMesh(np.concatenate(vs), np.concatenate(ts))
    return out


def _ground_tree(ground, depsgraph):
    """The ground object's evaluated mesh in the world frame, as a BVH tree."""
    if ground.type not in ('MESH', 'CURVE', 'SURFACE', 'FONT', 'META'):
        raise ClearanceError(f"ground object {ground.name!r} is a {ground.type.lower()}, "
                             "not a mesh: pick a mesh object (or none for the plane z = 0)")
    v, t = mesh_in_frame(ground, depsgraph, np.eye(4))
    if not len(t):
        raise ClearanceError(f"ground object {ground.name!r} has no faces: pick a mesh object "
                             "(or none for the plane z = 0)")
    return BVHTree.FromPolygons(v.tolist(), t.tolist())


def pair_depths(shapes: dict, poses: dict, pairs) -> dict:
    """``(a, b)`` -> depth (m) of every pair of ``pairs`` whose triangles cross, the links'
    shapes (:class:`.link_shapes.LinkShape`) at world poses ``poses[name]`` (4x4)."""
    out = {}
    for a, b in pairs:
        if LS.boxes_cross(shapes[a], poses[a], shapes[b], poses[b]):
            d = LS.pair_depth(shapes[a], poses[a], shapes[b], poses[b])
            if d is not None:
                out[(a, b)] = d
    return out


def zero_poses(lk) -> dict:
    """``T_world_link`` of every link with each real tree joint at 0 (clamped into its
    limits) and every other joint (virtual, closures) as it is: the robot's own reference
    configuration, that of its URDF."""
    ref = copy.deepcopy(lk)
    for j in ref.joints.values():
        if j.is_tree and not j.virtual and j.dof:
            j.q = np.clip(np.zeros(j.dof), j.lower, j.upper)
    ref.touch_values()
    return ref.poses()


def second_neighbours(lk) -> set:
    """Pairs (frozensets) of links two joints apart through a third link (deck - hip - thigh);
    links that only share the ground are not neighbours."""
    near: dict = {}
    for j in lk.joints.values():
        if j.parent is not None:
            near.setdefault(j.parent, set()).add(j.child)
            near.setdefault(j.child, set()).add(j.parent)
    return {frozenset((a, b)) for m, ns in near.items() for a in ns for b in ns if a != b}


def touching_at_zero(lk, meshes: dict, pairs) -> set:
    """The pairs two joints apart (:func:`second_neighbours`) whose shapes (``meshes``: link
    -> :class:`.link_shapes.LinkShape`) cross at the
    robot's zero configuration (:func:`zero_poses`): parts modelled overlapping around a small
    link between them (a thigh sunk into the deck at its hip, an ankle into its wheel), as a
    collision matrix's "default" pairs are. A check leaves them out: they touch by design."""
    near = second_neighbours(lk)
    pairs = [pr for pr in pairs if frozenset(pr) in near]
    return set(pair_depths(meshes, zero_poses(lk), pairs))


def mounted_links(lk) -> set:
    """Links a fixed joint holds to the world (an arm's base on its mount): they touch the
    ground by design, as two links a joint connects touch each other."""
    return {j.child for j in lk.joints.values() if j.parent is None and j.jtype.dof == 0}


def jointed_pairs(lk) -> set:
    """Pairs (frozensets) of link names a joint of the linkage connects directly."""
    return {frozenset((j.parent, j.child)) for j in lk.joints.values() if j.parent is not None}


# ---- the check --------------------------------------------------------------------------------
def scene_ignored(scene) -> list[tuple[str, str]]:
    """The scene's *Ignored Pairs* (``scene.vart.clearance_ignored``) as pairs of object
    names; rows whose object was deleted are passed over. None when vart is not registered."""
    rows = getattr(getattr(scene, "vart", None), "clearance_ignored", None)
    if rows is None:
        return []
    return [(r.a.name, r.b.name) for r in rows if r.a is not None and r.b is not None]


def check_clearance(scene=None, frame_start=None, frame_end=None, *, ground=None,
                    tolerance: float = TOLERANCE, bridge: SceneBridge | None = None,
                    progress=None, ignore_touching: bool = True,
                    ignore=None) -> ClearanceResult:
    """Check frames ``frame_start``..``frame_end`` (inclusive; default the scene's range) of
    ``scene`` (see the module doc). ``ground``: a mesh object or its name (default: the plane
    z = 0); ``tolerance``: ground depth not counted (m); ``progress(done, total)`` after each
    frame; ``ignore_touching``: leave out the link pairs that already touch at the robot's
    zero configuration (:func:`touching_at_zero`); ``ignore``: pairs of link object names
    left out (default: the scene's *Ignored Pairs*, :func:`scene_ignored`). The current frame
    is restored; nothing else changes. Raises :class:`ClearanceError` (or a BridgeError for a
    corrupt scene)."""
    steps = check_clearance_steps(scene, frame_start, frame_end, ground=ground,
                                  tolerance=tolerance, bridge=bridge,
                                  ignore_touching=ignore_touching, ignore=ignore)
    return run_steps(steps, progress)


def check_clearance_steps(scene=None, frame_start=None, frame_end=None, *, ground=None,
                          tolerance: float = TOLERANCE, bridge: SceneBridge | None = None,
                          ignore_touching: bool = True, ignore=None):
    """:func:`check_clearance` a frame at a time: a generator yielding ``(done, total)``
    after each frame and returning the :class:`ClearanceResult`. Closing it (Esc in the
    operator) stops at once, with the current frame restored. Bad input raises at the first
    ``next``."""
    t0 = time.perf_counter()
    scene = scene or bpy.context.scene
    start = int(scene.frame_start if frame_start is None else frame_start)
    end = int(scene.frame_end if frame_end is None else frame_end)
    if end < start:
        raise ClearanceError(f"empty frame range: frame {end} is before frame {start}")
    if not np.isfinite(tolerance) or tolerance < 0:
        raise ClearanceError(f"tolerance must be a length >= 0 (m), got {tolerance!r}")
    if isinstance(ground, str):
        name = ground
        ground = bpy.data.objects.get(name)
        if ground is None:
            raise ClearanceError(f"ground object {name!r} does not exist")
    ignore = scene_ignored(scene) if ignore is None else ignore
    bridge = bridge or SceneBridge(scene)
    res = ClearanceResult(start, end, tolerance=tolerance)
    with kept_frame(scene):
        scene.frame_set(start)
        bridge.sync()
        obs, lk = bridge.objects(), bridge.linkage
        assert lk is not None  # synced
        depsgraph = depsgraph_of(bpy.context, scene)
        shapes = {nm: LS.LinkShape(m.v, m.t) for nm, m in link_meshes(obs, depsgraph).items()}
        if not shapes:
            raise ClearanceError("nothing to check: no link has geometry (a mesh on the link "
                                 "object or below it)")
        ground_tree, gbox = None, None
        if ground is not None:
            ground_tree = _ground_tree(ground, depsgraph)
            res.ground = repr(ground.name)
            gbox = _box(mesh_in_frame(ground, depsgraph, np.eye(4))[0])
        names = sorted(shapes)
        pairs = _pairs(res, lk, shapes, names, ignore, ignore_touching)
        mounted = mounted_links(lk)
        # scenery or intent, or fixed to the world: no ground
        robot = [nm for nm in names if not lk.links[nm].virtual and nm not in mounted]
        crossed, seen = LS.Crossings(shapes, pairs, names, SAME_POSE), _Seen()
        n = end - start + 1
        for k in range(n):
            f = start + k
            if k:
                scene.frame_set(f)
            poses = seen.poses(obs, names)
            lo, hi = LS.world_boxes([shapes[nm] for nm in names], [poses[nm] for nm in names])
            for i, nm in enumerate(names):
                if nm not in robot:
                    continue
                if nm in seen.moved or nm not in seen.depth:  # else as it was
                    seen.depth[nm] = _ground_depth(shapes[nm], poses[nm], lo[i], hi[i],
                                                   ground_tree, gbox)
                d = seen.depth[nm]
                if d > tolerance:
                    res.depth.setdefault((nm, GROUND), {})[f] = d
            for pair, d in crossed.frame(poses, lo, hi, seen.moved if k else None).items():
                res.depth.setdefault(pair, {})[f] = d
            yield k + 1, n
    res.ms = (time.perf_counter() - t0) * 1e3
    return res


def _ground_depth(shape, T, lo, hi, tree, box) -> float:
    """How deep (m) a link at pose ``T`` (world box ``lo``, ``hi``) is in the ground: the
    plane z = 0 when ``tree`` is None, else the ground object's tree and its box ``box``."""
    if tree is None:
        return 0.0 if lo[2] >= 0.0 else max(0.0, -LS.lowest_z(shape, T))
    if not _over_or_under(lo, hi, box):
        return 0.0
    v = LS.world_points(shape, T)
    return LS.depth_inside(tree, v[_under(v, box)])


def _pairs(res: ClearanceResult, lk, shapes: dict, names: list, ignore, ignore_touching: bool):
    """The link pairs a check crosses (see the module doc); ``res`` records what it left
    out."""
    skip = jointed_pairs(lk)
    virtual = {nm for nm in names if lk.links[nm].virtual}
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]
             if frozenset((a, b)) not in skip and not (a in virtual and b in virtual)]
    listed = {frozenset((str(a), str(b))) for a, b in ignore}
    res.excluded = [pr for pr in pairs if frozenset(pr) in listed]
    pairs = [pr for pr in pairs if frozenset(pr) not in listed]
    if ignore_touching:
        touching = touching_at_zero(lk, shapes, pairs)
        res.ignored = sorted(touching)
        pairs = [pr for pr in pairs if pr not in touching]
    res.links, res.pairs = len(names), len(pairs)
    return pairs


class _Seen:
    """Each link's world pose at a frame, read again only where its world matrix changed
    (``moved``), and its ground depth at that pose (``depth``, m)."""

    def __init__(self):
        self.last: dict = {}  # name -> (observed matrix, T_world_link)
        self.moved: set = set()  # the links whose matrix changed at the last call
        self.depth: dict = {}  # name -> its ground depth at its last pose (m)

    def poses(self, obs: dict, names: list) -> dict:
        observed = {nm: P.observe(obs[nm]) for nm in names}
        moved = [nm for nm in names if self.last.get(nm, (None,))[0] != observed[nm]]
        for nm, T in zip(moved, P.rigid_poses([observed[nm] for nm in moved], moved)):
            self.last[nm] = (observed[nm], T)
        self.moved = set(moved)
        return {nm: self.last[nm][1] for nm in names}


def _box(v):
    return v.min(axis=0), v.max(axis=0)


def _over_or_under(lo, hi, box) -> bool:
    """Whether a world box ``lo``, ``hi`` meets ``box`` in x and y and reaches below its top:
    a link the ground could hold inside or below it."""
    return bool((lo[:2] <= box[1][:2]).all() and (box[0][:2] <= hi[:2]).all()
                and lo[2] <= box[1][2])


def _under(v, box):
    """Which points (n x 3) lie within the box's x and y extent and not above its top: the
    ones a ground could hold inside or below it."""
    return ((v[:, :2] >= box[0][:2]) & (v[:, :2] <= box[1][:2])).all(axis=1) \
        & (v[:, 2] <= box[1][2])


# ---- timeline markers -------------------------------------------------------------------------
def put_markers(scene, res: ClearanceResult) -> int:
    """Replace the markers of an earlier check (named ``MARKER_PREFIX...``) by one at the
    first frame of each contact of ``res``, named ``"contact: a / b"``. Returns how many."""
    markers = scene.timeline_markers
    for m in [m for m in markers if m.name.startswith(MARKER_PREFIX)]:
        markers.remove(m)
    firsts = res.first_frames()
    for f, a, b in firsts:
        markers.new(f"{MARKER_PREFIX}{a} / {b}", frame=f)
    return len(firsts)
