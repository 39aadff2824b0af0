"""The bend predictor (stepper.py): a steady drag's first step adds the last solve's bend.

It must save corrections without changing what the drag does: the same poses (to the
tolerance) as without it, the tolerance still met, redundant joints moving as before, and no
prediction where the last solve says nothing about this one (a reversed or much faster drag,
a pose edited between solves, the setting off).
"""

import math

import numpy as np
import pytest

from vart_addon.solver import Linkage, Settings, Solver

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


def P(x, y, angle=0.0):
    T = np.eye(4)
    c, s = math.cos(angle), math.sin(angle)
    T[:2, :2] = [[c, -s], [s, c]]
    T[:2, 3] = x, y
    return T


def test_a_steady_drag_is_predicted_needs_fewer_corrections_and_ends_where_it_did(vh):
    """The bend alone: every first step with the solve's own Jacobians (carried
    factorizations are tested in test_carried_factorization.py)."""
    steps = [0.5] * 40
    runs = vh.drag_crank(steps, tol=1e-6, carry_factorization=False)
    # The first solve learns the bend, every later one uses it.
    assert runs[0][0].predicted == 0
    assert all(st_.predicted == 1 for st_, *_ in runs[1:])
    for st_, _crank, rocker, analytic in runs:
        assert st_.converged and st_.iterations == 1
        assert st_.level("invariant").max_goal_error <= 1e-6
        assert st_.level("target").max_goal_error <= 1e-6
        assert abs(rocker - analytic) < 1e-5
    plain = vh.drag_crank(steps, tol=1e-6, predict_bend=False)
    assert all(st_.predicted == 0 for st_, *_ in plain)
    # Without the bend every solve needs a correction; with it, few do.
    assert sum(st_.simplified for st_, *_ in plain) >= 38
    assert sum(st_.simplified for st_, *_ in runs) <= 10
    for (_, c1, r1, _), (_, c2, r2, _) in zip(runs, plain):
        assert abs(c1 - c2) < 1e-5 and abs(r1 - r2) < 1e-5


def test_the_tolerance_is_met_whatever_the_prediction(vh):
    runs = vh.drag_crank([1.0] * 15, tol=1e-11)
    assert sum(st_.predicted for st_, *_ in runs) == 14
    for st_, _crank, rocker, analytic in runs:
        assert st_.converged
        assert st_.level("invariant").max_goal_error <= 1e-11
        assert abs(rocker - analytic) < 1e-9


def test_a_reversed_or_much_faster_drag_is_not_predicted(vh):
    steps = [0.5] * 6 + [-0.5] * 4 + [2.0] * 3 + [0.4] * 3
    predicted = [st_.predicted for st_, *_ in vh.drag_crank(steps, tol=1e-6)]
    assert predicted == [0, 1, 1, 1, 1, 1,  # steady
                         0, 1, 1, 1,  # reversed: the bend of the other way is no guide
                         0, 1, 1,  # four times the step
                         0, 1, 1]  # a fifth of it


def test_a_pose_edited_between_solves_is_not_predicted(vh):
    fb = vh.FourBar()
    solver = Solver(fb.lk, Settings(tol=1e-6))
    for i in range(1, 5):
        fb.lk.set_target("crank", [math.radians(0.5 * i)])
        assert solver.solve().predicted == (i >= 2)
    fb.lk.set_q("knee", fb.lk.joint("knee").q + 1e-3)  # not where the last solve ended
    fb.lk.set_target("crank", [math.radians(2.5)])
    status = solver.solve()
    assert status.predicted == 0 and status.converged


def redundant_arm():
    """Four 1 m revolutes in a plane; the last link's origin is the tip."""
    lk = Linkage()
    for i in range(4):
        lk.add_link(f"l{i}", pose=P(i, 0))
        lk.add_joint(f"j{i}", "revolute", None if i == 0 else f"l{i - 1}", f"l{i}",
                     world_frame=P(i, 0))
    for i, v in enumerate([0.4, -0.5, 0.3, -0.6]):
        lk.set_q(f"j{i}", [v])
    return lk


def arm_drag(steps, substeps=1, **settings):
    """Drag the arm's tip (x, y only) along a straight line, each of ``steps`` moves in
    ``substeps`` solves; the joint values after each move."""
    lk = redundant_arm()
    solver = Solver(lk, Settings(**{"tol": 1e-8, **settings}))
    start = lk.pose("l3")[:3, 3].copy()
    out, statuses = [], []
    for i in range(1, steps * substeps + 1):
        T = np.eye(4)
        T[:3, 3] = start + i / substeps * np.array([-0.01, 0.006, 0.0])
        lk.set_link_target("l3", T, mask=[1, 1, 0, 0, 0, 0])
        statuses.append(solver.solve())
        if i % substeps == 0:
            out.append(np.array([lk.joint(f"j{k}").q[0] for k in range(4)]))
    return np.array(out), statuses


def test_a_redundant_arm_keeps_to_the_minimum_norm_motion():
    """Two redundant degrees of freedom. A drag moves them by the minimum-norm motion, which
    in the limit of small moves is a flow (here: 20 solves per move, without the bend); each
    solve's Newton steps follow it only to second order in the move, and the bend, learnt from
    such steps, must keep the path at least as close to it."""
    flow, _ = arm_drag(40, substeps=20, tol=1e-12, predict_bend=False)
    q, statuses = arm_drag(40)
    q_plain, plain = arm_drag(40, predict_bend=False)
    assert sum(st_.predicted for st_ in statuses) == 39
    assert all(st_.converged for st_ in statuses + plain)
    off, off_plain = np.abs(q - flow).max(), np.abs(q_plain - flow).max()
    assert 1e-4 < off_plain < 0.02  # the move is large enough to tell
    assert off <= off_plain
    assert np.all(q[:, 3] == q[0, 3])  # the last joint cannot move the tip: it stays still


def test_no_bend_is_predicted_from_or_for_a_step_of_zero_length():
    from types import SimpleNamespace

    from vart_addon.solver.stepper import Stepper
    stepper = Stepper(Settings())
    zero, step = np.zeros(3), np.array([0.1, 0.0, 0.0])
    gp = SimpleNamespace(bend=(zero, zero, 0.0, 0))
    assert stepper.predicted_bend(gp, zero, 0.0) is None
    assert stepper.predicted_bend(gp, step, step @ step) is None
    gp.bend = (step, np.array([0.0, 1e-4, 0.0]), step @ step, 0)
    assert stepper.predicted_bend(gp, zero, 0.0) is None
    longer = 1.5 * step
    np.testing.assert_allclose(stepper.predicted_bend(gp, longer, longer @ longer),
                               [0.0, 2.25e-4, 0.0])
    assert stepper.n_predicted == 1


def test_a_group_that_stops_before_its_first_step_learns_no_other_groups_bend():
    """Fixed defect (issue 19, 4 of 1,000 random mechanisms): a solve group that ended at
    iteration 1 before taking a step reused the previous group's first step, and learning
    its bend raised a bare ValueError (shape mismatch), or learnt a wrong bend when the two
    groups had as many DoF. Two independent links are enough: a driven cylindrical joint and
    a locked spherical joint with a posture."""
    import numpy as np

    from vart_addon.solver import Linkage, Settings, Solver, se3
    for order in (("a", "b"), ("b", "a")):
        lk = Linkage()
        for name in order:
            lk.add_link(name, pose=se3.make_pose(None, [0.0 if name == "a" else 2.0, 0, 0]))
        lk.add_joint("cyl", "cylindrical", None, "a", world_frame=se3.make_pose(None, [0, 0, 0]))
        lk.add_joint("sph", "spherical", None, "b", world_frame=se3.make_pose(None, [2, 0, 0]))
        lk.lock_joint("sph")
        lk.set_posture("sph", [0.1, 0.0, 0.0])
        solver = Solver(lk, Settings())
        for k in range(1, 6):
            lk.set_target("cyl", [0.1 * k, 0.05 * k])
            st = solver.solve()
            assert st.groups == 2 and st.level("target").satisfied
            np.testing.assert_allclose(lk.joint("cyl").q, [0.1 * k, 0.05 * k], atol=1e-6)
        assert lk.joint("sph").q.tolist() == [0.0, 0.0, 0.0]  # the lock wins over the posture
