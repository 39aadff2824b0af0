#!/usr/bin/env python3
"""The README's pictures of the real-robot examples (``.venv/bin/python
tools/render_example.py go2_step docs/go2_step.png``, ``g1_lift_foot docs/g1_lift_foot.png``
or ``ur5_pick_place docs/ur5_pick_place.png``): the example added and baked headless, two of its frames rendered
side by side with Workbench, what the overlay draws for it as thin rods (the overlay does not
render):

- *Go2: Lift a Leg*, frames 1 and 24 (the front right foot up), and *G1: Lift a Foot*,
  frames 1 and 121 (the right foot up): the balance goal's support polygon (green), its
  region (pale green) and the centre of mass's plumb line;
- *UR5: Pick and Place*, frames 20 and 86 (above the pick point, at the place point): the tool's
  axes, its waypoints' axes and the path between them (solid along Linear moves, dashed
  along Joint moves), and a dark rod from the flange to the tool's tip (the gripper).

Needs example-robot-data (a dev dependency). A dev tool, not shipped.
"""
from __future__ import annotations

import importlib.util
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import bpy  # noqa: E402
import numpy as np  # noqa: E402

SIZE = (720, 540)
ROD = 0.004  # m


def _balance_lines(scene) -> dict:
    from vart_addon.overlay import drawing
    from vart_addon.overlay import support_geometry as SG
    colours = {SG.SUPPORT: (0.1, 0.6, 0.2, 1.0), SG.REGION: (0.45, 0.85, 0.5, 1.0),
               SG.OVER: (0.1, 0.6, 0.2, 1.0), SG.OUTSIDE: (0.9, 0.1, 0.1, 1.0),
               SG.GOAL: (0.95, 0.6, 0.1, 1.0)}
    return {colours[s]: seg for s, seg in drawing.support_geometry(scene, 0.05).items()}


def _ur5_lines(scene) -> dict:
    """The tool's overlay, and the gripper the tool frame stands for (tool0 to its tip)."""
    from vart_addon.overlay import drawing
    ends = [np.array(scene.objects[n].matrix_world.translation) for n in ("tool0", "gripper_tcp")]
    out: dict = {(0.15, 0.15, 0.17, 1.0): np.array(ends)}
    for style, seg in drawing.tool_geometry(scene, 0.05).items():
        out[style.color] = np.concatenate([out[style.color], seg]) if style.color in out \
            else seg
    return out


#: Per example: its two frames, the camera (from, at; m), its lens (mm), the lines to draw.
PICTURES = {
    "go2_step": ((1, 24), (0.95, -1.05, 0.55), (-0.02, 0.0, 0.18), 35.0, _balance_lines),
    "g1_lift_foot": ((1, 121), (2.2, -1.6, 1.2), (0.0, 0.0, 0.55), 40.0, _balance_lines),
    "ur5_pick_place": ((20, 86), (0.9, -1.5, 0.8), (0.25, 0.1, 0.25), 35.0, _ur5_lines),
}


def _demo():
    """demo/demo.py as a module (its staging and render helpers)."""
    spec = importlib.util.spec_from_file_location("vart_demo", REPO / "demo" / "demo.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def rods(demo, coll, segments, rgba, name):
    """Each segment (pairs of end points) as a thin cylinder."""
    import bmesh
    mat = demo._material(name, rgba)
    made = []
    for k, (a, b) in enumerate(np.asarray(segments, float).reshape(-1, 2, 3)):
        d = b - a
        length = float(np.linalg.norm(d))
        if length < 1e-6:
            continue
        z = d / length
        x = np.cross(z, (0.0, 0.0, 1.0)) if abs(z[2]) < 0.9 else np.cross(z, (1.0, 0.0, 0.0))
        x /= np.linalg.norm(x)
        M = np.eye(4)
        M[:3, :3] = np.column_stack([x, np.cross(z, x), z])
        M[:3, 3] = (a + b) / 2
        bm = bmesh.new()
        bmesh.ops.create_cone(bm, cap_ends=True, segments=8, radius1=ROD, radius2=ROD,
                              depth=length)
        mesh = bpy.data.meshes.new(f"{name}{k}")
        bm.to_mesh(mesh)
        bm.free()
        made.append(demo._mesh_object(f"{name}{k}", mesh, M, mat, coll))
    return made


def main(example: str, path: str) -> None:
    import vart_addon
    frames, eye, target, lens, lines = PICTURES[example]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    vart_addon.register()
    scene = bpy.context.scene
    assert bpy.ops.vart.add_example(example=example) == {'FINISHED'}
    scene.vart.check_after_bake = False
    assert bpy.ops.vart.bake() == {'FINISHED'}
    demo = _demo()
    coll, staged = demo.stage(scene)
    scene.camera.matrix_world = demo.look_from(eye, target)
    scene.camera.data.lens = lens
    r = scene.render
    r.resolution_x, r.resolution_y, r.resolution_percentage = *SIZE, 100
    halves = []
    for f in frames:
        scene.frame_set(f)
        made = []
        for rgba, seg in lines(scene).items():
            made += rods(demo, coll, seg, rgba, f"{example}_lines_{len(made)}_")
        out = pathlib.Path(path).with_suffix("").as_posix() + f"_frame{f}.png"
        r.filepath = out
        bpy.ops.render.render(write_still=True)
        img = bpy.data.images.load(out)
        px = np.empty(SIZE[0] * SIZE[1] * 4, np.float32)
        img.pixels.foreach_get(px)
        halves.append(px.reshape(SIZE[1], SIZE[0], 4))
        bpy.data.images.remove(img)
        pathlib.Path(out).unlink()
        for ob in made:
            mesh = ob.data
            bpy.data.objects.remove(ob)
            bpy.data.meshes.remove(mesh)
    gap = np.ones((SIZE[1], 6, 4), np.float32)
    both = np.concatenate([halves[0], gap, halves[1]], axis=1)
    img = bpy.data.images.new(f"{example}_picture", both.shape[1], SIZE[1])
    img.pixels.foreach_set(both.reshape(-1))
    r.image_settings.compression = 100
    img.save_render(str(path), scene=scene)
    print(f"wrote {path}")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in PICTURES:
        sys.exit(f"usage: render_example.py {{{','.join(PICTURES)}}} <picture.png>")
    main(sys.argv[1], sys.argv[2])
