"""The stacked shortcut (:func:`.pdls.stacked`) for a Jacobian stored by supports
(:class:`.sparse_rows.SparseRows`), by the structure of its Gram matrix.

The rows split into *narrow* ones (sparse parts) and *wide* ones (dense parts: a goal that
reaches most columns, such as a drag target at the top of a tower). Narrow rows that share a
column are coupled; the connected components of that relation cut them into *blocks*, and
rows of different blocks share no column. With the narrow rows first, the stack's Gram matrix
``G = J J^T`` is then

    G = [[A, B], [B^T, C]]

with ``A`` block diagonal (one block per component), ``B`` the narrow-by-wide products and
``C`` the wide rows' own Gram matrix. ``G^-1`` comes from ``A``'s blocks, inverted together
(numpy's batched inverse, one call per block shape), and the Schur complement
``S = C - B^T A^-1 B`` (wide x wide, a few rows):

    y_w = S^-1 (r_w - B^T A^-1 r_n),   y_n = A^-1 (r_n - B y_w),   dq = J^T y.

The proof that the stack is well conditioned is an upper bound on ``1 / lambda_min(G)`` below
``1 / sigma0^2``, as the dense path's trace of ``G^-1`` (:func:`.pdls._plain_inverse`), but
per block: ``G^-1 = diag(A^-1, 0) + [X; -I] S^-1 [X^T, -I]`` with ``X = A^-1 B``, so its
largest eigenvalue is at most ``max_b tr(A_b^-1) + tr(S^-1) + sum_b tr(X_b S^-1 X_b^T)``.
(A sum over the blocks, as the dense trace is, would fail any large mechanism: each block adds
its own inverse eigenvalues, though the blocks' spectra are only put side by side.)

The cost is the non-zeros, plus the wide rows squared per block: for a mechanism of local
loops, linear in its size instead of cubic. Without wide rows the blocks are independent
problems, and :func:`step` gives the prioritized step block by block (each with its own
singularity damping) when the stacked shortcut is not proven.

The structure (blocks, their columns, where each value goes) depends only on which columns
each row reaches and which rows are kept: it is computed once per structure and kept in the
caller's ``cache``.
"""
from __future__ import annotations

import numpy as np

from .sparse_rows import PAD, SparseRows

_MAX_PLANS = 8  # structures remembered per cache (a group's rows change rarely)


class _Plan:
    """Where the narrow rows' values go: per block shape, ``rows`` (B, m) their stacked row
    positions, ``cols`` (B, c) their columns, ``gather`` (B, m, c) positions in the flat narrow
    values (the last, a zero, where a row does not reach a column); ``wide`` the stacked
    positions of the kept wide rows and ``wide_dense`` theirs among the dense parts' rows;
    ``n_kept`` the rows kept."""

    __slots__ = ("shapes", "wide", "wide_dense", "n_kept")

    def __init__(self, shapes, wide, wide_dense, n_kept):
        self.shapes, self.wide, self.wide_dense, self.n_kept = shapes, wide, wide_dense, n_kept


def _find(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def _plan(J: SparseRows, keep: np.ndarray) -> _Plan:
    """The blocks of ``J``'s kept narrow rows (see the module doc)."""
    parent = list(range(J.n))
    narrow = []  # (stacked row, [(column, its value's flat position), ...])
    wide, wide_dense = [], []
    row = flat = dense_row = 0
    for p in J.parts:
        R = p.vals.shape[0]
        if p.dense:
            mine = [i for i in range(R) if keep[row + i]]
            wide += [row + i for i in mine]
            wide_dense += [dense_row + i for i in mine]
            dense_row += R
        else:
            K = p.idx.shape[1]
            for i, cols in enumerate(p.idx.tolist()):
                if keep[row + i]:
                    slots = [(c, flat + i * K + k) for k, c in enumerate(cols) if c != PAD]
                    narrow.append((row + i, slots))
                    r0 = _find(parent, slots[0][0])
                    for c, _ in slots[1:]:
                        rc = _find(parent, c)
                        if rc != r0:
                            parent[rc] = r0
            flat += R * K
        row += R
    blocks: dict[int, tuple[list, set]] = {}
    for r, slots in narrow:
        rows, members = blocks.setdefault(_find(parent, slots[0][0]), ([], set()))
        rows.append((r, slots))
        members.update(c for c, _ in slots)
    by_shape: dict[tuple[int, int], list] = {}
    for rows, members in blocks.values():
        by_shape.setdefault((len(rows), len(members)), []).append((rows, sorted(members)))
    shapes = []
    for (m, c), items in by_shape.items():
        R = np.empty((len(items), m), dtype=np.intp)
        C = np.empty((len(items), c), dtype=np.intp)
        gather = np.full((len(items), m, c), flat, dtype=np.intp)
        for b, (rows, cols) in enumerate(items):
            local = {col: j for j, col in enumerate(cols)}
            C[b] = cols
            for i, (r, slots) in enumerate(rows):
                R[b, i] = r
                for col, at in slots:
                    gather[b, i, local[col]] = at
        shapes.append((R, C, gather))
    return _Plan(shapes, np.array(wide, dtype=np.intp), np.array(wide_dense, dtype=np.intp),
                 len(narrow) + len(wide))


class BlockStacked:
    """The stack of a :class:`SparseRows` Jacobian, proven well conditioned: :meth:`solve`
    gives the minimum-norm step for any right-hand side of its rows (as
    :class:`.pdls.Stacked`)."""

    __slots__ = ("n", "n_rows", "plan", "blocks", "Ainv", "Jw", "Bm", "X", "Sinv")

    def __init__(self, n, n_rows, plan, blocks, Ainv, Jw, Bm, X, Sinv):
        self.n, self.n_rows, self.plan, self.blocks = n, n_rows, plan, blocks
        self.Ainv, self.Jw, self.Bm, self.X, self.Sinv = Ainv, Jw, Bm, X, Sinv

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """Minimum-norm ``dq`` (n,) with ``J dq = rhs`` (rhs: every row, dropped ones too)."""
        ys = [Ai @ rhs.take(R)[:, :, None] for Ai, (R, _, _) in zip(self.Ainv, self.plan.shapes)]
        yw = None
        if self.Sinv is not None:
            t = rhs.take(self.plan.wide)
            for Bm, y in zip(self.Bm, ys):
                t = t - np.einsum("bmw,bm->w", Bm, y[:, :, 0])
            yw = self.Sinv.dot(t)
            ys = [y - X @ yw[:, None] for X, y in zip(self.X, ys)]
        dq = np.zeros(self.n)
        for Jb, y, (_, C, _) in zip(self.blocks, ys, self.plan.shapes):
            dq[C] = (Jb.transpose(0, 2, 1) @ y)[:, :, 0]
        if yw is not None:
            dq += yw.dot(self.Jw)
        return dq


def _structure(levels, n: int, cache: dict | None):
    """The levels' rows stacked, their :class:`_Plan` (from ``cache`` if it was seen) and
    the flat narrow values; None when no row is kept or more rows than columns are."""
    J = SparseRows.stack([J for J, _ in levels if J.shape[0]], n)
    norms = J.row_norms2()
    small = 1e-20 * max(1.0, float(norms.max(initial=0.0)))
    keep = norms > small
    if not J.shape[0] or not keep.any() or int(keep.sum()) > n:
        return None
    key = (n, tuple((p.vals.shape, None if p.dense else p.idx.tobytes()) for p in J.parts),
           keep.tobytes())
    cache = {} if cache is None else cache
    plan = cache.get(key)
    if plan is None:
        if len(cache) >= _MAX_PLANS:
            cache.clear()
        plan = cache[key] = _plan(J, keep)
    flat = np.concatenate([p.vals.reshape(-1) for p in J.parts if not p.dense] + [np.zeros(1)])
    return J, plan, flat


def stacked(levels, n: int, sigma0: float, cache: dict | None = None) -> BlockStacked | None:
    """:func:`.pdls.stacked` for levels whose Jacobians include :class:`SparseRows`: the
    factorization by blocks (module doc), or None when the stack is not provably well
    conditioned or has more rows than columns (then the caller takes :func:`step`)."""
    got = _structure(levels, n, cache)
    if got is None:
        return None
    J, plan, flat = got
    n_rows = J.shape[0]
    blocks = [flat.take(g) for _, _, g in plan.shapes]
    try:
        Ainv = [np.linalg.inv(Jb @ Jb.transpose(0, 2, 1)) for Jb in blocks]
    except np.linalg.LinAlgError:
        return None
    trace = max((float(Ai.diagonal(axis1=1, axis2=2).sum(axis=1).max()) for Ai in Ainv),
                default=0.0)
    Jw = Bm = X = Sinv = None
    if plan.wide.size:
        Jw = np.concatenate([p.vals for p in J.parts if p.dense]).take(plan.wide_dense, axis=0)
        Bm = [Jb @ Jw[:, C].transpose(1, 2, 0) for Jb, (_, C, _) in zip(blocks, plan.shapes)]
        X = [Ai @ B for Ai, B in zip(Ainv, Bm)]
        S = Jw.dot(Jw.T)
        for B, Xb in zip(Bm, X):
            S -= np.einsum("bmw,bmv->wv", B, Xb)
        try:
            Sinv = np.linalg.inv(S)
        except np.linalg.LinAlgError:
            return None
        trace += float(np.trace(Sinv)) + sum(float(np.einsum("bmw,bmw->", Xb @ Sinv, Xb))
                                             for Xb in X)
    if not 0.0 < trace * sigma0 * sigma0 < 1.0:
        return None
    return BlockStacked(n, n_rows, plan, blocks, Ainv, Jw, Bm, X, Sinv)


def step(levels, n: int, sigma0: float, lambda_max: float, extra=None,
         cache: dict | None = None) -> np.ndarray | None:
    """:func:`.pdls.prioritized_step` for levels whose Jacobians include :class:`SparseRows`
    and have no wide row, block by block; None when some row is wide (the caller takes the
    dense path). With no wide row the blocks share no column: the prioritized step of the
    whole is each block's own, with the singularity damping of each block's own levels, as
    if each were solved alone (one near-singular block does not damp the others).

    A block whose rows are all of one level (a pack of loops: closures only) goes with the
    others of its shape at once: the eigendecomposition of their Gram matrices, each damped
    by its own smallest singular value (:func:`.pdls._damping`) plus the level's
    Levenberg-Marquardt ``extra``. A block of several levels gets the stacked step if it is
    undamped and proven well conditioned (as :func:`stacked`), else its own
    :func:`.pdls.prioritized_step`."""
    got = _structure(levels, n, cache)
    if got is None:
        return None if any(J.shape[0] for J, _ in levels) else np.zeros(n)
    J, plan, flat = got
    if plan.wide.size:
        return None
    sizes = [Jl.shape[0] for Jl, _ in levels if Jl.shape[0]]
    bounds = np.cumsum(sizes)
    ext = np.array([x for (Jl, _), x in zip(levels, extra or [0.0] * len(levels)) if Jl.shape[0]])
    rhs = np.concatenate([r for Jl, r in levels if Jl.shape[0]])
    dq = np.zeros(n)
    for R, C, g in plan.shapes:
        Jb, rb = flat.take(g), rhs.take(R)
        lv = np.searchsorted(bounds, R, side="right")  # each row's level (among non-empty)
        one = (lv == lv[:, :1]).all(axis=1)
        if one.any():
            dq[C[one]] = _one_level(Jb[one], rb[one], ext[lv[one, 0]], sigma0, lambda_max)
        for b in np.flatnonzero(~one).tolist():
            levels_b = [(Jb[b][lv[b] == k], rb[b][lv[b] == k]) for k in range(len(sizes))]
            dq[C[b]] = _several_levels(Jb[b], rb[b], levels_b, ext, sigma0, lambda_max)
    return dq


def _one_level(Jb, rb, ext, sigma0: float, lambda_max: float) -> np.ndarray:
    """Steps (B, c) of blocks whose rows are of one level: ``Jb`` (B, m, c), ``rb`` (B, m),
    ``ext`` (B,) the level's Levenberg-Marquardt damping; each block damped by its own
    smallest singular value as :func:`.pdls._gram_inverses` damps a level."""
    from .pdls import _damping  # (pdls imports this module)

    w, U = np.linalg.eigh(Jb @ Jb.transpose(0, 2, 1))
    pos = w > np.maximum(w[:, -1:] * 1e-13, 1e-30)
    smin2 = np.where(pos, w, np.inf).min(axis=1)
    smin2 = np.where(np.isfinite(smin2), smin2, 0.0)
    d = np.array([_damping(float(x), sigma0, lambda_max) for x in smin2]) + ext
    inv_w = np.where(pos, 1.0 / np.where(pos, w + d[:, None], 1.0), 0.0)
    y = np.einsum("bij,bj->bi", U, inv_w * np.einsum("bji,bj->bi", U, rb))
    return np.einsum("bmc,bm->bc", Jb, y)


def _several_levels(Jb, rb, levels_b, ext, sigma0: float, lambda_max: float) -> np.ndarray:
    """The step (c,) of one block whose rows ``Jb`` (m, c) fall in several levels
    (``levels_b``: its rows per level): the stacked step if undamped and proven well
    conditioned, else its own :func:`.pdls.prioritized_step`."""
    from .pdls import prioritized_step  # (pdls imports this module)

    if not ext.any():
        try:
            Ai = np.linalg.inv(Jb @ Jb.T)
        except np.linalg.LinAlgError:
            Ai = None
        if Ai is not None and 0.0 < float(np.trace(Ai)) * sigma0 * sigma0 < 1.0:
            return Jb.T.dot(Ai.dot(rb))
    return prioritized_step(levels_b, Jb.shape[1], sigma0, lambda_max,
                            list(ext) if ext.any() else None)
