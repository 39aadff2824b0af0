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
    held = lk.joint("elbow").q  # every joint holds its view: the next write goes through it
    source = np.array([3.0, 4.0])
    m.q_to_joints(source)
    assert lk.joint("elbow").q is held and held.tolist() == [4.0]
    source[1] = 7.0  # ... from a copy of the caller's vector
    assert m.q_from_joints().tolist() == [3.0, 4.0]
    lk.joint("shoulder").q = np.array([0.25])  # one joint replaced: all get new views
    m.q_to_joints([5.0, 6.0])
    assert lk.joint("elbow").q is not held and held.tolist() == [4.0]
    assert m.q_from_joints().tolist() == [5.0, 6.0]


def test_a_write_after_a_read_that_found_the_views_held_goes_through_them(vh):
    """``q_to_joints(q, held=True)`` (the solver's write after its read): the views the read
    found are written through without a second look; a read that found a joint's value
    replaced makes the write give every joint a new view, as without ``held``."""
    lk = arm(vh)
    m = lk.model()
    m.q_to_joints([0.1, 0.2])
    held = lk.joint("elbow").q
    q = m.q_from_joints()  # every joint holds its view
    m.q_to_joints(q + 1.0, held=True)
    assert lk.joint("elbow").q is held and held.tolist() == [1.2]
    assert m.q_from_joints().tolist() == [1.1, 1.2]
    lk.joint("shoulder").q = np.array([0.5])  # replaced before the read
    q = m.q_from_joints()
    assert q.tolist() == [0.5, 1.2]
    m.q_to_joints(q + 1.0, held=True)
    assert lk.joint("elbow").q is not held and held.tolist() == [1.2]
    assert [lk.joint(n).q.tolist() for n in ("shoulder", "elbow")] == [[1.5], [2.2]]
    assert m.q_from_joints().tolist() == [1.5, 2.2]
    lk.set_target("elbow", [0.7])  # a solve reads, writes through the views, reads again
    held = lk.joint("elbow").q
    Solver(lk).solve()
    assert lk.joint("elbow").q is held and abs(held[0] - 0.7) < 1e-9

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


def naive_poses(lk):
    """World poses composed one tree joint at a time, parents first (no batching, no folding
    of fixed joints): ``T_parent @ Fp @ M(q) @ Fc^-1``, inverted for an edge traversed from
    the joint's child to its parent."""
    from vart_addon.solver import se3
    T = {None: np.eye(4)}
    for name in lk.model().link_names[1:]:
        e = lk.tree_edge[name]
        X = e.T_parent_mob @ e.jtype.motion(np.atleast_2d(e.q), e.pitch)[0] \
            @ se3.inverse(e.T_child_frame)
        T[name] = T[lk.tree_parent(name)] @ (X if e.tree_dir > 0 else se3.inverse(X))
    return T


@pytest.mark.parametrize("seed", range(40))
def test_forward_kinematics_matches_joint_by_joint_composition(vh, seed):
    """Fixed joints anywhere (chains of them, at the ground, between moving joints, as
    leaves) and edges traversed backwards after re-grounding: the batched forward kinematics
    with fixed joints folded gives every link the pose of the plain composition."""
    rng = np.random.default_rng(seed)
    types = ("fixed", "fixed", "fixed", "revolute", "prismatic", "helical", "spherical",
             "planar", "general", "cylindrical")
    lk = vh.random_tree(rng, n_links=int(rng.integers(3, 12)), types=types)
    if seed % 2:
        lk.make_ground_link(list(lk.links)[int(rng.integers(len(lk.links)))])
    m = lk.model()
    T = m.fk(m.q_from_joints())
    ref = naive_poses(lk)
    for name in lk.links:
        np.testing.assert_allclose(T[m.index[name]], ref[name], atol=1e-12)


@pytest.mark.parametrize("seed", range(20))
def test_one_axis_trees_take_fixed_links_into_one_array(vh, seed):
    """A tree of one-axis and fixed joints (few fixed ones) runs the whole-tree plan (every
    link in one array, fixed links as rows with a constant transform from their base): the
    same poses as the plain composition and as the compact plan, which it replaces."""
    rng = np.random.default_rng(100 + seed)
    types = ("fixed", "revolute", "revolute", "prismatic", "helical")
    lk = vh.random_tree(rng, n_links=int(rng.integers(3, 12)), types=types)
    m = lk.model()
    assert m._whole is not None
    q = m.q_from_joints() + rng.uniform(-1.0, 1.0, m.n_dof)
    m.q_to_joints(q)
    T = m.fk(q)
    ref = naive_poses(lk)
    for name in lk.links:
        np.testing.assert_allclose(T[m.index[name]], ref[name], atol=1e-12)
    whole, m._whole = m._whole, None  # the compact plan
    np.testing.assert_allclose(m.fk(q), T, atol=1e-14)
    m._whole = whole
