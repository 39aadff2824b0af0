"""Recursive prioritized damped least squares (Baerlocher and Boulic, 2004), numpy only.

Each level k asks for ``J_k dq = rhs_k``. Level 1 is solved in the least-squares sense; each
next level is solved within the null space of all levels above it:

    Jt_k = J_k P_{k-1},   dq += Jt_k^+ (rhs_k - J_k dq),   P_k = P_{k-1} - Jt_k^+ Jt_k

No n x n projector and no SVD of J is formed: ``Jt_k^+ = Jt_k^T (Jt_k Jt_k^T + lambda^2 I)^-1``
uses the small m x m Gram matrix G, and projecting a later level subtracts
``(J Jt_i^T) G_i^-1 Jt_i`` for each earlier level i (their row spaces are orthogonal).
Rows whose projected Jacobian vanishes (structurally inactive, e.g. out-of-plane rows of a
planar loop) are dropped from the level. Damping lambda^2 is zero away from singularities and
grows as the level's smallest singular value falls below ``sigma0`` (Maciejewski's rule), up
to ``lambda_max^2``.

Speed: the usual case, every singular value above ``sigma0``, needs only the inverse of G:
``trace(G^-1)`` bounds ``1 / sigma_min^2`` from above, so a small enough trace proves that no
damping is needed. Only when it does not (near a singularity, or within a factor m of one) is
the several times slower eigendecomposition used, to find the smallest singular value and the
rank.

Shortcut (:func:`stacked`, :func:`stacked_step`): when the Gram matrix of all levels stacked is
provably well conditioned (smallest eigenvalue above sigma0^2), the prioritized step *is* the
minimum-norm solution of the stacked system: every row can be met exactly, both solutions lie
in the row space of the stack, and there that solution is unique. No level needs damping then:
by Cauchy interlacing the first level's Gram matrix (a principal submatrix) has no smaller
eigenvalue, and a later level's projected rows ``J_k P`` are the stack restricted to the null
space of the levels above. One factorization replaces one per level and the projections, and
it solves again for other right-hand sides (:class:`Stacked`: simplified Newton steps).
"""
from __future__ import annotations

import math

import numpy as np

from . import block_gram
from .sparse_rows import SparseRows, dense

_EIGH_MAX_ROWS = 64  # below this an exact eigendecomposition of the Gram matrix is cheap
_LinAlgError = np.linalg.LinAlgError


def _damping(smin2: float, sigma0: float, lambda_max: float) -> float:
    s0 = sigma0 * sigma0
    return 0.0 if smin2 >= s0 else lambda_max * lambda_max * (1.0 - smin2 / s0)


def _plain_inverse(G: np.ndarray, s02: float):
    """``G^-1`` if it proves every eigenvalue of the Gram matrix G above ``s02`` (=
    sigma0^2), else None. ``trace(G^-1)`` is the sum of the inverse eigenvalues, at least the
    largest, ``1 / lambda_min``; a singular or ill-conditioned G gives a huge or meaningless
    trace and fails the test."""
    try:
        Ginv = np.linalg.inv(G)
    except _LinAlgError:
        return None
    tr = sum(Ginv.diagonal().tolist())  # (plain floats: cheaper than .trace() at this size)
    return Ginv if 0.0 < tr * s02 < 1.0 else None


def _gram_inverses(G: np.ndarray, sigma0: float, lambda_max: float, extra: float = 0.0):
    """Inverses of the Gram matrix ``G = Jt Jt^T`` for the step and for the projector.

    Both carry the singularity damping lambda^2 (pseudo-inverse on the range); the step's
    also carries ``extra`` (Levenberg-Marquardt). The projector's must not: a damped
    projector would let lower levels leak into this one. Returns (step, projector).
    """
    m = G.shape[0]
    proj = _plain_inverse(G, sigma0 * sigma0)
    if proj is not None:  # no damping, full rank
        if extra:
            return np.linalg.inv(G + extra * np.eye(m)), proj
        return proj, proj
    if m <= _EIGH_MAX_ROWS:
        w, U = np.linalg.eigh(G)
        pos = w > max(w[-1] * 1e-13, 1e-30)
        smin2 = float(w[pos][0]) if pos.any() else 0.0
        lam2 = _damping(smin2, sigma0, lambda_max)

        def inv(d):
            return (U * np.where(pos, 1.0 / np.where(pos, w + d, 1.0), 0.0)).dot(U.T)
        proj = inv(lam2)
        return (inv(lam2 + extra) if extra else proj), proj
    eps = 1e-13 * max(np.trace(G) / m, 1e-30)
    eye = np.eye(m)
    Ginv = np.linalg.inv(G + eps * eye)
    v = np.full(m, 1.0 / np.sqrt(m))
    for _ in range(12):  # power iteration: largest eigenvalue of Ginv = 1 / sigma_min^2
        v = Ginv.dot(v)
        v /= np.linalg.norm(v)
    smin2 = max(1.0 / float(v.dot(Ginv.dot(v))) - eps, 0.0)
    lam2 = _damping(smin2, sigma0, lambda_max)
    if lam2 > eps:
        Ginv = np.linalg.inv(G + lam2 * eye)
    return (np.linalg.inv(G + (lam2 + extra) * eye) if extra else Ginv), Ginv


def prioritized_step(levels, n: int, sigma0: float = 1e-3, lambda_max: float = 0.05,
                     extra=None) -> np.ndarray:
    """Increment ``dq`` (n,) for ``levels`` = [(J (m, n), rhs (m,)), ...], highest first.

    ``extra`` optionally adds a damping lambda^2 per level (Levenberg-Marquardt style).
    A Jacobian stored by supports (:class:`.sparse_rows.SparseRows`) is made dense here.
    """
    levels = [(dense(J), rhs) for J, rhs in levels]
    dq = None
    basis: list[tuple[np.ndarray, np.ndarray]] = []  # (Jt_i, G_i^-1) of earlier levels
    for i, (J, rhs) in enumerate(levels):
        if J.shape[0] == 0:
            continue
        Jt = J
        for Ji, Gi in basis:  # (rows of J x rows of Ji) products first: later levels are small
            Jt = Jt - Jt.dot(Ji.T).dot(Gi).dot(Ji)
        G = Jt.dot(Jt.T)
        norms = G.diagonal()  # squared row norms
        r = rhs if dq is None else rhs - J.dot(dq)
        small = 1e-20 * max(1.0, norms.max())
        if norms.min() <= small:
            keep = norms > small
            if not keep.any():
                continue
            Jt, r, G = Jt[keep], r[keep], G[np.ix_(keep, keep)]
        Gstep, Gproj = _gram_inverses(G, sigma0, lambda_max,
                                      extra[i] if extra is not None else 0.0)
        step = Jt.T.dot(Gstep.dot(r))
        dq = step if dq is None else dq + step
        if i + 1 < len(levels):
            basis.append((Jt, Gproj))
    return np.zeros(n) if dq is None else dq


class Stacked:
    """All levels' rows stacked and proven well conditioned (see :func:`stacked`), kept as the
    stack's minimum-norm right inverse ``P = J^T (J J^T)^-1`` (n, rows kept).

    :meth:`solve` gives the prioritized step for any right-hand side of these rows (one
    matrix-vector product): with the rows of another configuration's errors it is a
    *simplified Newton* step, which reuses this factorization instead of new Jacobians.
    ``n_rows``: the stack's rows before structurally zero ones were dropped (``keep``; a
    right-hand side must have all ``n_rows``). :meth:`secant` carries it along a drag."""

    __slots__ = ("P", "keep", "n_rows", "n")

    def __init__(self, P, keep, n_rows, n):
        self.P, self.keep, self.n_rows, self.n = P, keep, n_rows, n

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """Minimum-norm ``dq`` (n,) with ``J dq = rhs`` (rhs: all ``n_rows`` rows, stacked)."""
        if self.P is None:
            return np.zeros(self.n)
        return self.P.dot(rhs if self.keep is None else rhs[self.keep])

    def secant(self, dq: np.ndarray, de: np.ndarray) -> "Stacked | None":
        """This inverse after the inverse Broyden update along a step ``dq`` (n,) that changed
        the errors by ``de`` (all ``n_rows``): ``P' = P + (dq - P de) de^T / |de|^2``, so
        ``P' de = dq`` (a change of the errors like this one is answered by the motion that
        really made it, its curvature included) and ``P' r = P r`` for ``r`` orthogonal to
        ``de``. One rank-one product, no factorization. None when the motion is mostly not
        the rows' answer to ``de`` (``|dq - P de| > |dq| / 2``: e.g. clamped at a limit, or
        along the rows' null space), which is no correction of them, and when either is not
        finite; ``self`` when the errors did not change."""
        if self.P is None:
            return None
        r = de if self.keep is None else de[self.keep]
        r2, d2 = float(r.dot(r)), float(dq.dot(dq))
        if not (math.isfinite(r2) and math.isfinite(d2)):
            return None
        if r2 == 0.0:
            return self
        x = dq - self.P.dot(r)
        if x.dot(x) > 0.25 * d2:
            return None
        # x r^T by BLAS (a product of a column and a row: each entry the one product, as
        # np.multiply.outer gives it, at a third of its cost on a 42 x 24 stack)
        P = np.dot(x[:, None], (r / r2)[None])
        P += self.P  # (into the product's own array: one fewer of this size)
        return Stacked(P, self.keep, self.n_rows, self.n)


def stacked(levels, n: int, sigma0: float = 1e-3, cache: dict | None = None,
            sparse: bool | None = None):
    """The levels' Jacobians stacked, or None when the stack is not provably well conditioned
    (then no level may be skipped: use :func:`prioritized_step`). Structurally zero rows are
    dropped, as there. ``levels``: [(J (m, n), rhs), ...]; only the Jacobians are read.
    ``sparse``: whether some are stored by supports, if the caller knows.

    The proof is the inverse of the stack's Gram matrix G (:func:`_plain_inverse`): a trace
    of ``G^-1`` below ``1 / sigma0^2`` bounds every eigenvalue of G above sigma0^2. With it,
    the minimum-norm inverse ``J^T G^-1`` serves every solve with these rows (the drag's
    first step, the bend it learns, simplified Newton steps) as one matrix-vector product:
    one LAPACK call and one product per stack.
    A well-conditioned stack within a factor of its row count of sigma0^2 fails the bound and
    takes the prioritized path, which gives the same step.

    Jacobians stored by supports (:class:`.sparse_rows.SparseRows`) are factorized by the
    blocks of their structure (:func:`.block_gram.stacked`, which keeps what it learnt of the
    structure in ``cache``); a :class:`.block_gram.BlockStacked` then stands for the
    :class:`Stacked`."""
    if sparse is None:
        sparse = any(isinstance(J, SparseRows) for J, _ in levels)
    if sparse:
        return block_gram.stacked(levels, n, sigma0, cache)
    Js = [J for J, _ in levels if J.shape[0]]
    J = Js[0] if len(Js) == 1 else np.concatenate(Js) if Js else np.zeros((0, n))
    n_rows = J.shape[0]
    if not n_rows:
        return Stacked(None, None, 0, n)
    G = J.dot(J.T)
    norms = G.diagonal()  # squared row norms
    listed = norms.tolist()  # (plain floats: cheaper than two reductions at this size)
    small = 1e-20 * max(1.0, max(listed))
    keep = None
    if min(listed) <= small:
        keep = norms > small
        if not keep.any():
            return Stacked(None, None, n_rows, n)
        J, G = J[keep], G[np.ix_(keep, keep)]
    if J.shape[0] > n:  # more rows than DoF: some level cannot be met exactly
        return None
    Ginv = _plain_inverse(G, sigma0 * sigma0)
    return None if Ginv is None else Stacked(J.T.dot(Ginv), keep, n_rows, n)


def stack_rhs(levels) -> np.ndarray:
    """The right-hand sides of ``levels`` stacked (the rows :meth:`Stacked.solve` takes)."""
    rs = [r for J, r in levels if J.shape[0]]
    return rs[0] if len(rs) == 1 else np.concatenate(rs) if rs else np.zeros(0)


def stacked_step(levels, n: int, sigma0: float = 1e-3):
    """The prioritized step computed as the minimum-norm solution of all levels stacked, or
    None when the stack is not provably well conditioned (see :func:`stacked`)."""
    st = stacked(levels, n, sigma0)
    return None if st is None else st.solve(stack_rhs(levels))
