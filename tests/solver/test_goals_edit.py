"""Goals on joints and links (vart_addon/solver/goals_edit.py): what each setter stores, that
the solver honours it, and that clearing it takes it away."""

import math

import numpy as np
import pytest

from vart_addon.solver import Linkage, Settings, Solver, VartError, se3

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

TIGHT = Settings(tol=1e-12, max_iterations=200)


def P(x, y, angle=0.0, z=0.0):
    return se3.make_pose(se3.rot_z(angle), [x, y, z])


def arm(vh):
    """Planar two-link arm: shoulder at the origin, elbow at (1, 0), hand at (2, 0)."""
    return vh.two_link(("upper", "fore", "hand"), ("shoulder", "elbow", "wrist"))


# ---- targets -----------------------------------------------------------------------------------
def test_joint_target_is_reached_and_clearing_it_stops_the_drive(vh):
    lk = arm(vh)
    lk.set_target("elbow", [0.7])
    j = lk.joint("elbow")
    assert j.target_q.tolist() == [0.7] and j.target_mask.tolist() == [True]
    assert Solver(lk, TIGHT).solve().converged
    assert j.q[0] == pytest.approx(0.7, abs=1e-12)
    assert lk.joint("shoulder").q[0] == 0.0  # not needed, not moved
    lk.clear_target("elbow")
    assert j.target_q is None
    lk.set_q("elbow", [0.1])
    st = Solver(lk, TIGHT).solve()
    assert st.iterations == 0 and j.q[0] == 0.1


def test_link_target_with_mask_moves_only_the_selected_components(vh):
    lk = arm(vh)
    lk.set_link_target("hand", P(1.2, 1.5, 2.0), mask=[0, 1, 0, 0, 0, 0])  # only y
    assert Solver(lk, TIGHT).solve().converged
    assert lk.pose("hand")[1, 3] == pytest.approx(1.5, abs=1e-12)
    lk.clear_link_target("hand")
    assert lk.root("hand").target_q is None


def test_link_target_full_pose_on_a_free_link():
    lk = Linkage()
    lk.add_link("box", pose=P(1, 2, 0.3))
    goal = se3.make_pose(se3.so3_exp([0.4, -2.0, 1.0]), [0.5, -0.5, 2.0])
    lk.set_link_target("box", goal)
    assert Solver(lk, TIGHT).solve().converged
    np.testing.assert_allclose(lk.pose("box"), goal, atol=1e-12)


def test_target_mask_on_a_multi_dof_joint():
    lk = Linkage()
    lk.add_link("b")
    lk.add_joint("c", "cylindrical", None, "b")
    lk.set_target("c", [1.0, 0.5], mask=[False, True])
    assert Solver(lk, TIGHT).solve().converged
    np.testing.assert_allclose(lk.joint("c").q, [0.0, 0.5], atol=1e-12)


def test_resetting_a_target_value_is_picked_up_by_an_existing_solver(vh):
    lk = arm(vh)
    solver = Solver(lk, TIGHT)
    for v in (0.3, -0.4, 1.2):
        lk.set_target("elbow", [v])
        solver.solve()
        assert lk.joint("elbow").q[0] == pytest.approx(v, abs=1e-12)
    lk.set_target("elbow", [0.5], mask=[True])
    lk.set_link_target("hand", P(0, 2), mask=[1, 0, 0, 0, 0, 0])
    solver.solve()
    assert lk.pose("hand")[0, 3] == pytest.approx(0.0, abs=1e-10)


# ---- locks ------------------------------------------------------------------------------------------
def test_lock_joint_holds_the_current_value_by_default(vh):
    lk = arm(vh)
    lk.set_q("elbow", [0.4])
    lk.lock_joint("elbow")
    assert lk.joint("elbow").lock_q.tolist() == [0.4]
    lk.set_link_target("hand", P(0.5, 1.5), mask=[1, 1, 0, 0, 0, 0])
    Solver(lk, TIGHT).solve()
    assert lk.joint("elbow").q[0] == pytest.approx(0.4, abs=1e-12)
    lk.unlock_joint("elbow")
    assert lk.joint("elbow").lock_q is None
    assert Solver(lk, TIGHT).solve().converged
    np.testing.assert_allclose(lk.pose("hand")[:2, 3], [0.5, 1.5], atol=1e-12)


def test_lock_joint_with_a_value_drives_it_there(vh):
    lk = arm(vh)
    lk.lock_joint("elbow", [-0.8])
    assert Solver(lk, TIGHT).solve().converged
    assert lk.joint("elbow").q[0] == pytest.approx(-0.8, abs=1e-12)


def test_lock_link_freezes_it_in_the_world(vh):
    lk = arm(vh)
    lk.set_q("shoulder", [0.3])
    lk.set_q("elbow", [0.6])
    goal = lk.pose("hand").copy()  # a reachable pose
    lk.set_q("shoulder", [0.0])
    lk.set_q("elbow", [0.0])
    lk.lock_link("hand", pose=goal)
    lk.set_target("shoulder", [2.0])  # conflicts: the lock wins
    st = Solver(lk, TIGHT).solve()
    assert st.level("lock").satisfied and st.unmet == ["target of joint 'shoulder'"]
    np.testing.assert_allclose(lk.pose("hand"), goal, atol=1e-10)
    assert lk.joint("shoulder").q[0] == pytest.approx(0.3, abs=1e-10)
    lk.unlock_link("hand")
    assert lk.root("hand").lock_q is None


def test_locking_a_closure_joint(vh):
    fb = vh.FourBar()
    fb.lk.lock_joint("ground", [0.2])
    assert Solver(fb.lk, TIGHT).solve().converged
    assert fb.lk.joint_q(fb.lk.joint("ground"))[0] == pytest.approx(0.2, abs=1e-10)


# ---- posture, springs, limits --------------------------------------------------------------------
def test_set_posture_defaults_to_the_current_value_and_clears(vh):
    lk = arm(vh)
    lk.set_q("shoulder", [0.25])
    lk.set_posture("shoulder")
    assert lk.joint("shoulder").posture_q.tolist() == [0.25]
    lk.set_posture("elbow", [1.0])
    assert Solver(lk, TIGHT).solve().converged
    assert lk.joint("elbow").q[0] == pytest.approx(1.0, abs=1e-12)
    lk.clear_posture("elbow")
    assert lk.joint("elbow").posture_q is None


def test_set_stiffness_is_for_one_dof_joints_only(vh):
    lk = Linkage()
    lk.add_link("a")
    lk.add_joint("s", "spherical", None, "a")
    with pytest.raises(VartError, match="spherical|1-DoF|3"):
        lk.set_stiffness("s", 1.0)
    lk2 = arm(vh)
    lk2.set_q("elbow", [0.3])
    lk2.set_stiffness("elbow", 5.0)
    j = lk2.joint("elbow")
    assert j.stiffness == 5.0 and j.rest_q.tolist() == [0.3]
    lk2.set_stiffness("elbow", 2.0, rest=[-0.1])
    assert j.rest_q.tolist() == [-0.1]


def test_set_limits_clamps_a_tree_joint_and_the_solver_respects_them(vh):
    lk = arm(vh)
    lk.set_q("elbow", [0.9])
    lk.set_limits("elbow", [-0.5], [0.5])
    assert lk.joint("elbow").q[0] == 0.5
    lk.set_link_target("hand", P(0.0, 1.0), mask=[1, 1, 0, 0, 0, 0])  # needs a bent elbow
    Solver(lk, TIGHT).solve()
    q = lk.joint("elbow").q[0]
    assert -0.5 <= q <= 0.5
    lk.set_limits("elbow", [-math.inf], [math.inf])
    assert Solver(lk, TIGHT).solve().converged


def test_closure_limits_are_enforced_at_the_limit_level(vh):
    fb = vh.FourBar()
    fb.lk.set_limits("ground", [-0.1], [0.1])
    fb.lk.set_target("crank", [1.5])  # would swing the rocker past 0.1
    st = Solver(fb.lk, TIGHT).solve()
    q = fb.lk.joint_q(fb.lk.joint("ground"))[0]
    assert -0.1 - 1e-9 <= q <= 0.1 + 1e-9
    assert st.level("limit").satisfied and st.level("invariant").satisfied
    assert "target of joint 'crank'" in st.unmet


# ---- set_q, set_link_pose ----------------------------------------------------------------------
def test_set_q_moves_the_subtree_rigidly_and_refuses_closures(vh):
    lk = arm(vh)
    lk.set_q("shoulder", [math.pi / 2])
    np.testing.assert_allclose(lk.pose("hand")[:3, 3], [0, 2, 0], atol=1e-12)
    fb = vh.FourBar()
    with pytest.raises(VartError, match="'ground'.*closure"):
        fb.lk.set_q("ground", [0.1])


def test_set_link_pose_only_for_a_link_on_its_root_joint(vh):
    lk = arm(vh)
    lk.add_link("free")
    lk.set_link_pose("free", P(3, 4, 1.0))
    np.testing.assert_allclose(lk.pose("free"), P(3, 4, 1.0), atol=1e-15)
    with pytest.raises(VartError, match="'hand'.*'wrist'"):
        lk.set_link_pose("hand", P(0, 0))


# ---- mimic -------------------------------------------------------------------------------------
def test_mimic_is_enforced_at_the_invariant_level(vh):
    lk = arm(vh)
    lk.set_mimic("elbow", "shoulder", -2.0, 0.1)
    lk.set_target("shoulder", [0.4])
    assert Solver(lk, TIGHT).solve().converged
    assert lk.joint("shoulder").q[0] == pytest.approx(0.4, abs=1e-12)
    assert lk.joint("elbow").q[0] == pytest.approx(-0.7, abs=1e-12)
    # A target on the follower conflicts with the coupling: the coupling wins.
    lk.set_target("elbow", [1.0])
    st = Solver(lk, TIGHT).solve()
    assert lk.joint("elbow").q[0] == pytest.approx(-2 * lk.joint("shoulder").q[0] + 0.1, abs=1e-10)
    assert st.level("invariant").satisfied
    lk.clear_mimic("elbow")
    assert lk.joint("elbow").mimic is None


def test_mimic_refuses_self_cycles_and_multi_dof(vh):
    lk = arm(vh)
    lk.add_link("ball")
    lk.add_joint("ballj", "spherical", None, "ball")
    lk.set_mimic("elbow", "shoulder")
    for args, msg in [(("elbow", "elbow"), "itself"), (("shoulder", "elbow"), "cycle"),
                      (("ballj", "shoulder"), "1-DoF"), (("elbow", "ballj"), "1-DoF"),
                      (("elbow", "nope"), "'nope'"), (("elbow", "shoulder", float("nan")), "finite")]:
        snap = vh.snapshot(lk)
        with pytest.raises(VartError, match=msg):
            lk.set_mimic(*args)
        assert vh.snapshot(lk) == snap


# ---- goals across topology edits -------------------------------------------------------------------
def test_inverting_a_joint_inverts_its_goal_values(vh):
    lk = arm(vh)
    lk.set_q("elbow", [0.2])
    lk.set_target("elbow", [0.5])
    lk.set_posture("elbow", [0.3])
    lk.lock_joint("elbow", [0.6])
    lk.set_stiffness("elbow", 1.0, rest=[0.4])
    lk.invert_joint("elbow")
    j = lk.joint("elbow")
    assert j.q[0] == pytest.approx(-0.2, abs=1e-12)
    assert j.target_q[0] == pytest.approx(-0.5, abs=1e-12)
    assert j.posture_q[0] == pytest.approx(-0.3, abs=1e-12)
    assert j.lock_q[0] == pytest.approx(-0.6, abs=1e-12)
    assert j.rest_q[0] == pytest.approx(-0.4, abs=1e-12)


def test_inverted_goals_drive_to_the_same_world_pose():
    """The same target before and after inverting a spherical joint gives the same pose."""
    def build():
        lk = Linkage()
        lk.add_link("a")
        lk.add_link("b", pose=P(1, 0))
        lk.add_joint("base", "revolute", None, "a")
        lk.add_joint("ball", "spherical", "a", "b", world_frame=P(1, 0))
        lk.set_target("ball", [0.3, -0.2, 0.9])
        return lk

    one, two = build(), build()
    two.invert_joint("ball")
    Solver(one, TIGHT).solve()
    Solver(two, TIGHT).solve()
    np.testing.assert_allclose(np.linalg.solve(one.pose("a"), one.pose("b")),
                               np.linalg.solve(two.pose("a"), two.pose("b")), atol=1e-10)


def test_changing_a_joint_type_clears_goals_of_the_wrong_size(vh):
    lk = arm(vh)
    lk.set_target("elbow", [0.5])
    lk.lock_joint("elbow")
    lk.set_joint_type("elbow", "spherical")
    j = lk.joint("elbow")
    assert j.target_q is None and j.lock_q is None and j.dof == 3
    lk.set_target("elbow", [0.1, 0.2, 0.3])
    lk.set_joint_type("elbow", "planar")
    assert j.target_q is None
    Solver(lk, TIGHT).solve()
