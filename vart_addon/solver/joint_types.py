"""The joint catalog: twelve joint types, their motion, invariant residual and fitted configuration.

A joint relates its *mobility frame* m (fixed in the parent link) to its *child frame* c (fixed
in the child link). ``T_m_c = motion(q)`` is always ``Trans(p(q)) @ Rot(q)`` with ``p`` in the
mobility frame. z is the main axis; x is the slide direction of a pin-slider.

Configuration layout per type (the order of ``q`` entries), as names:
``tx ty tz`` translations along mobility axes (m), ``rz`` rotation about z (rad),
``wx wy wz`` a rotation vector (rad, exponential coordinates, |angle| <= pi when fitted).

Derivatives are taken with respect to a *spatial twist in the mobility frame*
``xi = (v, w)`` perturbing the relative pose on the left: ``T_m_c' = exp(xi) @ T_m_c``.
Tree increments ``dq`` add to scalar entries and compose on the right for rotation vectors
(``R' = R @ exp(dw)``), so no parametrization singularity is reached by a step.

All functions are batched: ``q`` is (k, dof), poses (k, 4, 4), ``pitch`` (k,) (helical only,
metres per turn).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import pose_derivatives as PD
from . import se3

TWO_PI = PD.TWO_PI
_AXIS = {"x": 0, "y": 1, "z": 2}


@dataclass(frozen=True)
class JointType:
    """One entry of the catalog. ``layout`` names each configuration entry (see module doc)."""

    name: str
    layout: tuple[str, ...]
    helical: bool = False
    description: str = ""
    dof: int = field(init=False)
    rot: str = field(init=False)  # "none" | "z" | "free"
    trans_axes: tuple[int, ...] = field(init=False)
    trans_idx: tuple[int, ...] = field(init=False)
    rz_idx: int = field(init=False)
    w_idx: tuple[int, ...] = field(init=False)
    constrained_axes: tuple[int, ...] = field(init=False)
    # index arrays of trans_idx, trans_axes and constrained_axes (not compared, not shown)
    _ti: np.ndarray = field(init=False, repr=False, compare=False)
    _ta: np.ndarray = field(init=False, repr=False, compare=False)
    _ca: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        s = object.__setattr__
        s(self, "dof", len(self.layout))
        s(self, "trans_idx", tuple(i for i, n in enumerate(self.layout) if n[0] == "t"))
        s(self, "trans_axes", tuple(_AXIS[self.layout[i][1]] for i in self.trans_idx))
        s(self, "rz_idx", self.layout.index("rz") if "rz" in self.layout else -1)
        s(self, "w_idx", tuple(i for i, n in enumerate(self.layout) if n[0] == "w"))
        s(self, "rot", "z" if self.rz_idx >= 0 else ("free" if self.w_idx else "none"))
        axes = (0, 1) if self.helical else tuple(a for a in range(3) if a not in self.trans_axes)
        s(self, "constrained_axes", axes)
        s(self, "_ti", np.array(self.trans_idx, dtype=int))
        s(self, "_ta", np.array(self.trans_axes, dtype=int))
        s(self, "_ca", np.array(axes, dtype=int))

    @property
    def n_invariants(self) -> int:
        """Rows of the invariant residual: 6 - dof."""
        return 6 - self.dof

    def is_angular(self) -> np.ndarray:
        """Per configuration entry: True for an angle (rad), False for a length (m)."""
        return np.array([n[0] in "rw" for n in self.layout], dtype=bool)

    # ---- motion ---------------------------------------------------------------------------
    def motion(self, q: np.ndarray, pitch: np.ndarray | float = 0.0) -> np.ndarray:
        """``T_m_c`` (k, 4, 4) for configurations q (k, dof)."""
        q = _as_batch(q, self.dof)
        k = q.shape[0]
        if self.rot == "z":
            R = se3.rot_z(q[:, self.rz_idx])
        elif self.rot == "free":
            R = se3.so3_exp(q[:, list(self.w_idx)])
        else:
            R = np.broadcast_to(np.eye(3), (k, 3, 3))
        p = np.zeros((k, 3))
        p[:, list(self.trans_axes)] = q[:, list(self.trans_idx)]
        if self.helical:
            p[:, 2] = np.broadcast_to(pitch, (k,)) * q[:, self.rz_idx] / TWO_PI
        return se3.make_pose(R, p)

    def subspace(self, q: np.ndarray, pitch: np.ndarray | float = 0.0,
                 T: np.ndarray | None = None) -> np.ndarray:
        """Motion subspace (k, 6, dof): the spatial twist in the mobility frame per unit ``dq``.

        ``T`` may pass the already computed ``motion(q)`` to avoid recomputing it.
        """
        q = _as_batch(q, self.dof)
        T = self.motion(q, pitch) if T is None else T
        k = q.shape[0]
        p, R = T[:, :3, 3], T[:, :3, :3]
        S = np.zeros((k, 6, self.dof))
        for i, a in zip(self.trans_idx, self.trans_axes):
            S[:, a, i] = 1.0
        if self.rot == "z":
            w = np.zeros((k, 3))
            w[:, 2] = 1.0
            S[:, 3:, self.rz_idx] = w
            S[:, :3, self.rz_idx] = np.cross(p, w)
            if self.helical:
                S[:, 2, self.rz_idx] += np.broadcast_to(pitch, (k,)) / TWO_PI
        elif self.rot == "free":
            for col, i in enumerate(self.w_idx):
                w = R[:, :, col]
                S[:, 3:, i] = w
                S[:, :3, i] = np.cross(p, w)
        return S

    def retract(self, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
        """Configuration after the increment ``dq`` (scalars add, rotation vectors compose)."""
        q = _as_batch(q, self.dof)
        out = q + dq
        if self.rot == "free":
            w = list(self.w_idx)
            out[:, w] = se3.so3_log(se3.so3_exp(q[:, w]) @ se3.so3_exp(np.asarray(dq)[..., w]))
        return out

    # ---- invariant residual ---------------------------------------------------------------
    def residual(self, T: np.ndarray, pitch: np.ndarray | float = 0.0,
                 jacobian: bool = False):
        """Invariant residual (k, 6-dof) of relative poses ``T_m_c``; zero iff reachable.

        Rows: the constrained translation axes (or, for helical, x, y and the lead error
        ``p_z - pitch * theta / 2 pi``), then the rotation rows: ``log(R)`` when no rotation
        is free, the swing of z (2 rows, radians) when only rotation about z is free.
        With ``jacobian=True`` also returns d residual / d xi (k, 6-dof, 6).
        """
        T = _as_pose_batch(T)
        k = T.shape[0]
        p, R = T[:, :3, 3], T[:, :3, :3]
        rows: list[np.ndarray] = []
        jac: list[np.ndarray] = []
        dp = PD.dp_dxi(p) if jacobian and (self.constrained_axes or self.helical) else None
        if self.constrained_axes:
            every = len(self.constrained_axes) == 3  # all of p: no gather
            rows.append(p.copy() if every else p[:, self._ca])
            if dp is not None:  # i.e. jacobian (constrained_axes is not empty)
                jac.append(dp if every else dp[:, self._ca])
        if self.helical:
            th, dth = PD.fit_rz(R, p, pitch, True)
            pt = np.broadcast_to(pitch, (k,))[:, None] / TWO_PI
            rows.append(p[:, 2:3] - pt * th[:, None])
            if dp is not None:  # i.e. jacobian (helical)
                jac.append(dp[:, 2:3] - pt[:, :, None] * dth[:, None, :])
        if self.rot == "none":
            w = se3.so3_log(R)
            rows.append(w)
            if jacobian:
                jr = np.zeros((k, 3, 6))
                jr[:, :, 3:] = se3.so3_left_jacobian_inv(w)
                jac.append(jr)
        elif self.rot == "z":
            r, jr = PD.swing(R, jacobian)
            rows.append(r)
            jac.append(jr)
        if len(rows) == 1:
            return (rows[0], jac[0]) if jacobian else rows[0]
        res = np.concatenate(rows, axis=1) if rows else np.zeros((k, 0))
        if not jacobian:
            return res
        return res, (np.concatenate(jac, axis=1) if jac else np.zeros((k, 0, 6)))

    # ---- fitted configuration --------------------------------------------------------------
    def fit(self, T: np.ndarray, pitch: np.ndarray | float = 0.0, jacobian: bool = False):
        """Configuration (k, dof) that best fits relative poses ``T_m_c``.

        Translations are the free components of p; a rotation about z is the twist angle of
        the swing-twist decomposition (in (-pi, pi], or unwrapped by p_z for a helical joint);
        a free rotation is ``log(R)``. With ``jacobian=True`` also d q / d xi (k, dof, 6).
        """
        T = _as_pose_batch(T)
        k = T.shape[0]
        p, R = T[:, :3, 3], T[:, :3, :3]
        q = np.zeros((k, self.dof))
        J = np.zeros((k, self.dof, 6))
        if self.trans_idx:
            ti, ta = self._ti, self._ta
            q[:, ti] = p[:, ta]
            J[:, ti] = PD.dp_dxi(p)[:, ta]
        if self.rot == "z":
            th, dth = PD.fit_rz(R, p, pitch, self.helical)
            q[:, self.rz_idx] = th
            J[:, self.rz_idx] = dth
        elif self.rot == "free":
            w = se3.so3_log(R)
            q[:, list(self.w_idx)] = w
            J[:, list(self.w_idx), 3:] = se3.so3_left_jacobian_inv(w)
        return (q, J) if jacobian else q

    def config_error(self, T: np.ndarray, q_goal: np.ndarray, pitch=0.0, R_goal=None,
                     rot: bool = True, jacobian: bool = True):
        """Error (k, dof) of relative poses' fitted configuration to ``q_goal``, and d/d xi
        (None without ``jacobian``).

        Scalars: ``fit - goal`` (a rotation about z is unwrapped to the turn nearest the goal,
        except for helical joints whose turn is known from p_z). Rotation vectors:
        ``log(R_goal^T R)``; ``R_goal`` may pass ``exp`` of the goal's rotation vector;
        ``rot=False`` leaves them (and their rows of d/d xi) zero, for callers that mask them.
        """
        q_goal = _as_batch(q_goal, self.dof)
        if self.rot != "free":
            q, J = self.fit(T, pitch, jacobian=True) if jacobian else (self.fit(T, pitch), None)
            e = q - q_goal
            if self.rot == "z" and not self.helical:
                i = self.rz_idx
                e[:, i] -= TWO_PI * np.round(e[:, i] / TWO_PI)
            return e, J
        T = _as_pose_batch(T)
        k = T.shape[0]
        if k == 1:  # one joint (a dragged link's root joint): plain floats are cheaper
            out = self._free_error_one(T, q_goal, R_goal, rot, jacobian)
            if out is not None:
                return out
        p, R = T[:, :3, 3], T[:, :3, :3]
        e = np.zeros((k, self.dof))
        J = np.zeros((k, self.dof, 6)) if jacobian else None
        if self.trans_idx:
            ti, ta = self._ti, self._ta
            e[:, ti] = p[:, ta] - q_goal[:, ti]
            if J is not None:  # i.e. jacobian
                J[:, ti] = PD.dp_dxi(p)[:, ta]
        if rot:
            w = slice(self.w_idx[0], self.w_idx[0] + 3)
            Rg = se3.so3_exp(q_goal[:, w]) if R_goal is None else R_goal
            ew = se3.so3_log(np.swapaxes(Rg, -1, -2) @ R)
            e[:, w] = ew
            if J is not None:  # i.e. jacobian
                J[:, w, 3:] = se3.so3_right_jacobian_inv(ew) @ np.swapaxes(R, -1, -2)
        return e, J

    def _free_error_one(self, T, q_goal, R_goal, rot, jacobian):
        """:meth:`config_error` of one joint with a free rotation, in plain floats; None near
        a rotation error of pi (the batched path handles it)."""
        (r00, r01, r02, px), (r10, r11, r12, py), (r20, r21, r22, pz) = T[0, :3, :].tolist()
        g = q_goal[0].tolist()
        p = (px, py, pz)
        e = [0.0] * self.dof
        for i, a in zip(self.trans_idx, self.trans_axes):
            e[i] = p[a] - g[i]
        if jacobian:  # d/d xi, row-major (dof rows of 6)
            D = [0.0] * (6 * self.dof)
            minus_hat_p = ((0.0, pz, -py), (-pz, 0.0, px), (py, -px, 0.0))
            for i, a in zip(self.trans_idx, self.trans_axes):
                D[6 * i + a] = 1.0
                D[6 * i + 3:6 * i + 6] = minus_hat_p[a]
        if rot:
            w0 = self.w_idx[0]
            Rg = se3.so3_exp(q_goal[0, w0:w0 + 3]) if R_goal is None else R_goal[0]
            ew = se3.so3_log_floats(Rg.T.dot(T[0, :3, :3]).ravel().tolist())  # log(Rg^T R)
            if ew is None:
                return None
            e[w0:w0 + 3] = ew
            if not jacobian:
                return np.array([e]), None
            A = se3.so3_right_jacobian_inv_floats(ew)
            R = ((r00, r01, r02), (r10, r11, r12), (r20, r21, r22))
            for i in range(3):  # the rows of J_r^-1(ew) @ R^T
                Ai, k = A[i], 6 * (w0 + i)
                D[k + 3:k + 6] = [Ai[0] * Rj[0] + Ai[1] * Rj[1] + Ai[2] * Rj[2] for Rj in R]
        return np.array([e]), (np.fromiter(D, float, len(D)).reshape(1, self.dof, 6)
                               if jacobian else None)

    def config_error_tree(self, q: np.ndarray, q_goal: np.ndarray):
        """For a tree joint: error (k, dof) of q to q_goal and its derivative d/d dq (k, dof, dof).

        Scalars are compared without wrapping (a tree joint's angle is unwrapped);
        rotation vectors by ``log(R_goal^T R)``.
        """
        q = _as_batch(q, self.dof)
        q_goal = _as_batch(q_goal, self.dof)
        e = q - q_goal
        J = np.broadcast_to(np.eye(self.dof), (q.shape[0], self.dof, self.dof)).copy()
        if self.rot == "free":
            w = list(self.w_idx)
            ew = se3.so3_log(np.swapaxes(se3.so3_exp(q_goal[:, w]), -1, -2) @ se3.so3_exp(q[:, w]))
            e[:, w] = ew
            J[:, w[0]:w[0] + 3, w[0]:w[0] + 3] = se3.so3_right_jacobian_inv(ew)
        return e, J


def _as_batch(q, dof: int) -> np.ndarray:
    """``q`` as (k, dof) floats; an array already so is returned as is (callers only read)."""
    if type(q) is np.ndarray and q.ndim == 2 and q.dtype == np.float64:
        return q
    q = np.array(q, dtype=float)
    if q.ndim == 2:
        return q
    return q.reshape(-1, dof) if dof else q.reshape(1, 0)


def _as_pose_batch(T) -> np.ndarray:
    """Poses as (k, 4, 4), or (k, 3, 4) (rotation and translation only) as given."""
    if type(T) is np.ndarray and T.ndim == 3 and T.dtype == np.float64:
        return T  # already a batch (the solver's case): no numpy call
    T = np.asarray(T, dtype=float)
    return T.reshape((-1,) + T.shape[-2:])


CATALOG: dict[str, JointType] = {t.name: t for t in (
    JointType("revolute", ("rz",), description="rotation about z"),
    JointType("prismatic", ("tz",), description="translation along z"),
    JointType("helical", ("rz",), helical=True,
              description="rotation about z coupled with translation along z (pitch per turn)"),
    JointType("cylindrical", ("rz", "tz"), description="rotation about and translation along z"),
    JointType("pin-slider", ("rz", "tx"), description="rotation about z, translation along x"),
    JointType("cartesian-2", ("tx", "ty"), description="translation along x and y"),
    JointType("spherical", ("wx", "wy", "wz"), description="any rotation, no translation"),
    JointType("planar", ("tx", "ty", "rz"), description="translation along x, y; rotation about z"),
    JointType("cartesian-3", ("tx", "ty", "tz"), description="any translation, no rotation"),
    JointType("point-slider", ("wx", "wy", "wz", "tz"), description="any rotation, slide along z"),
    JointType("point-plane", ("wx", "wy", "wz", "tx", "ty"),
              description="any rotation, translation along x and y"),
    JointType("general", ("tx", "ty", "tz", "wx", "wy", "wz"), description="anything"),
    # Not in MSim's catalog: a rigid attachment, which URDF's "fixed" joints need.
    JointType("fixed", (), description="no motion (rigid attachment)"),
)}

#: Types whose inverse motion (child seen from parent swapped) is again of the same type.
INVERTIBLE = frozenset({"revolute", "prismatic", "helical", "cylindrical", "cartesian-2",
                        "spherical", "planar", "cartesian-3", "general", "fixed"})


def joint_type(name: str) -> JointType:
    """The catalog entry for ``name``; raises ValueError listing the known types otherwise."""
    try:
        return CATALOG[name]
    except (KeyError, TypeError):  # TypeError: an unhashable name
        raise ValueError(f"unknown joint type {name!r}; known types: "
                         f"{', '.join(CATALOG)}") from None
