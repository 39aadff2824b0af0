"""Far targets in one solve (issue 35, item 5): *Operate Joint* on a closed chain with a locked
joint, the pattern of story 2 (a loop through the leg, the trench's depth and pitch locked).

The mechanism: a planar five-bar (two two-link arms from the ground, closed at their tips by a
revolute closure) with its right elbow locked, i.e. a four-bar: a crank target fixes the pose.
A trial step toward a far target opens the loop (a curvature error of the invariant level);
its Newton corrections must keep to every level the trial must not worsen (the invariant and
the lock). Corrected on the invariant alone, the locked elbow drifted, the corrections ran out
and the line search halved the step five times at every iteration: 122 iterations instead of 8
for the first move below.
"""

import math

import numpy as np
import pytest

from vart_addon.solver import Linkage, Settings, Solver, se3

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

SETTINGS = Settings(max_iterations=1000)


def at(x, y, angle=0.0):
    return se3.make_pose(se3.rot_z(angle), [x, y, 0.0])


def locked_five_bar() -> Linkage:
    """Arms of 1 m from (0, 0) and (2, 0) up, then 1 m across to a closure at (1, 1); the
    right elbow E locked (a four-bar whose crank is A)."""
    lk = Linkage()
    lk.add_link("a1", pose=at(0, 0, math.pi / 2))
    lk.add_link("a2", pose=at(0, 1))
    lk.add_link("b1", pose=at(2, 0, math.pi / 2))
    lk.add_link("b2", pose=at(2, 1, math.pi))
    lk.add_joint("A", "revolute", None, "a1", world_frame=at(0, 0))
    lk.add_joint("B", "revolute", "a1", "a2", world_frame=at(0, 1))
    lk.add_joint("D", "revolute", None, "b1", world_frame=at(2, 0))
    lk.add_joint("E", "revolute", "b1", "b2", world_frame=at(2, 1))
    lk.add_joint("C", "revolute", "a2", "b2", world_frame=at(1, 1))  # closes the loop
    lk.lock_joint("E")
    return lk


def staged(lk: Linkage, goal: float, stages: int = 40) -> np.ndarray:
    """The pose a slow drag reaches: the crank's target moved in small stages, each solved
    from the last (the branch the mechanism moves along)."""
    start = float(lk.joint_q(lk.joint("A"))[0])
    solver = Solver(lk, SETTINGS)
    for k in range(1, stages + 1):
        lk.set_target("A", [start + (goal - start) * k / stages])
        assert solver.solve().converged
    return lk.model().q_from_joints()


@pytest.mark.parametrize("goal", [-0.8, -1.2])
def test_a_far_target_is_reached_in_a_few_iterations_where_a_slow_drag_ends(goal):
    lk = locked_five_bar()
    lk.set_target("A", [goal])
    status = Solver(lk, SETTINGS).solve()
    assert status.converged
    assert status.iterations <= 15  # (122 and 290 before)
    assert float(lk.joint_q(lk.joint("A"))[0]) == pytest.approx(goal, abs=SETTINGS.tol)
    # a four-bar: one pose per branch, the one a slow drag along it reaches (the loop's
    # Jacobian has full rank here, so poses within tol of the goals are within ~tol)
    np.testing.assert_allclose(lk.model().q_from_joints(), staged(locked_five_bar(), goal),
                               rtol=0, atol=1e-7)


def test_a_fresh_solve_leaves_a_stalled_solves_damping_behind():
    """A target out of reach stalls at the reach's singular boundary with heavy damping on the
    target level; the next solve with ``fresh`` (what Operate Joint asks for) starts without
    it and reaches a target back in range."""
    lk = locked_five_bar()
    solver = Solver(lk, SETTINGS)
    lk.set_target("A", [0.6])  # beyond the mechanism's reach
    status = solver.solve()
    assert status.stalled and not status.converged
    assert max(gp.mu.max() for gp in solver._groups) > 1.0  # left heavily damped
    lk.set_target("A", [-1.2])
    status = solver.solve(fresh=True)
    assert status.converged, status
    assert float(lk.joint_q(lk.joint("A"))[0]) == pytest.approx(-1.2, abs=SETTINGS.tol)
    assert status.level("lock").max_goal_error <= SETTINGS.tol
