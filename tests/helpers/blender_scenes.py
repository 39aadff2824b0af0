"""Blender scenes of the benchmark mechanisms, for the drag/bake bench and the Blender tests.

A solver :class:`~vart_addon.solver.Linkage` (here: a problem of ``../shared/bench`` built by
:class:`vart_bench.BenchProblem`) is written into the scene as one empty per link (at the
link's pose) and one stored joint per joint, through the bridge's schema functions only
(``write_link`` / ``write_joint``): the same properties a user's scene holds.

- :func:`hexapod_scene`: P1 (42 tree DoF, 6 feet pinned to the ground by spherical closures);
  the six base joints ``base_*`` are virtual, as in the README of ../shared/bench.
- :func:`ladder_scene`: P3, the 90-cell ladder (270 revolute joints, 90 revolute closures).

Needs bpy; imports nothing from the tests.
"""
from __future__ import annotations

import math

import bpy
import numpy as np
from mathutils import Matrix

import vart_bench as vb  # bench/vart_bench.py: on sys.path in the tests (pyproject) and the bench
from vart_addon.bridge import animation as A  # noqa: E402
from vart_addon.bridge import fcurves_of, q_data_path  # noqa: E402
from vart_addon.bridge import schema as S  # noqa: E402
from vart_addon.solver import Settings  # noqa: E402


def scene_from_linkage(lk, collection=None, *, virtual=lambda name: False,
                       size: float = 0.05) -> dict:
    """Write linkage ``lk`` into ``collection`` (default: the context scene's): an empty per
    link, every joint stored on its child. ``virtual(joint_name)`` marks joints virtual.
    Returns the objects by link name."""
    collection = collection or bpy.context.scene.collection
    poses = lk.poses()
    obs = {}
    for n, link in lk.links.items():
        ob = bpy.data.objects.new(n, None)
        ob.empty_display_size = size
        collection.objects.link(ob)
        ob.matrix_world = Matrix(np.asarray(poses[n], float).tolist())
        obs[n] = ob
        S.write_link(ob, mass=float(link.mass), com=link.com, virtual=bool(link.virtual),
                     root_tree=bool(lk.tree_edge[n].is_root))
    for n, j in lk.joints.items():
        S.write_joint(obs[j.child], n, j.jtype.name,
                      None if j.parent is None else obs[j.parent],
                      T_parent_mob=j.T_parent_mob, T_child_frame=j.T_child_frame,
                      q=lk.joint_q(j, poses), lower=j.lower, upper=j.upper, pitch=j.pitch,
                      virtual=bool(j.virtual) or virtual(n), tree=j.is_tree)
    bpy.context.view_layer.update()
    return obs


def problem_scene(name: str, **kw):
    """``(BenchProblem, objects by link name)`` of benchmark problem ``name``."""
    prob = vb.BenchProblem(name)
    return prob, scene_from_linkage(prob.lk, **kw)


def hexapod_scene():
    """P1: the hexapod with its feet pinned; ``base_*`` joints virtual."""
    return problem_scene("P1_hexapod", virtual=lambda n: n.startswith("base_"))


def ladder_scene():
    """P3: the 270-joint ladder of four-bar cells."""
    return problem_scene("P3_tower", size=0.02)


def available() -> bool:
    return vb.DEFAULT_PROBLEMS.is_dir()


# ---- a small Blender-parented four-bar (tests) ---------------------------------------------------
FOURBAR = dict(a=1.5, b=3.5, c=2.5, d=4.0)  # crank, coupler, rocker, ground (m)


def fourbar_angles(t2: float):
    """Absolute (coupler, rocker) angles of the four-bar for crank angle ``t2`` (rad), on the
    branch the scene is built on."""
    a, b, c, d = (FOURBAR[k] for k in "abcd")
    bx, by = a * math.cos(t2), a * math.sin(t2)
    dx, dy = d - bx, -by
    L = math.hypot(dx, dy)
    m = (b ** 2 - c ** 2 + L ** 2) / (2 * L)
    h = math.sqrt(b ** 2 - m ** 2)
    cx, cy = bx + m * dx / L - h * dy / L, by + m * dy / L + h * dx / L
    return math.atan2(cy - by, cx - bx), math.atan2(cy, cx - d)


def scene_snapshot() -> dict:
    """Every object's world matrix, Blender parent and ``["vart"]`` properties (ID pointers as
    names), by object name: equal snapshots mean an unchanged scene."""
    def plain(v):
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, bpy.types.ID):
            return ("ID", v.name)
        return v
    out = {}
    for ob in bpy.data.objects:
        raw = ob.get("vart")
        out[ob.name] = (tuple(x for r in ob.matrix_world for x in r),
                        None if ob.parent is None else ob.parent.name,
                        repr(plain(raw.to_dict() if hasattr(raw, "to_dict") else raw)))
    return out


def cube(name, scale=(1.0, 1.0, 1.0)):
    """A unit cube mesh object centred on its origin, scaled, in the scene collection."""
    mesh = bpy.data.meshes.new(name)
    v = [(x, y, z) for x in (-.5, .5) for y in (-.5, .5) for z in (-.5, .5)]
    f = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh.from_pydata(v, [], f)
    ob = bpy.data.objects.new(name, mesh)
    ob.scale = scale
    bpy.context.scene.collection.objects.link(ob)
    return ob


def place(ob, T):
    """Set a rigid world pose ``T`` (4x4), keeping the object's scale."""
    bpy.context.view_layer.update()
    scale = np.linalg.norm(np.array(ob.matrix_world)[:3, :3], axis=0)
    M = np.array(T, float)
    M[:3, :3] *= scale
    ob.matrix_world = Matrix(M.tolist())
    bpy.context.view_layer.update()


def parent_keep(child, par):
    """Parent like Ctrl+P (Object, keep transform): the parent inverse is inv(parent world)."""
    bpy.context.view_layer.update()
    child.parent = par
    child.matrix_parent_inverse = par.matrix_world.inverted()


def parented_fourbar(settings=None):
    """A crank-rocker in a tilted plane, every way Blender can hold an object: the crank
    (quaternion rotation mode) under a scaled plain empty ``Robot``; the coupler (axis-angle,
    a non-uniformly scaled cube) Blender-parented to the crank; the rocker (YXZ Euler, delta
    location and rotation) under a plain empty ``Mount`` parented to the coupler. Joints A
    (crank-world), B (crank->coupler), D (rocker-world) in the tree, C (coupler->rocker) a
    closure. Returns ``(objects by link name, crank angle)``, solved and written."""
    from vart_addon.bridge import SceneBridge
    from vart_addon.solver import se3
    a, b, c, d = (FOURBAR[k] for k in "abcd")
    G = se3.make_pose(se3.so3_exp(np.array([0.2, -0.1, 0.3])), [0.5, -1.0, 0.3])
    t2 = math.radians(70)
    t3, t4 = fourbar_angles(t2)
    robot = bpy.data.objects.new("Robot", None)
    mount = bpy.data.objects.new("Mount", None)
    for ob in (robot, mount):
        bpy.context.scene.collection.objects.link(ob)
    robot.matrix_world = Matrix(se3.make_pose(se3.rot_z(0.4), [2, 1, 0.5]).tolist()) \
        @ Matrix.Scale(0.5, 4)
    crank, coupler, rocker = cube("crank"), cube("coupler", (1.0, 0.3, 0.2)), cube("rocker")
    crank.rotation_mode = 'QUATERNION'
    coupler.rotation_mode = 'AXIS_ANGLE'
    rocker.rotation_mode = 'YXZ'
    rocker.delta_location = (0.1, -0.2, 0.05)
    rocker.delta_rotation_euler = (0.1, 0.2, -0.3)
    parent_keep(crank, robot)
    parent_keep(coupler, crank)
    parent_keep(mount, coupler)
    mount.location = (0.3, 0.2, 0.1)
    parent_keep(rocker, mount)
    bx, by = a * math.cos(t2), a * math.sin(t2)

    def planar(x, y, ang):
        return G @ se3.make_pose(se3.rot_z(ang), [x, y, 0])
    place(crank, planar(0, 0, t2))
    place(coupler, planar(bx, by, t3))
    place(rocker, planar(d, 0, t4))
    for ob in (crank, coupler, rocker):
        S.write_link(ob, root_tree=False)

    def tx(x):
        return se3.make_pose(None, [x, 0, 0])
    S.write_joint(crank, "A", "revolute", None, T_parent_mob=G, q=[t2])
    S.write_joint(coupler, "B", "revolute", crank, T_parent_mob=tx(a), q=[t3 - t2])
    S.write_joint(rocker, "D", "revolute", None, T_parent_mob=G @ tx(d), q=[t4])
    S.write_joint(rocker, "C", "revolute", coupler, T_parent_mob=tx(b), T_child_frame=tx(c),
                  tree=False)
    bpy.context.view_layer.update()
    br = SceneBridge()
    br.solve(settings)
    br.write_back()
    return {"crank": crank, "coupler": coupler, "rocker": rocker}, t2


#: Tight solver settings for scenes whose poses tests compare closely.
TIGHT = Settings(tol=1e-10, max_iterations=200)


def keyed_fourbar(last: int, degrees: float) -> dict:
    """The parented four-bar with the crank's joint A keyed from its value at frame 1 to
    ``degrees`` more at frame ``last``; its objects by link name."""
    obs, t2 = parented_fourbar(TIGHT)
    crank = obs["crank"]
    A.key_channels(crank, q_data_path("A"), 1)
    crank["vart"]["joints"]["A"]["q"] = [t2 + math.radians(degrees)]
    A.key_channels(crank, q_data_path("A"), last)
    return obs


def curve_counts(obs) -> dict:
    """How many F-curves each object has (unchanged counts: nothing was keyed)."""
    return {n: len(fcurves_of(ob)) for n, ob in obs.items()}
