"""Carried factorizations (stepper.py, ``Stepper.carry``): a drag's first step reuses an
earlier solve's stacked factorization, brought along by secant updates
(``pdls.Stacked.secant``), instead of new Jacobians at the frame's start.

It must save work without changing what the drag does: fewer Jacobian evaluations, the same
poses (to the tolerance) as without it, every goal met to the tolerance, a factorization no
older than ``CARRY_SOLVES`` solves, and none carried where it says nothing about the next
solve (the setting off, the bake's settings, a pose edited between solves, a solve that did
not converge, inequality goals that guard a step, a carried step that missed).
"""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from vart_addon.solver import Settings, Solver, evaluation, kinematics, pdls, stepper
from vart_addon.solver.stepper import CARRY_SOLVES, Stepper

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


@pytest.fixture
def twist_calls(monkeypatch):
    """Counts TreeModel.twists calls: one per evaluation that gets Jacobians."""
    calls = [0]
    twists = kinematics.TreeModel.twists

    def counted(self, *a, **k):
        calls[0] += 1
        return twists(self, *a, **k)
    monkeypatch.setattr(kinematics.TreeModel, "twists", counted)
    return calls


def test_a_steady_drag_carries_factorizations_and_ends_where_it_did(vh, twist_calls):
    steps = [0.5] * 40
    runs = vh.drag_crank(steps, tol=1e-6)
    carried_jacobians = twist_calls[0]
    twist_calls[0] = 0
    plain = vh.drag_crank(steps, tol=1e-6, carry_factorization=False)
    assert sum(st_.carried for st_, *_ in plain) == 0
    carried = [st_.carried for st_, *_ in runs]
    assert carried[0] == 0 and sum(carried) >= 24  # two of every three solves after the first
    # The secant updates keep the carried steps' misses as rare as the bend alone keeps them
    # (without the updates, every carried step of this drag missed: 40 corrections).
    assert sum(st_.simplified for st_, *_ in runs) <= 10
    # Far fewer evaluations with Jacobians (the drag's misses corrected without them).
    assert carried_jacobians <= 0.6 * twist_calls[0]
    for (st_, c1, r1, analytic), (_, c2, r2, _) in zip(runs, plain):
        assert st_.converged
        assert st_.level("invariant").max_goal_error <= 1e-6
        assert st_.level("target").max_goal_error <= 1e-6
        assert abs(r1 - analytic) < 1e-5
        assert abs(c1 - c2) < 1e-5 and abs(r1 - r2) < 1e-5
    # No factorization serves more than CARRY_SOLVES later solves.
    run = longest = 0
    for c in carried:
        run = run + 1 if c else 0
        longest = max(longest, run)
    assert 2 <= longest <= CARRY_SOLVES


def test_a_carried_step_that_missed_is_not_carried_again(vh, monkeypatch):
    """A carried first step whose trial needed a correction where a fresh one did not (the
    four-bar's first carried solves, before the bend has settled) makes the next solve
    start with its own Jacobians. (Carries of up to 16 solves, so that it is this rule and
    not the age that ends them.)"""
    monkeypatch.setattr(stepper, "CARRY_SOLVES", 16)
    runs = vh.drag_crank([0.5] * 40, tol=1e-6)
    missed = [i for i, (st_, *_) in enumerate(runs[:-1]) if st_.carried and st_.simplified]
    assert missed
    assert all(runs[i + 1][0].carried == 0 for i in missed)


def test_a_tight_tolerance_keeps_carrying_what_corrects_as_cheaply(vh, twist_calls):
    """At 1e-9 (the scene's default) no predicted trial ends a solve: a fresh one needs
    simplified Newton corrections too. A carried solve that needs no more steps than the
    last fresh one did is no miss: the carry goes on, and the Jacobians are saved."""
    runs = vh.drag_crank([0.5] * 40, tol=1e-9)
    carried_jacobians = twist_calls[0]
    twist_calls[0] = 0
    plain = vh.drag_crank([0.5] * 40, tol=1e-9, carry_factorization=False)
    assert sum(st_.carried for st_, *_ in runs) >= 24
    assert carried_jacobians <= 0.5 * twist_calls[0]
    for (st_, c1, r1, analytic), (_, c2, r2, _) in zip(runs, plain):
        assert st_.converged and st_.level("invariant").max_goal_error <= 1e-9
        assert abs(r1 - analytic) < 1e-8 and abs(c1 - c2) < 1e-8 and abs(r1 - r2) < 1e-8


def test_the_tolerance_is_met_whatever_was_carried(vh):
    runs = vh.drag_crank([1.0] * 15, tol=1e-11)
    assert sum(st_.carried for st_, *_ in runs) >= 3
    for st_, _crank, rocker, analytic in runs:
        assert st_.converged
        assert st_.level("invariant").max_goal_error <= 1e-11
        assert abs(rocker - analytic) < 1e-9


@pytest.mark.parametrize("settings", [dict(carry_factorization=False),
                                      dict(predict_bend=False),  # the bake's settings
                                      dict(simplified_newton=False)])
def test_nothing_is_carried_when_a_setting_is_off(vh, settings):
    assert sum(st_.carried for st_, *_ in vh.drag_crank([0.5] * 10, tol=1e-6,
                                                         **settings)) == 0


def test_a_pose_edited_between_solves_is_not_carried(vh):
    fb = vh.FourBar()
    solver = Solver(fb.lk, Settings(tol=1e-6))
    statuses = []
    for i in range(1, 4):
        fb.lk.set_target("crank", [math.radians(0.5 * i)])
        statuses.append(solver.solve())
    assert statuses[1].carried == 1
    fb.lk.set_q("knee", fb.lk.joint("knee").q + 1e-3)  # not where the last solve ended
    fb.lk.set_target("crank", [math.radians(2.0)])
    status = solver.solve()
    assert status.carried == 0 and status.converged


def test_nothing_is_carried_after_a_solve_that_did_not_converge(vh):
    """A drag past the reach of a two-link arm ends at a least-squares compromise: the next
    solve, back within reach, starts with its own Jacobians."""
    lk = vh.two_link(q=(0.3, 0.6))
    solver = Solver(lk, Settings(tol=1e-8))
    start = lk.pose("foot")[:3, 3].copy()
    T = np.eye(4)
    for i in range(1, 4):
        T[:3, 3] = start + i * np.array([-0.01, 0.006, 0.0])
        lk.set_link_target("foot", T, mask=[1, 1, 0, 0, 0, 0])
        last = solver.solve()
    assert last.carried == 1 and last.converged
    T[:3, 3] = [3.0, 0.0, 0.0]  # 2 m of arm
    lk.set_link_target("foot", T, mask=[1, 1, 0, 0, 0, 0])
    assert not solver.solve().converged
    assert all(gp.carried is None for gp in solver._groups)
    T[:3, 3] = start
    lk.set_link_target("foot", T, mask=[1, 1, 0, 0, 0, 0])
    assert solver.solve().carried == 0


def test_no_factorization_is_carried_for_goals_that_guard_a_step_or_with_damping():
    stepper = Stepper(Settings())
    bend = (np.ones(2), np.zeros(2), 2.0, 0)

    def group(**kw):
        g = SimpleNamespace(**{"carried": [object(), 0], "bend": bend, "mu": np.zeros(6),
                               "guard_batches": [], "chord_pays": False, **kw})
        g.damped = evaluation.GroupProblem.damped.__get__(g)  # (the real test, on this group)
        return g
    gp = group()
    assert stepper.carry(gp) and gp.carried[1] == 1 and gp.chord_pays
    assert not stepper.carry(group(guard_batches=["balance"]))
    assert not stepper.carry(group(mu=np.array([0, 0, 1e-3, 0, 0, 0])))
    assert not stepper.carry(group(bend=None))
    old = group()
    old.carried[1] = CARRY_SOLVES
    assert not stepper.carry(old) and old.carried is None


def test_a_bend_is_scaled_between_carried_and_own_jacobians():
    """A first step with a carried (secant-updated) factorization misses by about twice the
    second-order term of a step with its own Jacobians (module doc of stepper.py): a bend
    learnt by one kind is doubled or halved for the other, and scaled by the squared length
    of the step."""
    stepper = Stepper(Settings())
    step = np.array([0.1, 0.0, 0.0])
    gp = SimpleNamespace(bend=(step, np.array([0.0, 1e-4, 0.0]), step @ step, False))
    np.testing.assert_allclose(stepper.predicted_bend(gp, step, step @ step, True), [0, 2e-4, 0])
    np.testing.assert_allclose(stepper.predicted_bend(gp, step, step @ step, False), [0, 1e-4, 0])
    longer = 1.5 * step
    gp.bend = (step, np.array([0.0, 1e-4, 0.0]), step @ step, True)
    np.testing.assert_allclose(stepper.predicted_bend(gp, longer, longer @ longer, False),
                               [0.0, 2.25e-4 / 2, 0.0])


@pytest.mark.parametrize("seed", range(5))
def test_the_secant_update_is_the_inverse_broyden_update_of_the_minimum_norm_inverse(seed):
    """``Stacked``: the stack's minimum-norm right inverse (the pseudo-inverse of full-rank
    rows; a structurally zero row dropped). ``Stacked.secant``: ``P' = P + (dq - P de) de^T /
    |de|^2``, so ``P' de = dq`` and any change of the errors orthogonal to ``de`` is answered
    as before."""
    rng = np.random.default_rng(seed)
    J = rng.standard_normal((7, 12))
    J[5] = 0.0  # (a structurally inactive row: its error is not a row of the inverse)
    st = pdls.stacked([(J[:4], np.zeros(4)), (J[4:], np.zeros(3))], 12)
    kept = np.delete(np.arange(7), 5)
    np.testing.assert_allclose(st.P, np.linalg.pinv(J[kept]), atol=1e-12)
    de = 0.01 * rng.standard_normal(7)
    dq = st.solve(de) + 1e-4 * rng.standard_normal(12)  # the linear answer and a curvature
    new = st.secant(dq, de)
    x = dq - st.P @ de[kept]
    np.testing.assert_allclose(new.P, st.P + np.outer(x, de[kept]) / (de[kept] @ de[kept]),
                               atol=1e-15)
    np.testing.assert_allclose(new.solve(de), dq, atol=1e-15)
    r = rng.standard_normal(7)
    r[kept] -= (r[kept] @ de[kept]) / (de[kept] @ de[kept]) * de[kept]  # orthogonal to de
    np.testing.assert_allclose(new.solve(r), st.solve(r), atol=1e-14)
    assert st.secant(dq, np.zeros(7)) is st  # the errors did not change: nothing learnt


def test_a_secant_update_that_is_mostly_no_correction_is_refused():
    """A motion that the rows do not explain (here along their null space) is no
    correction of the inverse: the update is refused; one within half the motion is not. A
    motion or a change of the errors that is not finite is refused too."""
    J = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    st = pdls.stacked([(J, np.zeros(2))], 3)
    de = np.array([1.0, 0.0])
    assert st.secant(np.array([0.0, 0.0, 1.0]), de) is None
    assert st.secant(np.array([1.0, 0.0, 0.4]), de) is not None  # |dq - P de| = 0.37 |dq|
    assert st.secant(np.array([1.0, 0.0, 0.6]), de) is None  # 0.51 |dq|
    assert st.secant(np.array([1.0, 0.0, np.nan]), de) is None  # not finite
    assert st.secant(np.array([1.0, 0.0, 0.0]), np.array([1.0, np.inf])) is None
    assert st.secant(np.array([1.0, 0.0, np.inf]), de) is None
    assert st.secant(np.array([1.0, 0.0, 0.0]), np.array([np.nan, 0.0])) is None
