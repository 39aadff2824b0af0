"""The parts of an MJCF mapping (:mod:`.mjcf`) beyond bodies and joints: equality constraints
as closures and couplings, and geoms as triangle meshes in their link's frame."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..solver import se3


@dataclass
class Visual:
    """Geometry of a link: ``vertices`` (n, 3) m and ``faces`` (k, 3) vertex indices, in the
    link frame; ``rgba`` in 0..1; ``name`` (the geom's, or ``<link>_geom<i>``)."""

    name: str
    vertices: np.ndarray
    faces: np.ndarray
    rgba: tuple


def quat_matrix(q) -> np.ndarray:
    """Rotation matrix of a MuJoCo quaternion (w, x, y, z)."""
    return se3.quat_to_rot(q)


#: Segments around a tessellated round geom (and rings of a sphere: half as many).
SEGMENTS = 24


# ---- equality constraints --------------------------------------------------------------------
def _body_and_anchor(mp, objtype, obj: int, anchor) -> tuple:
    """(link name, T_link_anchor) of an equality's object: a body (anchor in its frame) or a
    site (at the site, the anchor ignored as MuJoCo does)."""
    m, mj = mp.m, mp.mj
    if int(objtype) == int(mj.mjtObj.mjOBJ_SITE):
        b = int(m.site_bodyid[obj])
        return mp.body_link[b], se3.make_pose(None, m.site_pos[obj])
    return mp.body_link[obj], se3.make_pose(None, anchor)


def add_equalities(mp) -> None:
    """Closures and couplings of the model's active equality constraints (see :mod:`.mjcf`)."""
    m, mj, lk, warn = mp.m, mp.mj, mp.lk, mp.out.warnings
    for e in range(m.neq):
        name = mp.name(mj.mjtObj.mjOBJ_EQUALITY, e, f"equality{e}")
        kind, data = int(m.eq_type[e]), m.eq_data[e]
        if not m.eq_active0[e]:
            warn.append(f"equality {name!r} is inactive at load; left out")
            continue
        if kind in (int(mj.mjtEq.mjEQ_CONNECT), int(mj.mjtEq.mjEQ_WELD)):
            a, T_a = _body_and_anchor(mp, m.eq_objtype[e], int(m.eq_obj1id[e]), data[0:3])
            b, _ = _body_and_anchor(mp, m.eq_objtype[e], int(m.eq_obj2id[e]), data[3:6])
            if kind == int(mj.mjtEq.mjEQ_CONNECT):
                W = lk.pose(a) @ T_a if a is not None else T_a
                lk.add_joint(name, "spherical", a, b, world_frame=W, tree=False)
            else:
                rel = se3.make_pose(_quat(data[6:10]), data[3:6])  # body b in body a's frame
                lk.add_joint(name, "fixed", a, b, T_parent_mob=rel, T_child_frame=np.eye(4),
                             tree=False)
        elif kind == int(mj.mjtEq.mjEQ_JOINT):
            _coupling(mp, e, name, data)
        else:
            warn.append(f"equality {name!r} ({mj.mjtEq(kind).name[5:].lower()}) has no vart "
                        "equivalent; left out")


def _quat(q) -> np.ndarray:
    return quat_matrix(q) if np.linalg.norm(q) > 0 else np.eye(3)


def _coupling(mp, e: int, name: str, coef) -> None:
    """``q1 = a0 + a1 q2 (+ a2 q2^2 ...)`` in values relative to qpos0 (MuJoCo's polynomial)."""
    m, mj, lk = mp.m, mp.mj, mp.lk
    j1 = mp.name(mj.mjtObj.mjOBJ_JOINT, int(m.eq_obj1id[e]), "")
    j2 = mp.name(mj.mjtObj.mjOBJ_JOINT, int(m.eq_obj2id[e]), "") if m.eq_obj2id[e] >= 0 \
        else None
    if j1 not in lk.joints or (j2 is not None and j2 not in lk.joints):
        mp.out.warnings.append(f"equality {name!r}: its joints are not vart joints (a free "
                               "joint, or unnamed); left out")
        return
    if np.any(np.abs(coef[2:5]) > 0):
        mp.out.warnings.append(f"equality {name!r}: a polynomial of degree > 1 couples "
                               f"{j1!r}; vart couples linearly: left out")
        return
    if j2 is None:
        lk.lock_joint(j1, np.array([coef[0]]))
    else:
        lk.set_mimic(j1, j2, float(coef[1]), float(coef[0]))


# ---- geoms -------------------------------------------------------------------------------------
def _sphere(rx, ry, rz, n=SEGMENTS):
    """A UV ellipsoid with radii rx, ry, rz about the origin: (vertices, faces)."""
    rings = max(4, n // 2)
    v = [(0.0, 0.0, rz)]
    for i in range(1, rings):
        th = math.pi * i / rings
        for k in range(n):
            ph = 2 * math.pi * k / n
            v.append((rx * math.sin(th) * math.cos(ph), ry * math.sin(th) * math.sin(ph),
                      rz * math.cos(th)))
    v.append((0.0, 0.0, -rz))
    f = [(0, 1 + k, 1 + (k + 1) % n) for k in range(n)]
    for i in range(rings - 2):
        a, b = 1 + i * n, 1 + (i + 1) * n
        for k in range(n):
            k2 = (k + 1) % n
            f += [(a + k, b + k, b + k2), (a + k, b + k2, a + k2)]
    last, base = len(v) - 1, 1 + (rings - 2) * n
    f += [(base + k, last, base + (k + 1) % n) for k in range(n)]
    return np.array(v), np.array(f)


def _cylinder(r, h, caps=True, n=SEGMENTS):
    """A cylinder of radius r along z from -h to h: (vertices, faces)."""
    ang = 2 * math.pi * np.arange(n) / n
    ring = np.column_stack([r * np.cos(ang), r * np.sin(ang)])
    v = np.vstack([np.column_stack([ring, np.full(n, -h)]), np.column_stack([ring, np.full(n, h)])])
    f = []
    for k in range(n):
        k2 = (k + 1) % n
        f += [(k, k2, n + k2), (k, n + k2, n + k)]
    if caps:
        v = np.vstack([v, [(0, 0, -h), (0, 0, h)]])
        c0, c1 = 2 * n, 2 * n + 1
        f += [(c0, (k + 1) % n, k) for k in range(n)] + [(c1, n + k, n + (k + 1) % n)
                                                         for k in range(n)]
    return v, np.array(f)


def _capsule(r, h, n=SEGMENTS):
    """A capsule: a cylinder of half-length h and two hemispheres (as one closed-enough mesh:
    the two spheres' inner halves lie inside the cylinder)."""
    vc, fc = _cylinder(r, h, caps=False, n=n)
    vs, fs = _sphere(r, r, r, n)
    v1, v2 = vs + (0, 0, h), vs - (0, 0, h)
    k = len(vc)
    return (np.vstack([vc, v1, v2]),
            np.vstack([fc, fs + k, fs + k + len(vs)]))


def _box(sx, sy, sz):
    v = np.array([(x, y, z) for x in (-sx, sx) for y in (-sy, sy) for z in (-sz, sz)])
    f = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
         (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]
    return v, np.array(f)


def geom_mesh(mp, g: int):
    """(vertices, faces) of geom ``g`` in its own frame, or None (reported by the caller)."""
    m, G = mp.m, mp.mj.mjtGeom
    t, s = int(m.geom_type[g]), m.geom_size[g]
    if t == int(G.mjGEOM_BOX):
        return _box(*s)
    if t == int(G.mjGEOM_SPHERE):
        return _sphere(s[0], s[0], s[0])
    if t == int(G.mjGEOM_ELLIPSOID):
        return _sphere(*s)
    if t == int(G.mjGEOM_CYLINDER):
        return _cylinder(s[0], s[1])
    if t == int(G.mjGEOM_CAPSULE):
        return _capsule(s[0], s[1])
    if t == int(G.mjGEOM_MESH):
        i = int(m.geom_dataid[g])
        va, vn = int(m.mesh_vertadr[i]), int(m.mesh_vertnum[i])
        fa, fn = int(m.mesh_faceadr[i]), int(m.mesh_facenum[i])
        return np.array(m.mesh_vert[va:va + vn], float), np.array(m.mesh_face[fa:fa + fn])
    return None


def _rgba(mp, g: int) -> tuple:
    m = mp.m
    mat = int(m.geom_matid[g])
    return tuple(float(x) for x in (m.mat_rgba[mat] if mat >= 0 else m.geom_rgba[g]))


def add_visuals(mp) -> None:
    """Each body's geoms as :class:`.mjcf.Visual` of its link (see :mod:`.mjcf`)."""
    m, mj, warn = mp.m, mp.mj, mp.out.warnings
    visual_only = [(m.geom_contype[g] == 0 and m.geom_conaffinity[g] == 0)
                   for g in range(m.ngeom)]
    chosen = [g for g in range(m.ngeom) if visual_only[g]] if any(visual_only) else \
        list(range(m.ngeom))
    skipped: dict = {}
    for g in chosen:
        b = int(m.geom_bodyid[g])
        link = mp.body_link.get(b)
        mesh = geom_mesh(mp, g) if b else None
        if link is None or mesh is None:
            kind = "world" if b == 0 else mj.mjtGeom(m.geom_type[g]).name[7:].lower()
            skipped[kind] = skipped.get(kind, 0) + 1
            continue
        T = se3.make_pose(_quat(m.geom_quat[g]), m.geom_pos[g])  # geom in body frame
        v, f = mesh
        v = v @ T[:3, :3].T + T[:3, 3]
        name = mp.name(mj.mjtObj.mjOBJ_GEOM, g, f"{link}_geom{g}")
        mp.out.visuals.setdefault(link, []).append(Visual(name, v, np.asarray(f, int),
                                                          _rgba(mp, g)))
    for kind, n in skipped.items():
        what = "the world body's geoms (floor, scenery)" if kind == "world" else \
            f"{kind} geoms"
        warn.append(f"{n} of {what} are not link geometry; not imported")
