"""Static torque limits as goals: a 1-DoF tree joint's gravity torque within its effort limit,
an inequality at the limit level, so a drag of an arm stops where a motor would stall as it
stops at a joint limit.

A joint's *static torque* is what its motor must supply to hold the links beyond it (the
tree's links on its far side from the ground) against gravity:
``tau_j = -G_j``, ``G_j = g . sum_i m_i dc_i/dq_j`` (N m about a revolute's axis, N along a
prismatic's), ``c_i`` each link's centre of mass, ``g`` the linkage's gravity (m/s^2; when it
is off, standard gravity, 9.81 along -z: a motor holds its robot in the world it runs in). It
is the whole torque for a robot fixed to the world; one standing on the ground also pushes on
it, which this goal does not count (the statics check does).

With ``(v_j, w_j)`` the joint's world twist and ``s_ij`` the links' signed ancestry
(:class:`~.kinematics.TreeModel` ``anc_sign``): ``G_j = g . (a_j v_j + w_j x b_j)``,
``a_j = sum_i m_i s_ij``, ``b_j = sum_i m_i s_ij c_i``. Its derivative in DoF ``k``:
``g . (a_j dv_j + dw_j x b_j + w_j x db_j)``, where the twist turns with the link that carries
the axis (``dS_j = s_pk [S_k, S_j]``, ``p`` the joint's link nearer the ground,
``[S_k, S_j] = (w_k x v_j + v_k x w_j, w_k x w_j)``) and ``db_j = d_jk v_k + w_k x e_jk``
(``d_jk = sum_i m_i s_ij s_ik``, ``e_jk = sum_i m_i s_ij s_ik c_i``).

Rows: ``|tau_j| - L_j`` for each joint beyond its limit ``L_j`` (its goal's ``effort``); the
others are guards (:meth:`.goals.Batch.guards`), as the balance goal's. The goal's ``level``
is the limit level by default, or another chosen per goal (a wish at the posture level...).
"""
from __future__ import annotations

import numpy as np

from .goals import Batch
from .levels import GoalId, Level

#: Gravity when the linkage has none (m/s^2, world).
STANDARD_GRAVITY = np.array([0.0, 0.0, -9.80665])


def joint_support(linkage, model, joint, default) -> np.ndarray:
    """The DoF that change a joint's static torque: those above any link with mass beyond it
    (a goal kind's ``support``)."""
    heavy = _masses(model, linkage)[0]
    col = model.slice_of(joint).start
    beyond = heavy[model.anc_sign[heavy, col] != 0]
    return default | (model.anc_sign[beyond] != 0).any(axis=0)


def _masses(model, linkage) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(link indices, masses (kg), centres of mass in the links' frames)`` of the links
    with mass."""
    links = [(model.index[name], link) for name, link in linkage.links.items()
             if link.mass > 0]
    idx = np.array([k for k, _ in links], dtype=int)
    m = np.array([link.mass for _, link in links], dtype=float)
    com = np.array([np.asarray(link.com, float) for _, link in links]).reshape(-1, 3)
    return idx, m, com


class StaticTorqueBatch(Batch):
    """``torque_limit`` goals of 1-DoF tree joints (see the module doc)."""

    def __init__(self, model, linkage, joints, cols, level: Level = Level.LIMIT):
        self.joints, self.level = joints, level
        self.names = [GoalId("torque_limit", j.label(), level) for j in joints]
        col_of = {c: i for i, c in enumerate(cols)}
        self.jcol = np.array([col_of[model.slice_of(j).start] for j in joints], dtype=int)
        self.idx, self.m, self.com = _masses(model, linkage)
        sign = model.anc_sign[self.idx][:, cols]  # (n_links, n_cols)
        self.s = sign[:, self.jcol]                # s_ij (n_links, n_goals)
        self.sk = sign                             # s_ik
        ground_side = [model.parent[model.index[j.child if j.tree_dir > 0 else j.parent]]
                       for j in joints]
        self.s_axis = model.anc_sign[ground_side][:, cols]  # s_pk (n_goals, n_cols)
        self.a = self.m @ self.s                   # (n_goals,)
        self.d = np.einsum("i,ij,ik->jk", self.m, self.s, self.sk)  # (n_goals, n_cols)
        g = linkage.gravity
        self.g = STANDARD_GRAVITY if g is None or not np.any(g) else np.asarray(g, float)
        # each joint's axis in its own parent link's frame (the world for a joint to it)
        self.pidx = np.array([0 if j.parent is None else model.index[j.parent] for j in joints],
                             dtype=int)
        Fp = np.stack([j.T_parent_mob for j in joints])
        self.Fz, self.Fo = Fp[:, :3, 2], Fp[:, :3, 3]
        self.turns = np.array([bool(j.jtype.is_angular()[0]) for j in joints])
        self.lead = np.array([j.pitch if j.jtype.name == "helical" else 0.0 for j in joints])
        self.n_cols = len(cols)
        self.goal = np.arange(len(joints))
        self.refresh()

    def refresh(self):
        """Re-read each joint's effort limit."""
        self.limit = np.array([float(j.goals["torque_limit"]["effort"]) for j in self.joints])

    def twists(self, state) -> np.ndarray:
        """(6, n_goals): each joint's world twist (v, w) from its parent link's pose, as the
        model's ``S`` has it (also where an evaluation has no ``S``)."""
        T = state.T[self.pidx]
        z = np.einsum("gij,gj->gi", T[:, :3, :3], self.Fz)
        o = np.einsum("gij,gj->gi", T[:, :3, :3], self.Fo) + T[:, :3, 3]
        t = self.turns[:, None]
        v = np.where(t, np.cross(o, z) + self.lead[:, None] * z, z)
        return np.concatenate([v, np.where(t, z, 0.0)], axis=1).T

    def torques(self, state) -> tuple[np.ndarray, np.ndarray]:
        """``(tau (n_goals,), c_i (n_links, 3))``: each joint's static torque (N m or N)."""
        T = state.T[self.idx]
        ci = np.einsum("gij,gj->gi", T[:, :3, :3], self.com) + T[:, :3, 3]
        b = (self.m[:, None] * ci).T @ self.s      # (3, n_goals)
        Sj = self.twists(state)                    # (6, n_goals)
        G = self.g @ (self.a * Sj[:3] + np.cross(Sj[3:], b, axis=0))
        return -G, ci

    def _jacobian(self, state, ci, sel=slice(None)) -> np.ndarray:
        """(n_goals, n_cols): ``d tau_j / d q_k`` (of the goals ``sel`` only)."""
        S = state.S
        v, w = S[:3], S[3:]                        # (3, n_cols)
        Sj = self.twists(state)[:, sel]
        vj, wj = Sj[:3], Sj[3:]                    # (3, n_goals)
        s = self.s[:, sel]
        b = (self.m[:, None] * ci).T @ s           # (3, n_goals)
        # the twist turning with the link that carries the axis: [S_k, S_j]
        dv = np.cross(w.T[None], vj.T[:, None]) + np.cross(v.T[None], wj.T[:, None])
        dw = np.cross(w.T[None], wj.T[:, None])    # (n_goals, n_cols, 3)
        dv *= self.s_axis[sel, :, None]
        dw *= self.s_axis[sel, :, None]
        e = np.einsum("i,ij,ik,ia->jka", self.m, s, self.sk, ci)  # (n_goals, n_cols, 3)
        db = self.d[sel, :, None] * v.T[None] + np.cross(w.T[None], e)
        dG = (self.a[sel, None, None] * dv + np.cross(dw, b.T[:, None])
              + np.cross(wj.T[:, None], db)) @ self.g
        return -dG

    def rate(self, state, ci, step) -> np.ndarray:
        """(n_goals,): ``d tau / d q . step``, without forming the Jacobian (what the guards
        ask at every step: the same terms, each summed over the step first)."""
        S = state.S
        Sj = self.twists(state)
        vj, wj = Sj[:3].T, Sj[3:].T                # (n_goals, 3)
        b = (self.m[:, None] * ci).T @ self.s      # (3, n_goals)
        X = (self.s_axis * step) @ S.T             # sum_k s_pk dq_k S_k, (n_goals, 6)
        dv = np.cross(X[:, 3:], vj) + np.cross(X[:, :3], wj)
        dw = np.cross(X[:, 3:], wj)
        Y = (self.sk * step) @ S.T                 # each link's twist, (n_links, 6)
        dc = Y[:, :3] + np.cross(Y[:, 3:], ci)
        db = ((self.m[:, None] * dc).T @ self.s).T  # (n_goals, 3)
        dG = (self.a[:, None] * dv + np.cross(dw, b.T) + np.cross(wj, db)) @ self.g
        return -dG

    def _at(self, state):
        got = state.memo.get(self)
        if got is None:
            got = state.memo[self] = self.torques(state)
        return got

    def rows(self, state, jac):
        tau, ci = self._at(state)
        over = np.abs(tau) - self.limit
        act = np.flatnonzero(over > 0)
        J = None
        if jac:
            J = (np.sign(tau)[:, None] * self._jacobian(state, ci))[act] if len(act) else \
                np.zeros((0, self.n_cols))
        return over[act], J, self.goal[act]

    def guards(self, state, step) -> list:
        """The joints within their limit that ``step`` would carry beyond it (by
        :meth:`rate`), with their rows."""
        tau, ci = self._at(state)
        slack = self.limit - np.abs(tau)
        grows = np.sign(tau) * self.rate(state, ci, step)
        hit = np.flatnonzero((slack >= 0) & (tau != 0) & (grows > slack + 1e-15))
        if not len(hit):
            return []
        J = np.sign(tau[hit])[:, None] * self._jacobian(state, ci, hit)
        return [(int(i), J[k], float(slack[i])) for k, i in enumerate(hit)]
