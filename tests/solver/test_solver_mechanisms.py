"""Closed chains with analytic answers (four-bar, slider-crank) and singular configurations.

The mechanisms are built the way a user builds them: links at world poses, joints placed with
``world_frame`` at the pivots; the joint that closes the loop becomes a closure by itself.
Dragging means: move the input's target a little, solve from the previous solution.
"""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from vart_addon.solver import Linkage, Settings, Solver, se3

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

PI = math.pi
TIGHT = Settings(tol=1e-12, max_iterations=200)


def angle_diff(a, b):
    return abs((a - b + PI) % (2 * PI) - PI)


def frames():
    """The mechanism's plane: the world xy plane, and a random spatial placement."""
    G = se3.make_pose(Rotation.from_rotvec([0.7, -1.9, 0.4]).as_matrix(), [0.3, -1.2, 2.0])
    return {"world": np.eye(4), "tilted": G}


# ---- four-bar -----------------------------------------------------------------------------------
def test_four_bar_is_assembled_with_its_last_joint_as_closure(vh):
    fb = vh.FourBar()
    lk = fb.lk
    assert [lk.joint(n).is_tree for n in ("crank", "knee", "elbow", "ground")] == \
        [True, True, True, False]
    for n in ("crank", "knee", "elbow", "ground"):
        np.testing.assert_allclose(lk.joint_q(lk.joint(n)), 0.0, atol=1e-12)
        np.testing.assert_allclose(lk.joint(n).jtype.residual(lk.relative_pose(lk.joint(n))),
                                   0.0, atol=1e-12)
    assert Solver(lk, TIGHT).solve().converged


@pytest.mark.parametrize("plane", ["world", "tilted"])
@pytest.mark.parametrize("branch", [1, -1])
def test_four_bar_dragged_by_its_crank_gives_the_analytic_rocker_angle(vh, plane, branch):
    fb = vh.FourBar(branch=branch, G=frames()[plane])
    lk = fb.lk
    solver = Solver(lk, TIGHT)
    worst = 0.0
    # A full turn forward in 5 degree drags, then back half a turn in 10 degree drags.
    path = list(np.linspace(fb.th0, fb.th0 + 2 * PI, 73)[1:])
    path += list(np.linspace(path[-1], path[-1] - PI, 19)[1:])
    for th in path:
        lk.set_target("crank", [th - fb.th0])
        st = solver.solve()
        assert st.converged, (th, st)
        assert st.level("invariant").error <= 1e-12
        assert st.level("target").error <= 1e-12
        assert angle_diff(fb.measured_crank_angle(), th) <= 1e-12
        err = angle_diff(fb.measured_rocker_angle(), fb.rocker_angle(th))
        worst = max(worst, err)
        assert err <= 1e-9, (th, err)
        # The coupler's far end lies where the analytic C is (same assembly branch).
        C = fb.local(lk.pose("rocker"))[:3, 3] + fb.c * fb.local(lk.pose("rocker"))[:3, 0]
        np.testing.assert_allclose(C[:2], fb.C(th), atol=1e-9)
        assert abs(C[2]) <= 1e-9
    assert worst <= 1e-9


def test_the_two_four_bar_branches_are_mirror_images(vh):
    th = 1.1
    up, down = vh.FourBar(branch=1), vh.FourBar(branch=-1)
    for fb in (up, down):
        fb.lk.set_target("crank", [th - fb.th0])
        assert Solver(fb.lk, TIGHT).solve().converged
    # Mirrored about the line B-D: the rocker angles differ, the coupler lengths hold.
    a_up, a_down = up.measured_rocker_angle(), down.measured_rocker_angle()
    assert angle_diff(a_up, a_down) > 0.5
    for fb in (up, down):
        C = fb.lk.pose("rocker")[:3, 3] + fb.c * fb.lk.pose("rocker")[:3, 0]
        B = fb.lk.pose("coupler")[:3, 3]
        assert np.linalg.norm(C - B) == pytest.approx(fb.b, abs=1e-10)
        assert np.linalg.norm(B[:2]) == pytest.approx(fb.a, abs=1e-10)


def test_four_bar_dragged_by_its_closure_joint_gives_the_analytic_crank_angle(vh):
    """The input may be the closure joint too (a target on a closure goes through its fit)."""
    fb = vh.FourBar(th0=2.0)
    lk = fb.lk
    phi0 = fb.rocker_angle(fb.th0)
    solver = Solver(lk, TIGHT)
    B_prev = fb.B(fb.th0)
    D = np.array([fb.d, 0.0])
    for dphi in list(np.linspace(0, 0.35, 15)[1:]) + list(np.linspace(0.35, -0.3, 27)[1:]):
        lk.set_target("ground", [dphi])
        st = solver.solve()
        assert st.converged, st
        C = D + fb.c * np.array([math.cos(phi0 + dphi), math.sin(phi0 + dphi)])
        cands = [vh.circle_intersection(C, np.zeros(2), fb.b, fb.a, s) for s in (1, -1)]
        B = min(cands, key=lambda P: np.linalg.norm(P - B_prev))
        B_prev = B
        assert angle_diff(fb.measured_crank_angle(), math.atan2(B[1], B[0])) <= 1e-9


# ---- slider-crank -------------------------------------------------------------------------------
@pytest.mark.parametrize("plane", ["world", "tilted"])
@pytest.mark.parametrize("branch", [1, -1])
def test_slider_crank_dragged_by_its_crank_gives_the_analytic_slider_position(vh, plane, branch):
    sc = vh.SliderCrank(branch=branch, G=frames()[plane])
    lk = sc.lk
    assert not lk.joint("slide").is_tree
    solver = Solver(lk, TIGHT)
    for th in list(np.linspace(sc.th0, sc.th0 + 2 * PI, 61)[1:]) + [sc.th0 + 1.0, sc.th0 - 0.5]:
        lk.set_target("crank", [th - sc.th0])
        st = solver.solve()
        assert st.converged, (th, st)
        p = np.linalg.solve(sc.G, lk.pose("slider"))[:3, 3]
        assert p[0] == pytest.approx(sc.x(th), abs=1e-9)
        assert p[1] == pytest.approx(sc.e, abs=1e-9) and p[2] == pytest.approx(0.0, abs=1e-9)
        # The closure prismatic's fitted configuration is the travel from the assembly pose.
        q = lk.joint_q(lk.joint("slide"))[0]
        assert q == pytest.approx(sc.x(th) - sc.x(sc.th0), abs=1e-9)


# ---- singular configurations --------------------------------------------------------------------
def leg(vh, hip=0.0, knee=0.0):
    """A planar two-link leg (thigh and shin 1 m) with a foot link at the shin's end."""
    return vh.two_link(q=(hip, knee))


def record(lk, n, tol=1e-9):
    """Solve one iteration at a time: per-level errors and joint values after each one."""
    solver = Solver(lk, Settings(max_iterations=1, tol=tol))
    errs, qs = [], []
    for _ in range(n):
        st = solver.solve()
        errs.append([lv.error for lv in st.levels])
        qs.append(np.concatenate([j.q for j in lk.joints.values()]))
        assert np.isfinite(errs[-1]).all() and np.isfinite(qs[-1]).all()
        for T in lk.poses().values():
            assert np.isfinite(T).all()
        if st.converged:
            break
    return np.array(errs), np.array(qs), st


TARGETS = [(3.0, 0.0), (2.5, 1.0), (0.5, 3.0), (-2.2, -2.2)]


@pytest.mark.parametrize("start", [(0.0, 0.0), (0.3, 0.5), (0.0, 1e-9)])
@pytest.mark.parametrize("target", TARGETS)
def test_stretched_leg_targeted_beyond_reach_never_gets_worse(vh, start, target):
    lk = leg(vh, *start)
    lk.set_link_target("foot", vh.planar_pose(*target), mask=[1, 1, 0, 0, 0, 0])
    errs, qs, st = record(lk, 150)
    top = errs[:, 4]  # the target level is the only active one
    assert np.all(np.diff(top) <= 1e-12 * (1 + top[:-1])), top
    best = math.hypot(*target) - 2.0
    assert top[-1] >= best - 1e-9  # the error cannot beat the reach
    assert "target of root joint of link 'foot'" in st.unmet


@pytest.mark.parametrize("start", [(0.0, 0.0), (0.3, 0.5)])
@pytest.mark.parametrize("target", [(2.5, 1.0), (0.5, 3.0), (-2.2, -2.2)])
def test_stretched_leg_settles_at_the_least_squares_pose(vh, start, target):
    """Beyond reach the best pose is the stretched leg pointing at the target."""
    lk = leg(vh, *start)
    lk.set_link_target("foot", vh.planar_pose(*target), mask=[1, 1, 0, 0, 0, 0])
    st = Solver(lk, Settings(max_iterations=100)).solve()
    hip, knee = lk.joint("hip").q[0], lk.joint("knee").q[0]
    assert angle_diff(knee, 0.0) <= 1e-4, (hip, knee, st)
    assert angle_diff(hip, math.atan2(target[1], target[0])) <= 1e-4
    assert st.level("target").error == pytest.approx(math.hypot(*target) - 2.0, abs=1e-8)


@pytest.mark.parametrize("target", [(2.5, 1.0), (0.5, 3.0)])
def test_stretched_leg_does_not_oscillate(vh, target):
    """Approaching the stretched pose the steps shrink: no limit cycle (it used to zig-zag the
    knee between +0.1 and -0.1 forever), and the error reaches the stretched optimum."""
    lk = leg(vh, 0.3, 0.5)
    lk.set_link_target("foot", vh.planar_pose(*target), mask=[1, 1, 0, 0, 0, 0])
    errs, qs, st = record(lk, 60)
    steps = np.abs(np.diff(qs, axis=0)).max(axis=1)
    assert steps[-10:].max() <= 1e-4, steps
    assert abs(qs[-1, 1]) <= 1e-4
    assert errs[-1, 4] == pytest.approx(math.hypot(*target) - 2.0, abs=1e-6)


def wrist(vh):
    """Three revolutes z-x-z at one point: at q2 = 0 the first and third axes are aligned."""
    lk = Linkage()
    for n in "abc":
        lk.add_link(n)
    lk.add_joint("j1", "revolute", None, "a", world_frame=np.eye(4))
    lk.add_joint("j2", "revolute", "a", "b", world_frame=se3.make_pose(se3.so3_exp([0, PI / 2, 0])))
    lk.add_joint("j3", "revolute", "b", "c", world_frame=np.eye(4))
    return lk


@pytest.mark.parametrize("w", [(0.2, 0.6, 0.1), (0.0, 0.0, 1.0), (0.5, -1.0, 2.0), (0.0, 0.6, 0.0),
                               (0.0, PI - 1e-3, 0.0)])
def test_aligned_axes_no_nan_and_no_growth(vh, w):
    lk = wrist(vh)
    lk.set_link_target("c", se3.make_pose(se3.so3_exp(w)), mask=[0, 0, 0, 1, 1, 1])
    errs, qs, st = record(lk, 120, tol=1e-10)
    top = errs[:, 4]
    assert np.all(np.diff(top) <= 1e-12 * (1 + top[:-1])), top
    if w[0] or w[2]:  # a generic orientation: the wrist leaves the singularity and reaches it
        assert st.converged and top[-1] <= 1e-10
    elif not st.converged:  # error orthogonal to the singular Jacobian's range: may stay
        assert st.unmet == ["target of root joint of link 'c'"]
