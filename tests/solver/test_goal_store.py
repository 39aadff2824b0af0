"""Goals kept generically on a joint (solver/goal_store.py): a kind declared with values only,
its values checked, kept apart from copies, inverted with the joint, dropped when its layout
changes; and the first kinds' accessors agree with their setters."""
import numpy as np
import pytest

from vart_addon.solver import VartError, goal_kinds, goals_edit, tree_edit
from vart_addon.solver.goal_kinds import GoalKind
from vart_addon.solver.goal_values import Value
from vart_addon.solver.levels import Level


@pytest.fixture
def hold(monkeypatch):
    """A joint goal kind declared for the test only (values, no batch: nothing solves it)."""
    kind = GoalKind("hold", Level.POSTURE, "joint", lambda lk, j: "hold" in j.goals,
                    lambda model, js, cols, ctx: [], label="Hold",
                    values=(Value("q", "config"), Value("gain", "scalar", nonneg=True)))
    kinds = goal_kinds.KINDS + (kind,)
    monkeypatch.setattr(goal_kinds, "KINDS", kinds)
    monkeypatch.setattr(tree_edit, "KINDS", kinds)
    monkeypatch.setattr(goals_edit, "KIND", {**goal_kinds.KIND, "hold": kind})
    return kind


def test_a_joint_goal_kind_needs_no_storage_code(vh, hold):
    lk = vh.two_link(("upper", "fore", "hand"), ("shoulder", "elbow", "wrist"))
    lk.set_goal("hold", "elbow", {"q": [0.3], "gain": 2})
    got = lk.goal("hold", "elbow")
    assert got["q"].tolist() == [0.3] and got["gain"] == 2.0
    with pytest.raises(VartError, match="gain: must be >= 0"):
        lk.set_goal("hold", "elbow", {"q": [0.1], "gain": -1})
    with pytest.raises(VartError, match="q: expected 1 values"):
        lk.set_goal("hold", "elbow", {"q": [0.1, 0.2], "gain": 1})
    assert lk.goal("hold", "elbow")["q"].tolist() == [0.3]  # unchanged
    j = lk.joint("elbow")
    c = j.copy()
    c.goals["hold"]["q"][0] = 9.0
    assert lk.goal("hold", "elbow")["q"].tolist() == [0.3]  # a copy keeps its own
    lk.invert_joint("elbow")
    assert lk.goal("hold", "elbow")["q"].tolist() == [-0.3]  # the inverse motion's value
    lk.set_joint_type("elbow", "prismatic")  # another layout: its configurations go
    assert lk.goal("hold", "elbow") is None
    lk.set_goal("hold", "shoulder", {"q": [0.1], "gain": 0})
    lk.clear_goal("hold", "shoulder")
    assert lk.goal("hold", "shoulder") is None


def test_the_first_kinds_read_back_what_their_setters_store(vh):
    lk = vh.two_link(("upper", "fore", "hand"), ("shoulder", "elbow", "wrist"))
    lk.lock_joint("shoulder", [0.2])
    lk.set_target("elbow", [0.4])
    lk.set_posture("elbow", [0.1])
    lk.set_stiffness("shoulder", 3.0, [0.5])
    assert lk.goal("lock", "shoulder")["q"].tolist() == [0.2]
    t = lk.goal("target", "elbow")
    assert t["q"].tolist() == [0.4] and t["mask"].tolist() == [True]
    assert lk.goal("posture", "elbow")["q"].tolist() == [0.1]
    sp = lk.goal("spring", "shoulder")
    assert sp["stiffness"] == 3.0 and sp["rest"].tolist() == [0.5]
    for kind, name in (("lock", "shoulder"), ("target", "elbow"), ("posture", "elbow"),
                       ("spring", "shoulder")):
        lk.clear_goal(kind, name)
        assert lk.goal(kind, name) is None
    with pytest.raises(VartError, match="springs are for 1-DoF joints"):
        lk.set_goal("spring", "wrist", {"stiffness": 1.0, "rest": []})
    assert np.isfinite(lk.joint("elbow").q).all()


def test_clearing_a_target_that_is_not_there_keeps_the_analysis(vh):
    """Fixed defect (issue 33): a tool's waypoints clear their arm's joint targets at every
    frame of a Linear move; each clear counted as a change of the goal set, so the solve
    groups were analysed again at every frame (UR5's pick and place: 490 -> 558 frames/s)."""
    lk = vh.two_link(("upper", "fore", "hand"), ("shoulder", "elbow", "wrist"))
    v = lk.goals_version
    lk.clear_target("elbow")
    lk.clear_link_target("hand")
    assert lk.goals_version == v
    lk.set_target("elbow", [0.2])
    assert lk.goals_version > v
    v = lk.goals_version
    lk.clear_target("elbow")
    assert lk.goals_version > v and lk.joint("elbow").target_q is None
