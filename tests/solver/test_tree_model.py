"""The compiled tree (vart_addon/solver/kinematics.py): the flat configuration vector read
from and written to the joints, and the remembered forward kinematics."""

import numpy as np
import pytest

from vart_addon.solver import Solver

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


def arm(vh):
    return vh.two_link(("upper", "fore", "hand"), ("shoulder", "elbow", "wrist"))


def test_q_round_trip_sees_in_place_edits_and_replaced_joint_values(vh):
    lk = arm(vh)
    m = lk.model()
    m.q_to_joints([0.1, 0.2])
    q = m.q_from_joints()
    assert q.tolist() == [0.1, 0.2]
    q[0] = 9.0  # the caller's copy: the joints do not change
    assert m.q_from_joints().tolist() == [0.1, 0.2]
    lk.joint("elbow").q[0] = 0.5  # an in-place edit of a joint's view
    assert m.q_from_joints().tolist() == [0.1, 0.5]
    lk.joint("shoulder").q = np.array([-0.3])  # a joint given a new array
    assert m.q_from_joints().tolist() == [-0.3, 0.5]
    m.q_to_joints(np.array([1.0, 2.0]))
    assert [lk.joint(n).q.tolist() for n in ("shoulder", "elbow")] == [[1.0], [2.0]]


def test_remembered_poses_are_the_solver_result_and_read_only(vh):
    lk = arm(vh)
    lk.set_target("elbow", [0.7])
    Solver(lk).solve()
    m = lk.model()
    q = m.q_from_joints()
    T = m.world_poses(q)
    np.testing.assert_allclose(T, m.fk(q), atol=1e-15)
    assert m.world_poses(q) is T  # no second forward kinematics for the same q
    with pytest.raises(ValueError):
        T[0, 0, 0] = 2.0
    q2 = q + 0.1
    np.testing.assert_allclose(m.world_poses(q2), m.fk(q2), atol=1e-15)
