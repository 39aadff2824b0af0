"""Issue 33, item 5: an SRDF's planning groups (formats/urdf/srdf.py), Blender-free. A group's
joints are its URDF joints as MoveIt's RobotModel counts them: its joints, its links' parent
joints, the joints of its chains (base link to tip link), its subgroups', less its passive
joints; in the robot's tree order. Tried on MoveIt's Panda groups (tests/data/
panda_groups.srdf) and on every SRDF example-robot-data ships; bad groups refused naming the
file, the group and the element."""
from __future__ import annotations

import pytest

from pinocchio_check import ROBOTS
from repo_paths import DATA
from vart_addon.formats.urdf import srdf as SR
from vart_addon.formats.urdf.files import read_urdf

PANDA = ROBOTS / "panda_description" / "urdf" / "panda.urdf"
pytestmark = pytest.mark.skipif(not PANDA.is_file(), reason="example-robot-data is a dev "
                                "dependency")
ARM = [f"panda_joint{i}" for i in range(1, 8)]


def write_srdf(tmp_path, groups: str):
    path = tmp_path / "panda.srdf"
    path.write_text(f'<robot name="panda">{groups}</robot>')
    return SR.read_srdf(path)


def test_moveit_panda_groups_chain_links_passive_and_subgroups():
    robot = read_urdf(PANDA)
    sr = SR.read_srdf(DATA / "panda_groups.srdf")
    assert list(sr.groups) == ["panda_arm", "hand", "panda_arm_hand"]
    assert sr.groups["panda_arm"].chains == [("panda_link0", "panda_link8")]
    assert sr.groups["hand"].passive == ["panda_finger_joint2"]
    # the chain: the joints below panda_link0 down to panda_link8 (its fixed flange too)
    assert SR.group_joints(sr, robot, "panda_arm") == ARM + ["panda_joint8"]
    # the hand's links give their parent joints; the mimic finger is passive
    assert SR.group_joints(sr, robot, "hand") == ["panda_hand_joint", "panda_finger_joint1"]
    assert SR.group_joints(sr, robot, "panda_arm_hand") == \
        ARM + ["panda_joint8", "panda_hand_joint", "panda_finger_joint1"]
    # example-robot-data's own SRDF lists the arm's joints, as "arm"
    own = SR.read_srdf(SR.find_srdf(PANDA, "panda"))
    assert list(own.groups) == ["arm", "hand", "arm_and_hand"]
    assert SR.group_joints(own, robot, "arm") == ARM
    assert SR.group_joints(own, robot, "arm_and_hand") == ARM + ["panda_finger_joint1"]


def test_a_chain_whose_tip_is_not_below_its_base_goes_through_their_common_ancestor(tmp_path):
    robot = read_urdf(PANDA)
    sr = write_srdf(tmp_path, '<group name="fingers"><chain base_link="panda_leftfinger" '
                    'tip_link="panda_rightfinger"/></group><group name="up"><chain '
                    'base_link="panda_link5" tip_link="panda_link3"/></group>')
    assert SR.group_joints(sr, robot, "fingers") == ["panda_finger_joint1",
                                                     "panda_finger_joint2"]
    assert SR.group_joints(sr, robot, "up") == ["panda_joint4", "panda_joint5"]


@pytest.mark.parametrize("groups, group, match", [
    ('<group name="arm"><joint name="panda_joint1"/></group>', "legs",
     r"panda.srdf: no <group name='legs'> \(it has 'arm'\)"),
    ('<group name="arm"><joint name="elbow"/></group>', "arm",
     r"panda.srdf: <group name='arm'>: the robot has no joint 'elbow'"),
    ('<group name="arm"><chain base_link="base" tip_link="panda_link8"/></group>', "arm",
     r"<group name='arm'> <chain base_link='base' tip_link='panda_link8'>: the robot has no "
     r"link 'base'"),
    ('<group name="arm"><chain base_link="panda_link0"/></group>', "arm",
     r"<group name='arm'>: a <chain> without base_link or tip_link"),
    ('<group name="arm"><link/></group>', "arm", r"<group name='arm'>: a <link> without a name"),
    ('<group name="a"><group name="b"/></group><group name="b"><group name="a"/></group>', "a",
     r"<group name='a'>: contains itself \(through a > b > a\)"),
    ('<group name="a"><group name="hand"/></group>', "a",
     r"no <group name='hand'> \(it has 'a'\), named in <group name='a'>"),
])
def test_bad_groups_are_refused_naming_the_file_group_and_element(tmp_path, groups, group,
                                                                  match):
    sr = write_srdf(tmp_path, groups)  # reading never fails: an import reads every SRDF
    with pytest.raises(SR.SrdfError, match=match):
        SR.group_joints(sr, read_urdf(PANDA), group)


def test_virtual_joints_are_passed_over_and_a_group_given_twice_keeps_its_first(tmp_path):
    sr = write_srdf(tmp_path, '<virtual_joint name="world_joint" type="fixed" '
                    'parent_frame="world" child_link="panda_link0"/><group name="arm">'
                    '<joint name="world_joint"/><joint name="panda_joint2"/></group>'
                    '<group name="arm"><joint name="panda_joint3"/></group>')
    assert SR.group_joints(sr, read_urdf(PANDA), "arm") == ["panda_joint2"]


def test_every_group_of_the_shipped_srdfs_resolves_or_says_what_its_urdf_lacks():
    """example-robot-data's 44 robots with an SRDF: 260 groups resolve against their URDF;
    the 53 others name what a reduced URDF lacks (talos_left_arm's legs) or a subgroup the
    SRDF misnames (hyq's 'lf' for 'lf_leg'), never fail otherwise."""
    resolved, refused = 0, []
    for path in sorted(ROBOTS.rglob("*.urdf")):
        try:
            robot = read_urdf(path)
        except ValueError:
            continue
        where = SR.find_srdf(path, robot.name)
        if where is None:
            continue
        sr = SR.read_srdf(where)
        for name in sr.groups:
            try:
                joints = SR.group_joints(sr, robot, name)
            except SR.SrdfError as e:
                refused.append(str(e))
                continue
            assert len(set(joints)) == len(joints)
            resolved += 1
    assert resolved == 260 and len(refused) == 53
    assert all("the robot has no " in e or ", named in <group name=" in e for e in refused)
