"""Every level's Jacobian of a solve group (evaluation.py, goals.py) against central finite
differences of its error rows over the group's columns, through the same retraction the steps
use: random trees of every joint type with closures, link targets and locks, and planar loops
(whose closures take the in-plane rows only, planar.py)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pinocchio_check import ROBOTS
from vart_addon.formats.urdf.to_linkage import linkage_from_urdf
from vart_addon.solver import Linkage, Solver, se3
from vart_addon.solver.goals import POTENTIAL

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


def assert_jacobians_match_finite_differences(lk, h=1e-6, atol=1e-6):
    for gp in Solver(lk)._analysis():
        q = lk.model().q_from_joints()
        ev = gp.evaluate(q, jac=True)
        for k in gp.active_levels:
            if k == POTENTIAL:  # its rows are pushes, not errors
                continue
            e, J = ev.levels[k]
            fd = np.empty_like(J)
            for i in range(len(gp.cols)):
                d = np.zeros(len(gp.cols))
                d[i] = h
                plus = gp.evaluate(gp.advance(q, d), jac=False).levels[k][0]
                minus = gp.evaluate(gp.advance(q, -d), jac=False).levels[k][0]
                fd[:, i] = (plus - minus) / (2 * h)
            np.testing.assert_allclose(J, fd, atol=atol, err_msg=f"level {k}")


def target_and_lock(vh, rng, lk, last=None, second=None):
    """``lk`` with a target on its last link (``last``: how, default a random link target)
    and a random lock of its second link (``second``: another goal instead), when it has
    more than two links."""
    links = list(lk.links)
    (last or (lambda n: lk.set_link_target(n, vh.random_pose(rng, 1.0))))(links[-1])
    if len(links) > 2:
        (second or (lambda n: lk.lock_link(n, vh.random_pose(rng, 1.0))))(links[1])
    return lk


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_group_jacobians_of_random_mechanisms_match_finite_differences(vh, seed):
    rng = np.random.default_rng(seed)
    lk = target_and_lock(vh, rng, vh.random_tree(rng, closures=3))
    assert_jacobians_match_finite_differences(lk)


@pytest.mark.parametrize("tilt", [0.0, 0.7])
def test_group_jacobians_of_planar_loops_match_finite_differences(vh, tilt):
    G = se3.make_pose(se3.so3_exp([tilt, -0.4 * tilt, 0.1]), [0.2, 0.5, -0.3])
    fb = vh.FourBar(G=G)
    fb.lk.set_link_target("coupler", G @ vh.planar_pose(1.0, 1.5, 0.4), mask=[1, 1, 0, 0, 0, 0])
    solver = Solver(fb.lk)
    solver.solve(max_iterations=1)  # somewhere off the assembly pose
    assert [b.jt.name for g in solver._groups for b in g.batches if b.level == 0] == \
        ["point-slider"]
    assert_jacobians_match_finite_differences(fb.lk)


def assert_offset_rows_equal_the_catalog_residual(lk, rng, flag: str) -> int:
    """Rows and Jacobian of every invariant batch with ``flag`` set (at a random q) against
    the same batch on the catalog's path; returns how many batches were compared."""
    m = lk.model()
    q = m.q_from_joints() + rng.normal(0, 0.3, m.n_dof)
    compared = 0
    for gp in Solver(lk)._analysis():
        for b in gp.batches:
            if b.level != 0 or not getattr(b, flag, False):
                continue
            compared += 1
            st_ = gp.evaluate(q, jac=True).state
            e, J, _ = b.rows(st_, True)
            b.offset = False
            e0, J0, _ = b.rows(st_, True)
            b.offset = True
            np.testing.assert_allclose(e, e0, atol=1e-12)
            np.testing.assert_allclose(J, J0, atol=1e-12)
    return compared


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_offset_rows_of_closures_with_a_free_rotation_equal_the_catalog_residual(vh, seed):
    """Closures with a free rotation take the world-frame offset path
    (goals.InvariantBatch._offset_rows), between two moving links and to the ground (pins
    with the world's axes included): the same rows and Jacobian as the catalog's residual
    through the mobility frame."""
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng, n_links=int(rng.integers(3, 7)), closures=4,
                        types=("spherical", "point-slider", "point-plane", "revolute", "general"))
    assert_offset_rows_equal_the_catalog_residual(lk, rng, "offset")


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_pins_with_the_world_axes_take_the_point_rows(vh, seed):
    """A spherical joint to the ground whose mobility frame has the world's axes (a pin, as the
    benchmark's feet) has the rows c - o and the point's Jacobian (goals.InvariantBatch
    world_axes): the same as the catalog's residual, and its Jacobian matches finite
    differences."""
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng, n_links=int(rng.integers(2, 6)),
                        types=("revolute", "prismatic", "spherical", "general"))
    for i, link in enumerate(rng.choice(list(lk.links), size=2, replace=False)):
        at = np.eye(4)
        at[:3, 3] = rng.normal(0, 1, 3)
        lk.add_joint(f"pin{i}", "spherical", None, str(link), world_frame=at)
    assert assert_offset_rows_equal_the_catalog_residual(lk, rng, "world_axes")
    assert_jacobians_match_finite_differences(lk)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_a_level_is_satisfied_when_every_goal_error_is_within_tol(vh, seed):
    """An evaluation's ``satisfied`` per level is every goal's error within ``tol`` (levels of
    one goal, a drag's target, take their norm as that goal's error without computing it):
    at random configurations, with ``tol`` between the goals' errors."""
    rng = np.random.default_rng(seed)
    lk = target_and_lock(vh, rng, vh.random_tree(rng, closures=2))
    m = lk.model()
    for gp in Solver(lk)._analysis():
        q = m.q_from_joints() + rng.normal(0, 0.3, m.n_dof)
        for tol in (1e-12, 0.05, 0.5, 5.0):
            gp.tol = tol
            ev = gp.evaluate(q, jac=bool(rng.integers(2)))
            for k in gp.active_levels:
                if k == POTENTIAL:
                    continue
                ge = ev.goal_errors(k)
                assert len(ge) == gp.n_goals[k]
                assert ev.satisfied[k] == bool(ge.max() <= tol), (k, tol)
                if gp.n_goals[k] == 1:
                    assert ge[0] == ev.measure[k]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_look_at_jacobians_of_random_mechanisms_match_finite_differences(vh, seed):
    """The look-at goal (goals.LookAtBatch): an axis of a link at a point, on random trees
    with closures, beside a link target at the same level."""
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng, closures=2)
    target_and_lock(
        vh, rng, lk,
        last=lambda n: lk.set_goal("look_at", n, {"axis": rng.normal(size=3),
                                                  "point": rng.normal(0, 2.0, 3)}),
        second=lambda n: lk.set_link_target(n, vh.random_pose(rng, 1.0)))
    assert_jacobians_match_finite_differences(lk)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_balance_jacobians_of_random_mechanisms_match_finite_differences(vh, seed):
    """The balance goals (balance.py): CoM Target and CoM Over on one link, Balance on another
    (three pins to the ground, a margin wider than their triangle: the centre of mass is
    outside its region, a point), on random trees with masses on every link. The pins close
    the loops; they only turn, so the support is fixed (a sliding pin's point is taken where
    it is: its motion is not in the Jacobian)."""
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng, closures=0)
    names = list(lk.links)
    for name in names:
        lk.set_mass(name, float(rng.uniform(0.1, 5.0)), rng.normal(0, 0.2, 3))
    poses = lk.poses()
    for k in range(3):
        frame = poses[names[-1 - k % len(names)]].copy()
        frame[:3, 3] += rng.normal(0, 0.5, 3)
        lk.add_joint(f"pin{k}", "spherical", None, names[-1 - k % len(names)],
                     world_frame=frame, virtual=True, tree=False)
    lk.set_goal("balance", names[0], {"margin": 10.0})
    kind = "com_over" if seed % 2 else "com_target"
    lk.set_goal(kind, names[-1], {"point": rng.normal(0, 1.0, 3)})
    assert_jacobians_match_finite_differences(lk)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_static_torque_jacobians_of_random_mechanisms_match_finite_differences(vh, seed):
    """Static torque limits (static_torque.py): limits tight enough to be exceeded (every
    row active) on every 1-DoF tree joint of random trees with masses on every link and a
    random gravity."""
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng, closures=1)
    for name in lk.links:
        lk.set_mass(name, float(rng.uniform(0.1, 5.0)), rng.normal(0, 0.2, 3))
    lk.set_gravity(rng.normal(0, 5.0, 3))
    limited = [j.name for j in lk.joints.values() if j.is_tree and j.dof == 1]
    for name in limited:
        lk.set_goal("torque_limit", name, {"effort": 0.0})
    assert_jacobians_match_finite_differences(lk)


def random_arm(vh, rng, n: int = 6):
    """A serial chain from the ground, link ``L0`` to ``L<n-1>``, of revolute joints (about
    one in three prismatic or fixed, but not the first two) at random frames and values."""
    lk = Linkage()
    for i in range(n):
        lk.add_link(f"L{i}", pose=vh.random_pose(rng, 1.0))
        jt = "revolute" if i < 2 or rng.random() < 0.7 else str(rng.choice(["prismatic",
                                                                           "fixed"]))
        lk.add_joint(f"J{i}", jt, None if i == 0 else f"L{i - 1}", f"L{i}",
                     T_parent_mob=vh.random_pose(rng, 0.5), T_child_frame=vh.random_pose(rng, 0.5))
        if jt != "fixed":
            lk.set_q(f"J{i}", [float(rng.uniform(-1, 1))])
    return lk


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_keep_configuration_jacobians_of_random_arms_match_finite_differences(vh, seed):
    """Keep Configuration (keep_configuration.py) on random 7-link arms (their shoulder
    quantity: axes and a wrist centre on moving links), a margin wider than any quantity
    (every held quantity has its row), on random sides; every other seed the arm is grounded
    at its tool (make_ground_link: its tree edges run backward and the free root joint's DoF
    move the whole arm)."""
    rng = np.random.default_rng(seed)
    lk = random_arm(vh, rng, 7)
    tool = "L6"
    if seed % 2:
        lk.make_ground_link("L6")
        tool = "L0"
    side = rng.choice([-1.0, 1.0], size=8)
    lk.set_goal("keep_configuration", tool, {"branch": side, "margin": 10.0})
    assert_jacobians_match_finite_differences(lk)


def test_keep_configuration_jacobians_of_ur5_match_finite_differences(vh):
    """On UR5 (example-robot-data) its three quantities (shoulder, elbow and wrist sines) at
    random configurations, each side."""
    path = ROBOTS / "ur_description" / "urdf" / "ur5_robot.urdf"
    if not path.is_file():
        pytest.skip("example-robot-data")
    rng = np.random.default_rng(7)
    for side in ([1, 1, 1], [-1, 1, -1], [1, -1, -1]):
        lk = linkage_from_urdf(path)[0]
        for name in ("shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint",
                     "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"):
            lk.set_q(name, [float(rng.uniform(-3, 3))])
        lk.set_goal("keep_configuration", "tool0", {"branch": side + [0] * 5, "margin": 10.0})
        assert_jacobians_match_finite_differences(lk)
