"""Goals no DoF can move (``SolveStatus.stuck``, solver/topology.py ``analyse``): a goal on a
joint or on a link that no joint of the linkage can move is not evaluated, so it is listed as
stuck, by the name its batch would give it and at the level it would be met at, and the solve
does not count as converged. An energy no joint can change (gravity on a fixed base, a spring
on a closure between fixed links) asks for nothing and is not stuck."""
import numpy as np
import pytest

from vart_addon.solver import Linkage, Solver, se3
from vart_addon.solver.levels import GoalId, Level

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


def welded_head_and_arm():
    """``head`` welded to the world 1 m up (a fixed joint), and a revolute ``arm`` beside it
    that can move, so the linkage has DoF but none that moves the head."""
    lk = Linkage()
    lk.add_link("head", pose=se3.make_pose(None, [0, 0, 1]), mass=2.0)
    lk.add_joint("weld", "fixed", None, "head", world_frame=se3.make_pose(None, [0, 0, 1]))
    lk.add_link("arm", pose=se3.make_pose(None, [1, 0, 0]), mass=1.0, com=(0.5, 0, 0))
    lk.add_joint("shoulder", "revolute", None, "arm", world_frame=se3.make_pose(None, [1, 0, 0]))
    return lk


def test_a_link_goal_no_joint_moves_is_stuck_by_its_batch_name():
    lk = welded_head_and_arm()
    lk.set_goal("look_at", "head", {"axis": (0, 0, -1), "point": (2, 1, 0)})
    st = Solver(lk).solve()
    assert st.stuck == ["look_at of root joint of link 'head'"]
    (goal,) = st.stuck
    assert isinstance(goal, GoalId) and goal.kind == "look_at" and goal.level == Level.TARGET
    assert not st.converged and st.unmet == []


def test_a_stuck_goal_has_the_level_its_value_chose():
    lk = welded_head_and_arm()
    lk.set_goal("balance", "head", {"margin": 0.01, "level": "target"})
    (goal,) = Solver(lk).solve().stuck
    assert goal == "balance of root joint of link 'head'" and goal.level == Level.TARGET


def test_a_goal_a_joint_moves_is_not_stuck():
    lk = welded_head_and_arm()
    lk.set_goal("look_at", "arm", {"axis": (1, 0, 0), "point": (1, 1, 0)})
    st = Solver(lk).solve()
    assert st.stuck == [] and st.converged
    np.testing.assert_allclose(lk.poses()["arm"][:3, 0], [0, 1, 0], atol=1e-6)


def test_gravity_on_a_fixed_base_is_not_stuck():
    lk = welded_head_and_arm()
    lk.gravity = (0.0, 0.0, -9.81)
    st = Solver(lk).solve()
    assert st.stuck == [] and st.converged


def test_a_joint_goal_no_dof_moves_is_stuck():
    lk = welded_head_and_arm()
    lk.add_link("base", pose=se3.make_pose(None, [0, 0, 2]))
    lk.add_joint("bolt", "fixed", None, "base", world_frame=se3.make_pose(None, [0, 0, 2]))
    lk.add_joint("strut", "prismatic", "head", "base", world_frame=se3.make_pose(None, [0, 0, 1]),
                 tree=False)
    lk.set_target("strut", [0.5])
    lk.set_stiffness("strut", 10.0, [0.2])  # an energy no DoF can change: asks for nothing
    st = Solver(lk).solve()
    assert "target of joint 'strut'" in st.stuck and not st.converged
    assert not any(g.kind == "spring" for g in st.stuck)
