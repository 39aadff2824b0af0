"""Planar loops (vart_addon/solver/planar.py): a revolute closure whose loop can only move in
its plane is solved with its two in-plane rows; anything that could move it out of the plane
keeps all five."""
import math

import numpy as np
import pytest

from vart_addon.solver import Linkage, Settings, Solver, goal_kinds, se3
from vart_addon.solver.planar import is_planar_closure

TIGHT = Settings(tol=1e-12)


def tilted():
    return se3.make_pose(se3.so3_exp([0.4, -0.7, 0.2]), [0.3, -1.1, 0.6])


def planar_check(lk, name):
    m = lk.model()
    return is_planar_closure(m, lk.joint(name), m.world_poses(m.q_from_joints()))


def invariant_batches(lk):
    solver = Solver(lk)
    solver.solve()
    return [(b.jt.name, len(b.names)) for g in solver._groups for b in g.batches
            if b.level == 0]


def crank_slider(vh, G, closure_offset=0.0):
    """A slider-crank in frame ``G`` whose revolute wrist is the closure (the prismatic slide
    is a tree joint); ``closure_offset`` moves the wrist's child frame along the normal."""
    lk = vh.SliderCrank(G=G, closure="wrist").lk
    if closure_offset:
        j = lk.joint("wrist")
        lk.set_frames("wrist", T_child_frame=j.T_child_frame @ se3.make_pose(
            np.eye(3), [0.0, 0.0, closure_offset]))
    return lk


@pytest.mark.parametrize("G", [np.eye(4), tilted()], ids=["world", "tilted"])
def test_four_bar_and_crank_slider_closures_are_planar(vh, G):
    fb = vh.FourBar(G=G)
    assert not fb.lk.joint("ground").is_tree
    assert planar_check(fb.lk, "ground")
    assert invariant_batches(fb.lk) == [("point-slider", 1)]
    lk = crank_slider(vh, G)
    assert not lk.joint("wrist").is_tree and lk.joint("slide").is_tree
    assert planar_check(lk, "wrist")


def test_a_loop_that_can_leave_its_plane_keeps_every_row(vh):
    # A support joint whose axis is tilted by 1e-6 rad: the loop is assembled now, but its
    # motion leaves the plane.
    lk = Linkage()
    lk.add_link("a", pose=vh.planar_pose(0, 0))
    lk.add_link("b", pose=vh.planar_pose(1, 0))
    lk.add_joint("j1", "revolute", None, "a", world_frame=np.eye(4))
    lk.add_joint("j2", "revolute", "a", "b",
                 world_frame=se3.make_pose(se3.so3_exp([1e-6, 0, 0]), [1, 0, 0]))
    lk.add_joint("close", "revolute", None, "b", world_frame=vh.planar_pose(2, 0))
    assert not planar_check(lk, "close")
    assert invariant_batches(lk) == [("revolute", 1)]
    # A prismatic along the plane normal, or a joint with a free rotation, on the path.
    for jtype in ("prismatic", "spherical"):
        lk.set_joint_type("j2", jtype)
        lk.set_frames("j2", T_parent_mob=vh.planar_pose(1, 0), T_child_frame=np.eye(4))
        assert not planar_check(lk, "close"), jtype
    # A closure assembled in the plane but offset along its normal: its z row is not zero.
    assert not planar_check(crank_slider(vh, np.eye(4), closure_offset=1e-3), "wrist")
    assert planar_check(crank_slider(vh, np.eye(4), closure_offset=1e-13), "wrist")


def test_a_planar_loop_solves_as_with_all_five_rows(vh, monkeypatch):
    """The same drags with and without the planar shortcut: the same poses, every solve
    converged, and the status names the closure's invariant either way."""
    def drag(planar):
        if not planar:
            monkeypatch.setattr(goal_kinds, "is_planar_closure", lambda *a: False)
        fb = vh.FourBar(G=tilted())
        solver = Solver(fb.lk, TIGHT)
        poses = []
        for th in np.linspace(0.0, 2 * math.pi, 25)[1:]:
            fb.lk.set_target("crank", [th])
            st = solver.solve()
            assert st.converged and st.level("invariant").satisfied
            poses.append(np.stack([fb.lk.pose(n) for n in ("crank", "coupler", "rocker")]))
        monkeypatch.undo()
        return np.array(poses), st, fb
    short, st_short, fb = drag(True)
    full, st_full, _ = drag(False)
    np.testing.assert_allclose(short, full, atol=1e-9)
    for th, P in zip(np.linspace(0.0, 2 * math.pi, 25)[1:], short):
        rocker = math.atan2(*np.linalg.solve(fb.G, P[2])[[1, 0], 0])
        assert abs(vh.wrap(rocker - fb.rocker_angle(th + fb.th0))) <= 1e-9
    assert st_short.level("invariant").max_goal_error <= 1e-12


def test_moving_a_closure_frame_out_of_the_plane_brings_its_rows_back(vh):
    """The analysis is redone after a frame edit: an out-of-plane offset is then an invariant
    error the solver reports (it cannot be removed by planar motion), not a hidden row."""
    fb = vh.FourBar()
    solver = Solver(fb.lk, TIGHT)
    assert solver.solve().converged
    j = fb.lk.joint("ground")
    fb.lk.set_frames("ground", T_child_frame=j.T_child_frame @ se3.make_pose(
        np.eye(3), [0.0, 0.0, 0.01]))
    st = solver.solve()
    inv = st.level("invariant")
    assert not inv.satisfied and inv.max_goal_error == pytest.approx(0.01, rel=1e-6)
    assert inv.unmet == ["invariant of joint 'ground'"]
