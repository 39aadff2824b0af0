"""Building a linkage joint by joint before it is compiled (issue 35, item 5): a script that
places each joint by its world frame, closures between the tree joints, needs the links' world
poses from the uncompiled tree. Walking each pose down from the ground made the tower's build
quadratic (27 s at 810 joints, 177 s at 2,700); what a walk composes is now kept until an edit
may move a link. These tests count the tree steps walked (no clock) and check the kept poses
against the compiled forward kinematics, also across edits that move links."""

import math

import numpy as np
import pytest

from vart_addon.solver import Linkage, se3

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

PLANAR = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


def at(x, z, R=None):
    return se3.make_pose(np.eye(3) if R is None else R, [x, 0.0, z])


def tower(cells: int, rng=None) -> Linkage:
    """A ladder of four-bar cells as a script writes it: links first, then each cell's three
    tree joints and its closure by world frames, nothing compiled between (a jitter from
    ``rng`` makes the cells unequal)."""
    jit = (lambda: 0.0) if rng is None else (lambda: float(rng.uniform(-0.05, 0.05)))
    A = [(0.0, 0.0)] + [(jit(), 0.3 * i + jit()) for i in range(1, cells + 1)]
    B = [(0.5 + jit(), 0.3 * i + jit()) for i in range(cells + 1)]
    lk = Linkage()
    lk.add_link("rung0", pose=at(*A[0]))
    for i in range(1, cells + 1):
        lk.add_link(f"left{i}", pose=at(*A[i - 1]))
        lk.add_link(f"rung{i}", pose=at(*A[i]))
        lk.add_link(f"right{i}", pose=at(*B[i - 1]))
    lk.add_joint("base", "fixed", None, "rung0", world_frame=at(*A[0], PLANAR))
    for i in range(1, cells + 1):
        lk.add_joint(f"c{i}_ll", "revolute", f"rung{i - 1}", f"left{i}",
                     world_frame=at(*A[i - 1], PLANAR))
        lk.add_joint(f"c{i}_lh", "revolute", f"left{i}", f"rung{i}", world_frame=at(*A[i], PLANAR))
        lk.add_joint(f"c{i}_rl", "revolute", f"rung{i - 1}", f"right{i}",
                     world_frame=at(*B[i - 1], PLANAR))
        lk.add_joint(f"c{i}_rh", "revolute", f"right{i}", f"rung{i}",
                     world_frame=at(*B[i], PLANAR), tree=False)
    return lk


def steps_walked(cells: int, monkeypatch) -> int:
    """Tree steps (``tree_parent`` calls) taken while building ``tower(cells)``."""
    count = [0]
    original = Linkage.tree_parent

    def counted(self, link):
        count[0] += 1
        return original(self, link)

    monkeypatch.setattr(Linkage, "tree_parent", counted)
    tower(cells)
    monkeypatch.setattr(Linkage, "tree_parent", original)
    return count[0]


def test_building_a_tower_joint_by_joint_walks_linearly(monkeypatch):
    small, large = steps_walked(40, monkeypatch), steps_walked(160, monkeypatch)
    assert large <= 4.5 * small, (small, large)  # four times the cells (quadratic: 16 times)


def test_the_poses_kept_from_walks_are_the_compiled_ones():
    lk = tower(25, np.random.default_rng(3))
    assert [j.name for j in lk.joints.values() if not j.is_tree] == \
        [f"c{i}_rh" for i in range(1, 26)]
    walked = lk.poses_of(list(lk.links))  # the model was never compiled: walks
    fk = lk.poses()
    for n, T in fk.items():
        np.testing.assert_allclose(walked[n], T, rtol=0, atol=1e-12, err_msg=n)
    for j in lk.joints.values():  # each closure's q was fitted where its links stand
        assert np.abs(j.jtype.residual(lk.relative_pose(j, fk), j.pitch)).max(initial=0) < 1e-12


def test_kept_poses_follow_edits_that_move_links():
    lk = tower(6)
    lk.poses_of(["rung6"])  # walked (and kept) up the whole ladder
    lk.set_q("c2_ll", [0.3])  # moves everything above cell 2
    lk.add_link("extra", pose=at(2.0, 0.0))  # an edit that keeps the poses walked since
    got = lk.poses_of(["rung6", "right3"])
    fk = lk.poses()
    for n in got:
        np.testing.assert_allclose(got[n], fk[n], rtol=0, atol=1e-12, err_msg=n)
    # a tree joint hangs a link with links below it: those move with it
    lk.add_link("arm", pose=at(3.0, 0.0))
    lk.add_link("hand", pose=at(3.0, 0.5))
    lk.add_joint("wrist", "revolute", "arm", "hand", world_frame=at(3.0, 0.5, PLANAR))
    before = lk.poses_of(["hand"])["hand"]
    lk.add_joint("shoulder", "revolute", "rung6", "arm", T_parent_mob=np.eye(4),
                 T_child_frame=np.eye(4), q=[math.pi / 2])
    got = lk.poses_of(["arm", "hand"])
    fk = lk.poses()
    assert not np.allclose(got["hand"], before)  # the arm snapped onto the shoulder
    for n in got:
        np.testing.assert_allclose(got[n], fk[n], rtol=0, atol=1e-12, err_msg=n)
