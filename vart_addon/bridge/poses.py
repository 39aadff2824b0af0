"""Object world matrices <-> rigid link poses ``T_world_link`` (metres, float64).

Blender stores ``matrix_world`` in single precision (float32), which may include scale. A
link's frame is the rigid part: the object's origin and its rotation with the scale divided
out (columns normalized, then the nearest rotation). Writing puts the object's own scale
back: ``matrix_world = T_world_link @ diag(scale)``. Mirrored (negative) or zero scale,
and a shear (a link under a rotated, unevenly scaled parent), are refused. Poses that agree
to float32 precision (``FLOAT32_TOL`` relative) are the same pose.
"""
from __future__ import annotations

import numpy as np

from .errors import BridgeError

#: Two poses that differ by less than this (relative to max(1, |value|)) are equal as far as a
#: float32 ``matrix_world`` can tell (float32 epsilon 1.2e-7, plus Blender's own arithmetic).
FLOAT32_TOL = 1e-6
#: How far from perpendicular (cosine) the scaled axes of a link's world matrix may be: float32
#: rounding of a rotation times a scale stays below 1e-6; a shear is refused.
SHEAR_TOL = 1e-4


def observe(ob) -> tuple:
    """The object's ``matrix_world`` as it is stored, 16 floats row-major (exact)."""
    return tuple(x for row in ob.matrix_world for x in row)


def rigid_and_scale(m16, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Split an observed world matrix (16 floats, row-major) into ``T_world_link`` (4x4 rigid)
    and the object's scale (3,)."""
    M = np.array(m16, dtype=float).reshape(4, 4)
    if not np.isfinite(M).all():
        raise BridgeError(f"object {name!r}: its world matrix is not finite")
    A = M[:3, :3]
    scale = np.linalg.norm(A, axis=0)
    if scale.min() < 1e-9:
        raise BridgeError(f"object {name!r}: zero scale; a link needs a non-degenerate frame")
    if np.linalg.det(A) < 0:
        raise BridgeError(f"object {name!r}: negative (mirrored) scale is not supported for "
                          "links; apply the scale or mirror the mesh data instead")
    R = A / scale
    shear = float(np.abs(R.T @ R - np.eye(3)).max())
    if shear > SHEAR_TOL:
        raise BridgeError(f"object {name!r}: its world matrix is sheared (axes {shear:.2g} from "
                          "perpendicular: a rotated parent scaled unevenly); a link needs a "
                          "rigid frame: make the parent's scale uniform or apply it")
    U, _, Vt = np.linalg.svd(R)
    T = np.eye(4)
    T[:3, :3] = U @ Vt
    T[:3, 3] = M[:3, 3]
    return T, scale


def rigid_poses(m16s: list, names: list) -> list[np.ndarray]:
    """``[rigid_and_scale(m, name)[0] for m, name in zip(m16s, names)]``, computed together
    (a link's SVD alone costs more than the rest): the same numbers (the same operations on
    each matrix); a matrix that is refused, or near being refused, goes through
    :func:`rigid_and_scale`, which raises the same error."""
    if not m16s:
        return []
    M = np.array(m16s, dtype=float).reshape(-1, 4, 4)
    A = M[:, :3, :3]
    with np.errstate(all="ignore"):
        scale = np.sqrt((A * A).sum(axis=1))  # each column's norm, summed as linalg.norm
        R = A / scale[:, None, :]
        ok = bool(np.isfinite(M).all()) and float(scale.min()) >= 1e-9 \
            and bool((np.linalg.det(A) >= 0).all()) \
            and float(np.abs(np.swapaxes(R, 1, 2) @ R - np.eye(3)).max()) <= SHEAR_TOL / 2
    if not ok:
        return [rigid_and_scale(m, n)[0] for m, n in zip(m16s, names)]
    U, _, Vt = np.linalg.svd(R)
    out = []
    for k in range(len(M)):
        T = np.eye(4)
        T[:3, :3] = U[k] @ Vt[k]
        T[:3, 3] = M[k, :3, 3]
        out.append(T)
    return out


def same_pose(A: np.ndarray, B: np.ndarray, tol: float) -> bool:
    """Max elementwise difference within ``tol * max(1, |entries|)``."""
    scale = max(1.0, float(np.abs(A).max()), float(np.abs(B).max()))
    return float(np.abs(np.asarray(A) - np.asarray(B)).max()) <= tol * scale


def depth(ob) -> int:
    """Number of Blender parents above the object."""
    n = 0
    while ob.parent is not None:
        ob, n = ob.parent, n + 1
    return n


def ancestors(ob) -> list:
    """Blender parents of the object, nearest first."""
    out = []
    while ob.parent is not None:
        ob = ob.parent
        out.append(ob)
    return out
