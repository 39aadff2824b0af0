"""Tests of the URDF format layer (vart_addon/solver/urdf.py; the model in urdf_base.py,
urdf_geometry.py, urdf_model.py, urdf_kinematics.py).

scipy is used only as an independent reference: ``Rotation.from_euler('xyz', [r, p, y])``
(lower case = extrinsic, i.e. fixed axes) is URDF's rpy, ``Rotation.from_rotvec`` a rotation
about an axis.
"""

import dataclasses
import math
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from repo_paths import DATA as TEST_DATA
from repo_paths import REPO
from vart_addon.formats.urdf import files as urdf  # noqa: E402
from vart_addon.formats.urdf import writing  # noqa: E402
from vart_addon.formats.urdf.files import (  # noqa: E402
    Box,
    Cylinder,
    Inertial,
    Joint,
    Limit,
    Link,
    Material,
    Mesh,
    Mimic,
    Origin,
    Robot,
    Sphere,
    UrdfError,
    Visual,
    link_poses,
    parse_urdf_string,
    read_urdf,
    save_urdf,
    write_urdf,
)

DATA = TEST_DATA / "urdf"
FIXTURE = DATA / "rover_arm.urdf"
PROBLEMS = REPO.parent / "shared" / "bench" / "problems"

angles = st.floats(-math.pi, math.pi, allow_nan=False)
coords = st.floats(-5, 5, allow_nan=False)
HALF_PI = math.pi / 2


def scipy_T(xyz, rpy):
    T = np.eye(4)
    T[:3, :3] = Rotation.from_euler("xyz", rpy).as_matrix()
    T[:3, 3] = xyz
    return T


# ---------------------------------------------------------------- rpy


@given(st.tuples(angles, angles, angles), st.tuples(coords, coords, coords))
def test_origin_matrix_matches_scipy(rpy, xyz):
    np.testing.assert_allclose(Origin(xyz, rpy).matrix(), scipy_T(xyz, rpy), atol=1e-12)


def test_rpy_is_fixed_axis_order():
    # roll about x first, then yaw about the *fixed* z: x axis -> y axis
    R = Origin(rpy=(HALF_PI, 0, HALF_PI)).matrix()[:3, :3]
    np.testing.assert_allclose(R @ [1, 0, 0], [0, 1, 0], atol=1e-15)
    np.testing.assert_allclose(R @ [0, 1, 0], [0, 0, 1], atol=1e-15)


pitches = st.one_of(
    st.floats(-HALF_PI, HALF_PI),
    st.sampled_from([HALF_PI, -HALF_PI]),
    st.builds(lambda s, e: s * (HALF_PI - e), st.sampled_from([1, -1]),
              st.sampled_from([1e-15, 1e-12, 1e-9, 1e-7, 1e-5, 1e-3])),
)


@given(angles, pitches, angles, st.tuples(coords, coords, coords))
def test_from_matrix_round_trip(roll, pitch, yaw, xyz):
    T = scipy_T(xyz, (roll, pitch, yaw))
    o = Origin.from_matrix(T)
    np.testing.assert_allclose(o.matrix(), T, atol=1e-12)
    r, p, y = o.rpy
    assert -math.pi <= r <= math.pi and -HALF_PI <= p <= HALF_PI and -math.pi <= y <= math.pi
    assert o.xyz == tuple(T[:3, 3])


@given(angles, st.sampled_from([HALF_PI, -HALF_PI]), angles)
def test_from_matrix_gimbal_lock_is_canonical(roll, pitch, yaw):
    o = Origin.from_matrix(scipy_T((0, 0, 0), (roll, pitch, yaw)))
    assert o.rpy[2] == 0.0 and abs(abs(o.rpy[1]) - HALF_PI) < 1e-7


@given(st.lists(st.floats(-1, 1), min_size=4, max_size=4).filter(lambda v: np.linalg.norm(v) > 0.1))
def test_from_matrix_random_rotations(quat):
    T = np.eye(4)
    T[:3, :3] = Rotation.from_quat(quat).as_matrix()
    np.testing.assert_allclose(Origin.from_matrix(T).matrix(), T, atol=1e-12)


@pytest.mark.parametrize("T", [np.diag([2.0, 1, 1, 1]), np.diag([-1.0, 1, 1, 1]), np.eye(3),
                               np.full((4, 4), np.nan)])
def test_from_matrix_rejects_non_rigid(T):
    with pytest.raises(UrdfError):
        Origin.from_matrix(T)


# ---------------------------------------------------------------- benchmark files


def bench_file(name):
    path = PROBLEMS / name
    if not path.exists():
        pytest.skip(f"{path} not present")
    return path


def test_read_p1_hexapod():
    r = read_urdf(bench_file("P1_hexapod.urdf"))
    assert r.name == "P1_hexapod" and len(r.links) == 50 and len(r.joints) == 49
    assert r.root_link == "ground"
    types = [j.type for j in r.joints]
    assert (types.count("revolute"), types.count("prismatic"), types.count("fixed")) == (39, 3, 7)
    px = r.joint_by_name("base_px")
    assert (px.type, px.parent, px.child, px.axis) == ("prismatic", "ground", "v_px", (1.0, 0.0, 0.0))
    assert px.limit == Limit(-10.0, 10.0, 100.0, 100.0)
    hip = r.joint_by_name("leg0_hip_yaw")
    assert hip.origin == Origin((0.9, 0, 0)) and hip.axis == (0, 0, 1) and hip.limit.upper == 1.2
    assert r.link_by_name("deck").inertial == Inertial(mass=0.01, inertia=(1e-5, 0, 0, 1e-5, 0, 1e-5))
    assert len(r.extras) == 1 and r.extras[0].startswith("<mujoco>")
    assert [j.name for j in r.traverse()][:6] == ["base_px", "base_py", "base_pz", "base_rz", "base_ry", "base_rx"]
    assert parse_urdf_string(write_urdf(r)) == r


def test_read_p2_fourbar_chain():
    r = read_urdf(bench_file("P2_fourbar_chain.urdf"))
    assert (len(r.links), len(r.joints), r.root_link) == (52, 51, "rung0")
    j = r.joint_by_name("c1_jA1")
    assert j.origin.xyz == (0.0628451481189, 0.264241820137, 0.0)
    assert j.limit.lower == -3.14159265359
    assert r.joint_by_name("c1_mR").type == "fixed"
    assert {j.child for j in r.children_of("rung0")} >= {"left1", "right1"}
    assert parse_urdf_string(write_urdf(r)) == r


def test_read_p3_tower():
    r = read_urdf(bench_file("P3_tower.urdf"))
    assert (len(r.links), len(r.joints)) == (452, 451)
    assert sum(j.type == "revolute" for j in r.joints) == 270
    assert r.joint_by_name("handle_fix").origin.xyz == (0.207586995901, 0.0506708799213, 0.0)
    assert sorted(j.name for j in r.traverse()) == sorted(j.name for j in r.joints)
    assert len(set(r.link_names_in_tree_order())) == 452
    poses = link_poses(r)
    assert len(poses) == 452 and all(np.all(np.isfinite(T)) for T in poses.values())
    assert parse_urdf_string(write_urdf(r)) == r


# ---------------------------------------------------------------- realistic fixture


def test_fixture_reads_everything():
    r = read_urdf(FIXTURE)
    assert r.name == "rover_arm"
    assert [l.name for l in r.links] == ["base_link", "turntable", "upper_arm", "forearm", "wrist", "hand",
                                         "finger_left", "finger_right", "camera_link"]
    assert r.root_link == "base_link"
    assert [m.name for m in r.materials] == ["grey", "orange", "decal"]
    assert r.material_by_name("decal") == Material("decal", None, "package://rover_arm/textures/decal.png")

    base = r.link_by_name("base_link")
    chassis, bumper, logo = base.visuals
    assert chassis.name == "chassis" and chassis.geometry == Mesh("package://rover_arm/meshes/chassis.dae")
    assert chassis.origin == Origin((0, 0, 0.05), (0, 0, 1.5707963267948966))
    assert (chassis.material_name, chassis.rgba) == ("grey", (0.5, 0.5, 0.5, 1.0))
    assert bumper.geometry == Box((0.02, 0.3, 0.04)) and bumper.origin == Origin((0.21, 0, 0.02))
    assert bumper.rgba == (1.0, 0.423529411765, 0.0392156862745, 1.0)
    assert logo.name is None and logo.geometry.scale == (0.001,) * 3 and logo.geometry.kind == "mesh"
    assert (logo.rgba, logo.texture) == (None, "package://rover_arm/textures/decal.png")
    assert base.collisions[0].geometry == Box((0.4, 0.3, 0.1))
    I = base.inertial
    assert I.mass == 4.2 and I.origin.xyz == (0, 0, 0.05)
    np.testing.assert_array_equal(I.inertia_matrix(), [[0.031, 0.0001, -0.0002], [0.0001, 0.042, 0], [-0.0002, 0, 0.051]])

    turn = r.link_by_name("turntable").visuals[0]
    assert turn.geometry == Cylinder(0.06, 0.03) and turn.geometry.kind == "cylinder"
    assert (turn.material_name, turn.rgba) == ("steel", (0.8, 0.8, 0.85, 1.0))
    arm = r.link_by_name("upper_arm")
    assert arm.visuals[0].geometry.filename == "meshes/upper_arm.stl" and arm.visuals[0].origin.is_identity
    cap = arm.visuals[1]  # names an inline material defined in another link
    assert cap.geometry == Sphere(0.045) and (cap.material_name, cap.rgba) == ("steel", (0.8, 0.8, 0.85, 1.0))
    fore = r.link_by_name("forearm").visuals[0]
    assert fore.geometry == Mesh("../meshes/forearm.STL", (-1, 1, 1))
    assert (fore.material_name, fore.rgba) == ("mystery", None)  # undefined: tolerated
    wrist = r.link_by_name("wrist").visuals[0]
    assert wrist.geometry.filename == "file:///opt/rover_arm/meshes/wrist.dae" and wrist.material_name is None
    hand = r.link_by_name("hand").visuals[0]
    assert (hand.material_name, hand.rgba) == (None, (0.1, 0.1, 0.1, 1.0))
    assert r.link_by_name("camera_link") == Link("camera_link")

    tt = r.joint_by_name("turntable_joint")
    assert (tt.type, tt.limit, tt.axis) == ("continuous", None, (0, 0, 1))
    assert (tt.dynamics.damping, tt.dynamics.friction) == (0.7, 0.05)
    sh = r.joint_by_name("shoulder")
    assert sh.axis == (0, 0, 1)  # normalised from 0 0 2
    assert sh.limit == Limit(-1.9, 1.9, 12.5, 1.2) and sh.origin.rpy == (-1.5707963267948966, 0, 0)
    assert r.joint_by_name("elbow").limit == Limit(-2.5, 0.25, 0.0, 0.0)  # effort/velocity omitted
    wr = r.joint_by_name("wrist_roll")
    assert (wr.type, wr.limit, wr.origin) == ("revolute", None, Origin((0.25, 0, 0)))
    fr = r.joint_by_name("finger_right_joint")
    assert fr.mimic == Mimic("finger_left_joint", 1.0, 0.001) and fr.axis == (0, -1, 0)
    assert r.joint_by_name("finger_left_joint").mimic is None
    assert r.joint_by_name("wrist_to_hand").origin.rpy == (0.1, 0.2, 0.3)

    assert [j.name for j in r.traverse()] == [
        "turntable_joint", "shoulder", "elbow", "wrist_roll", "wrist_to_hand", "finger_left_joint",
        "finger_right_joint", "camera_mount"]
    assert r.link_names_in_tree_order()[:3] == ("base_link", "turntable", "upper_arm")
    assert [j.name for j in r.children_of("hand")] == ["finger_left_joint", "finger_right_joint"]
    assert r.children_of("camera_link") == ()
    assert r.parent_joint("forearm").name == "elbow" and r.parent_joint("base_link") is None
    with pytest.raises(KeyError):
        r.joint_by_name("nope")

    tags = [x.split(None, 1)[0].strip("<>") for x in r.extras]
    assert tags == ["gazebo", "gazebo", "transmission", "ros2_control"]
    assert "libgazebo_ros_control.so" in r.extras[1]


def test_fixture_round_trip(tmp_path):
    r = read_urdf(FIXTURE)
    text = write_urdf(r)
    r2 = parse_urdf_string(text)
    assert r2 == r and hash(r2) == hash(r)
    assert write_urdf(r2) == text  # the writer's output is a fixed point
    out = tmp_path / "out.urdf"
    save_urdf(r, out)
    assert read_urdf(out) == r and out.read_text(encoding="utf-8") == text
    assert '<material name="grey" />' in text  # global materials are referenced, not inlined
    assert "<safety_controller" not in text and "gazebo_tag_inside_link" not in text


def test_fixture_link_poses():
    r = read_urdf(FIXTURE)
    q = {"turntable_joint": 0.4, "shoulder": -0.3, "elbow": 1.1, "wrist_roll": 0.2, "finger_left_joint": 0.01}
    P = link_poses(r, q)
    expect = (scipy_T((0, 0, 0.115), (0, 0, 0)) @ scipy_T((0, 0, 0), (0, 0, 0.4))
              @ scipy_T((0, 0, 0.04), (-HALF_PI, 0, 0)) @ scipy_T((0, 0, 0), (0, 0, -0.3))
              @ scipy_T((0.3, 0, 0), (0, 0, 1.1)) @ scipy_T((0.25, 0, 0), (0.2, 0, 0))
              @ scipy_T((0.04, 0, 0), (0.1, 0.2, 0.3)))
    np.testing.assert_allclose(P["hand"], expect, atol=1e-12)
    np.testing.assert_allclose(P["finger_left"], expect @ scipy_T((0.03, 0.01 + 0.01, 0), (0, 0, 0)), atol=1e-12)
    # mimic: 1 * 0.01 + 0.001 along -y, its own entry in q is ignored
    P2 = link_poses(r, dict(q, finger_right_joint=5.0))
    np.testing.assert_allclose(P2["finger_right"], expect @ scipy_T((0.03, -0.01 - 0.011, 0), (0, 0, 0)), atol=1e-12)
    assert urdf.joint_values(r, q)["finger_right_joint"] == pytest.approx(0.011)
    with pytest.raises(UrdfError, match="'knee'"):
        link_poses(r, {"knee": 1.0})


# ---------------------------------------------------------------- reading variants


def test_read_text_bytes_and_path_kinds(tmp_path):
    text = FIXTURE.read_text(encoding="utf-8")
    r = read_urdf(FIXTURE)
    assert read_urdf(text) == r and read_urdf(text.encode()) == r and read_urdf(str(FIXTURE)) == r
    assert read_urdf("\ufeff\n  " + text) == r
    with pytest.raises(FileNotFoundError):
        read_urdf(tmp_path / "missing.urdf")


def test_error_names_the_source(tmp_path):
    p = tmp_path / "arm.urdf"
    p.write_text('<robot name="a"><link name="x"/><joint name="knee" type="hinge">'
                 '<parent link="x"/><child link="y"/></joint></robot>')
    with pytest.raises(UrdfError, match=r"^arm\.urdf: joint 'knee': unknown type 'hinge'"):
        read_urdf(p)
    with pytest.raises(UrdfError, match=r"^mine: "):
        parse_urdf_string(p.read_text(), source_name="mine")


def test_lenient_inputs():
    r = parse_urdf_string("""<robot>
      <link name="a"><visual><geometry><mesh filename="m.stl" scale="0.001"/></geometry></visual></link>
      <link name="b"/>
      <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
        <axis xyz="3 0 4"/><limit effort="1" velocity="2"/></joint>
      <material name="m"><color rgba="1 0 0 1"/></material>
      <material name="m"><color rgba="1 0 0 1"/></material>
    </robot>""")
    assert r.name == "" and r.link_by_name("a").visuals[0].geometry.scale == (0.001,) * 3
    j = r.joint_by_name("j")
    assert j.limit == Limit(0, 0, 1, 2) and j.axis == pytest.approx((0.6, 0, 0.8)) and j.origin.is_identity
    assert len(r.materials) == 1


def test_single_link_and_namespaced_robot():
    r = parse_urdf_string('<robot xmlns="http://example.com/urdf" name="solo"><link name="only"/></robot>')
    assert r.root_link == "only" and r.traverse() == () and link_poses(r)["only"].tolist() == np.eye(4).tolist()


def test_axis_normalisation_is_idempotent():
    j = Joint("j", "revolute", "a", "b", axis=(1, 2, 3))
    assert Joint("j", "revolute", "a", "b", axis=j.axis) == j
    assert math.isclose(np.linalg.norm(j.axis), 1.0, rel_tol=0, abs_tol=1e-15)


def test_programmatic_robot_equals_parsed():
    r = Robot("bot", [Link("a", [Visual(geometry=Box([1, 2, 3]), rgba=[1, 0, 0, 1])]), Link("b")],
              [Joint("j", "prismatic", "a", "b", Origin([0, 0, 1]), [0, 0, 1], Limit(-1, 1))])
    assert isinstance(r.links, tuple) and r.links[0].visuals[0].geometry.size == (1.0, 2.0, 3.0)
    assert parse_urdf_string(write_urdf(r)) == r
    inertial = Inertial(mass=1, inertia=np.diag([1.0, 2, 3]))
    assert inertial.inertia == (1, 0, 0, 2, 0, 3)


def test_write_is_valid_for_strict_readers():
    r = read_urdf(FIXTURE)
    text = write_urdf(r)
    import xml.etree.ElementTree as ET
    root = ET.fromstring(text)
    for lim in root.iter("limit"):  # urdfdom requires effort and velocity
        assert lim.get("effort") is not None and lim.get("velocity") is not None
    for mat in root.findall("material") + root.findall("link/visual/material"):
        assert mat.get("name") is not None


# ---------------------------------------------------------------- errors

LINKS_AB = '<link name="a"/><link name="b"/>'


def joint_xml(name="j", type_="revolute", parent="a", child="b", inner='<limit lower="-1" upper="1"/>'):
    return (f'<joint name="{name}" type="{type_}"><parent link="{parent}"/><child link="{child}"/>'
            f'{inner}</joint>')


def robot(body):
    return f'<robot name="r">{body}</robot>'


ERROR_CASES = {
    "unknown type": (robot(LINKS_AB + joint_xml("knee", "hinge")), ["joint 'knee'", "unknown type 'hinge'"]),
    "missing parent link": (robot('<link name="shin"/>' + joint_xml("knee", parent="thigh", child="shin")),
                            ["joint 'knee'", "parent link 'thigh' does not exist"]),
    "missing child link": (robot('<link name="a"/>' + joint_xml(child="ghost")), ["joint 'j'", "child link 'ghost'"]),
    "rpy count": (robot('<link name="foot"><visual><origin rpy="0 1"/><geometry><sphere radius="1"/></geometry>'
                        '</visual></link>'), ["link 'foot'", "<origin> rpy has 2 values, expected 3"]),
    "xyz count": (robot(LINKS_AB + joint_xml(inner='<origin xyz="1 2 3 4"/>')), ["joint 'j'", "xyz has 4 values"]),
    "nan origin": (robot(LINKS_AB + joint_xml(inner='<origin xyz="0 nan 0"/>')), ["joint 'j'", "not finite"]),
    "inf limit": (robot(LINKS_AB + joint_xml(inner='<limit lower="-inf" upper="1"/>')), ["joint 'j'", "not finite"]),
    "nan mass": (robot('<link name="a"><inertial><mass value="NaN"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" '
                       'iyz="0" izz="1"/></inertial></link>'), ["link 'a'", "<mass> value is not finite"]),
    "inf inertia": (robot('<link name="a"><inertial><mass value="1"/><inertia ixx="inf" ixy="0" ixz="0" iyy="1" '
                          'iyz="0" izz="1"/></inertial></link>'), ["link 'a'", "<inertia>"]),
    "nan color": (robot('<material name="red"><color rgba="1 0 nan 1"/></material><link name="a"/>'),
                  ["material 'red'", "not finite"]),
    "nan radius": (robot('<link name="a"><collision><geometry><sphere radius="nan"/></geometry></collision></link>'),
                   ["link 'a'", "<sphere> radius"]),
    "nan mimic": (robot(LINKS_AB + '<link name="c"/>' + joint_xml() + joint_xml(
        "m", parent="b", child="c", inner='<limit lower="-1" upper="1"/><mimic joint="j" multiplier="nan"/>')),
                  ["joint 'm'", "<mimic> multiplier"]),
    "not a number": (robot(LINKS_AB + joint_xml(inner='<axis xyz="0 0 one"/>')), ["joint 'j'", "'one' is not a number"]),
    "xacro expression": (robot(LINKS_AB + joint_xml(inner='<origin rpy="0 0 ${pi/2}"/>')), ["joint 'j'", "xacro"]),
    "xacro element": ('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:macro name="m"/>'
                      '<link name="a"/></robot>', ["xacro:macro"]),
    "malformed xml": ('<robot name="r">\n<link name="a">\n</robot>', ["malformed XML", "line 3"]),
    "not robot": ('<sdf version="1.6"><model name="m"/></sdf>', ["root element is <sdf>", "<robot>"]),
    "duplicate link": (robot('<link name="a"/><link name="a"/>'), ["link 'a'", "defined twice"]),
    "duplicate joint": (robot(LINKS_AB + '<link name="c"/>' + joint_xml() + joint_xml(parent="b", child="c")),
                        ["joint 'j'", "defined twice"]),
    "two parents": (robot(LINKS_AB + '<link name="c"/>' + joint_xml("j1", parent="a", child="c")
                          + joint_xml("j2", parent="b", child="c")), ["link 'c'", "'j1'", "'j2'"]),
    "cycle": (robot('<link name="base"/>' + LINKS_AB + joint_xml("j1", parent="a", child="b")
                    + joint_xml("j2", parent="b", child="a")),
              ["cycle", "'j1'", "'j2'"]),
    "cycle no root": (robot(LINKS_AB + joint_xml("j1") + joint_xml("j2", parent="b", child="a")),
                      ["cycle", "'j1'", "'j2'"]),
    "disconnected": (robot(LINKS_AB + '<link name="island"/>' + joint_xml()), ["more than one root", "'island'"]),
    "self joint": (robot(LINKS_AB + joint_xml("selfie", parent="a", child="a")),
                   ["joint 'selfie'", "parent and child are the same link 'a'"]),
    "mimic self": (robot(LINKS_AB + joint_xml(inner='<limit lower="-1" upper="1"/><mimic joint="j"/>')),
                   ["joint 'j'", "itself"]),
    "mimic cycle": (robot(LINKS_AB + '<link name="c"/>'
                          + joint_xml("j1", inner='<limit lower="-1" upper="1"/><mimic joint="j2"/>')
                          + joint_xml("j2", parent="b", child="c", inner='<limit lower="-1" upper="1"/><mimic joint="j1"/>')),
                    ["joint 'j1'", "cycle"]),
    "mimic missing joint attr": (robot(LINKS_AB + joint_xml(inner='<mimic multiplier="2"/>')),
                                 ["joint 'j'", "<mimic> is missing attribute 'joint'"]),
    "zero axis": (robot(LINKS_AB + joint_xml(inner='<axis xyz="0 0 0"/>')), ["joint 'j'", "zero vector"]),
    "missing joint type": (robot(LINKS_AB + '<joint name="j"><parent link="a"/><child link="b"/></joint>'),
                           ["joint 'j'", "attribute 'type'"]),
    "missing parent element": (robot(LINKS_AB + '<joint name="j" type="fixed"><child link="b"/></joint>'),
                               ["joint 'j'", "missing <parent>"]),
    "missing parent link attr": (robot(LINKS_AB + '<joint name="j" type="fixed"><parent/><child link="b"/></joint>'),
                                 ["joint 'j'", "<parent> is missing attribute 'link'"]),
    "missing link name": (robot('<link/>'), ["<link>", "'name'"]),
    "missing joint name": (robot(LINKS_AB + '<joint type="fixed"><parent link="a"/><child link="b"/></joint>'),
                           ["<joint>", "'name'"]),
    "missing geometry": (robot('<link name="a"><visual><origin/></visual></link>'), ["link 'a'", "<geometry>"]),
    "box size count": (robot('<link name="a"><visual><geometry><box size="1 2"/></geometry></visual></link>'),
                       ["link 'a'", "<box> size has 2 values"]),
    "negative radius": (robot('<link name="a"><visual><geometry><cylinder radius="-1" length="2"/></geometry>'
                              '</visual></link>'), ["link 'a'", "radius is negative"]),
    "mesh no filename": (robot('<link name="a"><visual><geometry><mesh/></geometry></visual></link>'),
                         ["link 'a'", "filename"]),
    "negative mass": (robot('<link name="a"><inertial><mass value="-1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" '
                            'iyz="0" izz="1"/></inertial></link>'), ["link 'a'", "negative"]),
    "missing mass": (robot('<link name="a"><inertial><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>'
                           '</inertial></link>'), ["link 'a'", "<mass>"]),
    "color count": (robot('<link name="a"><visual><geometry><sphere radius="1"/></geometry><material name="x">'
                          '<color rgba="1 0 0"/></material></visual></link>'), ["link 'a'", "rgba has 3 values"]),
    "conflicting materials": (robot('<material name="m"><color rgba="1 0 0 1"/></material>'
                                    '<material name="m"><color rgba="0 1 0 1"/></material><link name="a"/>'),
                              ["material 'm'", "defined twice"]),
    "material without name": (robot('<material><color rgba="1 0 0 1"/></material><link name="a"/>'),
                              ["<material>", "'name'"]),
    "no links": (robot(""), ["has no links"]),
    "underscore number": (robot(LINKS_AB + joint_xml(inner='<origin xyz="1_0 0 0"/>')), ["joint 'j'", "'1_0'"]),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_errors_name_the_element(case):
    text, fragments = ERROR_CASES[case]
    with pytest.raises(UrdfError) as info:
        parse_urdf_string(text)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)
    assert isinstance(info.value, ValueError)


def test_model_constructors_validate():
    with pytest.raises(UrdfError, match="joint 'knee': unknown type 'hinge'"):
        Joint("knee", "hinge", "a", "b")
    with pytest.raises(UrdfError, match="lower 1.0 > upper -1.0"):
        Limit(1.0, -1.0)
    with pytest.raises(UrdfError, match="joint 'j': parent link 'x' does not exist"):
        Robot("r", [Link("a")], [Joint("j", "fixed", "x", "a")])
    with pytest.raises(UrdfError, match="rpy has 2 values"):
        Origin(rpy=(0, 1))
    with pytest.raises(UrdfError, match="<box> size is not finite"):
        Box((1, float("inf"), 1))
    with pytest.raises(UrdfError, match="<visual>: geometry must be"):
        Link("l", [Visual(geometry="box")])
    with pytest.raises(UrdfError, match="not well-formed"):
        Robot("r", [Link("a")], extras=["<gazebo>"])


# ---------------------------------------------------------------- save_urdf atomicity


def small_robot():
    return parse_urdf_string(robot(LINKS_AB + joint_xml()))


def test_save_missing_directory_raises_clearly(tmp_path):
    target = tmp_path / "no" / "such" / "dir" / "r.urdf"
    with pytest.raises(FileNotFoundError, match=r"cannot write URDF '.*r\.urdf'"):
        save_urdf(small_robot(), target)
    assert not (tmp_path / "no").exists()


def test_save_parent_is_a_file(tmp_path):
    (tmp_path / "afile").write_text("x")
    with pytest.raises(OSError, match="cannot write URDF"):
        save_urdf(small_robot(), tmp_path / "afile" / "r.urdf")
    assert os.listdir(tmp_path) == ["afile"]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root ignores permissions")
def test_save_unwritable_directory(tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o500)
    try:
        with pytest.raises(PermissionError, match="cannot write URDF"):
            save_urdf(small_robot(), d / "r.urdf")
        assert os.listdir(d) == []
    finally:
        d.chmod(0o700)


def test_save_permission_denied_simulated(tmp_path, monkeypatch):
    # the same path as test_save_unwritable_directory, but also when the tests run as root
    def deny(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(urdf.os, "open", deny)
    with pytest.raises(PermissionError, match=r"cannot write URDF '.*r\.urdf': Permission denied"):
        save_urdf(small_robot(), tmp_path / "r.urdf")
    monkeypatch.undo()
    assert os.listdir(tmp_path) == []


def test_save_serializer_failure_leaves_existing_file(tmp_path, monkeypatch):
    target = tmp_path / "r.urdf"
    target.write_text("old contents")

    def boom(*args, **kwargs):
        raise RuntimeError("serializer exploded")

    monkeypatch.setattr(writing, "_build", boom)
    with pytest.raises(RuntimeError, match="exploded"):
        save_urdf(small_robot(), target)
    assert target.read_text() == "old contents" and os.listdir(tmp_path) == ["r.urdf"]


@pytest.mark.parametrize("fail", ["fsync", "replace"])
def test_save_failure_mid_write_leaves_existing_file(tmp_path, monkeypatch, fail):
    target = tmp_path / "r.urdf"
    target.write_text("old contents")

    def boom(*args, **kwargs):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(urdf.os, fail, boom)
    with pytest.raises(OSError, match="cannot write URDF .*Input/output error"):
        save_urdf(small_robot(), target)
    monkeypatch.undo()
    assert target.read_text() == "old contents" and os.listdir(tmp_path) == ["r.urdf"]


def test_save_replaces_existing_and_keeps_mode(tmp_path):
    target = tmp_path / "r.urdf"
    target.write_text("old contents")
    target.chmod(0o640)
    save_urdf(small_robot(), str(target))
    assert read_urdf(target) == small_robot()
    assert (target.stat().st_mode & 0o777) == 0o640 and os.listdir(tmp_path) == ["r.urdf"]


def test_save_into_directory_path_fails_cleanly(tmp_path):
    (tmp_path / "d").mkdir()
    with pytest.raises(OSError, match="cannot write URDF"):
        save_urdf(small_robot(), tmp_path / "d")
    assert os.listdir(tmp_path) == ["d"]


# ---------------------------------------------------------------- link_poses vs scipy

unit_axes = st.tuples(st.floats(-1, 1), st.floats(-1, 1), st.floats(-1, 1)).filter(lambda v: np.linalg.norm(v) > 0.1)
joint_specs = st.tuples(
    st.sampled_from(["revolute", "continuous", "prismatic", "fixed"]),
    st.tuples(coords, coords, coords), st.tuples(angles, angles, angles), unit_axes, st.floats(-3, 3),
    st.integers(0, 100),  # parent picks among the earlier links: a random tree, not just a chain
)


def expected_motion(type_, axis, value):
    a = np.array(axis) / np.linalg.norm(axis)
    T = np.eye(4)
    if type_ in ("revolute", "continuous"):
        T[:3, :3] = Rotation.from_rotvec(a * value).as_matrix()
    elif type_ == "prismatic":
        T[:3, 3] = a * value
    return T


@settings(max_examples=60, deadline=None)
@given(st.lists(joint_specs, min_size=1, max_size=12), st.tuples(coords, coords, coords), st.tuples(angles, angles, angles))
def test_link_poses_matches_scipy(specs, base_xyz, base_rpy):
    links, joints, q, parents = [Link("l0")], [], {}, {}
    for i, (type_, xyz, rpy, axis, value, pick) in enumerate(specs, start=1):
        parent = f"l{pick % i}"
        links.append(Link(f"l{i}"))
        joints.append(Joint(f"j{i}", type_, parent, f"l{i}", Origin(xyz, rpy), axis,
                            Limit(-3, 3) if type_ in ("revolute", "prismatic") else None))
        q[f"j{i}"] = value
        parents[f"l{i}"] = (parent, xyz, rpy, type_, axis, value)
    r = Robot("random", links, joints)
    base = scipy_T(base_xyz, base_rpy)
    poses = link_poses(r, q, base=base)
    assert set(poses) == {l.name for l in links}

    def expected(name):
        if name == "l0":
            return base
        parent, xyz, rpy, type_, axis, value = parents[name]
        return expected(parent) @ scipy_T(xyz, rpy) @ expected_motion(type_, axis, value)

    for name, T in poses.items():
        np.testing.assert_allclose(T, expected(name), atol=1e-9)
    assert parse_urdf_string(write_urdf(r)) == r


def test_link_poses_floating_planar_and_mimic():
    links = [Link(n) for n in ("w", "a", "b", "c", "d")]
    joints = [
        Joint("float", "floating", "w", "a", Origin((1, 0, 0))),
        Joint("plane", "planar", "a", "b", axis=(0, 0, 1)),
        Joint("lead", "continuous", "b", "c", axis=(0, 0, 1)),
        Joint("follow", "prismatic", "c", "d", axis=(1, 0, 0), limit=Limit(-5, 5), mimic=Mimic("lead", 2.0, 0.5)),
    ]
    r = Robot("r", links, joints)
    P = link_poses(r)  # floating and planar at rest when not given; mimic follows lead = 0
    np.testing.assert_allclose(P["d"], scipy_T((1.5, 0, 0), (0, 0, 0)), atol=1e-15)
    Tf, Tp = scipy_T((0.1, 0.2, 0.3), (0.3, -0.2, 0.1)), scipy_T((0.5, -0.4, 0), (0, 0, 0.7))
    P = link_poses(r, {"float": Tf, "plane": Tp, "lead": 0.25})
    expect_c = scipy_T((1, 0, 0), (0, 0, 0)) @ Tf @ Tp @ scipy_T((0, 0, 0), (0, 0, 0.25))
    np.testing.assert_allclose(P["c"], expect_c, atol=1e-12)
    np.testing.assert_allclose(P["d"], expect_c @ scipy_T((2 * 0.25 + 0.5, 0, 0), (0, 0, 0)), atol=1e-12)
    with pytest.raises(UrdfError, match="float"):
        link_poses(r, {"float": [1, 2, 3]})
    assert parse_urdf_string(write_urdf(r)) == r


@pytest.mark.parametrize("make, where", [
    (lambda o: urdf.Visual(geometry=urdf.Box((1, 1, 1)), origin=o), "<visual>"),
    (lambda o: urdf.Collision(geometry=urdf.Box((1, 1, 1)), origin=o), "<collision>"),
    (lambda o: urdf.Inertial(mass=1.0, origin=o), "<inertial>"),
    (lambda o: urdf.Joint(name="j", type="fixed", parent="a", child="b", origin=o), "joint 'j'"),
])
def test_an_origin_that_is_not_an_origin_is_refused_naming_its_element(make, where):
    make(urdf.Origin((0.1, 0.0, 0.0)))  # a real one is fine
    with pytest.raises(urdf.UrdfError, match=f"{where}.*origin must be an Origin"):
        make(((0.1, 0.0, 0.0), (0.0, 0.0, 0.0)))


@pytest.mark.parametrize("type_", ["fixed", "floating"])
@pytest.mark.parametrize("axis", ['<axis xyz="0 0 0"/>', '<axis xyz="0 0 1"/>', '<axis/>'])
def test_an_axis_on_a_fixed_or_floating_joint_is_ignored_and_never_written(type_, axis):
    """Issue 17: 19 robots of example-robot-data (talos, tiago, icub, go2, ...) were refused
    for ``<axis xyz="0 0 0">`` on a fixed joint; urdfdom ignores a fixed joint's axis."""
    r = parse_urdf_string(robot(LINKS_AB + joint_xml(type_=type_, inner=axis)))
    (j,) = r.joints
    assert j.type == type_ and j.axis == (1.0, 0.0, 0.0)
    text = write_urdf(r)
    assert "<axis" not in text
    assert parse_urdf_string(text).joints[0].type == type_


def test_a_moving_joint_with_a_zero_axis_is_still_refused():
    with pytest.raises(UrdfError, match="joint 'j'.*<axis> xyz is the zero vector"):
        parse_urdf_string(robot(LINKS_AB + joint_xml(inner='<axis xyz="0 0 0"/><limit lower="-1" upper="1"/>')))


def test_a_mimic_naming_a_joint_the_file_lacks_is_a_warning_and_the_joint_moves_alone():
    """Issue 17: alex_psyonic_hands was refused for a <mimic> naming a joint that does not
    exist; urdfdom and Pinocchio load it (the joint moves on its own)."""
    r = parse_urdf_string(robot(LINKS_AB + joint_xml(
        inner='<limit lower="-1" upper="1"/><mimic joint="ghost" multiplier="2"/>')))
    assert r.joints[0].mimic is None
    assert r.warnings == ("joint 'j': <mimic> names joint 'ghost', which the file does not "
                          "have: it moves on its own",)
    with pytest.raises(UrdfError, match="refers to unknown joint 'ghost'"):  # the API is strict
        Robot("r", r.links, (dataclasses.replace(r.joints[0], mimic=Mimic("ghost")),))


def test_a_mimic_on_a_fixed_joint_or_of_a_floating_one_is_a_warning():
    """Issue 17: talos_reduced (four variants) keeps <mimic> on its fixed gripper joints."""
    r = parse_urdf_string(robot(LINKS_AB + '<link name="c"/><link name="d"/>'
                                + joint_xml("f", "floating", inner="")
                                + joint_xml("m", parent="b", child="c", inner='<limit/><mimic joint="f"/>')
                                + joint_xml("x", "fixed", parent="b", child="d",
                                            inner='<limit/><mimic joint="m"/>')))
    assert [j.mimic for j in r.joints] == [None, None, None]
    assert r.warnings == ("joint 'm': <mimic> names joint 'f', which is floating: it moves on its own",
                          "joint 'x': <mimic> is ignored: the joint is fixed")
