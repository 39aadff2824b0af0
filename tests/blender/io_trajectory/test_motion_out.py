"""Motions out (issue 18, items 2, 3, 4 and 6) on story 2, whose deck (the robot's floating
root) moves 0.6 m forward:

- the JSON is checked against ROS 2's own message definitions (rosbags' built-in typestore,
  not a schema written here): every object's keys are exactly the fields of its message
  (JointTrajectory, JointTrajectoryPoint, MultiDOFJointTrajectory(Point), Transform, Twist,
  Header, Duration), each value of the field's type; the message built from it survives a
  CDR serialization round trip;
- the base pose is the deck's world pose at every frame; velocities and accelerations are the
  full-rate curve's derivatives at the waypoints, over ``time_from_start``;
- uniform and TOPP-RA re-timing keep every real joint within its URDF velocity limit and the
  acceleration limit set; the durations before and after are printed (``-s``) per story;
- importing the exported file (each format) into a fresh story 2 whose driving keys are gone
  gives back the joint curves and the deck's pose within the waypoint threshold.
"""
from __future__ import annotations

import json
import math

import bpy
import numpy as np
import pytest

from vart_addon import examples as X
from vart_addon import io_trajectory as TB
from vart_addon.formats.trajectory import model as TR
from vart_addon.formats.trajectory.base_motion import matrices
from vart_addon.formats.trajectory.files import FORMATS, format_of, load_trajectory
from vart_addon.formats.trajectory.timing import Limits

rosbags_typesys = pytest.importorskip("rosbags.typesys")
N = X.STORY_FRAMES


def story(key="trenching"):
    scene = bpy.context.scene
    assert bpy.ops.vart.add_example(example=key) == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    return scene


# ---- the JSON against ROS 2's message definitions ---------------------------------------
import ros_messages as RM  # noqa: E402  (rosbags: after the import-or-skip above)

STORE = RM.typestore()


def build(value, typename: str):
    """The rosbags message ``typename`` of a JSON object, built strictly (see RM.build)."""
    return RM.build(STORE, value, typename)


def cdr_round_trip(msg, typename):
    return RM.cdr_round_trip(STORE, msg, typename)


def test_the_json_is_ros_messages_with_the_base_and_the_curves_derivatives(vart_registered,
                                                                            tmp_path):
    scene = story()
    path = tmp_path / "m.json"
    res = TB.export_trajectory(scene, path)
    assert res.base == "deck"
    doc = json.loads(path.read_text())
    assert set(doc) == {"joint_trajectory", "multi_dof_joint_trajectory"}
    jt = build(doc["joint_trajectory"], "trajectory_msgs/msg/JointTrajectory")
    mt = build(doc["multi_dof_joint_trajectory"], "trajectory_msgs/msg/MultiDOFJointTrajectory")
    jt = cdr_round_trip(jt, "trajectory_msgs/msg/JointTrajectory")
    mt = cdr_round_trip(mt, "trajectory_msgs/msg/MultiDOFJointTrajectory")
    assert list(mt.joint_names) == ["deck"] and mt.header.frame_id == "world"
    assert len(jt.points) == len(mt.points) == res.written.n_times > 2
    # the base: the deck's world pose at the waypoints' frames
    fps = scene.render.fps / scene.render.fps_base
    for p, q in zip(jt.points, mt.points):
        t = p.time_from_start.sec + 1e-9 * p.time_from_start.nanosec
        assert (q.time_from_start.sec, q.time_from_start.nanosec) == \
            (p.time_from_start.sec, p.time_from_start.nanosec)
        scene.frame_set(round(1 + t * fps))
        tf = q.transforms[0]
        got = matrices([[tf.translation.x, tf.translation.y, tf.translation.z, tf.rotation.x,
                         tf.rotation.y, tf.rotation.z, tf.rotation.w]])[0]
        assert np.abs(got - X.pose(bpy.data.objects["deck"])).max() < 1e-5
    moved = np.linalg.norm(res.written.base.poses[-1, :3] - res.written.base.poses[0, :3])
    assert moved > 0.3
    # velocities and accelerations: the full-rate curve's, at the waypoints
    full = TR.unwrap(TR.select(TB.sample_trajectory(scene, 1, N)))
    idx = np.searchsorted(full.times, res.written.times - 1e-9)
    v = np.gradient(full.positions, full.times, axis=0)
    a = np.gradient(v, full.times, axis=0)
    got_v = np.array([p.velocities for p in jt.points])
    got_a = np.array([p.accelerations for p in jt.points])
    np.testing.assert_allclose(got_v, v[idx], atol=1e-9)
    np.testing.assert_allclose(got_a, a[idx], atol=1e-6)
    assert np.abs(got_v).max() > 0.01  # it moves


# ---- re-timing ----------------------------------------------------------------------------
@pytest.mark.parametrize("key", ("camera_tilt", "trenching", "inspection", "pinch"))
def test_retimed_motions_keep_within_the_urdf_velocity_limits(key, vart_registered, tmp_path):
    scene = story(key)
    acc = 2.0  # rad/s^2 for angular joints, set by the user
    for method in ("uniform", "toppra"):
        res = TB.export_trajectory(scene, tmp_path / f"{method}.csv", every_frame=True,
                                   retime=method, limits=Limits(acceleration=acc))
        timing = res.timing
        assert timing is not None and timing.method == method, timing
        assert res.violations == []
        full = timing.trajectory
        vmax = np.array([v if v is not None else np.inf for v in full.velocity_limits])
        assert np.isfinite(vmax).sum() == 30  # the URDF limits (the 6 wheels have none)
        fwd = np.abs(np.diff(full.positions, axis=0)) / np.diff(full.times)[:, None]
        assert (fwd <= vmax * (1 + 1e-9)).all()
        assert (np.abs(full.velocities) <= vmax * (1 + 1e-9)).all()
        angular = np.array([k == "angular" for k in full.kinds])
        assert (np.abs(full.accelerations[:, angular]) <= acc * (1 + 1e-9)).all()
        got = load_trajectory(tmp_path / f"{method}.csv")
        assert got.times[-1] == pytest.approx(timing.duration_after, rel=1e-12)
        print(f"\n{key}: {timing.summary()} (URDF velocity limits, {acc} rad/s^2)")


@pytest.mark.parametrize("method", ("uniform", "toppra"))
def test_export_timing_is_the_export_s_re_timing_without_a_file(method, vart_registered,
                                                                 tmp_path):
    """``export_timing`` (what a re-timed replay plays) gives every frame the time the export
    with the same arguments gives it, bit for bit, and writes nothing."""
    scene = story("trenching")
    limits = Limits(acceleration=2.0)
    res = TB.export_trajectory(scene, tmp_path / "m.json", retime=method, limits=limits)
    before = set(tmp_path.iterdir())
    timing = TB.export_timing(scene, method, limits=limits)
    assert set(tmp_path.iterdir()) == before
    assert timing.method == res.timing.method == method
    np.testing.assert_array_equal(timing.trajectory.times, res.timing.trajectory.times)
    assert timing.trajectory.times[0] == 0.0 and timing.trajectory.n_times == N
    part = TB.export_timing(scene, method, limits=limits, frame_start=5, frame_end=20)
    assert part.trajectory.n_times == 16 and part.trajectory.times[0] == 0.0


def test_export_timing_refuses_what_the_export_refuses(vart_registered):
    scene = story("camera_tilt")
    with pytest.raises(TB.TrajectoryError, match="^frames 1-48: re-timing method must be "
                                                 "one of"):
        TB.export_timing(scene, "fastest")
    with pytest.raises(TB.TrajectoryError, match="cannot re-time: frames 49-58 of 1-58 are "
                                                 "not baked"):
        TB.export_timing(scene, "uniform", frame_end=N + 10)


def test_an_unknown_retiming_is_refused_and_writes_nothing(vart_registered, tmp_path):
    scene = story("camera_tilt")
    with pytest.raises(TB.TrajectoryError, match="re-timing method must be one of"):
        TB.export_trajectory(scene, tmp_path / "x.csv", retime="fastest")
    assert not (tmp_path / "x.csv").exists()


# ---- round trip ---------------------------------------------------------------------------
@pytest.mark.parametrize("ext", FORMATS)
def test_an_exported_motion_imports_back_to_the_same_curves_and_base(ext, vart_registered,
                                                                      tmp_path):
    """Story 2 exported, then imported onto the bare hexapod (no virtual joints to fight the
    file's values): after the import's bake, every real joint and the deck follow the file.
    (A controller's goal commands joints only: the deck stays, and the export says so.)"""
    scene = story()
    path = tmp_path / f"m{ext}"
    res = TB.export_trajectory(scene, path)
    carries_base = not format_of(path).actuated
    assert carries_base or any("floating base 'deck'" in n for n in res.notes), res.notes
    assert res.written.n_times < N  # waypoints, not every frame
    before = TR.select(TB.sample_trajectory(scene, 1, N))
    deck = []
    for f in range(1, N + 1):
        scene.frame_set(f)
        deck.append(X.pose(bpy.data.objects["deck"]))
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    assert bpy.ops.vart.add_example(example="athlete") == {'FINISHED'}
    imp = TB.import_trajectory(scene, path, start_frame=1)
    assert imp.base == ("deck" if carries_base else "")
    assert imp.bake is not None and imp.bake_error == ""
    after = TR.select(TB.sample_trajectory(scene, 1, N))
    assert after.joint_names == before.joint_names
    thr = np.where(np.array(before.kinds) == "angular", math.radians(2.0), 0.02)
    err = np.abs(after.positions - before.positions).max(axis=0)
    assert (err <= thr).all(), dict(zip(before.joint_names, err))
    for f in (1, 17, 33, N) if carries_base else ():
        scene.frame_set(f)
        T = X.pose(bpy.data.objects["deck"])
        assert np.linalg.norm(T[:3, 3] - deck[f - 1][:3, 3]) <= 0.02
        assert np.abs(T[:3, :3] - deck[f - 1][:3, :3]).max() <= math.radians(2.0)


# ---- what a controller accepts ----------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(X.EXAMPLES))
def test_a_ros_goal_of_any_example_names_only_joints_the_exported_urdf_drives(key,
                                                                          vart_registered,
                                                                          tmp_path):
    """Issue 32, item 6: the joint names of an exported trajectory are the exported URDF's
    revolute, continuous and prismatic joints (what a ros2_control controller drives); loop
    closures (the four-bar's C), ball joints (the Stewart platform's legN_ball) and floating
    ones are left out with a note. rosbags' JointTrajectory takes the goal, of every shipped
    example."""
    from vart_addon.io_trajectory.robot_base import robot_tree
    scene = bpy.context.scene
    assert bpy.ops.vart.add_example(example=key) == {'FINISHED'}
    scene.vart.check_after_bake = False
    if not any(ob.animation_data and ob.animation_data.action for ob in scene.objects):
        # the robots and mechanisms come unkeyed: hold their pose over 5 frames
        scene.frame_start, scene.frame_end = 1, 5
        for f in (1, 5):
            scene.frame_set(f)
            assert bpy.ops.vart.key_pose() == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    path = tmp_path / "goal.json"
    res = TB.export_trajectory(scene, path, every_frame=True)
    driven = {j.name for j in robot_tree(scene).robot.joints
              if j.type in ("revolute", "continuous", "prismatic")}
    doc = json.loads(path.read_text())
    doc = doc.get("joint_trajectory", doc)  # a base that moves: beside a multi-DoF one
    jt = cdr_round_trip(build(doc, "trajectory_msgs/msg/JointTrajectory"),
                        "trajectory_msgs/msg/JointTrajectory")
    names = list(jt.joint_names)
    assert names and set(names) <= driven, set(names) - driven
    real = {n.split("/")[0] for n, v in zip(TB.sample_trajectory(scene).joint_names,
                                           TB.sample_trajectory(scene).virtual) if not v}
    if real - driven:
        assert any(n.startswith("left out:") for n in res.notes), res.notes
