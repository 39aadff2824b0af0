"""The statics of a pose (issue 30, item 2) against independent answers: Pinocchio's gravity
torques and contact Jacobians on real robots (example-robot-data's go2 and talos), a pendulum,
a four-bar by virtual work, a table on three legs by the lever rule, a quadruped with its
centre of mass outside its feet, a block on a slope against its friction cone, and mimic
couplings. Blender-free."""
from __future__ import annotations

import math

import numpy as np
import pytest

from pinocchio_check import ROBOTS, random_free_values
from vart_addon.formats.urdf import files as urdf
from vart_addon.formats.urdf.to_linkage import linkage_from_urdf
from vart_addon.physics.static_model import PASSIVE, StaticModel
from vart_addon.physics.statics import BALANCE_TOL, Contact, solve_pose
from vart_addon.physics.support import FACETS
from vart_addon.solver import Linkage, se3

G = 9.81
UP = np.array([0.0, 0.0, 1.0])
#: The statics' own accuracy: the QP stops at a relative residual of 1e-9 (physics/qp.py);
#: a figure of the scale of the robot's weight times a metre is that exact, relative.
REL = 1e-7


def motor_torques(model, st) -> dict:
    return {model.dofs[d].joint: float(st.torque[k]) for k, d in enumerate(model.motors)}


# ---- Pinocchio on real robots ------------------------------------------------------------
def _pinocchio(path, robot, free, T_base):
    pin = pytest.importorskip("pinocchio")
    model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    data = model.createData()
    q = pin.neutral(model)
    q[:3] = T_base[:3, 3]
    q[3:7] = pin.Quaternion(T_base[:3, :3]).coeffs()
    values = urdf.joint_values(robot, free)
    for name, v in values.items():
        if v is None or not model.existJointName(name):
            continue
        jm = model.joints[model.getJointId(name)]
        if jm.nq == 2:
            q[jm.idx_q:jm.idx_q + 2] = [math.cos(v), math.sin(v)]
        elif jm.nq == 1:
            q[jm.idx_q] = v
    return pin, model, data, q


ROBOT_FILES = {"go2": "go2_description/urdf/go2.urdf",
               "talos": "talos_data/robots/talos_reduced.urdf"}
FEET = {"go2": ["FL_foot", "FR_foot", "RL_foot", "RR_foot"],
        "talos": ["left_sole_link", "right_sole_link"]}


@pytest.fixture(scope="module", params=sorted(ROBOT_FILES))
def real_robot(request):
    path = ROBOTS / ROBOT_FILES[request.param]
    return request.param, path, urdf.read_urdf(str(path))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gravity_torques_are_pinocchios(real_robot, seed):
    name, path, robot = real_robot
    rng = np.random.default_rng(seed)
    free = random_free_values(robot, rng)
    T_base = se3.make_pose(se3.so3_exp(rng.normal(size=3) * 0.3), rng.normal(size=3))
    lk, _ = linkage_from_urdf(robot, free, base_pose=T_base)
    pin, model, data, q = _pinocchio(path, robot, free, T_base)
    g = pin.computeGeneralizedGravity(model, data, q)
    sm = StaticModel(lk)
    terms = sm.frame(lk.poses())
    scale = sm.weight * 1.0
    for d in sm.motors:
        joint = sm.dofs[d].joint
        idx = model.joints[model.getJointId(joint)].idx_v
        assert -terms.gravity[d] == pytest.approx(g[idx], abs=REL * scale), joint


def test_contact_forces_balance_the_robot_as_pinocchio_computes_it(real_robot):
    """tau = g(q) - sum J_c^T f_c with Pinocchio's g and contact Jacobians: zero on the
    floating base, the statics' torques on the joints. At the robot's zero configuration
    (clamped into the limits), standing on its feet."""
    name, path, robot = real_robot
    lk, _ = linkage_from_urdf(robot)
    free = {n: float(j.q[0]) for n, j in lk.joints.items() if j.dof == 1 and not j.virtual}
    poses = lk.poses()
    sm = StaticModel(lk, {j.name: j.limit.effort for j in robot.joints if j.limit})
    # the feet's origins, each a contact (a sole's four corners for the humanoid)
    contacts = []
    for foot in FEET[name]:
        T = poses[foot]
        corners = [(0, 0, 0)] if name == "go2" else [(x, y, 0) for x in (-0.08, 0.1)
                                                     for y in (-0.06, 0.06)]
        for c in corners:
            contacts.append(Contact(foot, foot, (T @ np.r_[c, 1.0])[:3], UP, 0.8,
                                    np.array(c, float)))
    st = solve_pose(sm, poses, contacts)
    assert st.balanced and st.margin > 0
    pin, model, data, q = _pinocchio(path, robot, free, poses[robot.root_link])
    g = pin.computeGeneralizedGravity(model, data, q)
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    tau = g.copy()
    for c, f in zip(contacts, st.force):
        fid = model.getFrameId(c.link, pin.BODY)
        J = pin.getFrameJacobian(model, data, fid, pin.LOCAL_WORLD_ALIGNED)
        lever = poses[c.link][:3, :3] @ c.local
        Jp = J[:3] - se3.hat(lever) @ J[3:]  # the contact point's velocity
        tau -= Jp.T @ f
    scale = sm.weight
    assert np.abs(tau[:6]).max() <= REL * scale
    ours = motor_torques(sm, st)
    for joint, t in ours.items():
        idx = model.joints[model.getJointId(joint)].idx_v
        assert t == pytest.approx(tau[idx], abs=REL * scale), joint
    # every contact force inside its cone, the normal ones pushing
    assert (st.normal >= -REL * scale).all()
    assert (st.tangential <= 0.8 * st.normal + REL * scale).all()


# ---- known answers -------------------------------------------------------------------------
def pendulum(q: float, mass=2.0, length=0.7):
    """A bob on a massless arm about a horizontal axis (world y) through the origin, fixed
    to the ground by a real revolute joint; q = 0 hangs straight down."""
    lk = Linkage()
    lk.add_link("arm", mass=mass, com=(0.0, 0.0, -length))
    R = se3.so3_exp(np.array([-math.pi / 2, 0.0, 0.0]))  # joint z along world y
    lk.add_joint("hinge", "revolute", None, "arm", world_frame=se3.make_pose(R, None))
    lk.joint("hinge").q = np.array([q])
    return lk


@pytest.mark.parametrize("q", [0.0, 0.4, -1.1, 2.0, math.pi / 2])
def test_a_pendulum_needs_m_g_l_sin_q(q):
    mass, length = 2.0, 0.7
    lk = pendulum(q, mass, length)
    sm = StaticModel(lk, {"hinge": 50.0})
    assert sm.grounded and [sm.dofs[d].joint for d in sm.motors] == ["hinge"]
    st = solve_pose(sm, lk.poses())
    assert st.balanced
    # joint z along world y, a bob at -l z: gravity pulls it back toward q = 0
    assert st.torque[0] == pytest.approx(mass * G * length * math.sin(q), abs=1e-9)
    assert st.ratio[0] == pytest.approx(abs(st.torque[0]) / 50.0)


def table(com_xy=(0.1, 0.05), mass=20.0, mu=0.6):
    """A rigid table top (floating) on three legs' feet at known points."""
    lk = Linkage()
    lk.add_link("top", pose=se3.make_pose(None, (0, 0, 0.7)), mass=mass,
                com=(com_xy[0], com_xy[1], 0.0))
    feet = np.array([[0.5, 0.0, 0.0], [-0.4, 0.45, 0.0], [-0.4, -0.45, 0.0]])
    contacts = [Contact(f"leg{i}", "top", p, UP, mu, p - (0, 0, 0.7))
                for i, p in enumerate(feet)]
    return lk, contacts, feet


def test_a_table_on_three_legs_carries_what_the_lever_rule_says():
    mass = 20.0
    lk, contacts, feet = table((0.1, 0.05), mass)
    sm = StaticModel(lk)
    st = solve_pose(sm, lk.poses(), contacts)
    assert st.balanced and len(sm.motors) == 0 and len(sm.passive) == 6
    # three vertical forces: sum = m g, moments about the centre of mass vanish
    A = np.vstack([np.ones(3), feet[:, 0] - 0.1, feet[:, 1] - 0.05])
    expected = np.linalg.solve(A, [mass * G, 0.0, 0.0])
    np.testing.assert_allclose(st.normal, expected, atol=REL * mass * G)
    # friction is statically indeterminate: what balance asks is that it cancels, in its cones
    np.testing.assert_allclose(st.force[:, :2].sum(axis=0), 0.0, atol=REL * mass * G)
    assert (st.friction_use <= 1.0 + 1e-9).all()
    assert st.margin > 0


def test_a_centre_of_mass_outside_the_feet_is_not_balanced_by_how_far():
    lk, contacts, feet = table((0.8, 0.0))  # beyond the leg at x = 0.5
    st = solve_pose(StaticModel(lk), lk.poses(), contacts)
    assert not st.balanced
    assert st.margin == pytest.approx(-0.3)
    # what the contacts cannot give: at least the moment of the weight about the edge
    assert st.unsupported_moment > 0.2 * 20.0 * G
    assert st.normal.min() >= -1e-6


@pytest.mark.parametrize("slope, holds", [(0.5, True), (0.9 * math.cos(math.pi / FACETS), True),
                                          (1.05, False)])
def test_a_block_on_a_slope_holds_inside_its_friction_cone(slope, holds):
    """tan(slope angle) / mu: within the pyramid inscribed in the cone it holds."""
    mu = 0.7
    lk = Linkage()
    lk.add_link("block", mass=3.0, com=(0, 0, 0.05))
    angle = math.atan(slope * mu)
    n = np.array([math.sin(angle), 0.0, math.cos(angle)])
    t = np.cross([0, 1, 0], n)
    corners = [0.1 * (a * t + b * np.array([0, 1, 0])) for a in (-1, 1) for b in (-1, 1)]
    # the pyramid's edge along the slope: its worst direction is between edges
    contacts = [Contact("slope", "block", c, n, mu, c) for c in corners]
    st = solve_pose(StaticModel(lk), lk.poses(), contacts)
    assert st.balanced == holds
    if holds:
        assert st.friction_use.max() <= 1.0 + 1e-9


def test_a_quadruped_on_three_feet_with_its_centre_of_mass_outside_them():
    """go2 standing, one foot lifted: the centre of mass lies outside the other three (a
    known answer: the support triangle's edge), so no contact forces hold it."""
    path = ROBOTS / ROBOT_FILES["go2"]
    robot = urdf.read_urdf(str(path))
    lk, _ = linkage_from_urdf(robot, {})
    poses = lk.poses()
    sm = StaticModel(lk, {j.name: j.limit.effort for j in robot.joints if j.limit})
    feet = {f: poses[f][:3, 3] for f in FEET["go2"]}
    four = [Contact(f, f, p, UP, 0.8, np.zeros(3)) for f, p in feet.items()]
    st4 = solve_pose(sm, poses, four)
    assert st4.balanced and st4.margin > 0
    com = st4.com
    for lifted in FEET["go2"]:
        three = [c for c in four if c.name != lifted]
        st3 = solve_pose(sm, poses, three)
        tri = np.array([c.point[:2] for c in three])
        # signed distance to the triangle by hand
        edges = [(tri[i], tri[(i + 1) % 3]) for i in range(3)]
        def cross(u, v):  # z of the 2-D cross product (numpy 2 deprecates 2-D np.cross)
            return u[0] * v[1] - u[1] * v[0]
        inside = all(cross(b - a, com[:2] - a) * cross(b - a, tri[(i + 2) % 3] - a) > 0
                     for i, (a, b) in enumerate(edges))
        assert st3.balanced == inside
        if not inside:
            assert st3.margin < 0


# ---- closed loops, mimics, passive joints --------------------------------------------------
def four_bar(theta: float):
    """A crank-rocker four-bar in the world x-z plane (pivots A = (0, 0), D = (0.8, 0);
    crank 0.3, coupler 0.9, rocker 0.6; revolute axes along world y), at crank angle
    ``theta`` (from x, toward z), posed by circle intersection; its links' masses at their
    middles. Returns (linkage, positions of B and C)."""
    a, b, c, d = 0.3, 0.9, 0.6, 0.8
    A, D = np.array([0.0, 0.0]), np.array([d, 0.0])
    B = A + a * np.array([math.cos(theta), math.sin(theta)])
    e = D - B
    L = np.linalg.norm(e)
    x = (b * b - c * c + L * L) / (2 * L)
    h = math.sqrt(b * b - x * x)
    C = B + x * e / L + h * np.array([-e[1], e[0]]) / L
    R = se3.so3_exp(np.array([-math.pi / 2, 0.0, 0.0]))  # joint z along world y

    def pose(p, q):  # a link frame at p, its x toward q (in the x-z plane)
        u = (q - p) / np.linalg.norm(q - p)
        Rl = np.array([[u[0], 0, -u[1]], [0, 1, 0], [u[1], 0, u[0]]])
        return se3.make_pose(Rl, (p[0], 0.0, p[1]))

    def at(p):
        return se3.make_pose(R, (p[0], 0.0, p[1]))

    lk = Linkage()
    for name, p, q, m, l in (("crank", A, B, 1.0, a), ("coupler", B, C, 2.0, b),
                             ("rocker", D, C, 1.5, c)):
        lk.add_link(name, pose=pose(p, q), mass=m, com=(l / 2, 0, 0))
    lk.add_joint("A", "revolute", None, "crank", world_frame=at(A))
    lk.add_joint("B", "revolute", "crank", "coupler", world_frame=at(B))
    lk.add_joint("D", "revolute", None, "rocker", world_frame=at(D))
    lk.add_joint("C", "revolute", "coupler", "rocker", world_frame=at(C), tree=False)
    return lk, (B, C)


def _potential(theta):
    lk, _ = four_bar(theta)
    poses = lk.poses()
    return sum(G * l.mass * (poses[n] @ np.r_[l.com, 1.0])[2] for n, l in lk.links.items())


@pytest.mark.parametrize("theta", [0.3, 1.2, 2.5, -0.8])
def test_a_four_bar_crank_holds_it_with_the_torque_virtual_work_gives(theta):
    lk, _ = four_bar(theta)
    sm = StaticModel(lk, {"A": 100.0}, passive={"B", "D"})
    assert [b[0] for b in sm.bonds] == ["C"]
    assert [sm.dofs[d].mode for d in range(len(sm.dofs))].count(PASSIVE) == 2
    st = solve_pose(sm, lk.poses())
    assert st.balanced
    h = 1e-6
    dV = (_potential(theta + h) - _potential(theta - h)) / (2 * h)
    # the crank's motor holds the potential's slope (the crank turns about -y: sign)
    assert abs(st.torque[0]) == pytest.approx(abs(dV), rel=1e-6, abs=1e-9)


def test_a_mimic_leader_supplies_its_followers_torque():
    """Two pendulums on one axis, the second mimicking the first (multiplier 2): the
    leader's motor holds both (virtual work: tau_1 + 2 tau_2)."""
    lk = Linkage()
    R = se3.so3_exp(np.array([-math.pi / 2, 0.0, 0.0]))
    for name, l in (("a", 0.5), ("b", 0.3)):
        lk.add_link(name, mass=1.0, com=(0, 0, -l))
        lk.add_joint(f"j{name}", "revolute", None, name, world_frame=se3.make_pose(R, None))
    lk.joint("ja").q = np.array([0.3])
    lk.joint("jb").q = np.array([0.6])
    lk.set_mimic("jb", "ja", 2.0, 0.0)
    sm = StaticModel(lk, {"ja": 10.0})
    st = solve_pose(sm, lk.poses())
    assert [sm.dofs[d].joint for d in sm.motors] == ["ja"]
    expected = G * 0.5 * math.sin(0.3) + 2.0 * G * 0.3 * math.sin(0.6)
    assert st.torque[0] == pytest.approx(expected, abs=1e-9)


def test_known_torques_are_held_and_an_impossible_one_is_unbalanced():
    """A pendulum whose joint is a spring giving a known torque: the torque gravity needs
    balances; another does not, by the difference."""
    q, mass, length = 0.5, 2.0, 0.7
    lk = pendulum(q, mass, length)
    sm = StaticModel(lk)
    need = mass * G * length * math.sin(q)
    st = solve_pose(sm, lk.poses(), known={"hinge": need})
    assert st.balanced
    st = solve_pose(sm, lk.poses(), known={"hinge": need - 1.0})
    assert not st.balanced and st.unsupported_moment == pytest.approx(1.0, abs=1e-6)


def test_balance_tolerance_is_a_share_of_the_weight():
    assert 0 < BALANCE_TOL < 1e-3
