#!/usr/bin/env python3
"""``make demo``: story 1 (camera tilt) on the ATHLETE-like hexapod, headless, end to end.

    .venv/bin/python demo/demo.py [--frames 48] [--out demo_out] [--docs docs/demo.png]

1. a factory-fresh scene, vart registered from this repository;
2. the hexapod, standing (``vart.add_example``, example ``athlete``: the asset
   ``assets/athlete/athlete.urdf`` imported standing on its wheels);
3. the camera-tilt articulation with vart's own operators, as a user does it: the 3D cursor
   on the side camera, turned so that its z axis is the camera's horizontal axis; the deck
   alone selected; ``vart.add_joint`` (revolute, virtual, "tilt"): the deck now hangs from
   the world by that joint. Each wheel selected in turn, the cursor at its contact point
   (unturned: z up): ``vart.add_joint`` (revolute, virtual): each wheel stands upright on its
   contact point, free to steer about the vertical, never to lean, slide or lift;
4. the last frame: ``vart.operate_joint`` to 20 degrees, ``vart.key_joint``; frame 1:
   ``vart.operate_joint`` to 0, ``vart.key_joint``;
5. ``vart.bake`` over the frames; the baked values checked frame by frame (every closure's
   residual, every real joint against its limits: :func:`vart_addon.examples.check_baked`),
   and the clearance check (:func:`vart_addon.checks.clearance.check_clearance`: no tyre in
   the ground, no link in another);
6. the real joints' trajectory exported as CSV, ROS JointTrajectory JSON and Klampt .path
   (:func:`vart_addon.io_trajectory.export_trajectory`: a waypoint whenever a joint moved 2
   degrees), and the scene saved as a .blend;
7. a Workbench picture of the first and the last frame side by side, joints drawn as small
   temporary objects in the overlay's colours (ultramarine tree joints, purple closures,
   lighter when virtual; the tilt axis as a rod) and the camera's line of sight (red; at the
   last frame the first frame's in grey: the tilt shows), since the overlay does not render.

Prints the figures; exits 1 if a closure is off by more than 1e-6, a real joint leaves
its limits or a link touches the ground or another link. Output goes to ``demo_out/`` (git-ignored).
"""
from __future__ import annotations

import argparse
import math
import pathlib
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import bpy  # noqa: E402
import numpy as np  # noqa: E402
from mathutils import Matrix  # noqa: E402

TOL = 1e-6
TILT_DEG = 20.0


# ---- the user's steps -------------------------------------------------------------------------
def select(*obs, active=None):
    vl = bpy.context.view_layer
    for ob in vl.objects:
        ob.select_set(False)
    for ob in obs:
        ob.select_set(True)
    vl.objects.active = active or (obs[-1] if obs else None)


def cursor(location, rotation_euler=(0.0, 0.0, 0.0)):
    c = bpy.context.scene.cursor
    c.location = location
    c.rotation_mode = 'XYZ'
    c.rotation_euler = rotation_euler


def run(op, **kw):
    result = op(**kw)
    if 'FINISHED' not in result:
        raise SystemExit(f"demo: {op.idname_py()} did not finish: {result}")


def build_story(frames: int):
    """Steps 2-4 of the module doc. Returns the objects by name."""
    from vart_addon.examples import WHEEL_RADIUS
    run(bpy.ops.vart.add_example, example="athlete")
    obs = bpy.data.objects
    deck, camera = obs["deck"], obs["camera"]
    bpy.context.view_layer.update()
    # the tilt axis: the camera's horizontal axis (its x, the deck's x), through the camera:
    # a cursor turned 90 degrees about y has its z along x
    cursor(camera.matrix_world.translation, (0.0, math.radians(90.0), 0.0))
    select(deck)
    run(bpy.ops.vart.add_joint, joint_type="revolute", virtual=True, name="tilt")
    for k in range(6):
        wheel = obs[f"leg{k}_wheel"]
        p = wheel.matrix_world.translation
        cursor((p.x, p.y, p.z - WHEEL_RADIUS))  # the wheel's contact point on the ground
        select(wheel)
        run(bpy.ops.vart.add_joint, joint_type="revolute", virtual=True, name=f"leg{k}_pin")
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    scene.vart.active_joint = "tilt"
    select(deck)
    for frame, degrees in ((frames, TILT_DEG), (1, 0.0)):  # end pose first, start pose last
        scene.frame_set(frame)
        run(bpy.ops.vart.operate_joint, value=(degrees, 0, 0, 0, 0, 0))
        run(bpy.ops.vart.key_joint)
    return obs


# ---- the picture ------------------------------------------------------------------------------
def _material(name, rgba):
    mat = bpy.data.materials.new(name)
    mat.diffuse_color = rgba
    return mat


def _mesh_object(name, mesh, M, mat, coll):
    ob = bpy.data.objects.new(name, mesh)
    mesh.materials.append(mat)
    coll.objects.link(ob)
    ob.matrix_world = Matrix(np.asarray(M, float).tolist())
    return ob


def _prim(kind, size):
    import bmesh
    bm = bmesh.new()
    if kind == "sphere":
        bmesh.ops.create_uvsphere(bm, u_segments=16, v_segments=8, radius=size)
    elif kind == "cylinder":
        bmesh.ops.create_cone(bm, cap_ends=True, segments=16, radius1=size, radius2=size,
                              depth=0.3)
    elif kind == "rod":
        bmesh.ops.create_cone(bm, cap_ends=True, segments=8, radius1=size, radius2=size,
                              depth=1.6)
    else:
        bmesh.ops.create_cube(bm, size=2 * size)
    mesh = bpy.data.meshes.new(f"demo_{kind}")
    bm.to_mesh(mesh)
    bm.free()
    for p in mesh.polygons:
        p.use_smooth = kind in ("sphere", "cylinder", "rod")
    return mesh


def joint_markers(scene, coll) -> list:
    """A small object per joint with a value, at its mobility frame, in the overlay's colour:
    revolute a cylinder along its axis, spherical a ball, others a cube; the virtual revolute
    gets a rod along its axis too. Returns the objects made."""
    from vart_addon.bridge import build as B
    from vart_addon.bridge import poses as P
    from vart_addon.bridge import schema as S
    from vart_addon.overlay.geometry import joint_color
    obs = {ob.name: ob for ob in scene.objects if S.is_link(ob)}
    data = S.read_scene(obs.values())
    lk = B.build(data, {n: P.rigid_and_scale(P.observe(ob), n)[0] for n, ob in obs.items()})
    poses = lk.poses()
    made, mats = [], {}
    for name, j in lk.joints.items():
        if not j.dof:
            continue
        W = (np.eye(4) if j.parent is None else poses[j.parent]) @ j.T_parent_mob
        rgba = joint_color(j.is_tree, j.locked, j.virtual)
        mat = mats.get(rgba) or mats.setdefault(rgba, _material(f"demo_joint{len(mats)}",
                                                                rgba))
        kind = {"revolute": "cylinder", "spherical": "sphere"}.get(j.jtype.name, "cube")
        # real joints: a rod along the axis sticking out of the robot's own pin; virtual
        # ones bigger, and a revolute's axis drawn long
        size = (0.1 if kind == "sphere" else 0.09) if j.virtual else 0.045
        made.append(_mesh_object(f"demo_{name}", _prim(kind, size), W, mat, coll))
        if j.virtual and kind == "cylinder":
            made.append(_mesh_object(f"demo_{name}_axis", _prim("rod", 0.025), W, mat, coll))
    return made


#: The side camera's line of sight in its own frame (story 1: it looks along its -y) and how
#: long it is drawn (m).
SIGHT_AXIS, SIGHT_LENGTH = np.array([0.0, -1.0, 0.0]), 2.5


def sight_line(scene, coll, T_world_camera, name, rgba) -> object:
    """The camera link's line of sight as a thin rod from its origin, SIGHT_LENGTH along
    SIGHT_AXIS (the overlay does not render: drawn so that the picture shows the tilt)."""
    import bmesh
    d = T_world_camera[:3, :3] @ SIGHT_AXIS
    z = d / np.linalg.norm(d)
    x = np.cross(z, (0.0, 0.0, 1.0))
    x = x / np.linalg.norm(x) if np.linalg.norm(x) > 1e-9 else np.array([1.0, 0.0, 0.0])
    M = np.eye(4)
    M[:3, :3] = np.column_stack([x, np.cross(z, x), z])
    M[:3, 3] = T_world_camera[:3, 3] + z * SIGHT_LENGTH / 2
    bm = bmesh.new()
    bmesh.ops.create_cone(bm, cap_ends=True, segments=12, radius1=0.03, radius2=0.03,
                          depth=SIGHT_LENGTH)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    return _mesh_object(name, mesh, M, _material(name, rgba), coll)


def look_from(eye, target) -> Matrix:
    """A camera's world matrix at ``eye`` looking at ``target`` (its -z), level (its x
    horizontal)."""
    eye, target = np.asarray(eye, float), np.asarray(target, float)
    z = (eye - target) / np.linalg.norm(eye - target)
    x = np.cross((0.0, 0.0, 1.0), z)
    x /= np.linalg.norm(x)
    M = np.eye(4)
    M[:3, :3] = np.column_stack([x, np.cross(z, x), z])
    M[:3, 3] = eye
    return Matrix(M.tolist())


def stage(scene):
    """Ground, camera and Workbench settings for the picture. Returns the objects made."""
    coll = bpy.data.collections.new("demo_render")
    scene.collection.children.link(coll)
    ground = bpy.data.meshes.new("demo_ground")
    s = 30.0
    ground.from_pydata([(-s, -s, 0), (s, -s, 0), (s, s, 0), (-s, s, 0)], [], [(0, 1, 2, 3)])
    made = [_mesh_object("demo_ground", ground, np.eye(4),
                         _material("demo_ground", (0.55, 0.52, 0.47, 1.0)), coll)]
    cam = bpy.data.objects.new("demo_camera", bpy.data.cameras.new("demo_camera"))
    coll.objects.link(cam)
    cam.data.lens = 40.0
    cam.matrix_world = look_from((7.4, -4.0, 2.7), (0.0, -0.1, 0.6))
    scene.camera = cam
    made.append(cam)
    r = scene.render
    r.engine = 'BLENDER_WORKBENCH'
    r.film_transparent = False
    r.image_settings.file_format = 'PNG'
    r.image_settings.color_mode = 'RGB'
    sh = scene.display.shading
    sh.light = 'STUDIO'
    sh.color_type = 'MATERIAL'
    sh.show_shadows = True
    sh.shadow_intensity = 0.35
    sh.show_cavity = True
    if scene.world is None:
        scene.world = bpy.data.worlds.new("demo_world")
    scene.world.color = (0.82, 0.86, 0.92)
    scene.display.render_aa = '8'
    scene.view_settings.view_transform = 'Standard'  # AgX (the default) washes colours out
    return coll, made


def render_picture(scene, frames, path, size):
    """Render the first and the last frame and put them side by side in ``path`` (PNG)."""
    w, h = size
    coll, staged = stage(scene)
    r = scene.render
    r.resolution_x, r.resolution_y, r.resolution_percentage = w, h, 100
    halves = []
    tmp = pathlib.Path(path).with_suffix("")
    first_sight = None  # the first frame's line of sight, drawn grey in the later ones
    for _i, f in enumerate(frames):
        scene.frame_set(f)
        markers = joint_markers(scene, coll)
        T_cam = np.array(bpy.data.objects["camera"].matrix_world, float)
        T_cam[:3, :3] /= np.linalg.norm(T_cam[:3, :3], axis=0)
        markers.append(sight_line(scene, coll, T_cam, f"demo_sight{f}", (0.85, 0.1, 0.1, 1.0)))
        if first_sight is None:
            first_sight = T_cam
        else:
            markers.append(sight_line(scene, coll, first_sight, "demo_sight_start",
                                      (0.3, 0.3, 0.3, 1.0)))
        out = f"{tmp}_frame{f}.png"
        r.filepath = out
        bpy.ops.render.render(write_still=True)
        img = bpy.data.images.load(out)
        px = np.empty(w * h * 4, np.float32)
        img.pixels.foreach_get(px)
        halves.append(px.reshape(h, w, 4))
        bpy.data.images.remove(img)
        pathlib.Path(out).unlink()
        for ob in markers:
            mesh, mats = ob.data, list(ob.data.materials)
            bpy.data.objects.remove(ob)
            bpy.data.meshes.remove(mesh)
            for mat in mats:
                if mat is not None and mat.name.startswith("demo_sight") and not mat.users:
                    bpy.data.materials.remove(mat)
    gap = np.ones((h, 6, 4), np.float32)
    both = np.concatenate([halves[0], gap, halves[1]], axis=1)
    img = bpy.data.images.new("demo_picture", both.shape[1], h)
    img.pixels.foreach_set(both.reshape(-1))
    r.image_settings.compression = 100
    img.save_render(str(path), scene=scene)
    bpy.data.images.remove(img)
    for ob in staged:
        data = ob.data
        bpy.data.objects.remove(ob)
        if isinstance(data, bpy.types.Mesh):
            bpy.data.meshes.remove(data)
    bpy.data.collections.remove(coll)


# ---- the demo ---------------------------------------------------------------------------------
def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=48, help="frames to bake (default 48)")
    ap.add_argument("--out", type=pathlib.Path, default=REPO / "demo_out")
    ap.add_argument("--size", default="600x400", help="picture size per pose, WxH")
    ap.add_argument("--no-picture", action="store_true")
    ap.add_argument("--docs", type=pathlib.Path, default=None,
                    help="also write the picture here (e.g. docs/demo.png)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    args.out.mkdir(parents=True, exist_ok=True)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    import vart_addon
    from vart_addon import examples as X
    from vart_addon import io_trajectory as TB
    from vart_addon.checks.clearance import check_clearance
    vart_addon.register()
    try:
        scene = bpy.context.scene
        build_story(args.frames)
        t = time.perf_counter()
        run(bpy.ops.vart.bake, frame_start=1, frame_end=args.frames)
        bake_s = time.perf_counter() - t
        check = X.check_baked(scene, 1, args.frames)
        clearance = check_clearance(scene, 1, args.frames)
        exported = {}
        for ext in ("csv", "json", "path"):
            res = TB.export_trajectory(scene, args.out / f"camera_tilt.{ext}")
            exported[ext] = res
        blend = args.out / "camera_tilt.blend"
        bpy.ops.wm.save_as_mainfile(filepath=str(blend), check_existing=False, copy=True)
        picture = None
        if not args.no_picture:
            w, h = (int(v) for v in args.size.lower().split("x"))
            picture = args.out / "demo.png"
            render_picture(scene, (1, args.frames), picture, (w, h))
            if args.docs is not None:
                args.docs.parent.mkdir(parents=True, exist_ok=True)
                args.docs.write_bytes(picture.read_bytes())
        res = exported["csv"]
        figures = dict(frames=args.frames, bake_s=bake_s, closure_error=check.closure_error,
                       closures=check.closures, limit_excess=check.limit_excess,
                       pose_error=check.pose_error, waypoints=res.written.n_times,
                       joints=res.written.n_joints, violations=len(res.violations),
                       summary=scene.vart.bake_summary or scene.vart.status_summary,
                       contacts=len(clearance.contacts()), clearance=clearance.summary(),
                       paths=[str(r.path) for r in exported.values()] + [str(blend)]
                       + ([str(picture)] if picture else []),
                       total_s=time.perf_counter() - t0)
    finally:
        vart_addon.unregister()
    report(figures)
    figures["ok"] = figures["closure_error"] <= TOL and figures["limit_excess"] <= 0.0 and \
        figures["contacts"] == 0
    return figures


def report(f: dict) -> None:
    print()
    print("vart demo: story 1, camera tilt (ATHLETE-like hexapod, virtual revolute deck-world "
          f"0 -> {TILT_DEG:g} degrees, six wheels upright on their contact points)")
    print(f"  frames baked:              {f['frames']}")
    print(f"  bake time:                 {f['bake_s']:.2f} s ({f['frames'] / f['bake_s']:.0f} "
          "frames/s)")
    print(f"  largest closure error:     {f['closure_error']:.1e} (m, rad; {f['closures']} "
          "closure joints, every frame, from the baked values)")
    print(f"  real joints beyond limits: {f['limit_excess']:g}")
    print(f"  waypoints written:         {f['waypoints']} per file, {f['joints']} real joints "
          "each (a new one whenever a joint moved 2 degrees; the .path milestones hold "
          "Klampt's whole configuration: base and every link)")
    print(f"  limit violations exported: {f['violations']} (position and velocity, every "
          "frame)")
    print(f"  bake:                      {f['summary']}")
    print(f"  clearance:                 {f['clearance']}")
    print("  files:")
    for p in f["paths"]:
        print(f"    {p}")
    print(f"  total: {f['total_s']:.1f} s")


if __name__ == "__main__":
    figures = main(sys.argv[1:] if "--" not in sys.argv else sys.argv[sys.argv.index("--") + 1:])
    sys.exit(0 if figures["ok"] else 1)
