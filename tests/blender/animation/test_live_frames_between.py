"""Live mode's frames in between (real bpy): reached without changing the frame inside the
frame-change handler, posed from the F-curves (``animation/inputs_at.py``).

Fixed case: a jump (frame 1 to 20) solved the frames in between with ``scene.frame_set``
nested in ``frame_change_post``; on Blender 4.2, 4.5 and 5.0 the next update of a tagged
object then crashed Blender (a segmentation fault). And while an animation rendered, the
handler read the animated values the objects held before (Blender evaluates a render into
its own copy of the scene), so rendered frames lagged the keys."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import bpy
import numpy as np

from vart_addon.animation import inputs_at as IA
from vart_addon.animation import live
from vart_addon.bridge import animation as A
from vart_addon.bridge import schema as S

N = 48
ROOT = Path(__file__).resolve().parents[3]


def add(key):
    assert bpy.ops.vart.add_example(example=key) == {'FINISHED'}
    return bpy.context.scene


def deck_pose():
    M = np.array(bpy.data.objects["deck"].matrix_world, dtype=float)
    M[:3, :3] /= np.linalg.norm(M[:3, :3], axis=0)
    return M


def test_a_jump_then_an_edit_in_blender_does_not_crash_blender():
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        import bpy, vart_addon
        bpy.ops.wm.read_factory_settings(use_empty=True)
        vart_addon.register()
        bpy.ops.vart.add_example(example="camera_tilt")
        scene = bpy.context.scene
        scene.vart.live = True
        scene.frame_set(20)                  # frames 2..19 solved in between
        ob = bpy.data.objects["leg0_wheel"]
        ob.update_tag()                      # what an edit in the property editor tags
        bpy.context.view_layer.update()
        scene.frame_set(30)
        print("LIVE-OK", scene.vart.status_summary, flush=True)
        import os
        os._exit(0)  # bpy 4.2 itself may crash at interpreter exit
        """)
    env = dict(os.environ, PYTHONPATH="")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, f"Blender died ({out.returncode}): {out.stderr[-2000:]}"
    assert "LIVE-OK Live, frame 30: Converged" in out.stdout


def test_a_rendered_animation_shows_each_frame_as_the_bake_poses_it(vart_registered,
                                                                     tmp_path):
    scene = add("camera_tilt")
    scene.render.engine = 'BLENDER_WORKBENCH'
    scene.render.resolution_x, scene.render.resolution_y = 16, 12
    scene.render.filepath = str(tmp_path / "f_")
    scene.camera = bpy.data.objects.new("cam", bpy.data.cameras.new("cam"))
    scene.collection.objects.link(scene.camera)
    scene.frame_step = 5  # 1, 6, 11, ...: every rendered frame a jump
    rendered: dict = {}

    def at_render(sc, *_):
        rendered[sc.frame_current] = deck_pose()
    bpy.app.handlers.render_post.append(at_render)
    try:
        scene.frame_set(1)
        scene.vart.live = True
        bpy.ops.render.render(animation=True)
    finally:
        bpy.app.handlers.render_post.remove(at_render)
    assert sorted(rendered) == list(range(1, N + 1, 5))
    scene.vart.live = False
    assert bpy.ops.vart.bake() == {'FINISHED'}
    for f, T in rendered.items():
        scene.frame_set(f)
        assert np.abs(deck_pose() - T).max() < 1e-5, f
    assert np.abs(rendered[46] - rendered[1]).max() > 0.2  # the deck tilted


def test_the_fcurves_pose_what_blender_evaluates(vart_registered):
    scene = add("camera_tilt")
    obs = live.link_objects(scene)
    curves = {(n, fc.data_path, fc.array_index): fc for n, ob in obs.items()
              for fc in A.fcurves_of(ob) if A.animates(fc)}
    deck = bpy.data.objects["deck"]
    deck.location = (0.0, 0.0, deck.location.z)
    for f, z in ((1, deck.location.z), (30, deck.location.z + 0.2)):
        deck.location.z = z
        deck.keyframe_insert("location", index=2, frame=f)
    curves[("deck", "location", 2)] = A.find_fcurve(deck, "location", 2)
    assert IA.plain(obs, curves, ())
    poser = IA.InputPoser(obs, curves)
    for f in (7, 30, 41):
        poser.pose(f)
        posed = (list(deck[S.KEY]["joints"]["tilt"]["q"]), np.array(deck.matrix_world))
        scene.frame_set(f)
        assert list(deck[S.KEY]["joints"]["tilt"]["q"]) == posed[0]
        assert np.abs(np.array(deck.matrix_world) - posed[1]).max() < 1e-6


def test_animation_that_fcurves_cannot_pose_is_reached_by_frames_or_said(vart_registered):
    """A driver on a vart property: not plain. Blender 5.2 reaches a jump's frames by frame
    changes (safe there); older ones show the frame solved straight from the last one and
    remember nothing beyond it."""
    scene = add("camera_tilt")
    wheel = bpy.data.objects["leg0_wheel"]
    path = S.q_data_path("leg0_pin")[:-len('["q"]')] + '["stiffness"]'
    fc = wheel.driver_add(path)
    fc.driver.expression = "0.0"
    obs = live.link_objects(scene)
    assert not IA.plain(obs, {}, ((wheel.name, path, 0),))
    scene.vart.live = True
    scene.frame_set(10)
    scene.frame_set(30)
    cache = live.cache_of(scene)
    if IA.nested_frame_set_safe():
        assert sorted(cache.frames) == list(range(1, 31))
        assert scene.vart.status_summary.startswith("Live, frame 30: Converged")
    else:
        assert sorted(cache.frames) == [1]
        assert "solved from the last frame solved before it" in scene.vart.status_summary
    for f in range(2, 31):  # played through: remembered as the bake solves them
        scene.frame_set(f)
    assert sorted(cache.frames) == list(range(1, 31))


def test_a_failed_pass_puts_the_posed_values_back(vart_registered, monkeypatch):
    scene = add("camera_tilt")
    deck = bpy.data.objects["deck"]
    scene.vart.live = True
    scene.frame_set(40)
    before = list(deck[S.KEY]["joints"]["tilt"]["q"])
    live.forget_all()
    calls = []

    def fail(self, frame, prev, _real=live.FrameSolver.solve):
        calls.append(frame)
        if frame == 20:
            raise RuntimeError("solver exploded")
        return _real(self, frame, prev)
    monkeypatch.setattr(live.FrameSolver, "solve", fail)
    scene.frame_set(40)  # reported in the status, never raised
    assert "not solved: solver exploded" in scene.vart.status_summary
    assert list(deck[S.KEY]["joints"]["tilt"]["q"]) == before
