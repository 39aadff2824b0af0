"""Topological mutations of a Linkage (vart_addon/solver/editing.py).

Every mutation keeps the spanning-tree invariants (each link has exactly one tree edge, the
tree reaches every link from the ground, no joint refers to a missing link); those documented
as pose-preserving leave every link's world pose unchanged; a mutation that raises VartError
changes nothing. Random trees and random mutation sequences check this after every step.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vart_addon.solver import CATALOG, Linkage, Solver, VartError
from vart_addon.solver.joint_types import INVERTIBLE

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

SEEDS = st.integers(0, 2**32 - 1)
FAST = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ALL_TYPES = tuple(CATALOG)


def tree_of(lk):
    return {n: (e.name, e.is_root, e.tree_dir) for n, e in lk.tree_edge.items()}


# ---- basics -------------------------------------------------------------------------------------
def test_a_new_link_hangs_from_its_root_joint_and_a_joint_takes_over(vh):
    lk = Linkage()
    lk.add_link("a", pose=vh.planar_pose(1, 2, 0.3))
    assert lk.tree_edge["a"] is lk.roots["a"] and lk.roots["a"].is_tree
    np.testing.assert_allclose(lk.pose("a"), vh.planar_pose(1, 2, 0.3), atol=1e-15)
    lk.add_joint("j", "revolute", None, "a", world_frame=vh.planar_pose(1, 2))
    assert lk.tree_edge["a"] is lk.joint("j") and not lk.roots["a"].is_tree
    np.testing.assert_allclose(lk.pose("a"), vh.planar_pose(1, 2, 0.3), atol=1e-15)
    vh.check_tree(lk)


@FAST
@given(seed=SEEDS)
def test_random_trees_satisfy_the_invariants_and_keep_poses_when_closures_are_added(vh, seed):
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng)
    vh.check_tree(lk)
    before = lk.poses()
    for c in range(3):
        names = list(lk.links)
        a, b = rng.choice(len(names) + 1, size=2, replace=False)
        if b == len(names):
            a, b = b, a
        parent = None if a == len(names) else names[a]
        lk.add_joint(f"c{c}", str(rng.choice(ALL_TYPES)), parent, names[b],
                     world_frame=vh.random_pose(rng), pitch=0.1)
        vh.check_tree(lk)
        vh.assert_poses_equal(before, lk.poses())
        assert not lk.joint(f"c{c}").is_tree or lk.tree_edge[names[b]] is lk.joint(f"c{c}")


# ---- re-grounding -------------------------------------------------------------------------------
@FAST
@given(seed=SEEDS)
def test_make_ground_link_keeps_every_pose(vh, seed):
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng, closures=int(rng.integers(0, 3)))
    before = lk.poses()
    for link in rng.permutation(list(lk.links))[:3]:
        lk.make_ground_link(str(link))
        vh.check_tree(lk)
        assert lk.tree_edge[link] is lk.roots[link]
        vh.assert_poses_equal(before, lk.poses())


@FAST
@given(seed=SEEDS)
def test_invert_joint_of_a_tree_joint_keeps_every_pose(vh, seed):
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng, types=tuple(sorted(INVERTIBLE)), closures=int(rng.integers(0, 2)))
    before = lk.poses()
    inverted = 0
    for name in rng.permutation(list(lk.joints)):
        j = lk.joint(name)
        if j.parent is None:
            snap = vh.snapshot(lk)
            with pytest.raises(VartError, match=name):
                lk.invert_joint(name)
            assert vh.snapshot(lk) == snap
            continue
        was_tree = j.is_tree
        old_parent, old_child = j.parent, j.child
        lk.invert_joint(name)
        inverted += 1
        assert (j.parent, j.child) == (old_child, old_parent)
        assert j.is_tree == was_tree
        vh.check_tree(lk)
        vh.assert_poses_equal(before, lk.poses())
        # The joint still holds: its invariant is zero and its q reproduces the relative pose.
        M = lk.relative_pose(j)
        np.testing.assert_allclose(j.jtype.residual(M, j.pitch), 0.0, atol=1e-9)
        if j.is_tree:
            np.testing.assert_allclose(j.jtype.motion(j.q, j.pitch)[0], M, atol=1e-9)


@pytest.mark.parametrize("name", sorted(set(CATALOG) - INVERTIBLE))
def test_invert_joint_refuses_types_whose_inverse_is_another_type(vh, name):
    lk = Linkage()
    lk.add_link("a")
    lk.add_link("b", pose=vh.planar_pose(1, 0))
    lk.add_joint("j", name, "a", "b", world_frame=vh.planar_pose(1, 0))
    snap = vh.snapshot(lk)
    with pytest.raises(VartError, match="'j'.*cannot be inverted"):
        lk.invert_joint("j")
    assert vh.snapshot(lk) == snap


def test_invert_joint_twice_restores_the_joint(vh):
    rng = np.random.default_rng(8)
    lk = vh.random_tree(rng, n_links=5, types=("revolute", "helical", "cylindrical", "spherical"),
                        closures=1)
    lk.add_link("extra", pose=vh.planar_pose(2, 1))
    lk.add_joint("x", "revolute", "L1", "extra", world_frame=vh.planar_pose(2, 1), lower=[-1],
                 upper=[0.5])
    lk.set_q("x", [0.2])
    before = lk.poses()
    lk.invert_joint("x")
    assert lk.joint("x").q[0] == pytest.approx(-0.2, abs=1e-12)
    np.testing.assert_allclose([lk.joint("x").lower[0], lk.joint("x").upper[0]], [-0.5, 1.0])
    lk.invert_joint("x")
    vh.assert_poses_equal(before, lk.poses())
    j = lk.joint("x")
    assert (j.parent, j.child) == ("L1", "extra")
    assert j.q[0] == pytest.approx(0.2, abs=1e-12)
    np.testing.assert_allclose([j.lower[0], j.upper[0]], [-1.0, 0.5])
    vh.check_tree(lk)


# ---- tree / closure ------------------------------------------------------------------------------
@FAST
@given(seed=SEEDS)
def test_make_closure_then_make_tree_round_trips(vh, seed):
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng, closures=2)
    before = lk.poses()
    tree = tree_of(lk)
    for name in rng.permutation(list(lk.joints)):
        j = lk.joint(name)
        if not j.is_tree:
            continue
        carried = j.child if j.tree_dir > 0 else j.parent
        lk.make_closure(name)
        vh.check_tree(lk)
        assert not j.is_tree and lk.tree_edge[carried] is lk.roots[carried]
        vh.assert_poses_equal(before, lk.poses())
        lk.make_tree(name)
        vh.check_tree(lk)
        vh.assert_poses_equal(before, lk.poses())
        assert tree_of(lk) == tree, name


@FAST
@given(seed=SEEDS)
def test_make_tree_of_a_closure_then_back_keeps_poses(vh, seed):
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng, closures=2)
    before = lk.poses()
    for name in [n for n, j in lk.joints.items() if not j.is_tree]:
        lk.make_tree(name)
        vh.check_tree(lk)
        assert lk.joint(name).is_tree
        vh.assert_poses_equal(before, lk.poses(), atol=1e-10)
        lk.make_closure(name)
        vh.check_tree(lk)
        vh.assert_poses_equal(before, lk.poses(), atol=1e-10)


def test_make_root_tree_frees_a_link(vh):
    rng = np.random.default_rng(2)
    lk = vh.random_tree(rng, n_links=5)
    before = lk.poses()
    for link in lk.links:
        e = lk.tree_edge[link]
        lk.make_root_tree(link)
        vh.check_tree(lk)
        assert lk.tree_edge[link] is lk.roots[link]
        if not e.is_root:
            assert not e.is_tree
        vh.assert_poses_equal(before, lk.poses())


# ---- removal -------------------------------------------------------------------------------------
@FAST
@given(seed=SEEDS)
def test_remove_link_removes_its_joints_and_keeps_the_rest(vh, seed):
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng, closures=2)
    while len(lk.links) > 1:
        link = str(rng.choice(list(lk.links)))
        before = lk.poses()
        attached = {n for n, j in lk.joints.items() if link in (j.parent, j.child)}
        gone = lk.remove_link(link)
        assert set(gone) == attached
        assert link not in lk.links and link not in lk.roots and link not in lk.tree_edge
        for j in lk.joints.values():
            assert link not in (j.parent, j.child)
        vh.check_tree(lk)
        del before[link]
        vh.assert_poses_equal(before, lk.poses())


def test_remove_link_clears_mimics_of_its_joints(vh):
    lk = Linkage()
    for n in ("a", "b", "c"):
        lk.add_link(n)
    lk.add_joint("ja", "revolute", None, "a")
    lk.add_joint("jb", "revolute", None, "b")
    lk.add_joint("jc", "prismatic", None, "c")
    lk.set_mimic("jb", "ja", 2.0)
    lk.set_mimic("jc", "jb", 1.0)
    lk.remove_link("a")
    assert lk.joint("jb").mimic is None
    assert lk.joint("jc").mimic == ("jb", 1.0, 0.0)
    vh.check_tree(lk)
    Solver(lk).solve()


@FAST
@given(seed=SEEDS)
def test_remove_joint_keeps_poses_and_tree(vh, seed):
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng, closures=2)
    before = lk.poses()
    for name in rng.permutation(list(lk.joints)):
        lk.remove_joint(str(name))
        assert name not in lk.joints
        vh.check_tree(lk)
        vh.assert_poses_equal(before, lk.poses())
    assert all(e.is_root for e in lk.tree_edge.values())


# ---- split / merge / reattach --------------------------------------------------------------------
@FAST
@given(seed=SEEDS)
def test_split_link_then_merge_joint_restores_poses(vh, seed):
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng, closures=int(rng.integers(0, 3)))
    before = lk.poses()
    link = str(rng.choice(list(lk.links)))
    attached = [n for n, j in lk.joints.items() if link in (j.parent, j.child)]
    moving = [n for n in attached if rng.random() < 0.5]
    T = vh.random_pose(rng, 0.5)
    conn = lk.split_link(link, "new", moving, T_link_new=T, joint_name="cut")
    vh.check_tree(lk)
    assert conn.name == "cut" and (conn.parent, conn.child) == (link, "new")
    for n in moving:
        assert "new" in (lk.joint(n).parent, lk.joint(n).child)
        assert link not in (lk.joint(n).parent, lk.joint(n).child)
    after_split = lk.poses()
    np.testing.assert_allclose(after_split["new"], before[link] @ T, atol=1e-12)
    vh.assert_poses_equal(before, {k: v for k, v in after_split.items() if k != "new"})
    lk.merge_joint("cut")
    vh.check_tree(lk)
    assert "new" not in lk.links and "cut" not in lk.joints
    for n in moving:
        assert link in (lk.joint(n).parent, lk.joint(n).child)
    vh.assert_poses_equal(before, lk.poses())
    # The joints that moved and came back hold as before.
    for n in attached:
        j = lk.joint(n)
        np.testing.assert_allclose(j.jtype.residual(lk.relative_pose(j), j.pitch), 0.0, atol=1e-9)


def test_merge_joint_combines_masses_and_centres(vh):
    lk = Linkage()
    lk.add_link("a", mass=2.0, com=(0.1, 0, 0))
    lk.add_link("b", pose=vh.planar_pose(1, 0, math.pi / 2), mass=1.0, com=(0.0, 0.3, 0))
    lk.add_joint("j", "revolute", "a", "b", world_frame=vh.planar_pose(1, 0))
    lk.merge_joint("j")
    a = lk.link("a")
    assert a.mass == 3.0
    # b's com in world: (1, 0) + Rz(90) (0, 0.3) = (0.7, 0)
    np.testing.assert_allclose(a.com, (2 * np.array([0.1, 0, 0]) + np.array([0.7, 0, 0])) / 3,
                               atol=1e-12)
    vh.check_tree(lk)


@FAST
@given(seed=SEEDS)
def test_set_parent_and_set_child_keep_poses(vh, seed):
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng, closures=2)
    before = lk.poses()
    for _ in range(6):
        name = str(rng.choice(list(lk.joints)))
        j = lk.joint(name)
        W = lk.poses()
        Tp = np.eye(4) if j.parent is None else W[j.parent]
        world_mob = Tp @ j.T_parent_mob
        world_cf = W[j.child] @ j.T_child_frame
        choices = [None] + list(lk.links)
        if rng.random() < 0.5:
            new = choices[int(rng.integers(len(choices)))]
            if new == j.child:
                snap = vh.snapshot(lk)
                with pytest.raises(VartError):
                    lk.set_parent(name, new)
                assert vh.snapshot(lk) == snap
                continue
            lk.set_parent(name, new)
            assert j.parent == new
        else:
            new = str(rng.choice(list(lk.links)))
            if new == j.parent:
                continue
            lk.set_child(name, new)
            assert j.child == new
        vh.check_tree(lk)
        vh.assert_poses_equal(before, lk.poses())
        # Both frames stay where they were in the world.
        W = lk.poses()
        Tp = np.eye(4) if j.parent is None else W[j.parent]
        np.testing.assert_allclose(Tp @ j.T_parent_mob, world_mob, atol=1e-12)
        np.testing.assert_allclose(W[j.child] @ j.T_child_frame, world_cf, atol=1e-12)


# ---- random mutation sequences -------------------------------------------------------------------
# make_tree is not here: a closure whose invariant an earlier edit broke snaps onto it.
POSE_KEEPING = {"add_link", "add_joint_world", "remove_joint", "remove_link",
                "make_closure", "make_root_tree", "make_ground_link", "invert_joint",
                "split_link", "merge_joint", "set_parent", "set_child", "set_mass",
                "lock_joint", "set_target"}


def random_mutation(lk, rng, vh, k):
    """Pick and apply one random mutation; returns its name (or raises VartError)."""
    links = list(lk.links)
    joints = list(lk.joints)
    ops = ["add_link", "add_joint_world", "set_joint_type", "set_frames", "set_mass",
           "lock_joint", "set_target"]
    if links:
        ops += ["remove_link", "make_root_tree", "make_ground_link", "split_link"]
    if joints:
        ops += ["remove_joint", "make_tree", "make_closure", "invert_joint", "merge_joint",
                "set_parent", "set_child"] * 2
    op = str(rng.choice(ops))
    pick_link = lambda: str(rng.choice(links))  # noqa: E731
    pick_joint = lambda: str(rng.choice(joints))  # noqa: E731
    pick_end = lambda: None if rng.random() < 0.2 else pick_link()  # noqa: E731
    if op == "add_link":
        lk.add_link(f"n{k}", pose=vh.random_pose(rng))
    elif op == "add_joint_world":
        if not links:
            raise VartError("no links")
        lk.add_joint(f"k{k}", str(rng.choice(ALL_TYPES)), pick_end(), pick_link(),
                     world_frame=vh.random_pose(rng), pitch=0.2)
    elif op == "set_joint_type":
        if not joints:
            raise VartError("no joints")
        lk.set_joint_type(pick_joint(), str(rng.choice(ALL_TYPES)))
    elif op == "set_frames":
        if not joints:
            raise VartError("no joints")
        lk.set_frames(pick_joint(), T_parent_mob=vh.random_pose(rng))
    elif op == "set_mass":
        if not links:
            raise VartError("no links")
        lk.set_mass(pick_link(), float(rng.uniform(0, 3)), com=rng.normal(size=3))
    elif op == "lock_joint":
        if not joints:
            raise VartError("no joints")
        lk.lock_joint(pick_joint())
    elif op == "set_target":
        if not joints:
            raise VartError("no joints")
        j = lk.joint(pick_joint())
        lk.set_target(j.name, rng.normal(size=j.dof))
    elif op == "remove_link":
        lk.remove_link(pick_link())
    elif op == "make_root_tree":
        lk.make_root_tree(pick_link())
    elif op == "make_ground_link":
        lk.make_ground_link(pick_link())
    elif op == "split_link":
        link = pick_link()
        att = [n for n in joints if link in (lk.joint(n).parent, lk.joint(n).child)]
        lk.split_link(link, f"s{k}", [n for n in att if rng.random() < 0.5],
                      T_link_new=vh.random_pose(rng, 0.3), joint_name=f"sj{k}",
                      jtype=str(rng.choice(["fixed", "revolute", "spherical"])))
    elif op == "remove_joint":
        lk.remove_joint(pick_joint())
    elif op == "make_tree":
        lk.make_tree(pick_joint())
    elif op == "make_closure":
        lk.make_closure(pick_joint())
    elif op == "invert_joint":
        lk.invert_joint(pick_joint())
    elif op == "merge_joint":
        lk.merge_joint(pick_joint())
    elif op == "set_parent":
        lk.set_parent(pick_joint(), pick_end())
    elif op == "set_child":
        lk.set_child(pick_joint(), pick_link())
    return op


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS)
def test_random_mutation_sequences_keep_the_invariants(vh, seed):
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng, n_links=int(rng.integers(1, 5)), closures=int(rng.integers(0, 3)))
    vh.check_tree(lk)
    for k in range(25):
        snap = vh.snapshot(lk)
        before = lk.poses()
        try:
            op = random_mutation(lk, rng, vh, k)
        except VartError as e:
            assert str(e)
            assert vh.snapshot(lk) == snap, f"a refused mutation changed the linkage: {e}"
            continue
        vh.check_tree(lk)
        after = lk.poses()
        for T in after.values():
            assert np.isfinite(T).all()
            np.testing.assert_allclose(T[:3, :3].T @ T[:3, :3], np.eye(3), atol=1e-9)
        if op in POSE_KEEPING:
            common = {n: before[n] for n in before if n in after}
            vh.assert_poses_equal(common, {n: after[n] for n in common}, atol=1e-9)
    # Whatever came out of the edits, the solver can run on it without NaN.
    Solver(lk).solve(max_iterations=5)
    for T in lk.poses().values():
        assert np.isfinite(T).all()


def test_every_edit_is_a_method_defined_where_its_code_is():
    """Issue 34, item 5: ``lk.set_target`` is found by help() and go-to-definition on its
    code: each edit is a method of one mix-in (its concern's module), the mix-ins build on
    ``LinkageCore`` (data and queries), and no edit module imports ``linkage`` (no circle)."""
    import ast
    import inspect

    from vart_addon.solver import (
        editing,
        goals_edit,
        linkage,
        linkage_core,
        sublinkages,
        tree_edit,
    )
    mixins = {editing: editing.LinkageEditing, tree_edit: tree_edit.TreeEditing,
              goals_edit: goals_edit.GoalsEditing, sublinkages: sublinkages.SublinkageEditing}
    assert linkage.Linkage.__mro__[1:5] == tuple(mixins.values())
    for module, mixin in mixins.items():
        assert issubclass(mixin, linkage_core.LinkageCore)
        for name, fn in vars(mixin).items():
            if callable(fn) and not name.startswith("_"):
                assert getattr(linkage.Linkage, name) is fn, name
                assert inspect.getsourcefile(fn) == module.__file__
        imported = {n.module for n in ast.walk(ast.parse(inspect.getsource(module)))
                    if isinstance(n, ast.ImportFrom)}
        assert "linkage" not in imported, module.__name__
    # 41 edits, and set_goal / clear_goal / goal / goal_owner for any goal kind
    assert len([n for m in mixins.values() for n in vars(m) if not n.startswith("_")]) == 45
