"""Strict priorities and least squares in the solver.

* Adding a lower-level goal never makes a higher level's converged error worse (random small
  mechanisms with closures, random goals; two solves from the same start).
* A lock beats a conflicting target; an invariant beats a conflicting lock; a posture only
  moves what nothing above it needs.
* Within one level: over-constrained goals give the least-squares compromise (checked against
  scipy.optimize.least_squares on the same residual); under-constrained goals give the
  minimum-norm motion (checked against the pseudo-inverse in linear cases).
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import least_squares
from scipy.spatial.transform import Rotation

from vart_addon.solver import Linkage, Settings, Solver, se3

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

PI = math.pi
TYPES = ("revolute", "prismatic", "helical", "cylindrical", "pin-slider", "spherical", "planar",
         "fixed")


def P(x, y, angle=0.0, z=0.0):
    return se3.make_pose(se3.rot_z(angle), [x, y, z])


# ---- random mechanisms and goals ------------------------------------------------------------------
def mechanism(vh, seed):
    """A random small tree with zero to two closures (assembled), plus its rng for goals."""
    rng = np.random.default_rng(seed)
    lk = vh.random_tree(rng, n_links=int(rng.integers(2, 6)), types=TYPES,
                        closures=int(rng.integers(0, 3)))
    return lk, rng


def feasible_high_goals(lk, rng):
    """Locks at the current values and limits around them: satisfiable where the solve starts."""
    out = []
    joints = [j for j in lk.joints.values() if j.dof]
    for j in rng.permutation(joints)[: int(rng.integers(0, 3))]:
        out.append(("lock_joint", j.name, None))
    for j in joints:
        if j.is_tree and rng.random() < 0.3:
            q = j.q
            out.append(("set_limits", j.name, (q - rng.uniform(0.05, 0.5, j.dof),
                                               q + rng.uniform(0.05, 0.5, j.dof))))
    if rng.random() < 0.3:
        link = str(rng.choice(list(lk.links)))
        out.append(("lock_link", link, None))
    return out


def conflicting_locks(lk, rng):
    """Locks away from the current values: may fight the invariants (then the lock level is a
    least-squares compromise below them)."""
    joints = [j for j in lk.joints.values() if j.dof]
    return [("lock_joint", j.name, lk.joint_q(j) + rng.normal(scale=0.3, size=j.dof))
            for j in rng.permutation(joints)[: int(rng.integers(0, 3))]]


def random_targets(lk, rng, n):
    out = []
    joints = [j for j in lk.joints.values() if j.dof]
    for _ in range(n):
        if rng.random() < 0.5 or not joints:
            link = str(rng.choice(list(lk.links)))
            T = lk.pose(link) @ se3.se3_exp(rng.normal(scale=0.4, size=6))
            mask = rng.random(6) < 0.6
            mask[int(rng.integers(6))] = True
            out.append(("set_link_target", link, (T, mask)))
        else:
            j = joints[int(rng.integers(len(joints)))]
            out.append(("set_target", j.name, (lk.joint_q(j) + rng.normal(scale=0.4, size=j.dof),
                                               None)))
    return out


def random_postures(lk, rng, n):
    joints = [j for j in lk.joints.values() if j.dof]
    out = []
    for _ in range(n if joints else 0):
        j = joints[int(rng.integers(len(joints)))]
        out.append(("set_posture", j.name, lk.joint_q(j) + rng.normal(scale=0.6, size=j.dof)))
    return out


def apply(lk, goals):
    for method, name, arg in goals:
        if method == "lock_joint":
            lk.lock_joint(name, arg)
        elif method == "lock_link":
            lk.lock_link(name)
        elif method == "set_limits":
            lk.set_limits(name, *arg)
        elif method == "set_link_target":
            lk.set_link_target(name, arg[0], mask=arg[1])
        elif method == "set_target":
            lk.set_target(name, arg[0], mask=arg[1])
        elif method == "set_posture":
            lk.set_posture(name, arg)


def solve_with(vh, seed, *goal_sets):
    """Rebuild the mechanism from its seed (so every solve starts from the same state)."""
    lk, rng = mechanism(vh, seed)
    sets = [fn(lk, rng) for fn in goal_sets]
    return lk, rng, sets


SOLVE = Settings(max_iterations=300)
# Derandomized: violations are rare (a 1500-seed sweep of this property found 3 with an earlier
# solver), so a random draw of a dozen would make the suite flaky; raise max_examples (and drop
# derandomize) to hunt for new ones.
RANDOM_MECHANISMS = settings(max_examples=12, deadline=None, derandomize=True, database=None,
                             suppress_health_check=[HealthCheck.too_slow])


@RANDOM_MECHANISMS
@given(seed=st.integers(0, 2**32 - 1))
def test_lower_goals_never_degrade_higher_levels_on_random_mechanisms(vh, seed):
    rng0 = np.random.default_rng(seed)
    n_targets, n_postures = int(rng0.integers(1, 4)), int(rng0.integers(1, 3))
    conflict = rng0.random() < 0.4

    def run(with_targets, with_postures):
        lk, rng = mechanism(vh, seed)
        high = feasible_high_goals(lk, rng)
        if conflict:
            high += conflicting_locks(lk, rng)
        targets = random_targets(lk, rng, n_targets)
        postures = random_postures(lk, rng, n_postures)
        apply(lk, high)
        if with_targets:
            apply(lk, targets)
        if with_postures:
            apply(lk, postures)
        st_ = Solver(lk, SOLVE).solve()
        for T in lk.poses().values():
            assert np.isfinite(T).all()
        return {lv.name: lv.error for lv in st_.levels}, st_

    base, _ = run(False, False)
    tgt, st_t = run(True, False)
    both, st_b = run(True, True)
    tol = 1e-8
    # Invariants and limits start satisfied, and so do locks unless they conflict:
    # no lower goal may break a level that the higher goals alone satisfy.
    # (Lower goals and a least-squares compromise: test_a_lower_goal_does_not_worsen...)
    assert base["invariant"] <= tol and base["limit"] <= tol, base
    if not conflict:
        assert base["lock"] <= tol, base
    for name in ("invariant", "limit", "lock"):
        if base[name] <= tol:
            assert tgt[name] <= tol, (name, base, tgt)
        if tgt[name] <= tol:
            assert both[name] <= tol, (name, tgt, both)
    # A posture never costs the targets anything when the targets can be met.
    if st_t.level("target").satisfied:
        assert both["target"] <= tgt["target"] + tol, (tgt, both)


def three_link_arm(tip_target):
    """Planar arm of three 1 m revolute links (q = 0.3, 0.4, -0.2) with a fixed tip link, the
    tip's position (x, y) targeted at ``tip_target``'s origin."""
    lk = Linkage()
    for i in range(3):
        lk.add_link(f"l{i}", pose=P(i, 0))
    lk.add_link("tip", pose=P(3, 0))
    for i in range(3):
        lk.add_joint(f"j{i}", "revolute", None if i == 0 else f"l{i - 1}", f"l{i}",
                     world_frame=P(i, 0))
    lk.add_joint("tipj", "fixed", "l2", "tip", world_frame=P(3, 0))
    for i, v in enumerate([0.3, 0.4, -0.2]):
        lk.set_q(f"j{i}", [v])
    lk.set_link_target("tip", tip_target, mask=[1, 1, 0, 0, 0, 0])
    return lk


def test_posture_does_not_degrade_an_unreachable_target():
    """Three-link planar arm (1 m links), tip target beyond reach: optimum = stretched arm.
    (A posture used to stall the target short of it: damped null-space leakage.)"""
    def arm(posture):
        lk = three_link_arm(P(4, 0.5))
        if posture is not None:
            lk.set_posture("j1", [posture])
        return Solver(lk, Settings(max_iterations=2000)).solve().level("target").error

    best = math.hypot(4, 0.5) - 3
    without = arm(None)
    for posture in (1.0, -1.5):
        assert arm(posture) <= without + 1e-9
    assert without == pytest.approx(best, abs=1e-6)


@pytest.mark.parametrize("lower", ["target", "posture"])
def test_a_lower_goal_does_not_worsen_a_lock_compromise(vh, lower):
    """Four-bar (one DoF) with incompatible locks on the crank and the elbow: the lock level
    is a least-squares compromise (0.557654 by a brute-force scan). A target or posture on
    the knee must not change it (it used to stall at 0.574953)."""
    def lock_error(extra):
        fb = vh.FourBar(th0=0.8)
        lk = fb.lk
        lk.lock_joint("crank", [0.5])
        lk.lock_joint("elbow", [-0.4])
        if extra == "target":
            lk.set_target("knee", [0.3])
        elif extra == "posture":
            lk.set_posture("knee", [1.0])
        st_ = Solver(lk, Settings(max_iterations=500)).solve()
        assert st_.level("invariant").error <= 1e-9
        return st_.level("lock").error

    alone = lock_error(None)
    assert alone == pytest.approx(0.5576535, abs=1e-6)
    assert lock_error(lower) <= alone + 1e-8


# ---- specific conflicts ---------------------------------------------------------------------------
def leg(vh):
    return vh.two_link(q=(0.2, 0.7))


def test_a_lock_beats_a_conflicting_target(vh):
    lk = leg(vh)
    lk.lock_joint("hip", [0.4])
    lk.set_target("hip", [1.0])
    lk.set_target("knee", [-0.3])
    st_ = Solver(lk, Settings(tol=1e-12)).solve()
    assert lk.joint("hip").q[0] == pytest.approx(0.4, abs=1e-12)
    assert lk.joint("knee").q[0] == pytest.approx(-0.3, abs=1e-12)  # unaffected by the conflict
    assert st_.level("lock").error <= 1e-12 and st_.level("lock").satisfied
    assert st_.level("target").error == pytest.approx(0.6, abs=1e-12)
    assert st_.unmet == ["target of joint 'hip'"]


def test_a_locked_link_beats_a_target_that_would_move_it(vh):
    lk = leg(vh)
    foot = lk.pose("foot").copy()
    lk.lock_link("foot")
    lk.set_target("hip", [1.0])
    st_ = Solver(lk, Settings(tol=1e-12)).solve()
    np.testing.assert_allclose(lk.pose("foot"), foot, atol=1e-12)
    assert lk.joint("hip").q[0] == pytest.approx(0.2, abs=1e-12)
    assert "target of joint 'hip'" in st_.unmet and st_.level("lock").satisfied


def test_an_invariant_beats_a_conflicting_lock(vh):
    """A four-bar has one DoF: locking the crank and the rocker at incompatible values."""
    fb = vh.FourBar(th0=0.8)
    lk = fb.lk
    lk.lock_joint("crank", [0.5])
    lk.lock_joint("elbow", [-0.4])
    lk.lock_joint("ground", [0.3])  # a lock on the closure joint too
    st_ = Solver(lk, Settings(tol=1e-12, max_iterations=300)).solve()
    assert st_.level("invariant").error <= 1e-10, st_
    assert st_.level("lock").error > 0.05
    assert not st_.level("lock").satisfied and st_.level("invariant").satisfied
    # The result is a valid four-bar pose.
    th = fb.measured_crank_angle()
    assert abs(vh.wrap(fb.measured_rocker_angle() - fb.rocker_angle(th))) <= 1e-9


def test_a_posture_moves_only_the_redundant_dofs():
    """Three-link planar arm, tip position targeted: a posture on the middle joint picks the
    self-motion that is closest to it and leaves the tip where the target wants it."""
    def arm():
        return three_link_arm(P(1.8, 1.2))

    tight = Settings(tol=1e-12, max_iterations=500)
    a = arm()
    st_a = Solver(a, tight).solve()
    b = arm()
    b.set_posture("j1", [1.4])
    st_b = Solver(b, tight).solve()
    assert st_a.level("target").error <= 1e-12 and st_b.level("target").error <= 1e-12
    np.testing.assert_allclose(b.pose("tip")[:2, 3], [1.8, 1.2], atol=1e-12)
    qa = [a.joint(f"j{i}").q[0] for i in range(3)]
    qb = [b.joint(f"j{i}").q[0] for i in range(3)]
    assert abs(qb[1] - 1.4) < abs(qa[1] - 1.4) - 0.1  # the posture did act
    # It stopped at the closest reachable middle angle: a knee of 1.4 reaches the tip too
    # (distance from the base 2.163 <= reach of a 1.4 knee 2.529), so it is met exactly.
    assert qb[1] == pytest.approx(1.4, abs=1e-6)
    assert st_b.level("posture").error == pytest.approx(0.0, abs=1e-6)


def test_a_posture_changes_nothing_without_redundancy(vh):
    def two_link(posture):
        lk = leg(vh)
        lk.set_link_target("foot", P(1.2, 0.9), mask=[1, 1, 0, 0, 0, 0])
        if posture is not None:
            lk.set_posture("knee", [posture])
            lk.set_posture("hip", [-posture])
        st_ = Solver(lk, Settings(tol=1e-12)).solve()
        return st_, np.array([lk.joint("hip").q[0], lk.joint("knee").q[0]])

    st0, q0 = two_link(None)
    for posture in (0.0, 1.0, -2.0):
        st1, q1 = two_link(posture)
        np.testing.assert_allclose(q1, q0, atol=1e-10)
        assert st1.level("target").error <= 1e-12
        assert st1.level("posture").error > 0.1  # unmet, and it says so
        assert not st1.level("posture").satisfied


# ---- least squares within a level ------------------------------------------------------------------
def rigid_pair_arm():
    """One revolute at the origin carrying two points (links fixed to the arm)."""
    lk = Linkage()
    lk.add_link("arm")
    lk.add_link("p1", pose=P(1, 0))
    lk.add_link("p2", pose=P(0, 2, 0.5))
    lk.add_joint("j", "revolute", None, "arm", world_frame=np.eye(4))
    lk.add_joint("f1", "fixed", "arm", "p1", world_frame=P(1, 0))
    lk.add_joint("f2", "fixed", "arm", "p2", world_frame=P(0, 2))
    return lk


EXACT = Settings(tol=1e-12, max_iterations=500, stall_tol=0.0)


@pytest.mark.parametrize("t1, t2", [([0.2, 1.0, 0.0], [-1.0, -1.0, 0.3]),
                                    ([1.0, 0.1, 0.0], [0.3, 2.0, 0.0]),
                                    ([-0.5, 0.0, 0.2], [0.0, -3.0, -0.1])])
def test_two_conflicting_position_targets_give_the_least_squares_compromise(t1, t2):
    t1, t2 = np.array(t1), np.array(t2)
    lk = rigid_pair_arm()
    lk.set_link_target("p1", se3.make_pose(None, t1), mask=[1, 1, 1, 0, 0, 0])
    lk.set_link_target("p2", se3.make_pose(None, t2), mask=[1, 1, 1, 0, 0, 0])
    st_ = Solver(lk, EXACT).solve()

    def residual(x):
        R = Rotation.from_rotvec([0, 0, x[0]]).as_matrix()
        return np.concatenate([R @ [1, 0, 0] - t1, R @ [0, 2, 0] - t2])

    ref = least_squares(residual, [0.0], xtol=1e-15, ftol=1e-15, gtol=1e-15)
    th = lk.joint("j").q[0]
    assert abs(vh_wrap(th - ref.x[0])) <= 1e-8, (th, ref.x)
    assert st_.level("target").error == pytest.approx(np.linalg.norm(ref.fun), abs=1e-10)
    assert sorted(st_.unmet) == ["target of root joint of link 'p1'",
                                 "target of root joint of link 'p2'"]


def test_default_settings_stop_near_the_least_squares_compromise():
    lk = rigid_pair_arm()
    t1, t2 = np.array([0.2, 1.0, 0.0]), np.array([-1.0, -1.0, 0.3])
    lk.set_link_target("p1", se3.make_pose(None, t1), mask=[1, 1, 1, 0, 0, 0])
    lk.set_link_target("p2", se3.make_pose(None, t2), mask=[1, 1, 1, 0, 0, 0])
    st_ = Solver(lk).solve()
    assert st_.stalled and not st_.converged
    ref = least_squares(lambda x: np.concatenate([se3.rot_z(x[0]) @ [1, 0, 0] - t1,
                                                  se3.rot_z(x[0]) @ [0, 2, 0] - t2]), [0.0],
                        xtol=1e-15, ftol=1e-15, gtol=1e-15)
    assert abs(lk.joint("j").q[0] - ref.x[0]) <= 1e-5  # stall_tol on a quadratic minimum
    assert st_.level("target").error == pytest.approx(np.linalg.norm(ref.fun), abs=1e-10)


def test_mixed_joint_and_full_pose_targets_give_the_least_squares_compromise():
    """A joint target (rad) and a full pose target (m and rad) on a two-revolute arm."""
    lk = Linkage()
    lk.add_link("a")
    lk.add_link("b", pose=P(1, 0))
    lk.add_joint("j1", "revolute", None, "a", world_frame=np.eye(4))
    # second axis tilted: the arm is spatial
    lk.add_joint("j2", "revolute", "a", "b",
                 world_frame=se3.make_pose(se3.so3_exp([0.6, 0, 0]), [1, 0, 0]))
    lk.set_target("j1", [0.9])
    goal = se3.make_pose(se3.so3_exp([0.2, -0.3, 0.5]), [0.4, 1.1, -0.2])
    lk.set_link_target("b", goal)
    st_ = Solver(lk, EXACT).solve()

    Tp = se3.make_pose(se3.so3_exp([0.6, 0, 0]), [1, 0, 0])
    Tc = np.linalg.inv(P(1, 0)) @ Tp  # the child frame as placed by world_frame

    def residual(x):
        Tb = se3.make_pose(se3.rot_z(x[0])) @ Tp @ se3.make_pose(se3.rot_z(x[1])) @ np.linalg.inv(Tc)
        rot = Rotation.from_matrix(goal[:3, :3].T @ Tb[:3, :3]).as_rotvec()
        return np.concatenate([[x[0] - 0.9], Tb[:3, 3] - goal[:3, 3], rot])

    ref = least_squares(residual, [0.0, 0.0], xtol=1e-15, ftol=1e-15, gtol=1e-15)
    q = [lk.joint("j1").q[0], lk.joint("j2").q[0]]
    np.testing.assert_allclose(q, ref.x, atol=1e-7)
    assert st_.level("target").error == pytest.approx(np.linalg.norm(ref.fun), abs=1e-10)


def vh_wrap(a):
    return (a + PI) % (2 * PI) - PI


def test_under_constrained_linear_case_takes_the_minimum_norm_motion():
    """Prismatic joints in series along x, y, (x+y)/sqrt 2 and z; the end link's x and y are
    targeted: the motion is the pseudo-inverse one and the z slide stays still."""
    axes = np.array([[1, 0, 0], [0, 1, 0], [1 / math.sqrt(2), 1 / math.sqrt(2), 0], [0, 0, 1.0]])
    lk = Linkage()
    parent = None
    for i, ax in enumerate(axes):
        lk.add_link(f"s{i}")
        R = Rotation.align_vectors([ax], [[0, 0, 1]])[0].as_matrix()  # mobility z along ax
        lk.add_joint(f"p{i}", "prismatic", parent, f"s{i}", world_frame=se3.make_pose(R))
        parent = f"s{i}"
    q0 = np.array([0.1, -0.2, 0.3, 0.25])
    for i, v in enumerate(q0):
        lk.set_q(f"p{i}", [v])
    p0 = lk.pose("s3")[:3, 3]
    np.testing.assert_allclose(p0, axes.T @ q0, atol=1e-12)
    target = np.array([1.3, -0.4, 5.0])
    lk.set_link_target("s3", se3.make_pose(None, target), mask=[1, 1, 0, 0, 0, 0])
    st_ = Solver(lk, Settings(tol=1e-12)).solve()
    assert st_.converged
    q = np.array([lk.joint(f"p{i}").q[0] for i in range(4)])
    J = axes.T[:2]  # d(x, y) / dq
    expected = q0 + np.linalg.pinv(J) @ (target[:2] - p0[:2])
    np.testing.assert_allclose(q, expected, atol=1e-10)
    assert q[3] == q0[3]  # not needed, not moved


def test_under_constrained_rotation_spreads_evenly_and_distal_joints_stay_still():
    """Planar chain of four revolutes; only the third link's orientation is targeted:
    the minimum-norm motion turns the first three joints equally, the fourth not at all."""
    lk = Linkage()
    for i in range(4):
        lk.add_link(f"l{i}", pose=P(i, 0))
        lk.add_joint(f"j{i}", "revolute", None if i == 0 else f"l{i - 1}", f"l{i}",
                     world_frame=P(i, 0))
    q0 = np.array([0.1, -0.3, 0.2, 0.7])
    for i, v in enumerate(q0):
        lk.set_q(f"j{i}", [v])
    lk.set_link_target("l2", P(0, 0, 0.9), mask=[0, 0, 0, 1, 1, 1])
    st_ = Solver(lk, Settings(tol=1e-12)).solve()
    assert st_.converged
    q = np.array([lk.joint(f"j{i}").q[0] for i in range(4)])
    d = (0.9 - q0[:3].sum()) / 3
    np.testing.assert_allclose(q[:3], q0[:3] + d, atol=1e-10)
    assert q[3] == q0[3]


def test_untargeted_branches_do_not_move(vh):
    rng = np.random.default_rng(4)
    lk = vh.random_tree(rng, n_links=5, types=("revolute", "spherical", "prismatic"))
    # A second, separate branch from the ground: must stay exactly where it is.
    lk.add_link("other", pose=P(3, 3))
    lk.add_joint("o", "revolute", None, "other", world_frame=P(3, 3))
    lk.add_link("other2", pose=P(4, 3))
    lk.add_joint("o2", "spherical", "other", "other2", world_frame=P(4, 3))
    before = {n: j.q.copy() for n, j in lk.joints.items()}
    poses = lk.poses()
    lk.set_link_target("L2", poses["L2"] @ se3.se3_exp([0.1, 0.2, -0.1, 0.1, 0, 0.2]))
    Solver(lk).solve()
    for n in ("o", "o2"):
        assert np.array_equal(lk.joint(n).q, before[n]), n
    support = set(lk.ancestors("L2"))
    for n, j in lk.joints.items():
        carried = j.child if j.tree_dir > 0 else j.parent
        if j.is_tree and carried not in support:
            assert np.array_equal(j.q, before[n]), n


def test_joints_outside_the_solve_group_keep_their_exact_values():
    lk = Linkage()
    lk.add_link("a")
    lk.add_joint("s", "spherical", None, "a", world_frame=np.eye(4))
    lk.set_q("s", [0.912800031591096, 0.6629566741904694, -0.49261466506489476])
    lk.add_link("b", pose=P(2, 0))
    lk.add_joint("r", "revolute", None, "b", world_frame=P(2, 0))
    lk.set_target("r", [0.5])
    before = lk.joint("s").q.copy()
    Solver(lk).solve()
    assert lk.joint("r").q[0] == pytest.approx(0.5, abs=1e-9)
    assert np.array_equal(lk.joint("s").q, before), lk.joint("s").q - before
