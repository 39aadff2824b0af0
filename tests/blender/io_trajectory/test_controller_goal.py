"""Issue 33, item 5: arm motions a ros2_control controller accepts, from a Blender scene (real
bpy): example-robot-data's Panda imported from its URDF, a motion keyed on its arm and its
finger and baked, exported as a ``control_msgs/action/FollowJointTrajectory`` goal
(``.goal.json``).

- the goal builds strictly as rosbags' FollowJointTrajectory goal (control_msgs registered
  from its published definitions), names only actuated joints (never the mimic finger) and
  ends at rest;
- with the planning group ``panda_arm`` (MoveIt's Panda groups, tests/data/panda_groups.srdf:
  a chain from panda_link0 to panda_link8) or the SRDF shipped with the URDF (its ``arm``),
  the seven arm joints, the fingers left out with a note; re-timed within the URDF's velocity
  limits and the acceleration limit set;
- the Export Trajectory operator takes the group and the tolerances; an unknown group is an
  error naming the groups there are, with nothing written; Import Trajectory reads the goal
  back onto the arm.
"""
from __future__ import annotations

import json

import bpy
import numpy as np
import pytest

from pinocchio_check import ROBOTS
from repo_paths import DATA
from urdf_scene import set_configuration
from vart_addon import io_trajectory as TB
from vart_addon.animation import bake as BK
from vart_addon.animation.keying import key_pose
from vart_addon.formats.trajectory.ros_goal import GoalTolerances, Tolerance
from vart_addon.formats.trajectory.timing import Limits
from vart_addon.io_urdf.importer import import_urdf
from vart_addon.solver import Settings

pytest.importorskip("rosbags.typesys")
import ros_messages as RM  # noqa: E402  (rosbags: after the import-or-skip)

PANDA = ROBOTS / "panda_description" / "urdf" / "panda.urdf"
pytestmark = pytest.mark.skipif(not PANDA.is_file(), reason="example-robot-data is a dev "
                                "dependency")
GROUPS = DATA / "panda_groups.srdf"  # MoveIt's Panda groups: panda_arm, hand, panda_arm_hand
STORE = RM.typestore(control_msgs=True)
ARM = [f"panda_joint{i}" for i in range(1, 8)]
FINGERS = ["panda_finger_joint1", "panda_finger_joint2"]  # the second mimics the first
FRAMES = 25
#: Two poses of the arm and its finger (rad, m), within the URDF's limits.
READY = dict(zip(ARM + FINGERS[:1], [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.001]))
REACH = dict(zip(ARM + FINGERS[:1], [0.8, 0.3, -0.4, -1.2, 0.5, 2.2, -0.3, 0.035]))
ACCELERATION = 3.0  # rad/s^2 (angular), and m/s^2 for the finger


def panda_motion():
    """The Panda, its arm and finger keyed from READY (frame 1) to REACH (frame 25), baked."""
    scene = bpy.context.scene
    obs = import_urdf(PANDA, fixed_base=True)
    scene.frame_start, scene.frame_end = 1, FRAMES
    keyed = [obs.joints[n] for n in READY]
    for frame, q in ((1, READY), (FRAMES, REACH)):
        set_configuration(scene, obs, q)
        key_pose(scene, frame, links=(), joints=keyed)
    assert BK.bake(scene, 1, FRAMES, settings=Settings(tol=1e-10)).unmet == {}
    return scene, obs


def goal_of(path):
    """The goal message the file is (built strictly, CDR round trip), and its JSON."""
    doc = json.loads(path.read_text())
    return RM.cdr_round_trip(STORE, RM.build(STORE, doc, RM.FJT_GOAL), RM.FJT_GOAL), doc


def test_the_panda_arm_group_gives_a_goal_of_the_seven_arm_joints(vart_registered, tmp_path):
    scene, obs = panda_motion()
    path = tmp_path / "reach.goal.json"
    tol = GoalTolerances(Tolerance(0.05, 0.5), Tolerance(0.01, 0.05), 0.5)
    res = TB.export_trajectory(scene, path, group="panda_arm", srdf=GROUPS, retime="uniform",
                               limits=Limits(acceleration=ACCELERATION), tolerances=tol)
    msg, _ = goal_of(path)
    names = list(msg.trajectory.joint_names)
    assert names == ARM  # the chain's order; no finger
    assert not set(FINGERS) & {t.name for t in msg.path_tolerance + msg.goal_tolerance}
    assert [t.name for t in msg.goal_tolerance] == ARM
    assert {(t.position, t.velocity) for t in msg.goal_tolerance} == {(0.01, 0.05)}
    assert (msg.goal_time_tolerance.sec, msg.goal_time_tolerance.nanosec) == (0, 500_000_000)
    assert "left out of joint group 'panda_arm': panda_finger_joint1" in res.notes
    assert any(n.startswith("left out: 1 mimic joints") for n in res.notes), res.notes
    # re-timed within the URDF's velocity limits and the acceleration limit set
    vmax = np.array([obs.robot.joint_by_name(n).limit.velocity for n in ARM])
    pts = msg.trajectory.points
    t = np.array([p.time_from_start.sec + 1e-9 * p.time_from_start.nanosec for p in pts])
    v = np.array([p.velocities for p in pts])
    a = np.array([p.accelerations for p in pts])
    assert t[0] == 0.0 and (np.diff(t) > 0).all()
    assert v.shape == a.shape == (len(pts), 7)
    assert (np.abs(v) <= vmax * (1 + 1e-9)).all()
    assert (np.abs(a) <= ACCELERATION * (1 + 1e-9)).all()
    assert (v[-1] == 0.0).all() and (a[-1] == 0.0).all()  # a controller takes it: at rest
    assert res.violations == [] and res.timing is not None
    # the arm's last point is the pose keyed at the end
    np.testing.assert_allclose(pts[-1].positions, [REACH[n] for n in ARM], atol=1e-6)
    print(f"\npanda_arm goal: {len(pts)} points, {res.timing.summary()}")

    # the SRDF shipped with the URDF (found beside it) calls the arm "arm": the same joints
    res = TB.export_trajectory(scene, tmp_path / "arm.goal.json", group="arm")
    assert list(goal_of(tmp_path / "arm.goal.json")[0].trajectory.joint_names) == ARM
    # no group: every actuated joint, the finger but not its mimic
    res = TB.export_trajectory(scene, tmp_path / "all.goal.json")
    assert list(res.written.joint_names) == sorted(ARM + FINGERS[:1])
    # the other formats keep the mimic finger (the robot's motion, for replay)
    res = TB.export_trajectory(scene, tmp_path / "all.json")
    assert set(FINGERS) <= set(res.written.joint_names)


def test_an_unknown_group_names_the_groups_there_are_and_writes_nothing(vart_registered,
                                                                       tmp_path):
    scene, _ = panda_motion()
    path = tmp_path / "x.goal.json"
    with pytest.raises(TB.TrajectoryError, match=r"no joint group 'legs': panda.srdf of robot "
                                                 r"'panda' has 'arm', 'hand', 'arm_and_hand'"):
        TB.export_trajectory(scene, path, group="legs")
    with pytest.raises(TB.TrajectoryError, match=r"joint group 'panda_arm': panda_groups.srdf"
                                                 r": <group name='panda_arm'> <chain "
                                                 r"base_link='base'.*no link 'base'"):
        broken = tmp_path / "panda_groups.srdf"
        broken.write_text(GROUPS.read_text().replace('base_link="panda_link0"',
                                                     'base_link="base"'))
        TB.export_trajectory(scene, path, group="panda_arm", srdf=broken)
    assert not path.exists()


def test_the_groups_come_with_the_robot_and_old_imports_find_their_srdf(vart_registered,
                                                                        tmp_path):
    """The import keeps the SRDF's groups, resolved, with the robot: a scene whose URDF and
    SRDF are no longer where they were (another machine) still exports a group. A robot
    imported before (no stored groups) finds the SRDF beside its URDF, as it did."""
    from vart_addon.io_urdf.importer import SOURCE_KEY
    scene, obs = panda_motion()
    src = obs.collection[SOURCE_KEY]
    assert src["srdf"]["file"].endswith("panda.srdf")
    assert list(src["srdf"]["groups"]["arm"]) == ARM
    src["file"] = str(tmp_path / "moved" / "panda.urdf")  # the files are gone
    res = TB.export_trajectory(scene, tmp_path / "a.goal.json", group="arm")
    assert list(res.written.joint_names) == ARM
    with pytest.raises(TB.TrajectoryError, match=r"no joint group 'legs': panda.srdf of robot "
                                                 r"'panda' has 'arm', 'hand', 'arm_and_hand'"):
        TB.export_trajectory(scene, tmp_path / "b.goal.json", group="legs")
    src["file"] = str(PANDA)
    del src["srdf"]  # as imported before the groups were kept
    res = TB.export_trajectory(scene, tmp_path / "c.goal.json", group="arm")
    assert list(res.written.joint_names) == ARM


def test_the_export_operator_takes_the_group_and_tolerances_and_import_reads_it_back(
        vart_registered, tmp_path, capsys):
    scene, obs = panda_motion()
    path = tmp_path / "reach.goal.json"
    assert bpy.ops.vart.export_trajectory(
        filepath=str(path), joint_group="panda_arm", srdf_file=str(GROUPS), retime='UNIFORM',
        acceleration_limit=ACCELERATION, path_position_tolerance=0.05,
        goal_position_tolerance=0.01, goal_time_tolerance=0.5) == {'FINISHED'}
    msg, _ = goal_of(path)
    assert list(msg.trajectory.joint_names) == ARM
    assert {t.position for t in msg.path_tolerance} == {0.05}
    assert {t.position for t in msg.goal_tolerance} == {0.01}
    assert "left out of joint group 'panda_arm'" in "".join(capsys.readouterr())
    with pytest.raises(RuntimeError, match="no joint group 'hand_and_arm'"):
        bpy.ops.vart.export_trajectory(filepath=str(tmp_path / "no.goal.json"),
                                       joint_group="hand_and_arm")
    assert not (tmp_path / "no.goal.json").exists()
    # Import Trajectory: the goal's joints keyed back (the fingers are not in it)
    for ob in scene.objects:
        ob.animation_data_clear()
    imp = TB.import_trajectory(scene, path, start_frame=1)
    assert sorted(imp.keyed) == sorted(ARM) and imp.bake_error == ""
    assert set(imp.not_in_file) == set(FINGERS)
    scene.frame_set(imp.bake.frame_end)
    got = TB.sample_trajectory(scene, imp.bake.frame_end, imp.bake.frame_end)
    q = dict(zip(got.joint_names, got.positions[0]))
    np.testing.assert_allclose([q[n] for n in ARM], [REACH[n] for n in ARM], atol=1e-6)


def test_the_finger_takes_the_linear_tolerances_and_the_arm_the_angular(vart_registered,
                                                                         tmp_path):
    """Every actuated joint (no group): the seven revolute arm joints get the tolerances
    typed in radians, the prismatic finger those typed in metres (one number was read in
    both units before); 0 leaves the finger's to the controller."""
    scene, _ = panda_motion()
    path = tmp_path / "all.goal.json"
    assert bpy.ops.vart.export_trajectory(
        filepath=str(path), retime='UNIFORM', acceleration_limit=ACCELERATION,
        path_position_tolerance=0.05, path_velocity_tolerance=0.5,
        path_linear_position_tolerance=0.002, goal_position_tolerance=0.01,
        goal_linear_position_tolerance=0.0005, goal_linear_velocity_tolerance=0.01) \
        == {'FINISHED'}
    msg, _ = goal_of(path)
    finger = FINGERS[0]
    path_tol = {t.name: (t.position, t.velocity) for t in msg.path_tolerance}
    goal_tol = {t.name: (t.position, t.velocity) for t in msg.goal_tolerance}
    assert set(path_tol) == set(goal_tol) == set(ARM) | {finger}
    assert path_tol.pop(finger) == (0.002, 0.0) and goal_tol.pop(finger) == (0.0005, 0.01)
    assert set(path_tol.values()) == {(0.05, 0.5)} and set(goal_tol.values()) == {(0.01, 0.0)}
