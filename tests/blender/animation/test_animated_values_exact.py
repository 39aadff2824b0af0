"""Fixed defect (issue 21, second defect): a bake, live mode or a trajectory sampled from the
scene read a keyed joint value as a solve had left it, not as keyed.

Blender (4.2, 4.5, 5.0 and 5.2 alike) writes an animated value into a property only where it
differs from the stored one in single precision. A joint's q is a double-precision custom
property: a solve that leaves it within half a single-precision step of its key (a drag, Operate
Joint, live mode's own writes) is not overwritten by ``scene.frame_set``, on the current frame
or wherever the curve is flat. A bake started on the current frame then solved its first frame
against that value (``pinch_distance`` 1.3e-9 off its key after the pinch example's solve), and
so, one frame after another, did everything after it. A larger difference is always overwritten.
"""
from __future__ import annotations

import bpy
import numpy as np
import pytest

from vart_addon.animation import live
from vart_addon.animation.bake import bake
from vart_addon.bridge import animation as A
from vart_addon.bridge import schema as S
from vart_addon.io_trajectory.sampling import sample_trajectory
from vart_addon.shared.bridge_cache import bridge_for, solve_kw
from vart_addon.shared.frames import set_frame


def f32_step(x: float) -> float:
    """The single-precision spacing at ``x``."""
    return float(np.spacing(np.float32(x)))


def stored_q(ob, joint: str) -> float:
    return ob[S.KEY]["joints"][joint]["q"][0]


def test_blender_rewrites_an_animated_value_only_where_it_differs_in_single_precision(scene):
    ob = bpy.data.objects.new("probe", None)
    scene.collection.objects.link(ob)
    ob["vart"] = {"joints": {"j": {"q": [0.0]}}}
    path = '["vart"]["joints"]["j"]["q"]'
    scene.frame_set(1)
    ob.keyframe_insert(path, index=0, frame=1)
    ob["vart"]["joints"]["j"]["q"] = [0.1]
    ob.keyframe_insert(path, index=0, frame=10)
    scene.frame_set(5)
    key = stored_q(ob, "j")
    assert key == float(np.float32(key)) and 0 < key < 0.1  # animated: single precision
    for offset, rewritten in ((0.45 * f32_step(key), False), (1e-6, True), (0.3, True)):
        ob["vart"]["joints"]["j"]["q"] = [key + offset]  # as a solve writes it
        bpy.context.view_layer.update()
        scene.frame_set(5)  # the current frame
        assert (stored_q(ob, "j") == key) is rewritten, (bpy.app.version_string, offset)
    ob["vart"]["joints"]["j"]["q"] = [key + 0.45 * f32_step(key)]
    assert set_frame(scene, 5) == 1  # the fix: one value settled, exactly the key again
    assert stored_q(ob, "j") == key
    assert set_frame(scene, 5) == 0
    ob["plain"] = 0.25 + 0.45 * f32_step(0.25)  # not animated: left as it is
    assert A.settle_animated(ob, [('["plain"]', 0)]) == 1  # (if asked, it would round it)
    assert A.animated_channels(ob) == [(path, 0)]


def tilt_scene(frame: int, stale: bool):
    """Story 1 on ``frame``, with tilt's q as a solve leaves it: within half a single-precision
    step of its key (``stale``) or exactly the key."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    import vart_addon
    vart_addon.register()
    assert bpy.ops.vart.add_example(example="camera_tilt") == {'FINISHED'}
    scene = bpy.context.scene
    scene.frame_set(frame)
    deck = bpy.data.objects["deck"]
    key = A.q_fcurves(deck, "tilt")[0].evaluate(frame)
    if stale:
        S.write_q(deck, "tilt", [key + 0.45 * f32_step(key)])
    assert (stored_q(deck, "tilt") != key) is stale
    return scene, deck, key


def baked_keys(scene) -> dict:
    out = {}
    for ob in scene.objects:
        for fc in A.fcurves_of(ob):
            if A.group_of(fc) == A.BAKE_GROUP:
                co = np.empty(2 * len(fc.keyframe_points), np.float32)
                fc.keyframe_points.foreach_get("co", co)
                out[(ob.name, fc.data_path, fc.array_index)] = co
    return out


@pytest.fixture
def unregister_after():
    yield
    import vart_addon
    vart_addon.unregister()


def test_a_bake_from_the_current_frame_bakes_the_keyed_value(unregister_after):
    keys = {}
    for stale in (True, False):
        if stale is False:
            import vart_addon
            vart_addon.unregister()
        scene, deck, key = tilt_scene(20, stale)
        bake(scene, 20, 23, bridge=bridge_for(scene), **solve_kw(scene, bake=True))
        assert stored_q(deck, "tilt") == key  # back on frame 20: the key, not the solve's
        keys[stale] = baked_keys(scene)
    assert keys[True].keys() == keys[False].keys() and keys[True]
    differ = [k for k in keys[True] if not np.array_equal(keys[True][k], keys[False][k])]
    assert differ == []


def test_live_solves_a_hold_with_the_keyed_value(unregister_after):
    """A hold (the curve flat from frame 1): Blender never rewrites tilt's q there, neither
    when live mode turns on (the current frame) nor at the next frames."""
    solved = {}
    for stale in (True, False):
        if stale is False:
            import vart_addon
            vart_addon.unregister()
        scene, deck, key = tilt_scene(1, stale=False)
        fc = A.q_fcurves(deck, "tilt")[0]
        for p in fc.keyframe_points:  # both keys at 0.1 rad: a hold
            for co in (p.co, p.handle_left, p.handle_right):
                co[1] = 0.1
        fc.update()
        scene.frame_set(1)
        key = fc.evaluate(1)
        if stale:
            S.write_q(deck, "tilt", [key + 0.45 * f32_step(key)])
        scene.vart.live = True
        scene.frame_set(4)
        cache = live.cache_of(scene)
        assert sorted(cache.frames) == [1, 2, 3, 4]
        solved[stale] = {f: e.q.copy() for f, e in cache.frames.items()}
    assert all(np.array_equal(solved[True][f], solved[False][f]) for f in solved[False])


def test_a_trajectory_sampled_from_the_scene_reads_the_keyed_value(unregister_after):
    """Sampling from the current frame: the scene's values are the F-curves' exactly."""
    scene, deck, key = tilt_scene(20, stale=True)
    stepped = sample_trajectory(scene, 20, 22, source="scene")
    keyed = sample_trajectory(scene, 20, 22, source="fcurves")
    tilt = stepped.joint_names.index("tilt")
    assert stepped.positions[0, tilt] == key
    assert np.array_equal(stepped.positions, keyed.positions)
