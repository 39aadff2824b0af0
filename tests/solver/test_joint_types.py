"""The joint catalog (vart_addon/solver/joint_types.py) against finite differences.

For every type: the invariant residual's and the fitted configuration's derivatives w.r.t. a
spatial twist in the mobility frame (``T' = exp(h e_i) @ T``) match central differences;
``motion(q)`` has zero residual and fits back to q; ``subspace`` is the derivative of
``motion(retract(q, dq))``; the configuration errors' derivatives match; and tree joints
driven past their limits stop exactly at them.
"""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from vart_addon.solver import CATALOG, Linkage, Settings, Solver, VartError, se3

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # no NaN, no overflow

PI = math.pi
TYPES = sorted(CATALOG)
H = 1e-6
EXAMPLES = settings(max_examples=25, deadline=None)

coord = st.floats(-1.5, 1.5, allow_nan=False)
rotvec = st.tuples(coord, coord, coord).map(np.array).filter(
    lambda w: np.linalg.norm(w) < PI - 0.15)
twist = st.tuples(coord, coord, coord).map(np.array)
pitch_st = st.sampled_from([0.0, 0.05, -0.2, 0.7])
small = st.sampled_from([0.0, 1e-9, 1e-6, 1e-3, 0.1])


def pose_of(p, w):
    return se3.make_pose(se3.so3_exp(w), p)


def tilt_and_twist(T):
    """Angle between z and R z, and the swing-twist twist angle about z."""
    R = T[:3, :3]
    tilt = math.acos(max(-1.0, min(1.0, R[2, 2])))
    return tilt, math.atan2(R[1, 0] - R[0, 1], R[0, 0] + R[1, 1])


def regular(jt, T, pitch):
    """True where the type's maps are smooth around T (away from their branch cuts)."""
    tilt, th = tilt_and_twist(T)
    w = se3.so3_log(T[:3, :3])
    if jt.rot == "none" and np.linalg.norm(w) > PI - 0.1:
        return False
    if jt.rot == "free" and np.linalg.norm(w) > PI - 0.1:
        return False
    if jt.rot == "z":
        if tilt > PI - 0.2 or abs(th) > PI - 0.05:
            return False
        if jt.helical and pitch:
            x = (2 * PI * T[2, 3] / pitch - th) / (2 * PI)
            if abs(x - round(x)) > 0.45:
                return False
    return True


def fd_xi(f, T):
    """Central differences of f(exp(xi) @ T) w.r.t. xi at 0 -> (..., 6)."""
    cols = []
    for i in range(6):
        e = np.zeros(6)
        e[i] = H
        cols.append((f(se3.se3_exp(e) @ T) - f(se3.se3_exp(-e) @ T)) / (2 * H))
    return np.stack(cols, axis=-1)


def random_q(jt, rng, n, pitch=0.0):
    q = rng.uniform(-2.0, 2.0, size=(n, jt.dof))
    if jt.rz_idx >= 0:
        lim = 20.0 if (jt.helical and pitch) else PI - 1e-6
        q[:, jt.rz_idx] = rng.uniform(-lim, lim, n)
    if jt.w_idx:
        w = rng.normal(size=(n, 3))
        w *= rng.uniform(0, PI - 1e-6, (n, 1)) / np.linalg.norm(w, axis=1, keepdims=True)
        q[:, list(jt.w_idx)] = w
    return q


# ---- catalog shape ----------------------------------------------------------------------------
def test_catalog_matches_the_design_table():
    expected = {"revolute": 1, "prismatic": 1, "helical": 1, "cylindrical": 2, "pin-slider": 2,
                "cartesian-2": 2, "spherical": 3, "planar": 3, "cartesian-3": 3,
                "point-slider": 4, "point-plane": 5, "general": 6, "fixed": 0}
    assert {n: t.dof for n, t in CATALOG.items()} == expected
    for t in CATALOG.values():
        assert t.n_invariants == 6 - t.dof


# ---- residual and fit derivatives --------------------------------------------------------------
@pytest.mark.parametrize("name", TYPES)
@EXAMPLES
@given(p=twist, w=rotvec, pitch=pitch_st)
def test_residual_and_fit_jacobians_match_finite_differences_at_random_poses(name, p, w, pitch):
    jt = CATALOG[name]
    T = pose_of(p, w)
    assume(regular(jt, T, pitch))
    r, D = jt.residual(T, pitch, jacobian=True)
    assert r.shape == (1, 6 - jt.dof) and D.shape == (1, 6 - jt.dof, 6)
    np.testing.assert_allclose(D[0], fd_xi(lambda X: jt.residual(X, pitch)[0], T), atol=2e-6)
    q, J = jt.fit(T, pitch, jacobian=True)
    assert q.shape == (1, jt.dof) and J.shape == (1, jt.dof, 6)
    np.testing.assert_allclose(J[0], fd_xi(lambda X: jt.fit(X, pitch)[0], T), atol=2e-6)


@pytest.mark.parametrize("name", TYPES)
@EXAMPLES
@given(seed=st.integers(0, 2**32 - 1), eps=small, pitch=pitch_st)
def test_residual_jacobian_near_the_joint_manifold(name, seed, eps, pitch):
    """Where the solver works: motion(q) perturbed by a small twist (down to exactly on it)."""
    jt = CATALOG[name]
    rng = np.random.default_rng(seed)
    q = random_q(jt, rng, 1, pitch)
    if jt.rz_idx >= 0 and not (jt.helical and pitch):
        q[:, jt.rz_idx] = np.clip(q[:, jt.rz_idx], -PI + 0.1, PI - 0.1)
    if jt.w_idx:
        w = q[:, list(jt.w_idx)]
        q[:, list(jt.w_idx)] = w * min(1.0, (PI - 0.2) / np.linalg.norm(w))
    T = se3.se3_exp(eps * rng.normal(size=6)) @ jt.motion(q, pitch)[0]
    assume(regular(jt, T, pitch))
    r, D = jt.residual(T, pitch, jacobian=True)
    assert np.isfinite(r).all() and np.isfinite(D).all()
    np.testing.assert_allclose(D[0], fd_xi(lambda X: jt.residual(X, pitch)[0], T), atol=2e-6)


@pytest.mark.parametrize("name", TYPES)
def test_motion_has_zero_residual_and_fits_back(name):
    jt = CATALOG[name]
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    for pitch in (0.0, 0.15, -0.4):
        q = random_q(jt, rng, 200, pitch)
        T = jt.motion(q, pitch)
        assert T.shape == (200, 4, 4)
        np.testing.assert_allclose(jt.residual(T, pitch), 0.0, atol=1e-12)
        np.testing.assert_allclose(jt.fit(T, pitch), q, atol=1e-9)
        # The residual's rows are independent and blind to the motion directions.
        _, D = jt.residual(T, pitch, jacobian=True)
        S = jt.subspace(q, pitch)
        np.testing.assert_allclose(D @ S, 0.0, atol=1e-9)
        full = np.concatenate([D, np.swapaxes(S, 1, 2)], axis=1)  # (k, 6, 6)
        assert (np.linalg.svd(full, compute_uv=False)[:, -1] > 1e-6).all()


@pytest.mark.parametrize("name", [n for n in TYPES if CATALOG[n].rot != "none"])
def test_fitted_rotations_stay_within_pi(name):
    jt = CATALOG[name]
    rng = np.random.default_rng(5)
    q = random_q(jt, rng, 100)
    if jt.rz_idx >= 0:
        q[:, jt.rz_idx] = rng.uniform(-30, 30, 100)  # several turns
    if jt.w_idx:
        q[:, list(jt.w_idx)] *= 3.0  # angles up to 3 pi
    T = jt.motion(q)
    qf = jt.fit(T)
    if jt.w_idx:
        assert (np.linalg.norm(qf[:, list(jt.w_idx)], axis=1) <= PI + 1e-12).all()
    if jt.rz_idx >= 0 and not jt.helical:
        assert (np.abs(qf[:, jt.rz_idx]) <= PI + 1e-12).all()
    np.testing.assert_allclose(jt.motion(qf), T, atol=1e-9)


# ---- subspace ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", TYPES)
def test_subspace_is_the_derivative_of_motion_of_retract(name):
    jt = CATALOG[name]
    rng = np.random.default_rng(17 + TYPES.index(name))
    for pitch in (0.0, 0.3):
        q = random_q(jt, rng, 30, pitch)
        if jt.w_idx:  # also the small-angle region
            q[:5, list(jt.w_idx)] *= 1e-7
        S = jt.subspace(q, pitch)
        assert S.shape == (30, 6, jt.dof)
        M = jt.motion(q, pitch)
        Minv = se3.inverse(M)
        for i in range(jt.dof):
            dq = np.zeros((30, jt.dof))
            dq[:, i] = H
            plus = jt.motion(jt.retract(q, dq), pitch)
            minus = jt.motion(jt.retract(q, -dq), pitch)
            num = (se3.se3_log(plus @ Minv) - se3.se3_log(minus @ Minv)) / (2 * H)
            np.testing.assert_allclose(S[:, :, i], num, atol=1e-7, err_msg=f"column {i}")
        np.testing.assert_allclose(jt.subspace(q, pitch, T=M), S)


@pytest.mark.parametrize("name", TYPES)
def test_retract_composes_rotation_vectors_on_the_right(name):
    jt = CATALOG[name]
    rng = np.random.default_rng(3)
    q = random_q(jt, rng, 20)
    dq = rng.normal(scale=0.3, size=(20, jt.dof))
    out = jt.retract(q, dq)
    scal = [i for i in range(jt.dof) if i not in jt.w_idx]
    np.testing.assert_allclose(out[:, scal], q[:, scal] + dq[:, scal], atol=1e-15)
    if jt.w_idx:
        w = list(jt.w_idx)
        np.testing.assert_allclose(se3.so3_exp(out[:, w]),
                                   se3.so3_exp(q[:, w]) @ se3.so3_exp(dq[:, w]), atol=1e-12)


# ---- configuration errors -----------------------------------------------------------------------
@pytest.mark.parametrize("name", [n for n in TYPES if CATALOG[n].dof])
@EXAMPLES
@given(p=twist, w=rotvec, goal_seed=st.integers(0, 2**32 - 1), pitch=pitch_st)
def test_config_error_jacobian_matches_finite_differences(name, p, w, goal_seed, pitch):
    jt = CATALOG[name]
    T = pose_of(p, w)
    assume(regular(jt, T, pitch))
    q_goal = random_q(jt, np.random.default_rng(goal_seed), 1)
    e, J = jt.config_error(T, q_goal, pitch)
    if jt.rz_idx >= 0 and not jt.helical:
        assume(abs(e[0, jt.rz_idx]) < PI - 0.05)  # away from the wrap to the other turn
    if jt.w_idx:
        assume(np.linalg.norm(e[0, list(jt.w_idx)]) < PI - 0.1)
    np.testing.assert_allclose(J[0], fd_xi(lambda X: jt.config_error(X, q_goal, pitch)[0][0], T),
                               atol=2e-6)
    e_only, none = jt.config_error(T, q_goal, pitch, jacobian=False)
    assert none is None
    np.testing.assert_array_equal(e_only, e)
    # At the goal itself the error vanishes.
    if jt.rz_idx < 0 or not jt.helical or pitch == 0:
        e0, _ = jt.config_error(jt.motion(q_goal, pitch), q_goal, pitch)
        np.testing.assert_allclose(e0, 0.0, atol=1e-9)


@pytest.mark.parametrize("name", [n for n in TYPES if CATALOG[n].dof])
def test_config_error_tree_jacobian_matches_finite_differences(name):
    jt = CATALOG[name]
    rng = np.random.default_rng(29)
    q = random_q(jt, rng, 40)
    q_goal = random_q(jt, rng, 40)
    if jt.w_idx:
        w = list(jt.w_idx)
        # keep the rotation error below pi - 0.1 so log is smooth
        q_goal[:, w] = se3.so3_log(se3.so3_exp(q[:, w]) @ se3.so3_exp(
            rng.normal(size=(40, 3)) * 0.5))
    e, J = jt.config_error_tree(q, q_goal)
    assert e.shape == (40, jt.dof) and J.shape == (40, jt.dof, jt.dof)
    for i in range(jt.dof):
        dq = np.zeros((40, jt.dof))
        dq[:, i] = H
        num = (jt.config_error_tree(jt.retract(q, dq), q_goal)[0]
               - jt.config_error_tree(jt.retract(q, -dq), q_goal)[0]) / (2 * H)
        np.testing.assert_allclose(J[:, :, i], num, atol=1e-7, err_msg=f"column {i}")
    np.testing.assert_allclose(jt.config_error_tree(q_goal, q_goal)[0], 0.0, atol=1e-12)


def test_revolute_config_error_unwraps_to_the_nearest_turn():
    jt = CATALOG["revolute"]
    T = jt.motion([[3.0]])
    e, _ = jt.config_error(T, [[-3.0]])
    assert e[0, 0] == pytest.approx(6.0 - 2 * PI, abs=1e-12)


def test_helical_fit_unwraps_turns_from_the_lead():
    jt = CATALOG["helical"]
    q = np.array([[-13.0], [0.5], [7.0], [19.5]])
    np.testing.assert_allclose(jt.fit(jt.motion(q, 0.25), 0.25), q, atol=1e-10)


# ---- limits --------------------------------------------------------------------------------------
def one_joint(name, lower, upper):
    lk = Linkage()
    lk.add_link("b", pose=se3.make_pose(None, [0.1, 0.2, 0.3]))
    lk.add_joint("j", name, None, "b", world_frame=np.eye(4), lower=lower, upper=upper,
                 pitch=0.2 if name == "helical" else 0.0)
    return lk


@pytest.mark.parametrize("name", [n for n in TYPES if CATALOG[n].dof])
@pytest.mark.parametrize("side", [1, -1])
def test_a_target_past_the_limit_stops_exactly_at_the_limit(name, side):
    jt = CATALOG[name]
    lower = np.full(jt.dof, -0.3)
    upper = np.full(jt.dof, 0.4)
    lk = one_joint(name, lower, upper)
    goal = np.zeros(jt.dof)
    goal[0] = 1.0 * side  # one DoF driven past its limit, the others to reachable values
    goal[1:] = np.linspace(-0.2, 0.3, jt.dof - 1)
    lk.set_target("j", goal)
    st_ = Solver(lk, Settings(tol=1e-12, max_iterations=200)).solve()
    q = lk.joint("j").q
    assert np.all(q >= lower) and np.all(q <= upper)
    assert q[0] == (upper[0] if side > 0 else lower[0]), q  # exactly, not approximately
    if not jt.w_idx:  # scalar DoFs are independent: the others reach their goals
        np.testing.assert_allclose(q[1:], goal[1:], atol=1e-9)
    assert "target of joint 'j'" in st_.unmet


@pytest.mark.parametrize("name", [n for n in TYPES if CATALOG[n].dof])
def test_set_q_outside_limits_is_refused_and_set_limits_clamps(name):
    jt = CATALOG[name]
    lk = one_joint(name, np.full(jt.dof, -0.3), np.full(jt.dof, 0.4))
    lk.set_q("j", np.full(jt.dof, 0.1))
    before = lk.joint("j").q.copy()
    bad = np.full(jt.dof, 0.1)
    bad[-1] = 0.5
    with pytest.raises(VartError, match="outside its limits"):
        lk.set_q("j", bad)
    np.testing.assert_array_equal(lk.joint("j").q, before)
    lk.set_limits("j", np.full(jt.dof, -0.05), np.full(jt.dof, 0.05))
    np.testing.assert_array_equal(lk.joint("j").q, np.full(jt.dof, 0.05))


@pytest.mark.parametrize("name", [n for n in TYPES if CATALOG[n].rot == "free"])
@pytest.mark.parametrize("angle", [0.0, 1e-9, 0.4, 2.5, PI - 1e-3, PI])
def test_single_joint_config_error_matches_the_batched_path(name, angle):
    """One joint with a free rotation takes a plain-float path; a batch of two, numpy."""
    jt = CATALOG[name]
    rng = np.random.default_rng(int(angle * 1000) + len(name))
    axis = rng.standard_normal(3)
    T = se3.make_pose(se3.so3_exp(axis / np.linalg.norm(axis) * angle), rng.standard_normal(3))
    q_goal = rng.standard_normal((1, jt.dof))
    q_goal[:, list(jt.w_idx)] = 0.0  # the error's rotation is T's: near pi too (the fallback)
    one_e, one_J = jt.config_error(T[None], q_goal)
    two_e, two_J = jt.config_error(np.stack([T, np.eye(4)]), np.vstack([q_goal, q_goal]))
    np.testing.assert_allclose(one_e, two_e[:1], rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(one_J, two_J[:1], rtol=1e-13, atol=1e-15)
    # Without the Jacobian (an evaluation that does not step): the same errors, no J.
    for Ts, goal, e in ((T[None], q_goal, one_e), (np.stack([T, np.eye(4)]),
                                                   np.vstack([q_goal, q_goal]), two_e)):
        e_only, none = jt.config_error(Ts, goal, jacobian=False)
        assert none is None
        np.testing.assert_array_equal(e_only, e)


def test_swing_rows_and_jacobian_at_every_branch_alone_and_mixed():
    """The revolute residual's swing rows (an angle below 1e-8 takes exact constants, below
    1e-4 the Taylor series, above it the closed form; an exact flip is (pi, 0)): values and
    d/d xi against finite differences, each pose alone and all in one batch."""
    jt = CATALOG["revolute"]
    rng = np.random.default_rng(5)
    axis = np.array([0.6, -0.8, 0.0])
    angles = [0.0, 1e-12, 3e-9, 2e-7, 9e-5, 1.1e-4, 0.3, 2.0, PI - 1e-3]
    poses = [se3.make_pose(se3.so3_exp(axis * a) @ se3.rot_z(rng.uniform(-1, 1)),
                           rng.normal(size=3)) for a in angles]
    batch_r, batch_D = jt.residual(np.stack(poses), jacobian=True)
    for i, (a, T) in enumerate(zip(angles, poses)):
        r, D = jt.residual(T, jacobian=True)
        np.testing.assert_allclose(np.linalg.norm(r[0, 3:]), a, rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(batch_r[i], r[0], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(batch_D[i], D[0], rtol=1e-9, atol=1e-12)
        if a < PI - 0.01:  # near the flip the swing direction turns fast: FD is meaningless
            np.testing.assert_allclose(D[0], fd_xi(lambda X: jt.residual(X)[0], T), atol=2e-6)
    flipped = se3.make_pose(np.diag([1.0, -1.0, -1.0]), [0.0, 0.0, 0.0])
    r, D = jt.residual(np.stack([flipped, poses[0]]), jacobian=True)
    assert r[0, 3:].tolist() == [PI, 0.0] and np.isfinite(D).all()
