"""Issue 32.4: SRDF read Blender-free (formats/urdf/srdf.py): the file example-robot-data ships
beside each robot is found, its group states read (a floating root's pose from Pinocchio's
``root_joint``), its disable_collisions pairs listed; a group state as a start configuration
(values clamped into the limits with a warning, unknown joints passed over); bad files
refused naming the file."""
from __future__ import annotations

import numpy as np
import pytest

from pinocchio_check import ROBOTS
from vart_addon.formats.urdf import srdf as SR
from vart_addon.formats.urdf.files import read_urdf

TALOS = ROBOTS / "talos_data" / "robots" / "talos_reduced.urdf"
pytestmark = pytest.mark.skipif(not TALOS.is_file(), reason="example-robot-data is a dev "
                                "dependency")


def test_the_corpus_srdfs_are_found():
    found = {}
    for path in sorted(ROBOTS.rglob("*.urdf")):
        try:
            name = read_urdf(path).name
        except ValueError:
            continue
        where = SR.find_srdf(path, name)
        if where is not None:
            found[str(path.relative_to(ROBOTS))] = where
    assert len(found) == 44  # every robot that ships an SRDF (ur3.urdf is refused)
    assert found["talos_data/robots/talos_reduced.urdf"].endswith("talos_data/srdf/talos.srdf")  # its name
    assert found["solo_description/robots/solo12.urdf"].endswith("solo_description/srdf/solo.srdf")  # the robot's name
    assert found["romeo_description/urdf/romeo_small.urdf"].endswith("romeo_small.srdf")  # its stem first


def test_talos_half_sitting_and_its_disabled_pairs():
    sr = SR.read_srdf(SR.find_srdf(TALOS, "talos"))
    assert sr.name == "talos" and [s.name for s in sr.states] == ["half_sitting"]
    assert len(sr.disabled) == 459
    assert ("arm_left_7_link", "gripper_left_base_link", "Adjacent") in sr.disabled or \
        any({a, b} == {"arm_left_7_link", "gripper_left_base_link"} for a, b, _ in sr.disabled)
    values, base, warnings = SR.start_values(read_urdf(TALOS), sr)
    assert values["arm_left_1_joint"] == pytest.approx(0.25847)
    np.testing.assert_allclose(base, np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 1.01927],
                                               [0, 0, 0, 1.0]]))
    assert all("passed over" in w or "clamped" in w for w in warnings)


def test_a_group_state_is_clamped_and_unknown_joints_passed_over(tmp_path):
    urdf = tmp_path / "arm.urdf"
    urdf.write_text('<robot name="arm"><link name="a"/><link name="b"/><joint name="j" '
                    'type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
                    '<limit lower="-1" upper="1"/></joint></robot>')
    srdf = tmp_path / "arm.srdf"
    srdf.write_text('<robot name="arm"><virtual_joint name="odom" type="planar" '
                    'parent_frame="w" child_link="a"/><group_state name="home" group="all">'
                    '<joint name="j" value="2.5"/><joint name="ghost" value="1"/>'
                    '<joint name="odom" value="1 2 0.5"/></group_state>'
                    '<disable_collisions link1="a" link2="b" reason="Adjacent"/></robot>')
    assert SR.find_srdf(urdf, "arm") == str(srdf)  # beside the URDF, its stem
    sr = SR.read_srdf(srdf)
    values, base, warnings = SR.start_values(read_urdf(urdf), sr, "home")
    assert values == {"j": 1.0}
    np.testing.assert_allclose(base[:3, 3], [1, 2, 0])
    assert base[0, 1] == pytest.approx(-np.sin(0.5))
    assert any("'j' at 2.5 is outside [-1, 1]: clamped to 1" in w for w in warnings)
    assert any("passed over" in w and "ghost" in w for w in warnings)
    assert sr.disabled == [("a", "b", "Adjacent")]
    with pytest.raises(SR.SrdfError, match="no <group_state name='away'>"):
        sr.state("away")


@pytest.mark.parametrize("text, message", [
    ("<robot><group_state name='s'><joint name='j' value='x'/></group_state></robot>",
     "joint 'j': value 'x' is not a list of numbers"),
    ("<robot><disable_collisions link1='a'/></robot>", "without link1 or link2"),
    ("<robot>", "malformed XML"),
    ("<sdf/>", "root element is <sdf>"),
])
def test_bad_srdf_files_are_refused_naming_the_file(tmp_path, text, message):
    path = tmp_path / "bad.srdf"
    path.write_text(text)
    with pytest.raises(SR.SrdfError, match="bad.srdf") as e:
        SR.read_srdf(path)
    assert message in str(e.value)
