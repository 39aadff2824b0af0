"""The modular tower (example ``tower``), generated here rather than stored in ``assets/``:
90 stacked four-bar cells, 270 revolute tree joints and 90 revolute closures (90 cycles), on a
real fixed joint to the ground, its top rung's location keyed (pulled sideways and down)."""
from __future__ import annotations

import math

import bpy
import numpy as np
from mathutils import Matrix

from ..bridge import schema as S
from ..bridge.animation import key_channels
from ..solver import se3
from .common import (
    _PLANAR,
    MECHANISM_FRAMES,
    Built,
    _frames,
    _material,
    _origin,
    _scene_joint_names,
    at,
)

TOWER = dict(cells=90, width=0.30, height=0.10, jitter=0.05)


def tower_nodes(cells: int = 90, width: float = 0.30, height: float = 0.10,
                jitter: float = 0.05):
    """Node positions (x, z) of the tower's rungs: A_i (left) and B_i (right), i = 0..cells.
    A fixed, smooth irregularity (no two cells alike) keeps the cells generic."""
    A = [np.array([0.0, 0.0])]
    B = [np.array([width, 0.0])]
    for i in range(1, cells + 1):
        jA = jitter * math.sin(1.7 * i)
        jB = jitter * math.cos(2.3 * i + 0.5)
        A.append(A[-1] + (width * jitter * math.sin(0.9 * i), height * (1 + jA)))
        B.append(B[-1] + (width * jitter * math.cos(1.3 * i), height * (1 + jB)))
    return A, B


def _bar_mesh(name, p0, p1, thickness):
    """A box mesh from point p0 to p1 (link frame, x-z plane) of square section."""
    d = np.asarray(p1, float) - np.asarray(p0, float)
    L = float(np.hypot(*d))
    ang = math.atan2(d[1], d[0])
    t = thickness / 2
    v = []
    for x in (-t, L + t):
        for y in (-t, t):
            for z in (-t, t):
                xx = p0[0] + x * math.cos(ang) - z * math.sin(ang)
                zz = p0[1] + x * math.sin(ang) + z * math.cos(ang)
                v.append((xx, y, zz))
    f = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(v, [], f)
    return mesh


def build_tower(context, cells: int | None = None, pull: bool = True) -> Built:
    """The modular tower in the x-z plane: rung 0 on a real fixed joint to the ground, then
    per cell i: left rail (revolute at A_{i-1} on rung i-1), rung i (revolute at A_i on the
    left rail), right rail (revolute at B_{i-1} on rung i-1) and the closure right rail ->
    rung i at B_i. Links are box meshes whose frame sits at their lower node, world-aligned;
    joints (axis along -y) are written through the bridge's schema (one pass, no solve: the
    tower is built assembled). ``pull``: key the top rung's location (:data:`TOWER_PULL`)."""
    from ..bridge.edits import unique_joint_name, unique_object_name
    n = int(TOWER["cells"] if cells is None else cells)
    A, B = tower_nodes(n, TOWER["width"], TOWER["height"], TOWER["jitter"])
    scene = context.scene
    o = _origin(context)
    coll = bpy.data.collections.new("tower")
    scene.collection.children.link(coll)
    mats = {k: _material(f"tower_{k}", c) for k, c in
            (("rung", (0.85, 0.65, 0.2, 1.0)), ("rail", (0.45, 0.5, 0.56, 1.0)))}

    def world(p):
        return o + (p[0], 0.0, p[1])

    obs, joints, T = {}, [], {}

    def link(name, origin, p0, p1, thick, kind):
        mesh = _bar_mesh(name, np.asarray(p0) - origin, np.asarray(p1) - origin, thick)
        mesh.materials.append(mats[kind])
        ob = bpy.data.objects.new(unique_object_name(name), mesh)
        ob.color = mats[kind].diffuse_color
        coll.objects.link(ob)
        T[name] = at(world(origin))  # float64, world-aligned: exact joint frames below
        ob.matrix_world = Matrix(T[name].tolist())
        S.write_link(ob, mass=0.1)
        obs[name] = ob
        return ob

    link("rung0", A[0], A[0], B[0], 0.03, "rung")
    for i in range(1, n + 1):
        link(f"left{i}", A[i - 1], A[i - 1], A[i], 0.015, "rail")
        link(f"rung{i}", A[i], A[i], B[i], 0.03, "rung")
        link(f"right{i}", B[i - 1], B[i - 1], B[i], 0.015, "rail")
    existing = set(_scene_joint_names(scene))
    def joint(name, jtype, parent, child, p, tree=True):
        name = unique_joint_name(name, existing)
        existing.add(name)
        W = at(world(p), _PLANAR)  # the joint frame: z along -y
        Tp = W if parent is None else se3.inverse(T[parent]) @ W
        S.write_joint(obs[child], name, jtype, None if parent is None else obs[parent],
                      T_parent_mob=Tp, T_child_frame=se3.inverse(T[child]) @ W, tree=tree)
        joints.append(name)

    joint("tower_base", "fixed", None, "rung0", A[0])
    for i in range(1, n + 1):
        joint(f"c{i}_left_low", "revolute", f"rung{i - 1}", f"left{i}", A[i - 1])
        joint(f"c{i}_left_high", "revolute", f"left{i}", f"rung{i}", A[i])
        joint(f"c{i}_right_low", "revolute", f"rung{i - 1}", f"right{i}", B[i - 1])
        joint(f"c{i}_right_high", "revolute", f"right{i}", f"rung{i}", B[i], tree=False)
    for ob in obs.values():
        S.update_link(ob, root_tree=False)  # every link hangs from a tree joint
    S.read_scene(scene.objects)  # what was written reads back valid (cross-object checks)
    context.view_layer.update()
    top = obs[f"rung{n}"]
    if pull:  # the top rung's location keyed: over the frames it is pulled sideways and down
        for frame, d in ((1, (0.0, 0.0, 0.0)), (MECHANISM_FRAMES, TOWER_PULL)):
            top.location = tuple(T[f"rung{n}"][:3, 3] + d)
            key_channels(top, "location", float(frame), group="Object Transforms")
        top.location = tuple(T[f"rung{n}"][:3, 3])
    built = Built("tower", coll, obs, joints, top.name)
    built.frames = _frames(scene, MECHANISM_FRAMES)
    return built


#: Where the tower's top is pulled (m, world x, y, z) over the frames.
TOWER_PULL = (1.0, 0.0, -0.5)
