"""The MuJoCo model of a URDF robot (issue 30, item 1), Blender-free: every robot of
example-robot-data that vart imports, and every robot that ships in ``assets/``, builds through
MjSpec and compiles (the URDF's own collision boxes, cylinders and spheres as geometry: a
collision mesh file is not read here, and is reported); URDF ``<dynamics>`` become MuJoCo's
linear joint damping and dry friction; floating joints are free joints and planar joints two
slides and a hinge that move their links where the URDF does; what cannot be built is refused
with a PhysicsError naming the robot, the joint or link and the field."""
from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from pinocchio_check import ROBOTS  # noqa: E402
from repo_paths import REPO  # noqa: E402
from vart_addon.formats.urdf import files as urdf  # noqa: E402
from vart_addon.formats.urdf.files import UrdfError, read_urdf  # noqa: E402
from vart_addon.physics.mjcf_export import posed_spec  # noqa: E402
from vart_addon.physics.model import (  # noqa: E402
    FREE_JOINT,
    Closure,
    PhysicsError,
    ball_joints,
    build_spec,
    planar_values,
)
from vart_addon.solver import se3  # noqa: E402

CORPUS = sorted(ROBOTS.rglob("*.urdf")) if ROBOTS.is_dir() else []
ASSETS = sorted((REPO / "assets").glob("*/*.urdf"))


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_every_example_robot_data_robot_builds_and_compiles(path):
    try:
        robot = read_urdf(path)
    except UrdfError:  # vart does not import it (ur3.urdf): nothing to build
        return
    built = build_spec(robot)
    model = built.spec.compile()
    moving = [j for j in robot.joints if j.type != "fixed"]
    assert model.njnt == len(moving) + built.floating
    assert set(built.actuated) == {j.name for j in moving if j.mimic is None}
    assert model.nu == len(built.actuated)
    # a URDF inertial is the body's (unless reported as no rigid body's)
    balanced = {w.split("'")[3] for w in built.warnings if "no rigid body's" in w}
    for link in robot.links:
        if link.inertial is not None and link.inertial.mass > 0:
            # MuJoCo lifts a mass to boundmass (1e-6 kg)
            assert model.body_mass[model.body(link.name).id] == max(link.inertial.mass, 1e-6)
            if link.name not in balanced:
                assert_inertia(model, link)


def assert_inertia(model, link):
    b = model.body(link.name).id
    R = np.zeros(9)
    mujoco.mju_quat2Mat(R, model.body_iquat[b])
    R = R.reshape(3, 3)
    Ro = link.inertial.origin.matrix()[:3, :3]
    want = Ro @ link.inertial.inertia_matrix() @ Ro.T
    got = R @ np.diag(model.body_inertia[b]) @ R.T
    # MuJoCo lifts principal moments to boundinertia (1e-9 kg m^2)
    np.testing.assert_allclose(got, want, atol=2e-9 + 1e-9 * np.abs(want).max(),
                               err_msg=link.name)


def test_the_corpus_builds_all_but_what_vart_refuses():
    built = 0
    for path in CORPUS:
        try:
            robot = read_urdf(path)
        except UrdfError:
            continue
        build_spec(robot).spec.compile()
        built += 1
    assert len(CORPUS) == 69 and built == 68  # ur3.urdf is no URDF (see test_urdf_corpus)


@pytest.mark.parametrize("path", ASSETS, ids=lambda p: p.parent.name)
def test_every_shipped_robot_builds_and_compiles(path):
    robot = read_urdf(path)
    built = build_spec(robot)
    model = built.spec.compile()
    assert model.nu == len(built.actuated) > 0
    floating = [j.name for j in robot.joints if j.type == "floating"]
    assert sorted(built.free) == sorted(floating + [FREE_JOINT])  # stewart: the platform


def test_dynamics_are_mujoco_damping_and_frictionloss():
    robot = arm(dynamics=urdf.Dynamics(damping=0.7, friction=0.3))
    model = build_spec(robot).spec.compile()
    dof = model.jnt_dofadr[model.joint("elbow").id]
    assert model.dof_damping[dof] == 0.7 and model.dof_frictionloss[dof] == 0.3


@pytest.mark.parametrize("field, dynamics, limit", [
    ("<dynamics> damping", urdf.Dynamics(damping=-0.1), None),
    ("<dynamics> friction", urdf.Dynamics(friction=-2.0), None),
    ("<limit> effort", None, urdf.Limit(-1.0, 1.0, -5.0, 1.0)),
])
def test_an_unbuildable_joint_is_refused_naming_robot_joint_and_field(field, dynamics, limit):
    with pytest.raises(PhysicsError) as e:
        build_spec(arm(dynamics=dynamics, limit=limit))
    assert str(e.value).startswith(f"robot 'arm', joint 'elbow', {field}: ")


def test_an_inertia_no_body_has_is_balanced_or_refused():
    bad = urdf.Inertial(mass=1.0, inertia=(0.01, 0, 0, 0.01, 0, 0.05))  # 0.01 + 0.01 < 0.05
    robot = arm(inertial=bad)
    built = build_spec(robot)
    model = built.spec.compile()
    assert model.body_inertia[model.body("fore").id] == pytest.approx([0.07 / 3] * 3)
    assert any("link 'fore', <inertial> inertia" in w for w in built.warnings)
    with pytest.raises(PhysicsError, match=r"robot 'arm', link 'fore', <inertial> inertia"):
        build_spec(arm(inertial=urdf.Inertial(mass=1.0, inertia=(-0.1, 0, 0, 0.01, 0, 0.01))))


def arm(*, dynamics=None, limit=None, inertial=None) -> urdf.Robot:
    """A free ``base``, ``elbow`` (revolute) to ``fore`` (its inertial ``inertial``)."""
    good = urdf.Inertial(mass=1.0, inertia=(1e-2, 0, 0, 1e-2, 0, 1e-2))
    links = (urdf.Link("base", inertial=good), urdf.Link("fore", inertial=inertial or good))
    elbow = urdf.Joint("elbow", "revolute", "base", "fore", origin=urdf.Origin((0.3, 0, 0)),
                       axis=(0, 0, 1), limit=limit or urdf.Limit(-1.0, 1.0, 10.0, 1.0),
                       dynamics=dynamics)
    return urdf.Robot("arm", links, (elbow,))


def chain() -> urdf.Robot:
    """Fixed to the world: ``lift`` (revolute), a ``floating`` joint to ``drone``, then
    ``tilt`` (revolute) and ``glide``, a planar joint about a tilted normal, to ``puck``."""
    inertial = urdf.Inertial(mass=1.0, origin=urdf.Origin((0.05, 0.02, 0)),
                             inertia=(1e-2, 0, 0, 2e-2, 0, 2.5e-2))
    links = (urdf.Link("world"),) + tuple(urdf.Link(n, inertial=inertial)
                                          for n in ("mast", "drone", "wing", "puck"))
    joints = (
        urdf.Joint("lift", "revolute", "world", "mast", origin=urdf.Origin((0, 0, 0.5)),
                   axis=(0, 1, 0), limit=urdf.Limit(-2, 2, 50, 1)),
        urdf.Joint("hover", "floating", "mast", "drone",
                   origin=urdf.Origin((0.2, 0, 0.4), (0.1, 0.2, 0.3))),
        urdf.Joint("tilt", "revolute", "drone", "wing", origin=urdf.Origin((0, 0.3, 0)),
                   axis=(1, 0, 0), limit=urdf.Limit(-2, 2, 10, 1)),
        urdf.Joint("glide", "planar", "wing", "puck", origin=urdf.Origin((0.1, 0, 0), (0, 0.4, 0)),
                   axis=(0.0, 0.6, 0.8)),
    )
    return urdf.Robot("chain", links, joints)


def random_values(rng) -> dict:
    n = np.array([0.0, 0.6, 0.8])
    R = se3.so3_exp(n * rng.uniform(-3, 3))
    p = np.cross(n, rng.normal(size=3))  # in the plane
    return {"lift": rng.uniform(-1, 1), "tilt": rng.uniform(-1, 1),
            "hover": se3.make_pose(se3.so3_exp(rng.normal(size=3)), rng.normal(size=3)),
            "glide": se3.make_pose(R, p)}


def qpos_of(model, robot, q, poses) -> np.ndarray:
    """MuJoCo's qpos for URDF values ``q``: hinges as they are, the free joint the drone's
    world pose, the planar joint's three values."""
    qpos = model.qpos0.copy()
    for name in ("lift", "tilt"):
        qpos[model.jnt_qposadr[model.joint(name).id]] = q[name]
    a = model.jnt_qposadr[model.joint("hover").id]
    qpos[a:a + 3], qpos[a + 3:a + 7] = poses["drone"][:3, 3], se3.rot_to_quat(
        poses["drone"][:3, :3])
    glide = robot.joint_by_name("glide")
    for suffix, v in zip(("__x", "__y", "__r"), planar_values(glide, q["glide"])):
        qpos[model.jnt_qposadr[model.joint("glide" + suffix).id]] = v
    return qpos


@pytest.mark.parametrize("posed", [False, True], ids=["built", "posed"])
def test_floating_and_planar_joints_move_their_links_as_the_urdf(posed):
    robot = chain()
    rng = np.random.default_rng(zlib.crc32(b"floating and planar"))
    q0 = random_values(rng)
    built = posed_spec(robot, q0) if posed else build_spec(robot)
    model = built.spec.compile()
    assert built.free == {"hover": "drone"} and not built.floating
    assert built.planar == {"glide": ("glide__x", "glide__y", "glide__r")}
    assert model.nu == 2  # lift and tilt; the free and planar joints are passive
    data = mujoco.MjData(model)
    for q in ([q0] if posed else []) + [random_values(rng) for _ in range(3)]:
        poses = urdf.link_poses(robot, q)
        data.qpos[:] = qpos_of(model, robot, q, poses)
        mujoco.mj_kinematics(model, data)
        for name, T in poses.items():
            if name != "world":
                b = model.body(name).id
                got = se3.make_pose(data.xmat[b].reshape(3, 3), data.xpos[b])
                np.testing.assert_allclose(got, T, atol=1e-9, err_msg=name)
    if posed:  # qpos0 is q0
        np.testing.assert_allclose(model.qpos0, qpos_of(model, robot, q0, urdf.link_poses(
            robot, q0)), atol=1e-12)


def test_planar_values_read_a_motion_back():
    glide = chain().joint_by_name("glide")
    n = np.asarray(glide.axis)
    u = np.cross(n, [1.0, 0, 0])
    u /= np.linalg.norm(u)
    M = se3.make_pose(se3.so3_exp(n * 2.5), 0.3 * u)
    x, y, r = planar_values(glide, M)
    assert r == pytest.approx(2.5) and math.hypot(x, y) == pytest.approx(0.3)


def test_a_spherical_closure_on_a_floating_child_is_a_ball_joint():
    """The URDF export writes a real spherical tree joint as a floating joint of its child
    from the root; with the spherical joint as a closure, MuJoCo gets a ball joint at the
    closure's anchor, the child under the closure's parent; a closure whose parent hangs below
    its child stays a free body and a connect."""
    robot = chain()
    anchor = np.eye(4)
    anchor[:3, 3] = (0.0, 0.0, 0.1)  # in the drone's frame
    T = urdf.link_poses(robot, {})
    joint = Closure("ball", "spherical", "mast", "drone",
                    se3.inverse(T["mast"]) @ T["drone"] @ anchor, anchor)
    built = build_spec(robot, closures=[joint])
    model = built.spec.compile()
    assert built.balls == {"ball": "drone"} and built.free == {} and model.neq == 0
    b = model.body("drone").id
    assert model.body_parentid[b] == model.body("mast").id
    assert model.jnt_type[model.joint("ball").id] == mujoco.mjtJoint.mjJNT_BALL
    np.testing.assert_allclose(model.jnt_pos[model.joint("ball").id], [0, 0, 0.1])
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    np.testing.assert_allclose(data.xpos[b], T["drone"][:3, 3], atol=1e-12)
    # turned about the ball, the anchor stays where the mast has it
    data.qpos[model.jnt_qposadr[model.joint("ball").id]:][:4] = se3.rot_to_quat(
        se3.so3_exp(np.array([0.3, -0.2, 0.5])))
    mujoco.mj_kinematics(model, data)
    np.testing.assert_allclose(data.xpos[b] + data.xmat[b].reshape(3, 3) @ [0, 0, 0.1],
                               (T["drone"] @ anchor)[:3, 3], atol=1e-12)
    loop = Closure("loop", "spherical", "puck", "drone", np.eye(4), np.eye(4))
    assert ball_joints(robot, [loop]) == {}  # the puck hangs below the drone
