"""urdf_from_linkage with several robots in one linkage: every robot keeps its real joints;
the largest one gives the URDF root and each other robot hangs from it by one floating joint
at its root (not one per link)."""
import numpy as np

from vart_addon.formats.urdf import files as urdf
from vart_addon.formats.urdf.from_linkage import urdf_from_linkage, urdf_joint_values
from vart_addon.solver import Linkage, se3


def pose(rv, t):
    return se3.make_pose(se3.so3_exp(np.array(rv, float)), t)


def two_robots_and_a_brick():
    lk = Linkage()
    for n, T in (("Brick", pose([0, 0, 1], [5, 0, 0])), ("a", pose([0.1, 0, 0], [0, 0, 0])),
                 ("b", pose([0, 0.2, 0], [0, 0, 1])), ("c", pose([0, 0, 0.3], [0, 0.5, 1])),
                 ("x", pose([0, 0, 0], [2, 0, 0])), ("y", pose([0.4, 0, 0], [2, 1, 0]))):
        lk.add_link(n, pose=T)
    lk.add_joint("ab", "revolute", "a", "b", world_frame=pose([0, 0, 0], [0, 0, 0.5]))
    lk.add_joint("bc", "prismatic", "b", "c", world_frame=pose([0.3, 0, 0], [0, 0.2, 1]),
                 lower=[-1], upper=[1])
    lk.add_joint("yx", "revolute", "y", "x", world_frame=pose([0, 0.5, 0], [2, 0, 0]))
    return lk


def test_every_robot_keeps_its_joints():
    lk = two_robots_and_a_brick()
    robot, warnings = urdf_from_linkage(lk, "many")
    assert robot.root_link == "a"  # the largest robot's root (not 'Brick', first by name)
    types = {j.name: j.type for j in robot.joints}
    assert types == {"ab": "continuous", "bc": "prismatic", "yx": "continuous",
                     "Brick_floating": "floating", "y_floating": "floating"}
    assert robot.joint_by_name("y_floating").child == "y"
    assert sorted(w.split(" is not")[0] for w in warnings if "floating" in w) == [
        "link 'Brick'", "link 'y' (with 1 more)"]
    poses = lk.poses()
    got = urdf.link_poses(robot, urdf_joint_values(robot, poses), base=poses["a"])
    for n, T in poses.items():
        np.testing.assert_allclose(got[n], T, atol=1e-9, err_msg=n)


def test_a_grounded_robot_and_a_free_one():
    lk = two_robots_and_a_brick()
    lk.add_joint("ground", "fixed", None, "x", world_frame=lk.pose("x"))
    robot, warnings = urdf_from_linkage(lk, "grounded")
    assert robot.root_link == "world"
    assert robot.joint_by_name("ground").parent == "world"
    assert robot.joint_by_name("yx").type == "continuous"
    hung = sorted(j.child for j in robot.joints if j.type == "floating")
    assert hung == ["Brick", "a"]
    poses = lk.poses()
    got = urdf.link_poses(robot, urdf_joint_values(robot, poses))
    for n, T in poses.items():
        np.testing.assert_allclose(got[n], T, atol=1e-9, err_msg=n)
