"""The MuJoCo replay of a baked scene (issue 20, item 3) in real bpy: the four stories are
replayed (the URDF export's robot, its inertials and effort limits, the links' meshes as
collision geometry, the baked joint values as targets) and the operator reports and stores
what happened; without MuJoCo it says how to install it."""
from __future__ import annotations

import sys

import bpy
import numpy as np
import pytest

pytest.importorskip("mujoco")

from vart_addon.checks.replay import replay_scene_steps  # noqa: E402
from vart_addon.physics.model import INSTALL  # noqa: E402


def replayed(key):
    assert bpy.ops.vart.add_example(example=key) == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    steps = replay_scene_steps(bpy.context.scene)
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


@pytest.mark.parametrize("key", ["camera_tilt", "trenching", "inspection", "pinch"])
def test_a_story_replays_with_its_joints_tracked(vart_registered, key):
    res, _ = replayed(key)
    assert res.frames_done == 48 and res.floating
    assert len(res.joints) == 36  # six legs of six joints (the wheel too)
    assert np.isfinite(res.force).all()
    wheels = [i for i, j in enumerate(res.joints) if j.endswith("_wheel")]
    assert len(wheels) == 6 and (res.limit[wheels] == 0.0).all()  # continuous: no <limit>
    assert (np.delete(res.limit, wheels) == 100.0).all()  # assets/athlete/athlete.urdf
    assert res.sim_s == pytest.approx(47 / 24)
    # the first frame is the baked pose itself: the simulation starts where the bake does
    assert np.abs(res.error[0]).max() < 1e-12


@pytest.mark.xfail(strict=True, reason="news (issue 20): the hexapod weighs 850 kg (first-"
                   "generation ATHLETE, assets/README.md) but its limb joints keep the model's "
                   "own 100 N m effort limit (no published ATHLETE joint torque was found); "
                   "standing takes about 1.5 kN m at each hip pitch. Measured: the hip pitch "
                   "servos are at 100 % of the limit from frame 2 (pinch: 8) to the end, hip "
                   "yaw, knee and ankle pitch too; the deck falls at frame 10 (pinch: 9); base "
                   "drift 20.8, 10.9, 3.0, 22.0 mm (camera_tilt, trenching, inspection, pinch)")
@pytest.mark.parametrize("key", ["camera_tilt", "trenching", "inspection", "pinch"])
def test_the_stories_replay_without_a_fall(vart_registered, key):
    res, _ = replayed(key)
    assert res.stays_up, res.summary(first_frame=1)


def test_the_operator_reports_and_stores(vart_registered):
    assert bpy.ops.vart.add_example(example="camera_tilt") == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    scene = bpy.context.scene
    assert bpy.ops.vart.replay_physics() == {'FINISHED'}
    assert scene.vart.replay_summary.startswith("Replayed 48 frames")
    assert "effort limit" in scene.vart.replay_summary
    assert scene.frame_current == 1


def test_without_mujoco_the_operator_says_how_to_install_it(vart_registered, monkeypatch):
    assert bpy.ops.vart.add_example(example="camera_tilt") == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    monkeypatch.setitem(sys.modules, "mujoco", None)  # import mujoco now raises ImportError
    with pytest.raises(RuntimeError, match="pip install mujoco-core"):
        bpy.ops.vart.replay_physics()
    assert bpy.context.scene.vart.replay_summary == ""
    assert "mujoco-core" in INSTALL


def test_a_loop_not_closed_at_zero_replays_closed(vart_registered, monkeypatch):
    """The parented four-bar stands at crank 70 degrees (its joints are not 0): MuJoCo fixes a
    connect's child-side anchor at the model's reference configuration, so the replay's model
    is posed at the first frame. With the first frame's values, the closure's residual
    (MuJoCo's own ``efc_pos`` of its equality rows) is that of the baked pose: under 1e-6 m.
    (Built at joint zeros, the loop would be closed at the wrong place.)"""
    import mujoco

    import blender_scenes as BS
    from vart_addon.animation.bake import bake
    from vart_addon.checks import replay as R
    BS.keyed_fourbar(12, 20)
    bake(bpy.context.scene, 1, 12, settings=BS.TIGHT)
    seen = {}
    real = R.replay_steps

    def spy(built, times, targets, **kw):
        seen["built"], seen["targets"] = built, targets
        return (yield from real(built, times, targets, **kw))

    monkeypatch.setattr(R, "replay_steps", spy)
    steps = R.replay_scene_steps(bpy.context.scene, 1, 12)
    next(steps)
    steps.close()
    model = seen["built"].spec.compile()
    data = mujoco.MjData(model)
    for name, values in seen["targets"].items():  # the first frame, in URDF values
        data.qpos[model.jnt_qposadr[model.joint(name).id]] = values[0]
    mujoco.mj_forward(model, data)
    rows = data.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
    assert rows.any()
    assert np.abs(data.efc_pos[rows]).max() < 1e-6
