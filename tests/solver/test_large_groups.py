"""Large linkages (issue 22): Jacobians stored by supports, the stacked solve by blocks,
independent solve groups packed into one, and forward kinematics in two levels. Each is
checked against the dense path it replaces, which the rest of the suite pins down."""
import pathlib
import sys

import numpy as np
import pytest

from vart_addon.solver import Settings, Solver, block_gram, kinematics, pdls
from vart_addon.solver import sparse_rows as SR
from vart_addon.solver.sparse_rows import PAD, SparseRows

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))
from tower_scaling import _abstract_frame, abstract_tower_linkage, tower_linkage  # noqa: E402


def _random_sparse(rng, n, R, K):
    idx = np.full((R, K), PAD)
    vals = np.zeros((R, K))
    for i in range(R):
        k = rng.integers(1, K + 1)
        idx[i, :k] = rng.choice(n, k, replace=False)
        vals[i, :k] = rng.normal(size=k)
    return SparseRows.sparse(vals, idx, n)


def test_sparse_rows_act_as_their_dense_matrix():
    rng = np.random.default_rng(1)
    n = 40
    J = SparseRows.stack([_random_sparse(rng, n, 7, 4), rng.normal(size=(2, n)),
                          _random_sparse(rng, n, 5, 3)], n)
    D = J.dense()
    assert D.shape == J.shape == (14, n)
    v, w = rng.normal(size=n), rng.normal(size=14)
    assert np.allclose(J.dot(v), D @ v)
    assert np.allclose(J.T.dot(w), D.T @ w)
    assert np.allclose(J.row_norms2(), (D * D).sum(axis=1))
    rows = np.array([0, 3, 7, 8, 13])
    assert np.array_equal(SR.take_rows(J, rows).dense(), D[rows])
    assert np.allclose(SR.scale_rows(J, w).dense(), D * w[:, None])
    assert np.array_equal(SR.concat([D[:3], J], n).dense(), np.vstack([D[:3], D]))
    assert isinstance(SR.concat([D[:3], D[3:]], n), np.ndarray)


def _blocks_and_border(rng, n_blocks=12, m=3, c=5, wide=2, singular=None):
    """A stack of ``n_blocks`` blocks (m rows over c own columns each) and ``wide`` dense
    rows; block ``singular`` gets two equal rows."""
    n = n_blocks * c
    idx = np.full((n_blocks * m, c), PAD)
    vals = np.zeros((n_blocks * m, c))
    for b in range(n_blocks):
        for i in range(m):
            idx[b * m + i] = np.arange(b * c, (b + 1) * c)
            vals[b * m + i] = rng.normal(size=c)
        if b == singular:
            vals[b * m + 1] = vals[b * m]
    parts = [SparseRows.sparse(vals, idx, n)]
    if wide:
        parts.append(rng.normal(size=(wide, n)))
    return SparseRows.stack(parts, n), n


@pytest.mark.parametrize("wide", [0, 2])
def test_stack_by_blocks_is_the_dense_minimum_norm_step(wide):
    rng = np.random.default_rng(2)
    J, n = _blocks_and_border(rng, wide=wide)
    rhs = rng.normal(size=J.shape[0])
    st = block_gram.stacked([(J, rhs)], n, 1e-3, {})
    ref = pdls.stacked([(J.dense(), rhs)], n, 1e-3)
    assert st is not None and ref is not None
    assert np.allclose(st.solve(rhs), ref.solve(rhs), atol=1e-10)
    dq = st.solve(rhs)
    assert np.allclose(J.dot(dq), rhs, atol=1e-9)  # every row met, and in J's row space:
    y = np.linalg.lstsq(J.dense().T, dq, rcond=None)[0]
    assert np.allclose(J.dense().T @ y, dq, atol=1e-9)


def test_a_singular_block_is_not_proven_and_falls_back():
    rng = np.random.default_rng(3)
    J, n = _blocks_and_border(rng, wide=2, singular=4)
    rhs = rng.normal(size=J.shape[0])
    assert block_gram.stacked([(J, rhs)], n, 1e-3, {}) is None
    assert block_gram.step([(J, rhs)], n, 1e-3, 0.05, None, {}) is None  # wide rows: dense


def test_an_exactly_singular_schur_complement_is_not_proven_and_falls_back():
    """Fixed gap (issue 35): no test made the Schur complement exactly singular, so its
    LinAlgError path was never run (a mutant without it survived). Two equal wide rows that
    reach only columns no block reaches: ``B = 0`` and ``S = C``, small integers, exactly
    singular (its LU meets an exact zero pivot); the narrow blocks are regular."""
    rng = np.random.default_rng(6)
    blocks, n_b = _blocks_and_border(rng, wide=0)
    n = n_b + 3
    narrow = SparseRows(blocks.parts, n)
    wide = np.zeros((2, n))
    wide[:, n_b:] = [1.0, 2.0, 3.0]  # the same row twice
    J = SparseRows.stack([narrow, wide], n)
    rhs = rng.normal(size=J.shape[0])
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.inv(wide[:, n_b:] @ wide[:, n_b:].T)  # the complement as the solve forms it
    assert block_gram.stacked([(J, rhs)], n, 1e-3, {}) is None
    assert block_gram.step([(J, rhs)], n, 1e-3, 0.05, None, {}) is None  # wide rows: dense
    assert pdls.stacked([(J.dense(), rhs)], n, 1e-3) is None  # the dense path agrees


@pytest.mark.parametrize("extra", [None, [1e-2]])
def test_step_by_blocks_is_each_block_solved_alone(extra):
    """No wide row: each block's prioritized step with its own damping; a near-singular block
    does not damp the others."""
    rng = np.random.default_rng(4)
    J, n = _blocks_and_border(rng, wide=0, singular=5)
    rhs = rng.normal(size=J.shape[0])
    dq = block_gram.step([(J, rhs)], n, 1e-3, 0.05, extra, {})
    D = J.dense()
    for b in range(12):
        rows, cols = slice(3 * b, 3 * b + 3), slice(5 * b, 5 * b + 5)
        alone = pdls.prioritized_step([(D[rows, cols], rhs[rows])], 5, 1e-3, 0.05, extra)
        assert np.allclose(dq[cols], alone, atol=1e-10), b


def test_step_by_blocks_of_several_levels():
    rng = np.random.default_rng(5)
    J, n = _blocks_and_border(rng, wide=0, m=4)
    D = J.dense()
    hi = SR.take_rows(J, np.arange(0, 48, 2))  # two levels, each with rows in every block
    lo = SR.take_rows(J, np.arange(1, 48, 2))
    r_hi, r_lo = rng.normal(size=24), rng.normal(size=24)
    dq = block_gram.step([(hi, r_hi), (lo, r_lo)], n, 1e-3, 0.05, None, {})
    for b in range(12):
        cols = slice(5 * b, 5 * b + 5)
        mine = [2 * b, 2 * b + 1]
        alone = pdls.prioritized_step([(D[::2][mine, cols], r_hi[mine]),
                                       (D[1::2][mine, cols], r_lo[mine])], 5)
        assert np.allclose(dq[cols], alone, atol=1e-10), b


def _drag(lk, cells, frames, abstract):
    top = f"rung{cells}"
    T0 = lk.pose(top)
    if abstract:
        _abstract_frame(lk, cells, 0, frames, 0.2)
    solver = Solver(lk, Settings(predict_bend=False))
    solver.solve()
    out, groups = [], []
    for f in range(1, frames + 1):
        if abstract:
            _abstract_frame(lk, cells, f, frames, 0.2)
        else:
            T = T0.copy()
            T[0, 3] += 0.1 * f / frames
            lk.set_link_target(top, T, mask=[1, 0, 1, 0, 0, 0])
        st = solver.solve()
        assert st.converged, f
        out.append(lk.model().q_from_joints())
        groups.append(st.groups)
    return np.array(out), groups


def test_a_large_tower_drags_as_with_dense_rows(monkeypatch):
    """The tower of 60 cells (180 tree joints, one solve group) dragged by its top: the same
    joint values, frame after frame, with rows stored by supports and the stacked solve by
    blocks as with dense rows (MIN_COLS above the group's size)."""
    fast, _ = _drag(tower_linkage(60), 60, 4, False)
    monkeypatch.setattr(SR, "MIN_COLS", 10 ** 9)
    slow, _ = _drag(tower_linkage(60), 60, 4, False)
    assert np.allclose(fast, slow, atol=1e-9)


def test_packed_blocks_meet_what_separate_groups_meet(monkeypatch):
    """The abstracted tower of 60 cells (20 blocks, driven sublinkages; 2 bends keyed):
    packed, its independent groups are solved as one (fewer groups), every frame meets every
    goal (``_drag`` asserts convergence), and the blocks whose abstract joints are not keyed
    stay where the groups solved one at a time leave them. (A keyed block has a free DoF, its
    length: packed groups share one step control, so it may end at another of its solutions.)"""
    cells = 60
    fast, packed = _drag(abstract_tower_linkage(cells), cells, 4, True)
    monkeypatch.setattr(SR, "MIN_COLS", 10 ** 9)
    slow, separate = _drag(abstract_tower_linkage(cells), cells, 4, True)
    assert packed[0] < separate[0]
    model = abstract_tower_linkage(cells).model()
    keyed = {f"c{c}_" for b in range(4, cells // 3, 10) for c in range(3 * b + 1, 3 * b + 4)}
    still = [i for i, j in enumerate(model.dof_joint)
             if not any(j.name.startswith(p) for p in keyed)]
    assert np.allclose(fast[:, still], slow[:, still], atol=1e-9)


def test_packs_keep_what_depends_on_an_earlier_group_after_it():
    """Blocks whose bend is locked wait for the lock's group; the others are packed with
    it (they do not depend on it)."""
    lk = abstract_tower_linkage(60)
    _abstract_frame(lk, 60, 1, 4, 0.2)
    groups = Solver(lk)._analysis()
    names = [{nm.owner for lv in gp.names for nm in lv} for gp in groups]
    first = next(i for i, s in enumerate(names) if "joint 'block4_bend'" in s)
    later = next(i for i, s in enumerate(names) if "joint 'block4_stretch'" in s)
    assert first < later
    assert "joint 'block0_stretch'" in names[first]  # independent of the lock: packed with it


def test_forward_kinematics_in_two_levels_equals_pointer_jumping(monkeypatch):
    lk = tower_linkage(100)  # 200 moving joints deep
    model = kinematics.TreeModel(lk)
    assert model._segments is not None
    monkeypatch.setattr(kinematics, "SEGMENT", 10 ** 6)
    plain = kinematics.TreeModel(lk)
    assert plain._segments is None
    q = model.q_from_joints() + np.random.default_rng(6).normal(0.0, 0.05, model.n_dof)
    assert np.allclose(model.fk(q), plain.fk(q), atol=1e-12)
