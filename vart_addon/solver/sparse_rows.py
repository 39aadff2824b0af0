"""Jacobian rows stored by their supports, for solve groups with many DoF.

A goal of a large linkage depends on few of its DoF: a closure on the joints of its own loop,
a joint's lock on that joint. Dense, a level's Jacobian over every column of a big group costs
rows x columns to fill and rows^2 x columns to multiply; stored by support it costs its
non-zeros. :class:`SparseRows` is such a Jacobian: a list of *parts*, each the rows of one goal
batch, either

- *sparse*: ``vals`` (R, K) and ``idx`` (R, K): row i's value ``vals[i, k]`` sits in column
  ``idx[i, k]``; a row with fewer than K non-zeros is padded with ``idx = -1`` and value 0
  (:data:`PAD`); or
- *dense*: an (R, n) array (a goal that reaches most columns, e.g. a drag target at the top
  of a tower: a *wide* row).

It offers what the solve loop asks of a Jacobian (``dot``, ``T.dot``, row norms, rows taken,
rows scaled, ``dense()``); the stacked solve over its parts' structure is
:mod:`.block_gram`. Batches make sparse parts only for groups of at least :data:`MIN_COLS`
columns (:func:`worth_it`): below that, dense numpy is faster.
"""
from __future__ import annotations

import numpy as np

#: Column index of a padding slot (its value is always 0).
PAD = -1
#: Fewest group columns for which batches store their Jacobians sparse.
MIN_COLS = 96


def worth_it(n_cols: int, support: int) -> bool:
    """Whether rows reaching ``support`` of ``n_cols`` columns are worth storing sparse."""
    return n_cols >= MIN_COLS and 4 * support <= n_cols


def supports(sign: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The non-zeros of each row of ``sign`` (g, n) as ``(idx, vals)`` (g, K), K the largest
    count, padded with :data:`PAD` and 0."""
    nz = sign != 0
    K = int(nz.sum(axis=1).max(initial=0))
    idx = np.full((sign.shape[0], K), PAD, dtype=np.intp)
    vals = np.zeros((sign.shape[0], K))
    for i, row in enumerate(nz):
        cols = np.flatnonzero(row)
        idx[i, :len(cols)] = cols
        vals[i, :len(cols)] = sign[i, cols]
    return idx, vals


class _Part:
    __slots__ = ("vals", "idx", "dense")

    def __init__(self, vals, idx=None):
        self.vals, self.idx = vals, idx
        self.dense = idx is None


class SparseRows:
    """A Jacobian (rows x ``n`` columns) as parts (see the module doc)."""

    __slots__ = ("parts", "n", "shape")

    def __init__(self, parts: list, n: int):
        self.parts, self.n = parts, n
        self.shape = (sum(p.vals.shape[0] for p in parts), n)

    @classmethod
    def sparse(cls, vals: np.ndarray, idx: np.ndarray, n: int) -> SparseRows:
        """One sparse part: ``vals`` and ``idx`` (R, K)."""
        return cls([_Part(vals, idx)], n)

    @classmethod
    def stack(cls, Js: list, n: int) -> SparseRows:
        """Rows of several Jacobians (dense arrays or :class:`SparseRows`) one after another."""
        parts = []
        for J in Js:
            if isinstance(J, SparseRows):
                parts += J.parts
            elif J.shape[0]:
                parts.append(_Part(J))
        return cls(parts, n)

    def dense(self) -> np.ndarray:
        """The (rows, n) array."""
        out = np.zeros(self.shape)
        i = 0
        for p in self.parts:
            R = p.vals.shape[0]
            if p.dense:
                out[i:i + R] = p.vals
            else:
                rows = np.broadcast_to(np.arange(i, i + R)[:, None], p.idx.shape)
                ok = p.idx != PAD
                out[rows[ok], p.idx[ok]] = p.vals[ok]
            i += R
        return out

    def dot(self, v: np.ndarray) -> np.ndarray:
        """``J v`` for a vector ``v`` (n,)."""
        out = [p.vals.dot(v) if p.dense else np.einsum("rk,rk->r", p.vals, v.take(p.idx))
               for p in self.parts]
        return np.concatenate(out) if out else np.zeros(0)

    def rmatvec(self, w: np.ndarray) -> np.ndarray:
        """``J^T w`` for a vector ``w`` (rows,)."""
        out = np.zeros(self.n)
        i = 0
        for p in self.parts:
            R = p.vals.shape[0]
            wi = w[i:i + R]
            if p.dense:
                out += wi.dot(p.vals)
            else:
                ok = p.idx != PAD
                out += np.bincount(p.idx[ok], (p.vals * wi[:, None])[ok], minlength=self.n)
            i += R
        return out

    @property
    def T(self) -> _Transposed:
        """``J^T``, for ``J.T.dot(w)``."""
        return _Transposed(self)

    def row_norms2(self) -> np.ndarray:
        """Squared norm of each row."""
        out = [np.einsum("rk,rk->r", p.vals, p.vals) for p in self.parts]
        return np.concatenate(out) if out else np.zeros(0)

    def take_rows(self, rows: np.ndarray) -> SparseRows:
        """The rows ``rows`` (indices, increasing), as a new :class:`SparseRows`."""
        parts, i = [], 0
        rows = np.asarray(rows)
        for p in self.parts:
            R = p.vals.shape[0]
            mine = rows[(rows >= i) & (rows < i + R)] - i
            if mine.size:
                parts.append(_Part(p.vals[mine], None if p.dense else p.idx[mine]))
            i += R
        return SparseRows(parts, self.n)

    def scale_rows(self, w: np.ndarray) -> SparseRows:
        """Each row times ``w`` (rows,)."""
        parts, i = [], 0
        for p in self.parts:
            R = p.vals.shape[0]
            parts.append(_Part(p.vals * w[i:i + R, None], p.idx))
            i += R
        return SparseRows(parts, self.n)


class _Transposed:
    __slots__ = ("J",)

    def __init__(self, J: SparseRows):
        self.J = J

    def dot(self, w: np.ndarray) -> np.ndarray:
        return self.J.rmatvec(w)


def dense(J) -> np.ndarray:
    """``J`` as a numpy array (a dense one as it is)."""
    return J.dense() if isinstance(J, SparseRows) else J


def row_norms2(J) -> np.ndarray:
    """Squared norm of each row of ``J`` (dense or :class:`SparseRows`)."""
    return J.row_norms2() if isinstance(J, SparseRows) else np.einsum("ij,ij->i", J, J)


def take_rows(J, rows: np.ndarray):
    """Rows ``rows`` (increasing indices) of ``J`` (dense or :class:`SparseRows`)."""
    return J.take_rows(rows) if isinstance(J, SparseRows) else J.take(rows, axis=0)


def scale_rows(J, w: np.ndarray):
    """``J`` with each row times ``w``."""
    return J.scale_rows(w) if isinstance(J, SparseRows) else J * w[:, None]


def concat(Js: list, n: int):
    """The rows of ``Js`` stacked: a numpy array, or :class:`SparseRows` if any part is one."""
    if any(isinstance(J, SparseRows) for J in Js):
        return SparseRows.stack(Js, n)
    return np.concatenate(Js)
