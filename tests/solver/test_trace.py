"""The solver's optional per-iteration trace (``Solver.solve(trace=True)``, solver/trace.py):
one row per accepted iteration and group start, with the level errors the status reports, the
step actually taken, the damping and the time; off, nothing; on or off, the same solve."""

import json

import numpy as np
import pytest

from vart_addon.solver import Linkage, Settings, Solver, se3
from vart_addon.solver.levels import LEVEL_NAMES


def two_link_arm() -> Linkage:
    """A planar 2R arm (joints at the origin and at x = 1 m, every link frame at the origin
    at q = 0) whose tip link is dragged to (1.2, 0.9)."""
    lk = Linkage()
    lk.add_link("upper")
    lk.add_link("fore")
    lk.add_link("tip")
    lk.add_joint("shoulder", "revolute", None, "upper")
    lk.add_joint("elbow", "revolute", "upper", "fore", world_frame=se3.make_pose(np.eye(3), [1, 0, 0]))
    lk.add_joint("wrist", "fixed", "fore", "tip", world_frame=se3.make_pose(np.eye(3), [2, 0, 0]))
    lk.set_q("elbow", [0.3])
    lk.set_link_target("tip", se3.make_pose(np.eye(3), [1.2, 0.9, 0.0]),
                       mask=[True, True, False, False, False, False])
    return lk


def pendulum() -> Linkage:
    """A 2 kg bob 0.8 m from a pivot, started horizontal: gravity settles it (potential)."""
    lk = Linkage()
    lk.add_link("bob", mass=2.0, com=(0.8, 0, 0))
    lk.add_joint("pivot", "revolute", None, "bob")
    lk.set_gravity([0, -9.81, 0])
    return lk


def q_of(lk):
    return np.concatenate([lk.joint_q(j) for j in lk.joints.values() if j.dof])


def test_off_by_default_and_the_same_solve_either_way():
    plain, traced = two_link_arm(), two_link_arm()
    st = Solver(plain).solve()
    st_t = Solver(traced).solve(trace=True)
    assert st.trace is None
    assert st.converged and st_t.converged and st_t.iterations == st.iterations
    assert q_of(plain).tobytes() == q_of(traced).tobytes()


@pytest.mark.parametrize("make", [two_link_arm, pendulum])
def test_one_row_per_iteration_ending_at_the_status(make):
    lk = make()
    st = Solver(lk, Settings(max_iterations=300)).solve(trace=True)
    rows = st.trace
    assert [r.iteration for r in rows] == list(range(len(rows)))
    # the last iteration of a solve that stalled or found nothing left to do took no step
    assert st.iterations - rows[-1].iteration == (0 if make is two_link_arm else 1)
    assert {r.group for r in rows} == {0}
    last = rows[-1]
    for name, err in zip(LEVEL_NAMES, last.errors):
        if st.level(name).active:
            assert err == pytest.approx(st.level(name).error, rel=1e-12, abs=1e-15)
    assert rows[0].step == 0.0 and all(r.step > 0 for r in rows[1:])
    assert all(0 < r.alpha <= 1 for r in rows[1:])
    assert all(len(r.damping) == len(LEVEL_NAMES) and min(r.damping) >= 0 for r in rows)
    ms = [r.ms for r in rows]
    assert ms == sorted(ms) and ms[-1] <= st.ms
    json.dumps([r.as_dict() for r in rows])  # plain data


def test_the_step_is_the_motion_of_the_joints():
    lk = two_link_arm()
    before = q_of(lk)
    st = Solver(lk).solve(max_iterations=1, trace=True)
    assert st.iterations == 1
    assert st.trace[1].step == pytest.approx(np.linalg.norm(q_of(lk) - before), rel=1e-12)


def test_the_target_error_falls_to_tol():
    st = Solver(two_link_arm(), Settings(tol=1e-9)).solve(trace=True)
    target = LEVEL_NAMES.index("target")
    errs = [r.errors[target] for r in st.trace]
    assert errs[0] > 0.1 and errs[-1] <= 1e-9
