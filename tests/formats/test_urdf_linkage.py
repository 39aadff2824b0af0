"""URDF <-> vart linkage (vart_addon/solver/urdf_linkage.py, urdf_linkage_export.py).

The reference is always the URDF layer's own forward kinematics, ``urdf.link_poses``, which
shares no code with vart's :mod:`kinematics`.
"""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from repo_paths import DATA as TEST_DATA
from repo_paths import REPO
from urdf_random import random_q  # noqa: E402  (tests/helpers)
from vart_addon.formats.urdf import files as urdf  # noqa: E402
from vart_addon.formats.urdf.from_linkage import urdf_from_linkage, urdf_joint_values  # noqa: E402
from vart_addon.formats.urdf.to_linkage import align_z, linkage_from_urdf  # noqa: E402
from vart_addon.solver import Linkage, Settings, Solver, VartError

DATA = TEST_DATA / "urdf"
PROBLEMS = REPO.parent / "shared" / "bench" / "problems"
FILES = [DATA / "rover_arm.urdf"] + [PROBLEMS / f"{n}.urdf" for n in
                                     ("P1_hexapod", "P2_fourbar_chain", "P3_tower")]
_CACHE = {}


def robot_of(path):
    if not path.exists():
        pytest.skip(f"{path} not present")
    if path not in _CACHE:
        _CACHE[path] = urdf.read_urdf(path)
    return _CACHE[path]


def random_pose(rng):
    T = np.eye(4)
    T[:3, :3] = Rotation.from_rotvec(rng.uniform(-2, 2, 3)).as_matrix()
    T[:3, 3] = rng.uniform(-3, 3, 3)
    return T


def assert_poses(actual, expected, tol=1e-9):
    assert set(expected) <= set(actual)
    for k, T in expected.items():
        np.testing.assert_allclose(actual[k], T, atol=tol, err_msg=k)


# ---------------------------------------------------------------- in: forward kinematics


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_link_poses_match_urdf_fk(path):
    robot = robot_of(path)
    rng = np.random.default_rng(7)
    q = random_q(robot, rng)
    lk, umap = linkage_from_urdf(robot, q)
    assert set(lk.links) == {l.name for l in robot.links}
    assert set(lk.joints) == {j.name for j in robot.joints}
    assert all(j.is_tree and not j.virtual for j in lk.joints.values())
    assert all(not l.virtual for l in lk.links.values())
    assert_poses(lk.poses(), urdf.link_poses(robot, q))
    # more configurations through the linkage (importing P3 costs seconds)
    for _ in range(3):
        q = random_q(robot, rng)
        for name, v in urdf.joint_values(robot, q).items():  # mimic joints follow too
            if v is not None:
                lk.set_q(name, umap.vart_q(name, v))
        assert_poses(lk.poses(), urdf.link_poses(robot, q))
        # and back: the map reads the vart joint values as URDF values
        back = umap.urdf_values(lk)
        for name, v in q.items():
            assert back[name] == pytest.approx(v, abs=1e-12)


@pytest.mark.parametrize("path", FILES[:2], ids=lambda p: p.stem)
def test_base_pose_and_fixed_base(path):
    robot = robot_of(path)
    rng = np.random.default_rng(3)
    q, base = random_q(robot, rng), random_pose(rng)
    lk, umap = linkage_from_urdf(robot, q, base_pose=base)
    assert lk.tree_edge[robot.root_link].is_root  # free root link
    assert_poses(lk.poses(), urdf.link_poses(robot, q, base=base))
    lk2, umap2 = linkage_from_urdf(robot, q, base_pose=base, fixed_base=True)
    bj = lk2.joint(umap2.base_joint)
    assert bj.jtype.name == "fixed" and bj.virtual and bj.is_tree and bj.parent is None
    assert lk2.tree_edge[robot.root_link] is bj
    assert_poses(lk2.poses(), urdf.link_poses(robot, q, base=base))


def test_rover_arm_joint_mapping():
    robot = robot_of(DATA / "rover_arm.urdf")
    lk, umap = linkage_from_urdf(robot)
    assert lk.joint("turntable_joint").jtype.name == "revolute"
    assert np.all(np.isinf(lk.joint("turntable_joint").lower))
    sh = lk.joint("shoulder")
    assert (sh.lower[0], sh.upper[0]) == (-1.9, 1.9)
    # axis "0 0 2" is normalised; wrist_roll about x
    np.testing.assert_allclose(umap.align["wrist_roll"][:3, 2], [1, 0, 0], atol=1e-15)
    np.testing.assert_allclose(lk.joint("wrist_roll").T_child_frame, umap.align["wrist_roll"])
    assert np.all(np.isinf(lk.joint("wrist_roll").lower))  # revolute without <limit>
    assert lk.joint("finger_left_joint").jtype.name == "prismatic"
    assert lk.joint("wrist_to_hand").jtype.name == "fixed"
    assert lk.joint("finger_right_joint").mimic == ("finger_left_joint", 1.0, 0.001)
    assert lk.link("base_link").mass == pytest.approx(robot.link_by_name("base_link").inertial.mass)
    assert umap.root_link == "base_link" and umap.base_joint is None


@pytest.mark.parametrize("axis", [(0, 0, 1), (0, 0, -1), (1, 0, 0), (0, -1, 0), (1, 2, -3),
                                  (1e-9, 0, -1), (-1e-13, 1e-13, -1)])
def test_align_z(axis):
    A = align_z(axis)
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    np.testing.assert_allclose(A[:3, 2], a, atol=1e-12)
    np.testing.assert_allclose(A[:3, :3].T @ A[:3, :3], np.eye(3), atol=1e-12)
    assert np.linalg.det(A[:3, :3]) == pytest.approx(1.0)


ALL_TYPES = """<robot name="all">
  <link name="world"/>
  <link name="base"><inertial><origin xyz="0.1 0 0"/><mass value="2"/>
    <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="a"/><link name="b"/><link name="c"/><link name="d"/><link name="e"/>
  <joint name="float" type="floating"><parent link="world"/><child link="base"/>
    <origin xyz="0 0 1" rpy="0.1 0 0"/></joint>
  <joint name="slide" type="prismatic"><parent link="base"/><child link="a"/>
    <origin xyz="0.2 0 0" rpy="0 0.3 0"/><axis xyz="0 1 1"/>
    <limit lower="-0.5" upper="0.5" effort="3" velocity="4"/></joint>
  <joint name="hinge" type="revolute"><parent link="a"/><child link="b"/>
    <origin xyz="0 0.1 0" rpy="0.2 0.1 0.3"/><axis xyz="1 1 0"/>
    <limit lower="-1" upper="2" effort="5" velocity="6"/><dynamics damping="0.5"/></joint>
  <joint name="spin" type="continuous"><parent link="b"/><child link="c"/>
    <origin xyz="0.3 0 0"/><axis xyz="0 0 -1"/></joint>
  <joint name="plane" type="planar"><parent link="c"/><child link="d"/>
    <origin xyz="0 0 0.2" rpy="0 0 0.4"/><axis xyz="0 1 0"/></joint>
  <joint name="copy" type="revolute"><parent link="d"/><child link="e"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3"/>
    <mimic joint="hinge" multiplier="-2" offset="0.1"/></joint>
</robot>"""


def planar_motion(axis, x, y, theta):
    """A motion in the plane normal to ``axis``: rotation about it, translation across it."""
    A = align_z(axis)
    M = np.eye(4)
    M[:3, :3] = Rotation.from_rotvec([0, 0, theta]).as_matrix()
    M[:3, 3] = (x, y, 0.0)
    return A @ M @ A.T


def all_types_q(rng):
    F = random_pose(rng)
    return {"float": F, "slide": rng.uniform(-0.5, 0.5), "hinge": rng.uniform(-1, 0.9),
            "spin": rng.uniform(-7, 7), "plane": planar_motion((0, 1, 0), *rng.uniform(-1, 1, 3))}


def test_every_urdf_type_and_world_root():
    robot = urdf.parse_urdf_string(ALL_TYPES)
    rng = np.random.default_rng(11)
    for _ in range(5):
        q = all_types_q(rng)
        lk, umap = linkage_from_urdf(robot, q)
        assert "world" not in lk.links and umap.ground_root and umap.root_link is None
        assert lk.joint("float").parent is None and lk.joint("float").jtype.name == "general"
        assert lk.joint("plane").jtype.name == "planar"
        assert lk.joint("spin").jtype.name == "revolute"
        assert lk.joint("copy").mimic == ("hinge", -2.0, 0.1)
        ref = urdf.link_poses(robot, q)
        del ref["world"]
        assert_poses(lk.poses(), ref)
        back = umap.urdf_values(lk)
        np.testing.assert_allclose(back["float"], q["float"], atol=1e-12)
        np.testing.assert_allclose(back["plane"], q["plane"], atol=1e-12)


def test_world_root_with_base_pose():
    robot = urdf.parse_urdf_string(ALL_TYPES)
    rng = np.random.default_rng(5)
    q, base = all_types_q(rng), random_pose(rng)
    lk, _ = linkage_from_urdf(robot, q, base_pose=base)
    ref = urdf.link_poses(robot, q, base=base)
    del ref["world"]
    assert_poses(lk.poses(), ref)


def test_mimic_is_enforced_by_the_solver():
    robot = urdf.parse_urdf_string(ALL_TYPES)
    q = all_types_q(np.random.default_rng(2))
    lk, umap = linkage_from_urdf(robot, q)
    assert lk.joint("copy").q[0] == pytest.approx(-2 * q["hinge"] + 0.1)
    lk.set_target("hinge", [0.5])
    st = Solver(lk, Settings(tol=1e-10)).solve()
    assert st.converged, st
    assert lk.joint("hinge").q[0] == pytest.approx(0.5, abs=1e-9)
    assert lk.joint("copy").q[0] == pytest.approx(-0.9, abs=1e-9)
    vals = umap.urdf_values(lk)
    ref = urdf.link_poses(robot, vals)
    del ref["world"]
    assert_poses(lk.poses(), ref)


def test_paths_and_text_are_accepted():
    lk, umap = linkage_from_urdf(str(DATA / "rover_arm.urdf"))
    assert "turntable" in lk.links
    lk2, _ = linkage_from_urdf(ALL_TYPES)
    assert "base" in lk2.links


# ---------------------------------------------------------------- in: errors


def test_value_outside_limits_names_the_joint():
    robot = robot_of(DATA / "rover_arm.urdf")
    with pytest.raises(VartError, match="'shoulder'.*outside its limits"):
        linkage_from_urdf(robot, {"shoulder": 2.0})
    with pytest.raises(VartError, match="'finger_right_joint'.*mimics 'finger_left_joint'"):
        linkage_from_urdf(robot, {"finger_left_joint": 0.0295})


@pytest.mark.parametrize("q, match", [
    ({"nope": 1.0}, "unknown joint 'nope'"),
    ({"elbow": float("nan")}, "elbow"),
    ({"elbow": "x"}, "elbow"),
])
def test_bad_values(q, match):
    with pytest.raises(VartError, match=match):
        linkage_from_urdf(robot_of(DATA / "rover_arm.urdf"), q)


def test_planar_value_off_its_plane():
    robot = urdf.parse_urdf_string(ALL_TYPES)
    q = all_types_q(np.random.default_rng(1))
    q["plane"] = q["plane"] @ np.array([[1, 0, 0, 0], [0, 1, 0, 0.3], [0, 0, 1, 0], [0, 0, 0, 1.0]])
    with pytest.raises(VartError, match="'plane'.*not a motion in the plane"):
        linkage_from_urdf(robot, q)


def test_bad_inputs():
    with pytest.raises(VartError, match="expected a URDF Robot"):
        linkage_from_urdf(42)
    with pytest.raises(VartError, match="base_pose"):
        linkage_from_urdf(ALL_TYPES, base_pose=np.eye(3))
    with pytest.raises(urdf.UrdfError):
        linkage_from_urdf("<robot name='x'><link name='a'/><joint name='j' type='hinge'>"
                          "<parent link='a'/><child link='b'/></joint></robot>")


# ---------------------------------------------------------------- out


def round_trip(lk, robot_name="rt", **kw):
    out, warnings = urdf_from_linkage(lk, robot_name, **kw)
    text = urdf.write_urdf(out)
    again = urdf.parse_urdf_string(text)
    poses = lk.poses()
    vals = urdf_joint_values(again, poses)
    base = poses.get(again.root_link, np.eye(4))
    got = urdf.link_poses(again, vals, base=base)
    real = {n: T for n, T in poses.items() if not lk.links[n].virtual}
    assert_poses(got, real)
    return again, warnings


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_round_trip_link_poses(path):
    robot = robot_of(path)
    rng = np.random.default_rng(17)
    q = random_q(robot, rng)
    lk, umap = linkage_from_urdf(robot, q, base_pose=random_pose(rng))
    out, warnings = urdf_from_linkage(lk, robot.name, template=robot)
    assert warnings == []
    assert out.root_link == robot.root_link
    # a revolute joint without <limit> is unlimited in vart, so it comes back continuous
    expected = {j.name: "continuous" if j.type == "revolute" and j.limit is None else j.type
                for j in robot.joints}
    assert {j.name: j.type for j in out.joints} == expected
    for j in robot.joints:
        o = out.joint_by_name(j.name)
        assert (o.parent, o.child, o.mimic) == (j.parent, j.child, j.mimic)
        assert o.limit == j.limit or (o.type == "continuous" and j.limit is None)
        np.testing.assert_allclose(o.origin.matrix(), j.origin.matrix(), atol=1e-12)
        np.testing.assert_allclose(o.axis, j.axis, atol=1e-12)
    # same link poses from the same URDF values
    ref = urdf.link_poses(robot, q)
    assert_poses(urdf.link_poses(out, q), ref)
    round_trip(lk)


def test_round_trip_all_types_keeps_template_data():
    robot = urdf.parse_urdf_string(ALL_TYPES)
    q = all_types_q(np.random.default_rng(4))
    lk, umap = linkage_from_urdf(robot, q)
    out, warnings = urdf_from_linkage(lk, "all", template=robot)
    assert warnings == []
    assert out.root_link == "world"
    assert [j.type for j in out.traverse()] == [j.type for j in robot.traverse()]
    assert out.joint_by_name("hinge").limit == urdf.Limit(-1, 2, 5, 6)
    assert out.joint_by_name("hinge").dynamics == urdf.Dynamics(0.5, 0.0)
    assert out.joint_by_name("copy").mimic == urdf.Mimic("hinge", -2.0, 0.1)
    assert out.joint_by_name("spin").type == "continuous"
    assert out.link_by_name("base").inertial.mass == 2.0
    assert out.link_by_name("base").inertial.origin.xyz == (0.1, 0.0, 0.0)
    assert_poses(urdf.link_poses(out, q), urdf.link_poses(robot, q))
    again, _ = round_trip(lk)
    # the mimic value follows from the leader in URDF: the linkage's follower q agrees
    vals = urdf_joint_values(again, lk.poses())
    assert vals["copy"] == pytest.approx(-2 * vals["hinge"] + 0.1, abs=1e-12)


def test_visuals_and_extras():
    robot = robot_of(DATA / "rover_arm.urdf")
    lk, _ = linkage_from_urdf(robot)
    vis = {"hand": [urdf.Visual(geometry=urdf.Box((1, 2, 3)))]}
    out, _ = urdf_from_linkage(lk, "r", visuals=vis, template=robot)
    assert out.link_by_name("hand").visuals == tuple(vis["hand"])
    assert out.link_by_name("base_link").visuals == robot.link_by_name("base_link").visuals
    assert out.link_by_name("base_link").collisions == robot.link_by_name("base_link").collisions
    assert out.extras == robot.extras and out.materials == robot.materials
    plain, _ = urdf_from_linkage(lk, "r")
    assert plain.link_by_name("base_link").visuals == ()
    urdf.parse_urdf_string(urdf.write_urdf(out))


def built_linkage():
    """A hand-built linkage with what URDF lacks: virtual parts, a closure, a helical joint,
    an off-axis revolute and a limit on one side only."""
    lk = Linkage()
    rng = np.random.default_rng(9)
    for n in ("base", "arm", "tip", "nut", "ghost", "loose"):
        lk.add_link(n, pose=random_pose(rng), virtual=(n == "ghost"))
    lk.add_joint("mount", "fixed", None, "base", world_frame=lk.pose("base"))
    T = random_pose(rng)
    lk.add_joint("shoulder", "revolute", "base", "arm", world_frame=T, lower=[-1], upper=[1])
    lk.add_joint("wrist", "revolute", "arm", "tip", world_frame=random_pose(rng), lower=[-1])
    lk.add_joint("screw", "helical", "arm", "nut", world_frame=random_pose(rng), pitch=0.01)
    lk.add_joint("slide", "prismatic", "tip", "ghost", world_frame=random_pose(rng))
    lk.add_joint("loop", "revolute", "base", "tip", world_frame=lk.pose("tip"), tree=False)
    lk.add_joint("ball", "spherical", "base", "nut", world_frame=lk.pose("nut"), tree=False)
    lk.add_joint("intent", "revolute", "ghost", "loose", world_frame=random_pose(rng),
                 virtual=True)
    lk.set_q("shoulder", [0.4])
    lk.set_q("wrist", [-0.7])
    return lk


def test_what_urdf_cannot_say_is_reported():
    lk = built_linkage()
    out, warnings = round_trip(lk)
    text = "\n".join(warnings)
    assert "'screw' left out: URDF has no helical joint" in text
    assert "'ball' left out: URDF has no spherical joint" in text
    assert "'loop' left out: it closes a kinematic loop" in text
    assert "'slide' left out: it is real but attached to virtual link 'ghost'" in text
    assert "'wrist': only one limit is finite" in text
    assert "link 'nut' is not connected" in text and "link 'loose' is not connected" in text
    assert "intent" not in text  # virtual joints are silently left out
    names = {l.name for l in out.links}
    assert "ghost" not in names and {"world", "base", "arm", "tip", "nut", "loose"} <= names
    assert out.root_link == "world"
    assert out.joint_by_name("mount").type == "fixed"
    assert out.joint_by_name("wrist").type == "continuous"
    sh = out.joint_by_name("shoulder")
    assert sh.type == "revolute" and sh.limit == urdf.Limit(-1.0, 1.0)
    # random frames: the shoulder axis misses the arm's origin -> helper link
    assert sh.child == "arm_axis" and out.joint_by_name("arm_axis_fixed").child == "arm"
    assert any("helper link 'arm_axis'" in w for w in warnings)
    assert out.joint_by_name("nut_floating").type == "floating"


def test_inverted_tree_edge_and_free_root():
    lk = Linkage()
    rng = np.random.default_rng(21)
    for n in ("a", "b", "c"):
        lk.add_link(n, pose=random_pose(rng))
    # c is the child of both joints, so one of them must be written inverted
    lk.add_joint("ac", "revolute", "a", "c", world_frame=lk.pose("c"), lower=[-0.5], upper=[1.5])
    lk.set_q("ac", [0.3])
    lk.add_joint("bc", "prismatic", "b", "c", world_frame=lk.pose("c"), lower=[-0.2], upper=[0.3])
    assert not lk.joint("bc").is_tree
    lk.add_joint("ab", "planar", "a", "b", world_frame=lk.pose("b"), tree=False)
    out, warnings = round_trip(lk)
    assert out.root_link == "a"
    bc = out.joint_by_name("bc")
    assert (bc.parent, bc.child) == ("c", "b")
    assert bc.limit == urdf.Limit(-0.3, 0.2)
    assert any("'ab' left out: it closes a kinematic loop" in w for w in warnings)


def test_inverted_mimic_keeps_the_coupling():
    lk = Linkage()
    for n in ("a", "b", "c"):
        lk.add_link(n)
    lk.add_joint("ab", "revolute", "a", "b")
    lk.add_joint("cb", "revolute", "c", "b")  # b already carried: a closure
    lk.make_tree("cb")  # now cb carries b; with root a, URDF reaches c from b through it
    lk.set_mimic("cb", "ab", 2.0, 0.25)
    out, _ = urdf_from_linkage(lk, "m")
    cb = out.joint_by_name("cb")
    assert (cb.parent, cb.child) == ("b", "c")
    assert cb.mimic == urdf.Mimic("ab", -2.0, -0.25)


def test_ground_name_clash():
    lk = Linkage()
    lk.add_link("world")
    lk.add_joint("pin", "revolute", None, "world")
    out, warnings = urdf_from_linkage(lk, "w")
    assert out.root_link == "world_1" and out.joint_by_name("pin").child == "world"
    assert any("named 'world'" in w for w in warnings)


def test_floating_root_and_general_joint():
    lk = Linkage()
    rng = np.random.default_rng(8)
    lk.add_link("body", pose=random_pose(rng))
    lk.add_link("free", pose=random_pose(rng))
    lk.add_joint("six", "general", "body", "free", world_frame=random_pose(rng))
    lk.set_q("six", [0.1, 0.2, 0.3, 0.4, -0.5, 0.6])
    out, warnings = round_trip(lk)
    assert warnings == [] and out.root_link == "body"
    assert out.joint_by_name("six").type == "floating"


def test_urdf_joint_values_needs_poses():
    robot = robot_of(DATA / "rover_arm.urdf")
    with pytest.raises(VartError, match="no pose for link"):
        urdf_joint_values(robot, {"base_link": np.eye(4)})


# ---------------------------------------------------------------- through the solver


def _reach(q_start):
    robot = robot_of(DATA / "rover_arm.urdf")
    q_goal = {"turntable_joint": 0.7, "shoulder": -0.4, "elbow": -1.1, "wrist_roll": 0.3}
    goal = urdf.link_poses(robot, q_goal)["wrist"]
    lk, umap = linkage_from_urdf(robot, q_start, fixed_base=True)
    lk.set_link_target("wrist", goal, mask=[1, 1, 1, 0, 0, 0])
    st = Solver(lk, Settings(tol=1e-9)).solve()
    assert st.converged, st.level("target")
    vals = umap.urdf_values(lk)
    for name, v in vals.items():
        j = robot.joint_by_name(name)
        if j.limit is not None and j.type != "continuous":
            assert j.limit.lower - 1e-12 <= v <= j.limit.upper + 1e-12
    ref = urdf.link_poses(robot, vals)
    np.testing.assert_allclose(ref["wrist"][:3, 3], goal[:3, 3], atol=1e-8)
    assert_poses(lk.poses(), ref)
    assert math.isclose(vals["finger_right_joint"], vals["finger_left_joint"] + 0.001)


def test_imported_arm_reaches_a_target():
    _reach({"shoulder": -0.3, "elbow": -0.8})


def test_imported_arm_reaches_a_target_from_the_straight_arm():
    # regression: near this singularity the uncapped Gauss-Newton step crossed the elbow's
    # limit; clamping it there before capping the step gave a non-descent direction and the
    # solve stalled at 0.40 m
    _reach({})
