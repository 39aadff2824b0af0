"""Curves in Blender's own plots (issue 20, item 5) in real bpy: Plot Curves keys each baked
joint's velocity and acceleration (central differences of its q curve over the frame times) as
F-curves of custom properties on its child link, in the group Vart Plots, which Blender
evaluates like any animation; Replay in MuJoCo keys the tracking error and the force; the
sidebar's peaks list holds every joint's peaks against its limits, worst first, and a click
selects the joint and jumps to the frame."""
from __future__ import annotations

import bpy
import numpy as np
import pytest

from vart_addon.bridge import animation as A
from vart_addon.checks.plots import GROUP, PLOTS_KEY, plot_path
from vart_addon.checks.statics import CONTACT, ROBOT

FPS = 24.0
LIMIT = 1.0  # rad/s: every joint of assets/athlete/athlete.urdf


def baked_story(key="camera_tilt"):
    assert bpy.ops.vart.add_example(example=key) == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    scene = bpy.context.scene
    assert (scene.frame_start, scene.frame_end) == (1, 48)
    assert scene.render.fps / scene.render.fps_base == FPS
    return scene


def child_of(joint):
    return next(ob for ob in bpy.context.scene.objects
                if joint in ob.get("vart", {}).get("joints", {}))


def keyed(joint, quantity, index=0) -> np.ndarray:
    """The plotted curve's key values over frames 1-48 (checking it is keyed at each)."""
    fc = A.find_fcurve(child_of(joint), plot_path(joint, quantity), index)
    assert fc is not None and A.animates(fc) and A.group_of(fc) == GROUP
    co = np.empty(2 * len(fc.keyframe_points), np.float32)
    fc.keyframe_points.foreach_get("co", co)
    assert co[0::2].tolist() == list(range(1, 49))
    return co[1::2].astype(float)


def stored_q(joint) -> np.ndarray:
    """q of ``joint`` at every frame as the scene evaluates it (frame_set)."""
    scene = bpy.context.scene
    out = []
    for f in range(1, 49):
        scene.frame_set(f)
        out.append(child_of(joint)["vart"]["joints"][joint]["q"][0])
    scene.frame_set(1)
    return np.array(out)


def test_velocity_and_acceleration_are_curves_beside_q(vart_registered):
    scene = baked_story()
    assert bpy.ops.vart.plot_curves() == {'FINISHED'}
    # tilt is keyed linearly from 0 to 20 degrees over frames 1-48: a constant speed
    np.testing.assert_allclose(keyed("tilt", "velocity"), np.radians(20) / (47 / FPS),
                               rtol=1e-5)
    np.testing.assert_allclose(keyed("tilt", "acceleration"), 0.0, atol=1e-4)
    # a real joint the bake moved: the derivatives of its evaluated values
    q = stored_q("leg0_knee_pitch")
    assert np.ptp(q) > 0.01
    t = np.arange(48) / FPS
    v = np.gradient(q, t)
    np.testing.assert_allclose(keyed("leg0_knee_pitch", "velocity"), v, atol=1e-4)
    np.testing.assert_allclose(keyed("leg0_knee_pitch", "acceleration"), np.gradient(v, t),
                               atol=2e-3)
    # Blender evaluates them as animation: the property follows the frame
    knee = child_of("leg0_knee_pitch")
    scene.frame_set(30)
    assert knee[PLOTS_KEY]["leg0_knee_pitch"]["velocity"][0] == pytest.approx(v[29], abs=1e-4)
    # every animated joint: the 36 real ones and the 6 pins the bake keys, and tilt
    plotted = {j for ob in scene.objects for j in ob.get(PLOTS_KEY, {}).keys()
               if j not in (CONTACT, ROBOT)}  # the bake's statics check keys those too
    assert len(plotted) == 43 and {"tilt", "leg0_pin"} <= plotted
    assert len(keyed("leg0_pin", "velocity")) == 48  # the wheel steering about its pin
    # again: the same keys replaced, not added
    assert bpy.ops.vart.plot_curves() == {'FINISHED'}
    assert len(keyed("tilt", "velocity")) == 48


def test_the_peaks_list_is_worst_first_and_a_click_goes_there(vart_registered):
    scene = baked_story()
    sv = scene.vart
    sv.plot_acceleration_limit = 2.0
    assert bpy.ops.vart.plot_curves() == {'FINISHED'}
    rows = list(sv.peaks)
    assert len(rows) == 43 and sv.peaks_index == -1
    worst = [r.worst for r in rows]
    assert worst == sorted(worst, reverse=True)
    knee = next(r for r in rows if r.name == "leg0_knee_pitch")
    v, a = keyed("leg0_knee_pitch", "velocity"), keyed("leg0_knee_pitch", "acceleration")
    assert knee.velocity == pytest.approx(np.abs(v).max() / LIMIT, rel=1e-5)
    assert knee.acceleration == pytest.approx(np.abs(a).max() / 2.0, rel=1e-5)
    assert knee.force == -1.0  # not replayed: no force yet
    assert knee.worst == pytest.approx(max(knee.velocity, knee.acceleration), rel=1e-6)
    tilt = next(r for r in rows if r.name == "tilt")
    assert tilt.velocity == -1.0  # a virtual joint has no URDF limit
    # a click on the first row selects its joint's link and jumps to its worst frame
    first = rows[0]
    elsewhere = 1 if first.frame != 1 else 48
    scene.frame_set(elsewhere)
    sv.peaks_index = 0
    assert sv.active_joint == first.name
    assert bpy.context.view_layer.objects.active.name == first.link
    assert [ob.name for ob in bpy.context.selected_objects] == [first.link]
    assert scene.frame_current == first.frame != elsewhere


def test_the_replay_keys_tracking_error_and_force(vart_registered):
    pytest.importorskip("mujoco")
    from vart_addon.checks.replay import replay_scene_steps
    scene = baked_story("pinch")  # its statics need 143 % of the limit: servos reach it
    steps = replay_scene_steps(scene)
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            res, _ = stop.value
            break
    assert bpy.ops.vart.replay_physics() == {'FINISHED'}
    assert scene.frame_current == 1
    for i, joint in enumerate(res.joints):
        np.testing.assert_allclose(keyed(joint, "force"), res.force[:, i], rtol=1e-5,
                                   atol=1e-3, err_msg=joint)
        np.testing.assert_allclose(keyed(joint, "tracking_error"), res.error[:, i],
                                   atol=1e-6, err_msg=joint)
    # the peaks hold the force against the effort limit (the URDF's): some joint reaches it
    rows = {r.name: r for r in scene.vart.peaks}
    saturated = res.saturated()
    assert saturated
    for joint in saturated:
        assert rows[joint].force == pytest.approx(1.0, abs=2e-3)
    assert scene.vart.peaks[0].worst >= 1.0 - 2e-3


def test_plot_curves_needs_links_and_frames(vart_registered):
    assert bpy.ops.vart.plot_curves.poll() is False
    scene = baked_story()
    scene.frame_end = scene.frame_start
    before = {ob.name: ob.get(PLOTS_KEY, {}).to_dict() for ob in scene.objects
              if ob.get(PLOTS_KEY)}  # the bake's statics check's curves
    with pytest.raises(RuntimeError, match="two or more frames"):
        bpy.ops.vart.plot_curves()
    assert {ob.name: ob.get(PLOTS_KEY, {}).to_dict() for ob in scene.objects
            if ob.get(PLOTS_KEY)} == before
