"""Issue 33, item 6: a real arm with its maker's limits (Universal Robots UR5 from
example-robot-data, a dev dependency) picking and placing along its tool's waypoints. *Add
Example > UR5: Pick and Place* builds it with vart's operators; its bake keeps the tool's tip
on the line of every Linear move (within 1e-6 m at every frame), takes the Joint moves
straight in joint space, stays on one IK branch, passes *Will it run?* and replays in MuJoCo
within the maker's effort limits."""
from __future__ import annotations

import bpy
import numpy as np
import pytest

from frame_steps import run
from vart_addon.bridge import schema as S
from vart_addon.bridge import tools as TL
from vart_addon.checks.statics import statics_scene_steps
from vart_addon.examples import arm as X
from vart_addon.examples import common as C
from vart_addon.physics.feasibility import Thresholds
from vart_addon.shared.frames import run_steps

pytestmark = pytest.mark.skipif(C.robots_folder() is None, reason="example-robot-data")


def world(ob) -> np.ndarray:
    M = np.array(ob.matrix_world, float)
    M[:3, :3] /= np.linalg.norm(M[:3, :3], axis=0)
    return M


@pytest.fixture
def ur5_baked(vart_registered):
    assert bpy.ops.vart.add_example(example="ur5_pick_place") == {'FINISHED'}
    scene = bpy.context.scene
    scene.vart.check_after_bake = False
    assert bpy.ops.vart.bake() == {'FINISHED'}
    assert "unmet" not in scene.vart.status_summary.lower(), scene.vart.status_summary
    return scene


def motion(scene):
    """Frame -> (T_world_tcp, the six arm joints' values), as the baked keys play."""
    tcp, out = scene.objects["gripper_tcp"], {}
    for f in range(1, X.FRAMES + 1):
        scene.frame_set(f)
        qs = {j.name: j.q[0] for ob in scene.objects if S.is_link(ob)
              for j in S.read_object(ob)[1] if j.name in X.ARM}
        out[f] = (world(tcp), np.array([qs[n] for n in X.ARM]))
    return out


def test_the_example_is_built_with_the_operators(ur5_baked):
    scene = ur5_baked
    tcp, tool0 = scene.objects["gripper_tcp"], scene.objects["tool0"]
    assert TL.is_tool(tcp) and not TL.is_tool(tool0)
    link = S.read_object(tcp)[0]
    assert link.keep_configuration  # shoulder L, elbow up, wrist - (its sin < 0)
    assert tuple(link.keep_configuration_branch[:3]) == (-1.0, 1.0, -1.0)
    T = np.linalg.inv(world(tool0)) @ world(tcp)
    assert np.allclose(T, np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, X.TCP_OFFSET],
                                    [0, 0, 0, 1]]), atol=1e-6)
    wp = TL.read_waypoints(tcp)
    assert wp.frames.tolist() == [float(f) for f, *_ in X.PROGRAM]
    assert wp.moves == tuple(m for *_, m in X.PROGRAM) and wp.eases.all()
    # the maker's limits came with the robot
    from vart_addon.checks.plots import urdf_limits
    efforts = {j: e for j, (_, e) in urdf_limits(scene).items()}
    assert efforts["shoulder_lift_joint"] == pytest.approx(150.0)
    assert efforts["wrist_3_joint"] == pytest.approx(28.0)


def test_linear_moves_stay_on_their_lines_and_joint_moves_are_straight_in_joint_space(
        ur5_baked):
    scene = ur5_baked
    wp = TL.read_waypoints(scene.objects["gripper_tcp"])
    got = motion(scene)
    lines = joints = 0
    for b in range(1, len(wp)):
        a = b - 1
        fa, fb = int(wp.frames[a]), int(wp.frames[b])
        for f in range(fa, fb + 1):
            seg = wp.segment(f)
            if wp.moves[b] == "LINEAR":
                assert wp.line_distance(seg, got[f][0][:3, 3]) < 1e-6, f
                lines += 1
            else:  # every joint the same fraction of its way at once
                s = wp.fraction(wp.segment(fa + 0.5), f)
                q = got[fa][1] + s * (got[fb][1] - got[fa][1])
                assert np.abs(got[f][1] - q).max() < 1e-6, f
                joints += 1
        assert np.abs(got[fb][0] - wp.T[b]).max() < 1e-6  # each waypoint reached
    assert lines > 40 and joints > 60
    # one IK branch all along: elbow up (elbow > 0), the wrist on one side (wrist 2 < 0)
    q = np.array([got[f][1] for f in got])
    assert (q[:, 2] > 0.1).all() and (q[:, 4] < -0.1).all()


def test_will_it_run_passes_with_half_of_each_limit_in_reserve(ur5_baked):
    rep, model, _ = run(statics_scene_steps(ur5_baked, 1, X.FRAMES,
                                            thresholds=Thresholds(torque_margin=0.5)))
    assert len(rep.frames) == X.FRAMES and model.grounded
    assert rep.worst.max() < 0.25  # 15 % (shoulder, frame 86)
    assert rep.failures() == {}
    assert bpy.ops.vart.will_it_run() == {'FINISHED'}


def test_the_bake_replays_in_mujoco_within_the_makers_limits(ur5_baked):
    pytest.importorskip("mujoco")
    from vart_addon.checks.replay import replay_scene_steps
    res, _ = run_steps(replay_scene_steps(ur5_baked))
    assert res.frames_done == X.FRAMES and not res.floating
    limits = dict(zip(res.joints, res.limit))
    assert limits["shoulder_lift_joint"] == pytest.approx(150.0)
    assert (np.abs(res.force) <= res.limit + 1e-6).all()
    assert res.saturated() == {}
    assert float(np.abs(res.error).max()) < 0.05  # rad: the servos track the baked motion


def test_without_example_robot_data_it_says_how_to_install_it(vart_registered, monkeypatch):
    monkeypatch.setattr(C, "robots_folder", lambda: None)
    before = {k: set(getattr(bpy.data, k)) for k in ("objects", "collections", "meshes")}
    with pytest.raises(RuntimeError, match="pip install example-robot-data"):
        bpy.ops.vart.add_example(example="ur5_pick_place")
    assert {k: set(getattr(bpy.data, k)) for k in before} == before


def test_the_motion_goes_to_a_controller_retimed_to_the_limits(ur5_baked, tmp_path):
    """The baked motion as a ros2_control FollowJointTrajectory goal, re-timed so that no
    joint goes beyond its maker's velocity limit nor 2 rad/s^2: it builds strictly with
    rosbags (control_msgs' definitions), names the six arm joints and ends at rest."""
    pytest.importorskip("rosbags.typesys")
    import json

    import ros_messages as RM
    from vart_addon import io_trajectory as TB
    from vart_addon.formats.trajectory.timing import Limits
    path = tmp_path / "pick.goal.json"
    out = TB.export_trajectory(ur5_baked, str(path), retime="uniform",
                               limits=Limits(acceleration=2.0))
    goal = json.loads(path.read_text())
    store = RM.typestore(control_msgs=True)
    RM.cdr_round_trip(store, RM.build(store, goal, RM.FJT_GOAL), RM.FJT_GOAL)
    traj = goal["trajectory"]
    assert sorted(traj["joint_names"]) == sorted(X.ARM)  # (the export's order: by name)
    points = traj["points"]
    t = [p["time_from_start"]["sec"] + 1e-9 * p["time_from_start"]["nanosec"] for p in points]
    assert np.all(np.diff(t) > 0)
    v = np.array([p["velocities"] for p in points])
    a = np.array([p["accelerations"] for p in points])
    assert np.abs(v).max() <= 3.15 + 1e-6  # UR5's URDF: 3.15 rad/s each
    assert np.abs(a).max() <= 2.0 + 1e-6
    assert not np.any(v[-1]) and not np.any(a[-1])
    # ... and that motion, at its new pace, replays within the maker's effort limits
    pytest.importorskip("mujoco")
    from vart_addon.checks.replay import replay_scene_steps
    scale = out.timing.duration_after / out.timing.duration_before
    assert 0.2 < scale < 5.0
    res, _ = run_steps(replay_scene_steps(ur5_baked, time_scale=scale))
    assert res.frames_done == X.FRAMES and res.saturated() == {}
    assert res.times[-1] == pytest.approx(out.timing.duration_after, rel=1e-6)
    assert (np.abs(res.force) <= res.limit + 1e-6).all()


def test_the_motion_a_toppra_export_sends_replays_within_the_makers_limits(ur5_baked,
                                                                             tmp_path):
    """Re-timed time-optimally (TOPP-RA: fastest where the arm is free, at rest at both ends),
    the motion is not one time scale of the bake's: the replay plays it at the times the
    export gives the frames (``export_timing``, the same re-timing without a file), and
    *Replay in MuJoCo* with Timing TOPP-RA plays the same and says so."""
    pytest.importorskip("toppra")
    pytest.importorskip("mujoco")
    from vart_addon import io_trajectory as TB
    from vart_addon.checks.replay import replay_scene_steps
    from vart_addon.formats.trajectory.timing import Limits
    limits = Limits(acceleration=2.0)
    out = TB.export_trajectory(ur5_baked, str(tmp_path / "pick.json"), retime="toppra",
                               limits=limits)
    timing = TB.export_timing(ur5_baked, "toppra", limits=limits)
    t = timing.trajectory.times
    np.testing.assert_array_equal(t, out.timing.trajectory.times)
    steps = np.diff(t)
    assert steps.max() > 2 * steps.min()  # not a uniform scale
    res, _ = run_steps(replay_scene_steps(ur5_baked, times=t))
    np.testing.assert_array_equal(res.times, t)
    assert res.frames_done == X.FRAMES and res.saturated() == {}
    assert (np.abs(res.force) <= res.limit + 1e-6).all()
    assert bpy.ops.vart.replay_physics(retime='TOPPRA', acceleration_limit=2.0) == {'FINISHED'}
    text = ur5_baked.vart.replay_summary
    assert text.endswith(f"At the export's timing: {timing.summary()}"), text
    assert f"({t[-1]:.2f} s simulated" in text
