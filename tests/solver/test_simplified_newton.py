"""Lazy Jacobians and simplified Newton steps (solver.py, evaluation.py).

An evaluation made without Jacobians gets exactly the ones an eager evaluation has when a step
asks for them; a slow drag's corrections reuse the first step's factorization and still meet
every goal to the tolerance; a fast drag, where such steps would not finish, does not use them.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vart_addon.solver import Settings, Solver

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_jacobians_added_later_equal_those_of_an_eager_evaluation(vh, seed):
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng, closures=2)
    links = list(lk.links)
    lk.set_link_target(links[-1], vh.random_pose(rng, 1.0))
    for gp in Solver(lk)._analysis():
        q = lk.model().q_from_joints()
        lazy = gp.evaluate(q, jac=False)
        assert not lazy.has_jac
        assert all(J is None for _, J in lazy.levels)
        eager = gp.evaluate(q, jac=True)
        # A warm start (same q, goal values changed) asking for Jacobians from a lazy one.
        warm = gp.evaluate(q, jac=True, reuse=gp.evaluate(q, jac=False),
                           dirty=gp.value_batches)
        assert gp.jacobians(lazy) is lazy and lazy.has_jac
        for ev in (lazy, warm):
            assert ev.has_jac and ev.measure == eager.measure
            for k in gp.active_levels:
                np.testing.assert_array_equal(ev.levels[k][0], eager.levels[k][0])
                np.testing.assert_array_equal(ev.levels[k][1], eager.levels[k][1])


def drag_crank(vh, step_deg, steps, simplified, tol=1e-6):
    """``steps`` increments of ``step_deg`` without the bend predictor (test_bend_predictor.py),
    which leaves few corrections to do."""
    return vh.drag_crank([step_deg] * steps, tol=tol, simplified_newton=simplified,
                         predict_bend=False)


def test_a_slow_drag_corrects_with_simplified_newton_steps_and_meets_every_goal(vh):
    runs = drag_crank(vh, 0.5, 40, simplified=True)
    assert sum(st_.simplified for st_, *_ in runs) >= 20  # most corrections reuse a factorization
    for st_, _crank, rocker, analytic in runs:
        assert st_.converged, st_
        assert st_.level("invariant").max_goal_error <= 1e-6
        assert st_.level("target").max_goal_error <= 1e-6
        assert abs(rocker - analytic) < 1e-5
    plain = drag_crank(vh, 0.5, 40, simplified=False)
    assert all(st_.simplified == 0 for st_, *_ in plain)
    # One degree of freedom: both reach the same pose, to the tolerance.
    for (_, c1, r1, _), (_, c2, r2, _) in zip(runs, plain):
        assert abs(c1 - c2) < 1e-5 and abs(r1 - r2) < 1e-5


def test_a_fast_drag_where_simplified_steps_would_not_finish_uses_new_jacobians(vh):
    runs = drag_crank(vh, 15.0, 6, simplified=True, tol=1e-12)
    assert all(st_.simplified == 0 for st_, *_ in runs)
    for st_, _crank, rocker, analytic in runs:
        assert st_.converged
        assert abs(rocker - analytic) < 1e-9


def test_settings_replaced_between_solves_rule_every_step(vh):
    """The bridge swaps ``solver.settings`` for the scene's: the steps must follow the new
    ones (here: no simplified Newton steps once they are turned off)."""
    fb = vh.FourBar()
    solver = Solver(fb.lk, Settings(tol=1e-6))
    fb.lk.set_target("crank", [math.radians(0.5)])
    assert solver.solve().simplified > 0
    solver.settings = Settings(tol=1e-6, simplified_newton=False, predict_bend=False)
    fb.lk.set_target("crank", [math.radians(1.0)])
    status = solver.solve()
    assert status.converged and status.simplified == 0


def test_a_tree_limit_crossed_inside_a_step_is_held_by_every_path(vh):
    """Issue 19, item 13: the foot dragged in a circle through poses that need the knee past
    its limits: whether the steps are simplified Newton steps (a kept factorization) or full
    stacked steps, the knee never leaves its limits, stops at them, and both paths agree."""
    def drag(simplified):
        lk = vh.two_link(q=(0.3, 0.6))
        lk.set_limits("knee", [0.2], [1.0])
        solver = Solver(lk, Settings(tol=1e-10, simplified_newton=simplified))
        knees = []
        for k in range(24):
            a = 2 * math.pi * k / 24
            T = vh.planar_pose(1.2 + 0.6 * math.cos(a), 0.6 * math.sin(a))
            lk.set_link_target("foot", T, [True, True, False, False, False, False])
            solver.solve()
            knee = float(lk.joint("knee").q[0])
            assert 0.2 - 1e-12 <= knee <= 1.0 + 1e-12, (simplified, k, knee)
            knees.append(knee)
        return np.array(knees)

    fast, full = drag(True), drag(False)
    assert fast.min() == pytest.approx(0.2, abs=1e-9) or fast.max() == pytest.approx(1.0, abs=1e-9)
    np.testing.assert_allclose(fast, full, atol=1e-6)
