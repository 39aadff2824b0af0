"""The start configuration of a URDF robot: zero clamped into the limits, or their middle;
mimic followers kept within their own limits too (issue 17)."""
import numpy as np
import pytest

from vart_addon.formats.urdf.files import parse_urdf_string
from vart_addon.formats.urdf.start import START_CHOICES, allowed, start_values
from vart_addon.formats.urdf.to_linkage import linkage_from_urdf
from vart_addon.solver import VartError

# Panda's fourth joint cannot be at zero; a gripper whose second finger mimics the first
# mirrored (multiplier -1) with limits of its own; a continuous wheel.
ARM = """<robot name="arm">
  <link name="base"/><link name="upper"/><link name="lower"/><link name="f1"/><link name="f2"/>
  <link name="wheel"/>
  <joint name="elbow" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="0 0 1"/><limit lower="-3.0718" upper="-0.0698" effort="87" velocity="2.175"/>
  </joint>
  <joint name="wrist" type="revolute"><parent link="upper"/><child link="lower"/>
    <origin xyz="0 0 0.3"/><axis xyz="0 1 0"/><limit lower="0.5" upper="1.5"/></joint>
  <joint name="finger1" type="prismatic"><parent link="lower"/><child link="f1"/>
    <limit lower="-0.02" upper="0.04"/></joint>
  <joint name="finger2" type="prismatic"><parent link="lower"/><child link="f2"/>
    <limit lower="0" upper="0.04"/><mimic joint="finger1" multiplier="-1"/></joint>
  <joint name="spin" type="continuous"><parent link="base"/><child link="wheel"/></joint>
</robot>"""


def test_zero_is_clamped_into_the_limits_and_middle_is_their_middle():
    robot = parse_urdf_string(ARM)
    zero, warnings = start_values(robot)
    assert zero == {"elbow": -0.0698, "wrist": 0.5, "finger1": 0.0, "spin": 0.0}
    middle, _ = start_values(robot, "middle")
    assert middle["elbow"] == pytest.approx(-1.5708) and middle["wrist"] == 1.0
    assert middle["finger1"] == pytest.approx(-0.01) and middle["spin"] == 0.0
    # finger2 = -finger1 must stay in [0, 0.04]: finger1 may only be in [-0.02, 0]
    assert allowed(robot, robot.joint_by_name("finger1"))[:2] == (-0.02, 0.0)
    assert warnings == ["joint 'finger2' mimics 'finger1' (x-1 +0) and its limits [0, 0.04] "
                        "narrow 'finger1' to [-0.02, 0]: both stay within limits"]
    assert START_CHOICES == ("zero", "middle")
    with pytest.raises(VartError, match="start must be one of zero, middle, got 'home'"):
        start_values(robot, "home")


@pytest.mark.parametrize("start", START_CHOICES)
def test_a_robot_whose_zero_is_outside_its_limits_imports_within_them(start):
    lk, umap = linkage_from_urdf(ARM, start=start)
    for name in ("elbow", "wrist", "finger1", "finger2"):
        j = lk.joint(name)
        assert j.lower[0] <= j.q[0] <= j.upper[0], name
    assert lk.joint("finger2").q[0] == pytest.approx(-lk.joint("finger1").q[0])
    assert any("narrow 'finger1'" in w for w in umap.warnings)
    # a value asked for is taken as it is, and refused outside the limits as before
    lk, _ = linkage_from_urdf(ARM, {"elbow": -1.0}, start=start)
    assert lk.joint("elbow").q[0] == -1.0
    with pytest.raises(VartError, match="URDF joint 'elbow': value 0.0 is outside its limits"):
        linkage_from_urdf(ARM, {"elbow": 0.0}, start=start)


def test_no_value_keeping_a_joint_and_its_followers_within_limits_is_refused():
    broken = ARM.replace('<limit lower="0" upper="0.04"/><mimic joint="finger1" multiplier="-1"/>',
                         '<limit lower="0.05" upper="0.06"/><mimic joint="finger1" multiplier="-1"/>')
    with pytest.raises(VartError, match="URDF joint 'finger1': no value keeps it and the joints "
                                        "that mimic it within their limits"):
        linkage_from_urdf(broken)
    np.testing.assert_equal(len(parse_urdf_string(broken).joints), 5)  # the file itself reads


def _solo12():
    from pinocchio_check import ROBOTS
    from vart_addon.formats.urdf import files as urdf
    return urdf.read_urdf(str(ROBOTS / "solo_description/robots/solo12.urdf"))


def test_vart_s_own_klampt_path_of_a_robot_is_its_pose_file(tmp_path):
    """Issue 32, item 8: a .path vart exported of a robot (its Klampt configuration: six base
    entries and one per link) is that robot's Pose File; it was refused ("17 values but 12
    joint names")."""
    from vart_addon.formats.trajectory.base_motion import BaseMotion
    from vart_addon.formats.trajectory.files import export_motion
    from vart_addon.formats.trajectory.klampt_layout import KlamptLayout
    from vart_addon.formats.trajectory.model import Trajectory
    from vart_addon.formats.urdf.from_linkage import urdf_from_linkage
    from vart_addon.formats.urdf.start import start_from_file
    robot = _solo12()
    lk, _ = linkage_from_urdf(robot)
    written, _ = urdf_from_linkage(lk, robot.name)
    layout = KlamptLayout.of(written, lk)
    free = sorted(j.name for j in robot.joints if j.type == "revolute" and j.mimic is None)
    rng = np.random.default_rng(1)
    want = {n: float(rng.uniform(-0.3, 0.3)) for n in free}
    times = np.array([0.0, 1.0])
    pos = np.array([[want[n] for n in free]] * 2)
    base = BaseMotion(layout.base_link, np.array([[0.1, 0.2, 0.3, 0, 0, 0, 1.0]] * 2))
    traj = Trajectory(free, times, pos, base=base)
    path = tmp_path / "solo.path"
    export_motion(traj, path, every_frame=True, layout=layout)
    assert len(path.read_text().split("\n")[0].split()) == 2 + layout.size > 2 + len(free)
    values, warnings = start_from_file(robot, path)
    assert values == pytest.approx(want, abs=1e-12)
    assert not [w for w in warnings if "passed over" in w]


@pytest.mark.parametrize("ext", (".csv", ".json"))
def test_vart_s_own_csv_and_json_of_a_robot_with_its_base_are_its_pose_file(tmp_path, ext):
    """Issue 32, item 8: a .csv or ROS .json vart exported of a robot whose base moves (its
    base columns or MultiDOFJointTrajectory beside the joints) is that robot's Pose File: the
    joints' first sample, the base passed over."""
    from vart_addon.formats.trajectory.base_motion import BaseMotion
    from vart_addon.formats.trajectory.files import export_motion
    from vart_addon.formats.trajectory.model import Trajectory
    from vart_addon.formats.urdf.start import start_from_file
    robot = _solo12()
    free = sorted(j.name for j in robot.joints if j.type == "revolute" and j.mimic is None)
    rng = np.random.default_rng(2)
    want = {n: float(rng.uniform(-0.3, 0.3)) for n in free}
    pos = np.array([[want[n] for n in free], [want[n] + 0.1 for n in free]])
    base = BaseMotion("base_link", np.array([[0.1, 0.2, 0.3, 0, 0, 0, 1.0],
                                             [0.4, 0.2, 0.3, 0, 0, 0, 1.0]]))
    path = tmp_path / f"solo{ext}"
    export_motion(Trajectory(free, np.array([0.0, 1.0]), pos, base=base), path,
                  every_frame=True)
    assert ("base:base_link/" if ext == ".csv" else "multi_dof_joint_trajectory") \
        in path.read_text()  # the base is in the file
    values, warnings = start_from_file(robot, path)
    assert values == pytest.approx(want, abs=1e-9)
    assert warnings == [f"start pose: solo{ext} has 2 samples; the first is used"]


def test_a_pose_file_column_in_the_wrong_unit_is_refused(tmp_path):
    """Issue 32, item 8: a CSV column in [m] for a revolute joint is refused as Import
    Trajectory refuses it (it was applied silently)."""
    from vart_addon.formats.urdf.start import start_from_file
    robot = _solo12()
    path = tmp_path / "pose.csv"
    path.write_text("time_s,FL_HFE [m]\n0,0.2\n")
    with pytest.raises(VartError, match="column 'FL_HFE' is linear but joint 'FL_HFE' of the "
                                        "robot is angular"):
        start_from_file(robot, path)
    path.write_text("time_s,FL_HFE [rad]\n0,0.2\n")
    assert start_from_file(robot, path)[0] == {"FL_HFE": 0.2}
