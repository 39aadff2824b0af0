"""The goal registry: every kind declared once, goals named by structured identifiers."""
import copy
import pickle

import numpy as np
import pytest

from vart_addon.solver import Linkage, Settings, Solver, se3
from vart_addon.solver import goal_kinds as GK
from vart_addon.solver.levels import LEVEL_NAMES, LEVELS, N_LEVELS, GoalId, Level, level_of
from vart_addon.solver.parts import Joint


def test_levels_are_named_constants_in_priority_order():
    assert N_LEVELS == 6 and [int(lv) for lv in LEVELS] == list(range(6))
    assert LEVEL_NAMES == ("invariant", "limit", "lock", "potential", "target", "posture")
    assert Level.TARGET.label == "target"


def test_a_goal_id_is_its_text_and_carries_kind_owner_and_level():
    g = GoalId("target", "joint 'tilt'", Level.TARGET)
    assert g == "target of joint 'tilt'" and hash(g) == hash("target of joint 'tilt'")
    assert (g.kind, g.owner, g.level) == ("target", "joint 'tilt'", Level.TARGET)
    for back in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g)):
        assert back == g and back.level is Level.TARGET and back.owner == g.owner
    assert GoalId("gravity", "", Level.POTENTIAL) == "gravity"
    assert level_of(g) is Level.TARGET and level_of("plain text") is Level.TARGET


def test_every_goal_field_of_a_joint_belongs_to_exactly_one_kind():
    """A new goal stored on Joint without a kind declared for it fails here."""
    structure = {"name", "jtype", "parent", "child", "T_parent_mob", "T_child_frame", "q",
                 "pitch", "virtual", "is_root", "tree_dir", "goals"}
    owned = [f for k in GK.KINDS if k.owner == "joint" for f in k.q_fields + k.fields]
    assert len(owned) == len(set(owned))
    assert set(Joint.__dataclass_fields__) - structure == set(owned)
    assert [k.level for k in GK.KINDS] == sorted(k.level for k in GK.KINDS)
    assert set(GK.KIND) == {"invariant", "mimic", "limit", "lock", "spring", "gravity",
                            "balance", "torque_limit", "keep_configuration", "target", "look_at",
                            "com_target", "com_over", "posture"}


def _two_arms():
    """Two independent arms from the ground: one locked and over-constrained, one targeted."""
    lk = Linkage()
    for name, x in (("a", 0.0), ("b", 2.0)):
        lk.add_link(name, pose=se3.make_pose(None, [x, 0, 0]), mass=1.0)
        lk.add_joint(f"{name}_hinge", "revolute", None, name,
                     world_frame=se3.make_pose(None, [x, 0, 0]))
    return lk


def test_statuses_name_unmet_goals_with_their_kind_and_level():
    lk = _two_arms()
    lk.set_limits("b_hinge", [-0.5], [0.5])
    lk.set_target("b_hinge", [1.2])   # beyond the limit: unmet, at the target level
    lk.lock_joint("a_hinge", [0.3])
    lk.set_posture("a_hinge", [0.0])  # the lock wins over the posture
    st = Solver(lk, Settings(tol=1e-10)).solve()
    assert st.groups == 2  # independent arms are solved as separate groups
    assert st.unmet == ["target of joint 'b_hinge'"]
    (g,) = st.unmet
    assert isinstance(g, GoalId) and (g.kind, g.level) == ("target", Level.TARGET)
    assert st.level(Level.LOCK).satisfied and st.level("lock") is st.level(Level.LOCK)
    assert st.level(Level.POSTURE).unmet == ["posture of joint 'a_hinge'"]
    assert st.level(Level.POSTURE).unmet[0].level is Level.POSTURE


def test_changing_a_joints_layout_clears_exactly_its_configuration_goals():
    lk = _two_arms()
    lk.lock_joint("a_hinge", [0.1])
    lk.set_stiffness("a_hinge", 5.0, [0.2])
    lk.set_limits("a_hinge", [-1.0], [1.0])
    lk.set_joint_type("a_hinge", "spherical")
    j = lk.joint("a_hinge")
    assert (j.lock_q, j.target_q, j.target_mask, j.posture_q, j.rest_q) == (None,) * 5
    assert j.stiffness == 0.0 and np.isinf(j.lower).all()


def test_the_unmet_goal_named_is_the_one_of_its_kind_that_failed_in_a_mixed_level():
    """Issue 19, item 14: one level (target) holding two kinds of goal, a joint target and a
    link target; only the joint target is out of reach (its limit), and only it is named."""
    lk = Linkage()
    lk.add_link("arm", pose=se3.make_pose(None, [1, 0, 0]))
    lk.add_link("hand", pose=se3.make_pose(None, [2, 0, 0]))
    lk.add_joint("shoulder", "revolute", None, "arm", world_frame=se3.make_pose(None, [0, 0, 0]))
    lk.add_joint("wrist", "prismatic", "arm", "hand", world_frame=se3.make_pose(None, [2, 0, 0]))
    lk.set_limits("shoulder", [-0.1], [0.1])
    lk.set_target("shoulder", [0.5])                       # beyond its limit: unmet
    goal = lk.pose("hand").copy()
    goal[:3, 3] += [0.0, 0.0, 0.3]                           # along the slide (z): reachable
    lk.set_link_target("hand", goal, [False, False, True, False, False, False])
    st = Solver(lk, Settings(tol=1e-10)).solve()
    level = st.level(Level.TARGET)
    assert [g.kind for g in level.unmet] == ["target"]
    assert level.unmet == ["target of joint 'shoulder'"]
    assert lk.pose("hand")[2, 3] == pytest.approx(goal[2, 3], abs=1e-8)  # the met one
