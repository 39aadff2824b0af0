"""Issue 33, item 5: a ros2_control controller's goal, the ``.goal.json`` format
(formats/trajectory/ros_goal.py, one row of the table), Blender-free.

- the file builds, field by field and strictly (a missing or unknown field fails), the
  ``control_msgs/action/FollowJointTrajectory`` goal of rosbags' type system, with
  control_msgs' definitions registered from their published text (tests/data/control_msgs),
  and survives a CDR round trip;
- re-timed (uniform, TOPP-RA), every point has positions, velocities and accelerations,
  strictly increasing times, and velocities and accelerations within the limits; the last
  point is at rest (ros2_controllers' joint trajectory controller refuses a goal that ends
  moving), and the writer refuses a trajectory that ends moving;
- only the chosen joints: virtual joints and a floating base are left out;
- bad tolerances (negative, NaN, infinite, not numbers) are refused naming the field, and
  nothing is written;
- the reader gives the trajectory back (what Import Trajectory keys), and the text is the
  same document to ``yaml.safe_load`` (``ros2 action send_goal``) as to JSON.
"""
from __future__ import annotations

import json
import math
import re
import sys

import numpy as np
import pytest
import yaml

from vart_addon.formats.trajectory import files as F
from vart_addon.formats.trajectory.base_motion import BaseMotion
from vart_addon.formats.trajectory.codecs import TrajectoryFormatError
from vart_addon.formats.trajectory.model import Trajectory
from vart_addon.formats.trajectory.ros_goal import GoalTolerances, Tolerance, parse_goal
from vart_addon.formats.trajectory.timing import Limits

pytest.importorskip("rosbags.typesys")
import ros_messages as RM  # noqa: E402  (rosbags: after the import-or-skip)

STORE = RM.typestore(control_msgs=True)
NAMES = ("shoulder", "elbow", "wrist", "slide")
KINDS = ("angular", "angular", "angular", "linear")
VMAX = (1.5, 2.0, 2.5, 0.2)   # rad/s, m/s
LIMITS = Limits(acceleration=4.0, linear_acceleration=0.5)  # rad/s^2, m/s^2
AMAX = np.array([4.0, 4.0, 4.0, 0.5])
TOLERANCES = GoalTolerances(Tolerance(0.05, 0.5, 2.5), Tolerance(0.01, 0.02, 0.0), 0.25)


def arm_motion(n: int = 49, base: bool = False) -> Trajectory:
    """An arm's baked motion at 24 frames/s: three revolute joints, a prismatic finger and a
    virtual joint (left out of exports); ``base``: a floating root link that moves."""
    t = np.arange(n) / 24.0
    s = 0.5 - 0.5 * np.cos(np.pi * t / t[-1])  # 0 to 1, at rest at both ends
    p = np.c_[1.2 * s, -0.8 * s, 2.0 * s ** 2, 0.04 * s, s]
    poses = np.zeros((n, 7))
    poses[:, 0], poses[:, 6] = 0.3 * s, 1.0
    return Trajectory(NAMES + ("tilt_v",), t, p, kinds=KINDS + ("angular",),
                      velocity_limits=VMAX + (None,), virtual=[False] * 4 + [True],
                      base=BaseMotion("base_link", poses) if base else None)


def goal_message(path):
    doc = json.loads(path.read_text())
    return RM.cdr_round_trip(STORE, RM.build(STORE, doc, RM.FJT_GOAL), RM.FJT_GOAL), doc


def seconds(d) -> float:
    return d.sec + 1e-9 * d.nanosec


@pytest.mark.parametrize("method", ["uniform", "toppra"])
def test_a_retimed_goal_is_a_follow_joint_trajectory_goal_within_the_limits(tmp_path, method):
    path = tmp_path / "arm.goal.json"
    done = F.export_motion(arm_motion(), path, retime=method, limits=LIMITS,
                           options=TOLERANCES)
    msg, doc = goal_message(path)
    jt = msg.trajectory
    assert tuple(jt.joint_names) == NAMES  # the virtual joint is not the controller's
    assert (jt.header.stamp.sec, jt.header.stamp.nanosec, jt.header.frame_id) == (0, 0, "")
    times = np.array([seconds(p.time_from_start) for p in jt.points])
    assert times[0] == 0.0 and (np.diff(times) > 0).all()
    assert times[-1] == pytest.approx(done.timing.duration_after, abs=1e-9)
    for p in jt.points:  # positions, velocities and accelerations at every point
        assert len(p.positions) == len(p.velocities) == len(p.accelerations) == 4
        assert len(p.effort) == 0
    v = np.array([p.velocities for p in jt.points])
    a = np.array([p.accelerations for p in jt.points])
    assert (np.abs(v) <= np.array(VMAX) * (1 + 1e-9)).all()
    assert (np.abs(a) <= AMAX * (1 + 1e-9)).all()
    assert np.abs(v).max() > 0.1  # it moves
    np.testing.assert_array_equal(v, done.written.velocities)
    np.testing.assert_array_equal(a, done.written.accelerations)
    # at rest at the end, where the re-timed samples' own derivatives still move
    assert (v[-1] == 0.0).all() and (a[-1] == 0.0).all()
    assert np.abs(done.timing.trajectory.velocities[-1]).max() > 1e-3
    # the tolerances: one JointTolerance per joint, in the trajectory's order
    for tols, want in ((msg.path_tolerance, TOLERANCES.path), (msg.goal_tolerance,
                                                                TOLERANCES.goal)):
        assert [t.name for t in tols] == list(NAMES)
        assert {(t.position, t.velocity, t.acceleration) for t in tols} == \
            {(want.position, want.velocity, want.acceleration)}
    assert (msg.goal_time_tolerance.sec, msg.goal_time_tolerance.nanosec) == (0, 250_000_000)
    # what the action has for multi-DoF joints: empty
    assert msg.component_path_tolerance == msg.component_goal_tolerance == []
    multi = msg.multi_dof_trajectory
    assert list(multi.joint_names) == [] and multi.points == []
    assert set(doc) == {"trajectory", "multi_dof_trajectory", "path_tolerance",
                        "component_path_tolerance", "goal_tolerance",
                        "component_goal_tolerance", "goal_time_tolerance"}
    print(f"\n{method}: {done.timing.summary()}, {len(jt.points)} points")


def test_the_strict_builder_refuses_a_missing_or_unknown_field(tmp_path):
    path = tmp_path / "arm.goal.json"
    F.export_motion(arm_motion(), path)
    doc = json.loads(path.read_text())
    RM.build(STORE, doc, RM.FJT_GOAL)
    for bad in ({k: v for k, v in doc.items() if k != "component_goal_tolerance"},
                {**doc, "goal_time": 0.5},
                {**doc, "goal_tolerance": [{**doc["goal_tolerance"][0], "effort": 0.0}]},
                {**doc, "goal_time_tolerance": {"sec": 0.5, "nanosec": 0}}):
        with pytest.raises(AssertionError):
            RM.build(STORE, bad, RM.FJT_GOAL)


def test_a_goal_names_only_the_chosen_joints_and_no_base(tmp_path):
    done = F.export_motion(arm_motion(base=True), tmp_path / "m.goal.json")
    assert done.written.joint_names == NAMES and done.written.base is None
    assert done.notes == ("left out: the floating base 'base_link', which moves (a "
                          "FollowJointTrajectory Goal commands joints only)",)
    msg, _ = goal_message(tmp_path / "m.goal.json")
    assert tuple(msg.trajectory.joint_names) == NAMES
    # the other formats keep the base; asked for, the virtual joint is there too
    assert F.export_motion(arm_motion(base=True), tmp_path / "m.json").written.base is not None
    every = F.export_motion(arm_motion(), tmp_path / "v.goal.json", include_virtual=True)
    assert every.written.joint_names == NAMES + ("tilt_v",)
    # a trajectory with a base, written as it is: refused, nothing written
    with pytest.raises(ValueError, match="holds no floating base .* base 'base_link'"):
        F.save_trajectory(arm_motion(base=True), tmp_path / "b.goal.json")
    assert not (tmp_path / "b.goal.json").exists()


def test_a_trajectory_that_ends_moving_is_refused_naming_the_joint(tmp_path):
    moving = F.export_motion(arm_motion(), tmp_path / "m.json").written  # the curve's own
    with pytest.raises(ValueError, match=r"must end at rest, but joint 'wrist' moves at "
                                         r"[0-9.e-]+ at the last point"):
        F.save_trajectory(moving.replace(velocities=moving.velocities + 0.01),
                          tmp_path / "m.goal.json")
    assert not (tmp_path / "m.goal.json").exists()
    F.save_trajectory(moving.replace(velocities=moving.velocities * 0 + 1e-8),  # float's
                      tmp_path / "m.goal.json")                               # epsilon: at rest


@pytest.mark.parametrize("make, field", [
    (lambda: GoalTolerances(path=Tolerance(position=-0.1)), "path_tolerance.position"),
    (lambda: GoalTolerances(path=Tolerance(velocity=math.nan)), "path_tolerance.velocity"),
    (lambda: GoalTolerances(goal=Tolerance(acceleration=-1.0)), "goal_tolerance.acceleration"),
    (lambda: GoalTolerances(goal=Tolerance(position=math.inf)), "goal_tolerance.position"),
    (lambda: GoalTolerances(goal=Tolerance(velocity="0.1")), "goal_tolerance.velocity"),
    (lambda: GoalTolerances(goal_time=math.nan), "goal_time_tolerance"),
    (lambda: GoalTolerances(goal_time=-0.5), "goal_time_tolerance"),
    (lambda: GoalTolerances(goal_time=True), "goal_time_tolerance"),
])
def test_bad_tolerances_are_refused_naming_the_field(make, field):
    with pytest.raises(ValueError, match=rf"^{field} must be a finite number >= 0 \(0: the "
                                         r"controller's default\), got "):
        make()


def tolerance_rows(tols) -> dict:
    return {t.name: (t.position, t.velocity, t.acceleration) for t in tols}


def test_linear_joints_take_their_own_tolerances_and_a_joint_its_own(tmp_path):
    """A prismatic finger's tolerance is in metres, an arm joint's in radians: each kind has
    its own numbers, and a joint given its own keeps them (the others their kind's)."""
    path = tmp_path / "arm.goal.json"
    tol = GoalTolerances(Tolerance(0.05, 0.5, 2.5), Tolerance(0.01, 0.02, 0.0), 0.25,
                         linear_path=Tolerance(0.002, 0.01), linear_goal=Tolerance(0.0005),
                         joints={"wrist": (Tolerance(0.1), None), "slide": (None, Tolerance(1e-4))})
    F.export_motion(arm_motion(), path, retime="uniform", limits=LIMITS, options=tol)
    msg, _ = goal_message(path)
    assert tolerance_rows(msg.path_tolerance) == {
        "shoulder": (0.05, 0.5, 2.5), "elbow": (0.05, 0.5, 2.5), "wrist": (0.1, 0.0, 0.0),
        "slide": (0.002, 0.01, 0.0)}
    assert tolerance_rows(msg.goal_tolerance) == {
        "shoulder": (0.01, 0.02, 0.0), "elbow": (0.01, 0.02, 0.0), "wrist": (0.01, 0.02, 0.0),
        "slide": (1e-4, 0.0, 0.0)}
    # without linear tolerances, a linear joint takes the same numbers (as before them)
    F.export_motion(arm_motion(), path, retime="uniform", limits=LIMITS, options=TOLERANCES)
    msg, _ = goal_message(path)
    assert tolerance_rows(msg.path_tolerance)["slide"] == (0.05, 0.5, 2.5)


def test_a_tolerance_for_a_joint_the_goal_does_not_command_is_refused(tmp_path):
    target = tmp_path / "m.goal.json"
    tol = GoalTolerances(joints={"tilt_v": (Tolerance(0.1), None)})  # virtual: not written
    with pytest.raises(ValueError, match=r"tolerances for joints the goal does not command: "
                                         r"'tilt_v' \(it has 'shoulder', 'elbow'"):
        F.export_motion(arm_motion(), target, options=tol)
    assert not target.exists()


@pytest.mark.parametrize("make, message", [
    (lambda: GoalTolerances(linear_path=Tolerance(position=-1.0)),
     r"^linear path_tolerance.position must be a finite number >= 0"),
    (lambda: GoalTolerances(linear_goal=0.1),
     r"^linear goal_tolerance must be a Tolerance or None, got float"),
    (lambda: GoalTolerances(path=None), r"^path_tolerance must be a Tolerance, got NoneType"),
    (lambda: GoalTolerances(joints={"wrist": (None, Tolerance(velocity=math.nan))}),
     r"^joint 'wrist' goal_tolerance.velocity must be a finite number >= 0"),
    (lambda: GoalTolerances(joints={"wrist": Tolerance(0.1)}),
     r"^joints\['wrist'\] must be a \(path, goal\) pair"),
    (lambda: GoalTolerances(joints=[("wrist", (None, None))]), r"^joints must map joint names"),
])
def test_bad_linear_and_joint_tolerances_are_refused_naming_them(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_tolerances_of_another_class_write_nothing(tmp_path):
    target = tmp_path / "m.goal.json"
    target.write_text("old contents")
    with pytest.raises(TypeError, match="FollowJointTrajectory Goal options must be "
                                        "GoalTolerances, got Limits"):
        F.export_motion(arm_motion(), target, options=LIMITS)
    assert target.read_text() == "old contents"
    # a format without options passes over another format's
    F.export_motion(arm_motion(), tmp_path / "m.csv", options=TOLERANCES)


def test_the_reader_gives_the_goals_trajectory_back(tmp_path):
    path = tmp_path / "arm.goal.json"
    done = F.export_motion(arm_motion(), path, retime="uniform", limits=LIMITS,
                           options=TOLERANCES)
    back = F.load_trajectory(path, kinds=KINDS)  # JSON has no units: the caller's kinds
    w = done.written
    assert back.joint_names == NAMES and back.kinds == KINDS
    for q in ("positions", "velocities", "accelerations"):  # exact: repr of every float
        assert getattr(back, q).tobytes() == getattr(w, q).tobytes(), q
    assert np.abs(back.times - w.times).max() <= 0.5e-9  # whole nanoseconds
    with pytest.raises(ValueError, match=r"joints \['shoulder', 'elbow', 'wrist', 'slide'\] "
                                         r"differ from the expected \['elbow'\]"):
        F.load_trajectory(path, joint_names=["elbow"])


def test_reading_what_is_not_a_goal_names_the_field(tmp_path):
    F.export_motion(arm_motion(), tmp_path / "m.json")
    text = (tmp_path / "m.json").read_text()  # a JointTrajectory, not a goal
    with pytest.raises(TrajectoryFormatError, match=r"^m.goal.json: trajectory: expected a "
                                                    "FollowJointTrajectory goal"):
        parse_goal(text, "m.goal.json")
    goal = {"trajectory": json.loads(text), "multi_dof_trajectory": {"points": [{}]}}
    with pytest.raises(TrajectoryFormatError, match=r"^g: multi_dof_trajectory: must be empty"):
        parse_goal(json.dumps(goal), "g")
    goal = {"trajectory": json.loads(text)}
    goal["trajectory"]["points"][1]["positions"] = [1.0]
    with pytest.raises(TrajectoryFormatError, match=r"^g: trajectory.points\[1\]: positions "
                                                    "must be a list of 4 numbers"):
        parse_goal(json.dumps(goal), "g")


def test_the_goal_is_the_same_document_to_yaml_as_to_json(tmp_path):
    """``ros2 action send_goal <action> control_msgs/action/FollowJointTrajectory
    "$(cat m.goal.json)"`` reads the goal as YAML 1.1 (PyYAML's safe_load), where 1e-05
    without a '.' would be a string: every float has one."""
    traj = Trajectory(["a", "b\u2028c"], [0.0, 1e-5, 2.0], [[1e-5, 1e16], [1e-300, -2e-7],
                                                            [3.0, 0.0]])
    F.save_trajectory(traj, tmp_path / "m.goal.json",
                      GoalTolerances(Tolerance(1e-5, 1e-6, 0.0), goal_time=1e-9))
    text = (tmp_path / "m.goal.json").read_text()
    assert "1.0e-05" in text and "1e-05" not in text
    assert yaml.safe_load(text) == json.loads(text)
    assert text.isascii()  # names escaped (U+2028 is a line break to YAML)
    assert F.load_trajectory(tmp_path / "m.goal.json").joint_names == ("a", "b\u2028c")


def test_without_toppra_time_optimal_timing_says_how_to_install_it(tmp_path, monkeypatch):
    """TOPP-RA is an optional package: without it, asking for it is a ValueError that says
    how to install it, or to choose uniform re-timing, and nothing is written."""
    from vart_addon.formats.trajectory.timing import TOPPRA_INSTALL, retime
    monkeypatch.setitem(sys.modules, "toppra", None)  # (import toppra: ImportError)
    with pytest.raises(ValueError, match="TOPP-RA re-timing needs the toppra package: "
                                         + re.escape(TOPPRA_INSTALL)):
        retime(arm_motion(), LIMITS, "toppra")
    target = tmp_path / "arm.goal.json"
    with pytest.raises(ValueError, match="or choose uniform re-timing"):
        F.export_motion(arm_motion(), target, retime="toppra", limits=LIMITS)
    assert not target.exists()
    assert retime(arm_motion(), LIMITS, "uniform").method == "uniform"
