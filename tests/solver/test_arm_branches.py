"""An arm's IK branches (solver/arm_branches.py), its solutions for a pose
(solver/arm_solutions.py) and Keep Configuration (solver/keep_configuration.py): on UR5 and
Panda from example-robot-data and on a 6-axis arm with a spherical wrist built here. The
Keep Configuration Jacobians are checked against finite differences in
test_group_jacobians.py."""
import math

import numpy as np
import pytest

from pinocchio_check import ROBOTS
from vart_addon.formats.urdf.to_linkage import linkage_from_urdf
from vart_addon.solver import Linkage, Solver, VartError, se3
from vart_addon.solver import arm_branches as AB
from vart_addon.solver.arm_solutions import MIN_DISTANCE, arm_linkage, find_solutions, pose_arm
from vart_addon.solver.keep_configuration import KeepConfigurationBatch

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

UR5 = ROBOTS / "ur_description" / "urdf" / "ur5_robot.urdf"
PANDA = ROBOTS / "panda_description" / "urdf" / "panda.urdf"
needs_robots = pytest.mark.skipif(not UR5.is_file(), reason="example-robot-data")
UR5_Q = [0.3, -1.2, 1.5, -0.8, 1.1, 0.4]  # a generic configuration (no joint near 0 or pi)
PANDA_Q = [0.3, -0.5, 0.2, -2.0, 0.3, 1.5, 0.5]
#: How far a solution's pose may lie from the pose asked for: the solver converges to
#: ``tol`` (1e-9) on its error rows (m, rad); the copy's forward kinematics and the
#: linkage's differ by rounding.
REACHED = 1e-8


def posed(path, tool, q, fixed_base=False):
    """``(linkage, tool)``: a URDF robot with its arm at ``q``."""
    lk = linkage_from_urdf(path, fixed_base=fixed_base)[0]
    for j, v in zip(AB.arm_joints(lk, tool), q):
        lk.set_q(j.name, [v])
    return lk, tool


def ur5(q=UR5_Q):
    return posed(UR5, "tool0", q)


def spherical_wrist_arm(q=(0.4, 0.5, 0.9, 0.3, 0.8, -0.2)):
    """A 6-axis arm: base yaw (z), shoulder and elbow pitch (y; upper arm 0.5 m, forearm 0.4
    m, straight up at zero) and a spherical wrist (z, y, z through one point), its tool
    0.1 m beyond the wrist, at ``q``."""
    lk = Linkage()
    y = se3.so3_exp([-math.pi / 2, 0, 0])  # z along +y
    axes = [(None, 0.0), (y, 0.3), (y, 0.8), (None, 1.2), (y, 1.2), (None, 1.2)]
    parent = None
    for i, (R, z) in enumerate(axes):
        lk.add_link(f"l{i + 1}", pose=se3.make_pose(None, [0, 0, z]))
        lk.add_joint(f"j{i + 1}", "revolute", parent, f"l{i + 1}",
                     world_frame=se3.make_pose(R, [0, 0, z]))
        parent = f"l{i + 1}"
    lk.add_link("tool", pose=se3.make_pose(None, [0, 0, 1.3]))
    lk.add_joint("flange", "fixed", parent, "tool", world_frame=se3.make_pose(None, [0, 0, 1.3]))
    for i, v in enumerate(q):
        lk.set_q(f"j{i + 1}", [v])
    return lk


def pose_error(lk, tool, q, T) -> float:
    """The largest position (m) or rotation (rad) error of ``tool`` at arm values ``q``."""
    arm = AB.arm_of(lk, tool)
    m = lk.model()
    P = m.fk(arm.full_q(m, q))[arm.tool]
    return max(float(np.abs(P[:3, 3] - T[:3, 3]).max()),
               float(np.abs(se3.so3_log(T[:3, :3].T @ P[:3, :3])).max()))


def check_solutions(lk, tool, T, sols):
    """Every solution reaches ``T`` within :data:`REACHED`, lies within its joints' limits,
    and is its own: no two of one branch nearer than the minimum distance."""
    joints = AB.arm_joints(lk, tool)
    for s in sols:
        assert s.joints == tuple(j.name for j in joints)
        assert pose_error(lk, tool, s.q, T) < REACHED
        assert all(j.lower[0] <= v <= j.upper[0] for j, v in zip(joints, s.q))
        assert s.branch == AB.branch_of(lk, tool, s.q)
    for i, a in enumerate(sols):
        for b in sols[:i]:
            wrapped = np.mod(a.q - b.q + np.pi, 2 * np.pi) - np.pi
            assert a.branch != b.branch or np.linalg.norm(wrapped) >= MIN_DISTANCE


# ---- the arm and its sign quantities ----------------------------------------------------------
@needs_robots
def test_ur5s_arm_and_its_shoulder_elbow_and_wrist():
    lk, tool = ur5()
    arm = AB.arm_of(lk, tool)
    assert arm.names == ("shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint",
                         "wrist_1_joint", "wrist_2_joint", "wrist_3_joint")
    assert arm.kinds == ("shoulder", "elbow", "wrist")
    assert [arm.names[i] for i in arm.signs] == ["elbow_joint", "wrist_2_joint"]
    assert AB.branch_of(lk, tool) == (-1, 1, 1)
    assert AB.label(lk, tool, (-1, 1, 1)) == "shoulder L, elbow up, wrist +"
    # at zero UR5 stands stretched out with its wrist singular: both sines are 0
    zero = AB.branch_of(lk, tool, [0.0] * 6)
    assert zero[1:] == (0, 0)
    assert AB.label(lk, tool, zero, [0.0] * 6).endswith("elbow straight, wrist singular")
    assert AB.manipulability(lk, tool, [0.0] * 6) == pytest.approx(0.0, abs=1e-12)


def test_a_spherical_wrist_arm_has_the_same_three_quantities():
    lk = spherical_wrist_arm()
    arm = AB.arm_of(lk, "tool")
    assert arm.kinds == ("shoulder", "elbow", "wrist")
    assert [arm.names[i] for i in arm.signs] == ["j3", "j5"]
    # its wrist centre is where the wrist's axes meet, 0.1 m behind the tool
    assert np.allclose(AB.world_point(lk.model().world_poses(lk.model().q_from_joints()),
                                      arm.shoulder.wrist),
                       lk.pose("tool")[:3, :3] @ [0, 0, -0.1] + lk.pose("tool")[:3, 3])


@needs_robots
def test_panda_is_told_apart_by_its_shoulder_alone():
    lk, tool = posed(PANDA, "panda_hand_tcp", PANDA_Q, fixed_base=True)
    arm = AB.arm_of(lk, tool)
    assert len(arm.names) == 7 and arm.kinds == ("shoulder",)
    assert AB.label(lk, tool, AB.branch_of(lk, tool)) in ("shoulder L", "shoulder R")


@needs_robots
def test_manipulability_is_yoshikawas_of_the_tools_pose_jacobian():
    """sqrt(det(J J^T)) of the tool's Jacobian by central differences of its pose."""
    lk, tool = ur5()
    arm = AB.arm_of(lk, tool)
    m = lk.model()
    q0 = np.array(UR5_Q)
    T0 = m.fk(arm.full_q(m, q0))[arm.tool]
    J = np.empty((6, 6))
    h = 1e-6
    for k in range(6):
        d = np.zeros(6)
        d[k] = h
        Tp, Tm = (m.fk(arm.full_q(m, q0 + s * d))[arm.tool] for s in (1, -1))
        J[:3, k] = (Tp[:3, 3] - Tm[:3, 3]) / (2 * h)
        J[3:, k] = T0[:3, :3] @ se3.so3_log(Tm[:3, :3].T @ Tp[:3, :3]) / (2 * h)
    assert AB.manipulability(lk, tool, q0) == pytest.approx(
        math.sqrt(np.linalg.det(J @ J.T)), rel=1e-6)


def test_a_link_without_an_arm_is_refused_by_name():
    lk = Linkage()
    lk.add_link("box")
    with pytest.raises(VartError, match="link 'box' has no arm"):
        AB.arm_joints(lk, "box")
    with pytest.raises(VartError, match="link 'box' has no arm"):
        find_solutions(lk, "box", np.eye(4))
    with pytest.raises(VartError, match="'nope' does not exist"):
        AB.branch_of(lk, "nope")


# ---- solutions of a pose ----------------------------------------------------------------------
@needs_robots
def test_ur5_at_a_generic_pose_has_eight_branches_and_the_linkage_is_unchanged(vh):
    lk, tool = ur5()
    lk.set_goal("keep_configuration", tool, {})  # its goals do not hold the search back
    lk.lock_joint("wrist_3_joint")
    before = vh.snapshot(lk), lk.goal("keep_configuration", tool)
    versions = lk.topology_version, lk.goals_version, lk.values_version
    T = lk.pose(tool)
    sols = find_solutions(lk, tool, T)
    assert len({s.branch for s in sols}) == 8 == len(sols)
    check_solutions(lk, tool, T, sols)
    # the configuration it had first, then its branch, then by distance
    assert np.allclose(sols[0].q, UR5_Q) and sols[0].distance == pytest.approx(0.0, abs=1e-9)
    assert [s.distance for s in sols[1:]] == sorted(s.distance for s in sols[1:])
    assert len({s.label for s in sols}) == 8
    after = vh.snapshot(lk), lk.goal("keep_configuration", tool)
    assert str(after) == str(before)
    assert (lk.topology_version, lk.goals_version, lk.values_version) == versions


def test_a_spherical_wrist_arm_has_both_elbows_on_each_shoulder(vh):
    lk = spherical_wrist_arm()
    T = lk.pose("tool")
    sols = find_solutions(lk, "tool", T)
    check_solutions(lk, "tool", T, sols)
    branches = {s.branch for s in sols}
    assert len(branches) == 8
    for shoulder in (-1, 1):
        labels = {s.label.split(", ")[1] for s in sols if s.branch[0] == shoulder}
        assert labels == {"elbow up", "elbow down"}


@needs_robots
def test_panda_has_several_solutions_each_reaching_the_pose(vh):
    lk, tool = posed(PANDA, "panda_hand_tcp", PANDA_Q, fixed_base=True)
    before = vh.snapshot(lk)
    T = lk.pose(tool)
    sols = find_solutions(lk, tool, T)
    assert len(sols) >= 4 and {s.branch for s in sols} == {(-1,), (1,)}
    check_solutions(lk, tool, T, sols)
    assert vh.snapshot(lk) == before


@needs_robots
def test_a_pose_out_of_reach_has_no_solution():
    lk, tool = ur5()
    T = lk.pose(tool)
    T[:3, 3] = [2.0, 0.0, 0.5]  # UR5 reaches 0.85 m
    assert find_solutions(lk, tool, T, starts=8) == []


def test_the_arm_alone_copies_its_chain_with_edges_run_backward(vh):
    """A chain grounded at its far end (its tree edges run from child to parent): the copy
    of the arm of its first link has its joints the other way round, values negated, and
    gives the same poses."""
    lk = spherical_wrist_arm()
    lk.make_ground_link("tool")
    joints = AB.arm_joints(lk, "l1")
    assert [j.name for j in joints] == ["j6", "j5", "j4", "j3", "j2"]
    copy, sign = arm_linkage(lk, "l1")
    assert sign.tolist() == [-1.0] * 5
    for j, s in zip(joints, sign):
        assert copy.joint(j.name).q[0] == pytest.approx(s * j.q[0])
    for name in ("l1", "l3", "l6"):
        np.testing.assert_allclose(copy.pose(name), lk.pose(name), atol=1e-12)
    sols = find_solutions(lk, "l1", lk.pose("l1"), starts=8)
    check_solutions(lk, "l1", lk.pose("l1"), sols)


@needs_robots
def test_bad_input_is_refused_and_changes_nothing(vh):
    lk, tool = ur5()
    before = vh.snapshot(lk)
    with pytest.raises(VartError, match="link 'tool0': pose to reach"):
        find_solutions(lk, tool, np.zeros((4, 4)))
    assert vh.snapshot(lk) == before


# ---- Keep Configuration -----------------------------------------------------------------------
def drag(lk, tool, path, keep: bool):
    """Drag ``tool`` through the poses of the arm values ``path``: per frame, the branch
    and whether the target was met."""
    arm = AB.arm_of(lk, tool)
    m = lk.model()
    poses = [m.fk(arm.full_q(m, q))[arm.tool] for q in path]
    if keep:
        lk.set_goal("keep_configuration", tool, {})
    solver = Solver(lk)
    out = []
    for T in poses:
        lk.set_link_target(tool, T)
        st = solver.solve()
        assert not st.stuck and st.level("limit").satisfied
        out.append((AB.branch_of(lk, tool), f"target of root joint of link {tool!r}"
                    not in st.unmet))
    return out


@needs_robots
def test_a_drag_through_the_wrist_singularity_flips_it_unless_the_configuration_is_kept():
    """UR5's tool dragged through poses of its wrist 2 turning 0.5 -> -0.5 rad (every other
    joint held): the plain solve follows the joints through the singularity and flips the
    wrist; with Keep Configuration the branch stays and the target at the singular pose
    (wrist 2 at 0, reached by neither branch within the margin) is reported unmet. Beyond
    it, the same branch reaches the poses with wrist 1 and 3 turned half a turn."""
    q0 = np.array(UR5_Q)
    path = [q0 + [0, 0, 0, 0, v - q0[4], 0] for v in np.linspace(0.5, -0.5, 11)]
    plain = drag(*ur5(path[0]), path, keep=False)
    assert [b for b, _ in plain] == [(-1, 1, 1)] * 5 + [(-1, 1, 0)] + [(-1, 1, -1)] * 5
    assert all(met for _, met in plain)
    kept = drag(*ur5(path[0]), path, keep=True)
    assert [b for b, _ in kept] == [(-1, 1, 1)] * 11
    assert [met for _, met in kept] == [True] * 5 + [False] + [True] * 5


@needs_robots
def test_operate_joint_stops_the_elbow_at_its_margin():
    """A target on UR5's elbow from 0.5 rad to -0.5 (through straight): with Keep
    Configuration it stops where sin q = margin, the target reported unmet."""
    lk, tool = ur5([0.3, -1.2, 0.5, -0.8, 1.1, 0.4])
    lk.set_goal("keep_configuration", tool, {"margin": 0.05})
    lk.set_target("elbow_joint", [-0.5])
    st = Solver(lk).solve()
    assert st.unmet == ["target of joint 'elbow_joint'"]
    assert lk.joint("elbow_joint").q[0] == pytest.approx(math.asin(0.05), abs=1e-9)
    lk.clear_goal("keep_configuration", tool)
    assert Solver(lk).solve().unmet == []
    assert lk.joint("elbow_joint").q[0] == pytest.approx(-0.5)


@needs_robots
def test_set_takes_the_arms_branch_now_and_checks_its_link(vh):
    lk, tool = ur5()
    lk.set_goal("keep_configuration", tool, {})
    g = lk.goal("keep_configuration", tool)
    assert g["branch"].tolist() == [-1.0, 1.0, 1.0] + [0.0] * 5
    assert g["margin"] == 0.05 and g["level"] == "limit"
    lk.set_goal("keep_configuration", tool, {"branch": [1, -1] + [0] * 6, "margin": 0.1})
    assert lk.goal("keep_configuration", tool)["branch"].tolist()[:3] == [1.0, -1.0, 0.0]
    before = vh.snapshot(lk), str(lk.goal("keep_configuration", tool))
    with pytest.raises(VartError, match="link 'base_link' has no arm"):
        lk.set_goal("keep_configuration", "base_link", {})
    with pytest.raises(VartError, match="link .tool0.: keep_configuration: branch: expected 8 values, got 2"):
        lk.set_goal("keep_configuration", tool, {"branch": [1, 1]})
    with pytest.raises(VartError, match=r"branch: each entry -1, 0 or \+1, got \[0.5, "):
        lk.set_goal("keep_configuration", tool, {"branch": [0.5, 1] + [0] * 6})
    assert (vh.snapshot(lk), str(lk.goal("keep_configuration", tool))) == before


def test_a_goal_whose_link_lost_its_arm_is_reported_unmet():
    lk = spherical_wrist_arm()
    lk.set_goal("keep_configuration", "tool", {})
    for j in ("flange", "j6", "j5", "j4", "j3", "j2", "j1"):
        lk.remove_joint(j)
    st = Solver(lk).solve()
    assert st.unmet == ["keep_configuration of root joint of link 'tool'"]


@needs_robots
def test_the_quantities_move_at_most_as_far_as_the_joints(vh):
    """The bound the batch skips work by (keep_configuration._Held.lip_q): each quantity's
    derivative by each DoF that moves it is at most 1, on UR5 and random all-revolute arms
    at random configurations."""
    rng = np.random.default_rng(3)
    arms = [(ur5()[0], "tool0")] + [(spherical_wrist_arm(rng.uniform(-3, 3, 6)), "tool")]
    for lk, tool in arms * 20:
        for name in AB.arm_of(lk, tool).names:
            lk.set_q(name, [float(rng.uniform(-3, 3))])
        lk.set_goal("keep_configuration", tool, {"branch": [1] * 8, "margin": 10.0})
        (gp,) = Solver(lk)._analysis()
        ev = gp.evaluate(lk.model().q_from_joints(), jac=True)
        (b,) = [b for b in gp.batches if isinstance(b, KeepConfigurationBatch)]
        assert b.held[0].lip_q is not None
        _, J, _ = b.rows(ev.state, True)
        assert np.abs(J).max() <= 1.0 + 1e-12


@needs_robots
def test_a_point_known_far_inside_gives_what_computing_it_gives():
    """The batch's shortcut (a point whose joints moved less, in all, than the room the last
    point computed had is inside) changes no row and no guard: along a random walk, against
    a batch that computes every point."""
    rng = np.random.default_rng(11)
    lk, tool = ur5()
    lk.set_goal("keep_configuration", tool, {"margin": 0.3})
    (gp,) = Solver(lk)._analysis()
    (b,) = [b for b in gp.batches if isinstance(b, KeepConfigurationBatch)]
    exact = KeepConfigurationBatch(lk.model(), lk, [lk.link(tool)], gp.cols)
    q = lk.model().q_from_joints()
    skipped = 0
    for _ in range(300):
        q = q + rng.normal(0, 0.03, q.size)
        step = rng.normal(0, 0.1, q.size)
        st, st_exact = (gp.evaluate(q, jac=True).state for _ in range(2))
        exact._ref = [None]
        e0, J0, _ = b.rows(st, True)
        skipped += type(b._at(st)[0]).__name__ == "_Far"
        e1, J1, _ = exact.rows(st_exact, True)
        np.testing.assert_allclose(e0, e1)
        np.testing.assert_allclose(J0, J1)
        g0, g1 = b.guards(st, step), exact.guards(st_exact, step)
        assert [(k, s) for k, _, s in g0] == pytest.approx([(k, s) for k, _, s in g1])
    assert skipped > 50


@needs_robots
def test_posing_the_arm_moves_a_kept_configuration_onto_its_branch(vh):
    """pose_arm (what Apply does): the arm at a solution's values, the tool where it was, a
    Keep Configuration goal on the new branch (margin and level kept); a joint not of the arm
    or a value beyond its limit changes nothing."""
    lk, tool = ur5()
    lk.set_goal("keep_configuration", tool, {"margin": 0.1, "level": "posture"})
    T = lk.pose(tool)
    sols = find_solutions(lk, tool, T)
    other = next(s for s in sols if s.branch[1:] == (-1, -1))
    pose_arm(lk, tool, other.values())
    assert AB.branch_of(lk, tool) == other.branch
    g = lk.goal("keep_configuration", tool)
    assert tuple(g["branch"][:3]) == other.branch and (g["margin"], g["level"]) == \
        (0.1, "posture")
    np.testing.assert_allclose(lk.pose(tool), T, atol=REACHED)
    before = vh.snapshot(lk), str(lk.goal("keep_configuration", tool))
    with pytest.raises(VartError, match="joint 'world_joint' is not a joint of link 'tool0'"):
        pose_arm(lk, tool, {"shoulder_pan_joint": 0.1, "world_joint": 0.0})
    with pytest.raises(VartError, match=r"joint 'elbow_joint': value 4 outside its limits"):
        pose_arm(lk, tool, {"shoulder_pan_joint": 0.1, "elbow_joint": 4.0})
    assert (vh.snapshot(lk), str(lk.goal("keep_configuration", tool))) == before
