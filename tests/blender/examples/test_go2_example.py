"""Issue 31, item 3: a real quadruped with its maker's limits (Unitree Go2 from
example-robot-data, a dev dependency) that stands while it steps. *Add Example > Go2: Lift a
Leg* builds it with vart's operators; its bake passes the static check with half of every
effort limit kept in reserve (balanced at every frame, no loaded contact sliding) and replays
in MuJoCo without a fall; without example-robot-data the example says how to install it and
leaves nothing behind."""
from __future__ import annotations

import bpy
import numpy as np
import pytest

from frame_steps import run
from vart_addon.bridge import schema as S
from vart_addon.checks.statics import statics_scene_steps
from vart_addon.examples import EXAMPLES
from vart_addon.examples import common as C
from vart_addon.examples import quadruped as Q
from vart_addon.physics.feasibility import Thresholds
from vart_addon.shared.frames import run_steps

pytestmark = pytest.mark.skipif(C.robots_folder() is None, reason="example-robot-data")


@pytest.fixture
def go2_baked(vart_registered):
    assert bpy.ops.vart.add_example(example="go2_step") == {'FINISHED'}
    scene = bpy.context.scene
    scene.vart.check_after_bake = False
    assert bpy.ops.vart.bake() == {'FINISHED'}
    assert "unmet" not in scene.vart.status_summary.lower(), scene.vart.status_summary
    return scene


def test_the_example_is_built_with_the_operators(go2_baked):
    scene = go2_baked
    trunk = scene.objects["base"]
    link = S.read_object(trunk)[0]
    assert link.balance and link.balance_margin == Q.MARGIN and link.com_target
    joints = {j.name: j for ob in scene.objects if S.is_link(ob) for j in S.read_object(ob)[1]}
    for name in ("FL_pin", "RL_pin", "RR_pin"):
        assert joints[name].type == "spherical" and joints[name].parent is None
        assert joints[name].virtual and not joints[name].tree
    assert joints["base_level"].type == "cartesian-3"
    assert joints["FR_step_joint"].parent == "FR_step"
    # the maker's effort limits come with the robot (23.7 N m hips and thighs, 45.43 knees)
    from vart_addon.checks.plots import urdf_limits
    efforts = {j: e for j, (_, e) in urdf_limits(scene).items()}
    assert efforts["FR_calf_joint"] == pytest.approx(45.43)
    assert efforts["FR_thigh_joint"] == efforts["FR_hip_joint"] == pytest.approx(23.7)
    # the front right foot lifts 8 cm and comes down; the pinned feet stay
    heights, pinned = [], []
    at_pin = np.array(joints["RL_pin"].T_child_frame).reshape(4, 4)  # in RL_foot's frame
    for frame in range(1, Q.FRAMES + 1):
        scene.frame_set(frame)
        heights.append(scene.objects["FR_foot"].matrix_world.translation.z)
        pinned.append((np.array(scene.objects["RL_foot"].matrix_world) @ at_pin)[:3, 3])
    # (its point under the sphere goes up 8 cm; the sphere's centre a little less, the foot
    # pitching with the leg)
    assert 0.9 * Q.LIFT < max(heights) - heights[0] < 1.05 * Q.LIFT
    assert heights[-1] == pytest.approx(heights[0], abs=1e-5)
    assert np.ptp(np.array(pinned), axis=0).max() < 1e-5  # a pinned foot pivots on its point


def test_the_bake_passes_the_static_check_with_half_the_limits_in_reserve(go2_baked):
    scene = go2_baked
    rep, model, _ = run(statics_scene_steps(scene, 1, Q.FRAMES,
                                            thresholds=Thresholds(torque_margin=0.5)))
    assert len(rep.frames) == Q.FRAMES and not model.grounded
    assert model.total_mass == pytest.approx(16.085)  # Unitree's URDF
    assert rep.balanced.all() and rep.margin.min() > Q.MARGIN
    assert {"FL_pin", "RL_pin", "RR_pin"} <= set(rep.load)
    assert rep.worst.max() < 0.25  # at most a quarter of any joint's limit (19 %)
    assert rep.failures() == {}


def test_the_bake_replays_in_mujoco_without_a_fall(go2_baked):
    pytest.importorskip("mujoco")
    from vart_addon.checks.replay import replay_scene_steps
    res, _ = run_steps(replay_scene_steps(go2_baked))
    assert res.frames_done == Q.FRAMES and res.floating
    assert res.stays_up, res.summary(first_frame=1)
    limits = dict(zip(res.joints, res.limit))
    assert limits["FR_calf_joint"] == pytest.approx(45.43)
    assert (np.abs(res.force) <= res.limit + 1e-6).all()  # servos never beyond the maker's


def test_without_example_robot_data_it_says_how_to_install_it(vart_registered, monkeypatch):
    monkeypatch.setattr(C, "robots_folder", lambda: None)
    before = {k: set(getattr(bpy.data, k)) for k in ("objects", "collections", "meshes")}
    with pytest.raises(RuntimeError, match="pip install example-robot-data"):
        bpy.ops.vart.add_example(example="go2_step")
    assert {k: set(getattr(bpy.data, k)) for k in before} == before
    assert "example-robot-data" in EXAMPLES["go2_step"].description
