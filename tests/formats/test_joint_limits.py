"""A robot's joint_limits.yaml (issue 33, item 4; formats/urdf/joint_limits.py): MoveIt's and
ros2_control's keys read per joint, a limit counted when its flag is true (or absent), bad
files refused naming the file, the joint and the key, and the file found where MoveIt puts it."""
import pytest

from vart_addon.formats.urdf.joint_limits import (
    JointLimits,
    JointLimitsError,
    find_joint_limits,
    parse_joint_limits,
    read_joint_limits,
)

MOVEIT = """
# joint_limits.yaml allows the dynamics properties specified in the URDF to be overwritten
default_velocity_scaling_factor: 0.1
default_acceleration_scaling_factor: 0.1
joint_limits:
  panda_joint1:
    has_velocity_limits: true
    max_velocity: 2.175
    has_acceleration_limits: true
    max_acceleration: 3.75
  panda_joint2:
    has_velocity_limits: false
    max_velocity: 2.175
    has_acceleration_limits: true
    max_acceleration: 1.875
    has_jerk_limits: true
    max_jerk: 7500
  elbow:
    max_velocity: 3
    has_position_limits: true
    min_position: -1.5
    max_position: 2.0
    has_effort_limits: true
    max_effort: 87
    angle_wraps: false
"""


def test_moveit_s_keys_are_read_per_joint():
    got = parse_joint_limits(MOVEIT)
    assert got["panda_joint1"] == JointLimits(velocity=2.175, acceleration=3.75)
    assert got["panda_joint2"] == JointLimits(acceleration=1.875, jerk=7500.0)  # no velocity
    assert got["elbow"] == JointLimits(velocity=3.0, effort=87.0, lower=-1.5, upper=2.0)
    assert got["elbow"].to_dict() == {"velocity": 3.0, "effort": 87.0, "lower": -1.5,
                                      "upper": 2.0}


@pytest.mark.parametrize("text, message", [
    ("joint_limits: [1, 2]", "expected a mapping 'joint_limits'"),
    ("robot: {}", "expected a mapping 'joint_limits'"),
    ("joint_limits: {a: {max_velocity: -1}}", r"joint_limits: a: max_velocity: expected a "
                                              "positive finite number, got -1"),
    ("joint_limits: {a: {max_acceleration: .nan}}", "max_acceleration: expected a positive"),
    ("joint_limits: {a: {has_velocity_limits: 1, max_velocity: 2}}",
     "has_velocity_limits: expected true or false"),
    ("joint_limits: {a: 3}", "a: expected the joint's keys"),
    ("joint_limits: {a: {min_position: 2, max_position: 1}}", "min_position 2.0 is above"),
    ("joint_limits: {a: [}", "not YAML"),
])
def test_bad_files_are_refused_naming_the_file_joint_and_key(text, message):
    with pytest.raises(JointLimitsError, match=message) as e:
        parse_joint_limits(text, "limits.yaml")
    assert str(e.value).startswith("limits.yaml: ")


def test_the_file_is_found_beside_the_urdf_or_in_a_config_folder(tmp_path):
    pkg = tmp_path / "arm_description"
    (pkg / "urdf").mkdir(parents=True)
    urdf = pkg / "urdf" / "arm.urdf"
    urdf.write_text("<robot name='arm'/>")
    assert find_joint_limits(urdf) is None
    (pkg / "config").mkdir()
    (pkg / "config" / "joint_limits.yaml").write_text(MOVEIT)
    assert find_joint_limits(urdf) == str(pkg / "config" / "joint_limits.yaml")
    (pkg / "urdf" / "joint_limits.yaml").write_text("joint_limits: {}")
    assert find_joint_limits(urdf) == str(pkg / "urdf" / "joint_limits.yaml")
    assert read_joint_limits(pkg / "urdf" / "joint_limits.yaml") == {}
    with pytest.raises(OSError):
        read_joint_limits(tmp_path / "none.yaml")
