"""bench/dls_baseline.py, the plain damped-least-squares baseline of bench/method_compare.py:
it solves what vart solves (a reachable target; the benchmark's closures and drag), takes the
textbook step, and traces its iterations as vart's solver does."""

import numpy as np
import pytest

import vart_bench as vb
from dls_baseline import PlainDLS
from vart_addon.solver import Linkage, Settings, Solver, se3


def arm(lam=0.05):
    lk = Linkage()
    for name in ("upper", "fore", "tip"):
        lk.add_link(name)
    lk.add_joint("shoulder", "revolute", None, "upper")
    lk.add_joint("elbow", "revolute", "upper", "fore", world_frame=se3.make_pose(np.eye(3), [1, 0, 0]))
    lk.add_joint("wrist", "fixed", "fore", "tip", world_frame=se3.make_pose(np.eye(3), [2, 0, 0]))
    lk.set_q("elbow", [0.3])
    lk.set_link_target("tip", se3.make_pose(np.eye(3), [1.2, 0.9, 0.0]),
                       mask=[True, True, False, False, False, False])
    return lk


def test_it_meets_a_reachable_target_as_vart_does():
    lk, ref = arm(), arm()
    st = PlainDLS(lk, Settings(tol=1e-9)).solve(trace=True)
    Solver(ref, Settings(tol=1e-9)).solve()
    assert st.converged and st.level("target").error <= 1e-9
    np.testing.assert_allclose(lk.pose("tip")[:2, 3], [1.2, 0.9], atol=1e-9)
    assert [r.iteration for r in st.trace] == list(range(st.iterations + 1))
    assert st.trace[-1].errors[4] == pytest.approx(st.level("target").error)


def tip_xy(q):
    lk = arm()
    lk.set_q("shoulder", [q[0]])
    lk.set_q("elbow", [q[1]])
    return lk.pose("tip")[:2, 3]


def test_the_first_step_is_the_damped_least_squares_step():
    lk = arm()
    lam = 0.3
    q0 = np.array([lk.joint_q(lk.joint(n))[0] for n in ("shoulder", "elbow")])
    e0 = tip_xy(q0) - [1.2, 0.9]
    # the tip position's Jacobian by central differences of the forward kinematics
    h = 1e-6
    J = np.column_stack([(tip_xy(q0 + h * d) - tip_xy(q0 - h * d)) / (2 * h) for d in np.eye(2)])
    dq = J.T @ np.linalg.solve(J @ J.T + lam ** 2 * np.eye(2), -e0)
    dq *= min(1.0, 0.2 / np.abs(dq).max())
    PlainDLS(lk, Settings(), damping=lam).solve(max_iterations=1)
    q1 = np.array([lk.joint_q(lk.joint(n))[0] for n in ("shoulder", "elbow")])
    np.testing.assert_allclose(q1 - q0, dq, atol=1e-8)


@pytest.mark.skipif(not vb.DEFAULT_PROBLEMS.is_dir(), reason="../shared/bench not present")
def test_it_drags_the_hexapod_feasibly():
    prob = vb.BenchProblem("P1_hexapod")
    prob.solver = PlainDLS(prob.lk, prob.settings)
    s = vb.run_problem(prob, frames=3)["summary"]
    assert s["feasible"] and s["frames_out_of_limits"] == 0


def test_it_solves_a_mechanism_whose_rows_vart_stores_by_support():
    """A tower of 40 cells (120 DoF: vart stores its rows by supports, sparse_rows.py): the
    baseline makes them dense and still takes its textbook step (a defect once: it
    concatenated vart's rows as arrays and raised)."""
    from tower_scaling import tower_linkage
    lk = tower_linkage(40)
    T = lk.pose("rung40").copy()
    T[0, 3] += 0.01
    lk.set_link_target("rung40", T, mask=[True, False, True, False, False, False])
    st = PlainDLS(lk, Settings(tol=1e-6)).solve()  # converges linearly: not within 100 steps
    assert st.level("invariant").error < 1e-4
    assert np.allclose(lk.pose("rung40")[[0, 2], 3], T[[0, 2], 3], atol=1e-3)
