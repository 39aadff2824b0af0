"""Vectorized forward kinematics and world motion axes of a linkage's spanning tree.

A :class:`TreeModel` is compiled once per topology. It orders the links (index 0 is the ground),
lays the tree joints' configurations out in one flat vector ``q`` (the solver's variables), and
groups tree joints by type so that every joint of a type is computed in one numpy call.

* :meth:`TreeModel.fk` gives ``T_world_link`` for all links by *pointer jumping*: ceil(log2
  depth) rounds of one batched 4x4 product each, instead of one Python step per joint.
* :meth:`TreeModel.twists` gives ``S`` (6, n_dof): the world spatial twist ``(v, w)`` (at the
  world origin) that a unit increment of each tree DoF imparts to the links beyond it.
* ``anc_sign`` (n_links, n_dof): +1/-1 where a DoF lies on the tree path from the ground to a
  link (its sign is the edge's traversal direction), else 0. So the world twist Jacobian of
  link i is ``S * anc_sign[i]``.
"""
from __future__ import annotations

import numpy as np

from . import se3


class _Batch:
    """Tree joints of one type: their links, q indices (k, dof), frames, directions."""

    def __init__(self, jtype, joints, link_idx, parent_idx, q_idx):
        self.jtype = jtype
        self.kind = jtype.name
        self.joints = joints
        self.link_idx = np.asarray(link_idx, dtype=int)  # link whose tree edge it is
        self.jparent_idx = np.asarray(parent_idx, dtype=int)  # the joint's own parent link
        self.q_idx = np.asarray(q_idx, dtype=int).reshape(len(joints), jtype.dof)
        self.pitch = np.array([j.pitch for j in joints], dtype=float)
        self.Fp = np.stack([j.T_parent_mob for j in joints])
        self.Fc_inv = se3.inverse(np.stack([j.T_child_frame for j in joints]))
        self.backward = np.array([j.tree_dir < 0 for j in joints])
        self.any_backward = bool(self.backward.any())
        self.constant = None
        if jtype.dof == 0:
            X = self.Fp @ self.Fc_inv
            X[self.backward] = se3.inverse(X[self.backward])
            self.constant = X


class TreeModel:
    """Compiled arrays of a linkage's spanning tree (see module doc)."""

    def __init__(self, linkage):
        order: list[str | None] = [None]
        children: dict[str | None, list[str]] = {}
        for name in linkage.links:
            children.setdefault(linkage.tree_parent(name), []).append(name)
        i = 0
        while i < len(order):
            order.extend(children.get(order[i], ()))
            i += 1
        if len(order) != len(linkage.links) + 1:  # pragma: no cover - guarded by editing
            raise RuntimeError("the spanning tree does not reach every link")
        self.link_names = order
        self.index = {name: k for k, name in enumerate(order)}
        n = len(order)
        self.parent = np.zeros(n, dtype=int)
        depth = np.zeros(n, dtype=int)
        self.edges = [None] * n
        self.dof_slices = {}
        self.dof_joint: list = []
        by_type: dict[str, list] = {}
        offset = 0
        for k in range(1, n):
            name = order[k]
            e = linkage.tree_edge[name]
            self.edges[k] = e
            self.parent[k] = self.index[linkage.tree_parent(name)]
            depth[k] = depth[self.parent[k]] + 1
            self.dof_slices[id(e)] = slice(offset, offset + e.dof)
            self.dof_joint.extend([e] * e.dof)
            by_type.setdefault(e.jtype.name, []).append((e, k, offset))
            offset += e.dof
        self.n_dof = offset
        # After r rounds of pointer jumping each link's product spans 2**r tree edges.
        self.rounds = int(np.ceil(np.log2(max(depth.max(), 1))))
        self.batches = []
        for items in by_type.values():
            joints = [e for e, _, _ in items]
            jt = joints[0].jtype
            q_idx = [o + d for _, _, o in items for d in range(jt.dof)]
            pidx = [self.index[e.parent] for e in joints]
            self.batches.append(_Batch(jt, joints, [k for _, k, _ in items], pidx, q_idx))
        self.anc_sign = np.zeros((n, self.n_dof))
        for k in range(1, n):
            e = self.edges[k]
            self.anc_sign[k] = self.anc_sign[self.parent[k]]
            self.anc_sign[k, self.dof_slices[id(e)]] = float(e.tree_dir)
        self.lower = np.concatenate([e.lower for e in self.edges[1:]]) if n > 1 else np.zeros(0)
        self.upper = np.concatenate([e.upper for e in self.edges[1:]]) if n > 1 else np.zeros(0)
        self.angular = np.concatenate([e.jtype.is_angular() for e in self.edges[1:]]) \
            if n > 1 else np.zeros(0, bool)
        self._free_rot = [b for b in self.batches if b.jtype.rot == "free"]

    # ---- configuration vector ---------------------------------------------------------
    def q_from_joints(self) -> np.ndarray:
        """The flat configuration vector gathered from the tree joints' ``q``."""
        q = np.zeros(self.n_dof)
        for k in range(1, len(self.edges)):
            e = self.edges[k]
            q[self.dof_slices[id(e)]] = e.q
        return q

    def q_to_joints(self, q: np.ndarray):
        """Write a flat configuration vector back into the tree joints' ``q``."""
        for k in range(1, len(self.edges)):
            e = self.edges[k]
            e.q = np.array(q[self.dof_slices[id(e)]], dtype=float)

    def slice_of(self, joint) -> slice:
        """The DoF columns of a tree joint."""
        return self.dof_slices[id(joint)]

    def retract(self, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
        """``q`` after the increment ``dq``: scalars add, rotation vectors compose on the right."""
        out = q + dq
        for b in self._free_rot:
            w = b.q_idx[:, list(b.jtype.w_idx)]
            w = w[np.any(dq[w] != 0.0, axis=1)]  # untouched rotations keep their exact bits
            if w.size:
                out[w] = se3.so3_log(se3.so3_exp(q[w]) @ se3.so3_exp(dq[w]))
        return out

    # ---- kinematics --------------------------------------------------------------------
    def fk(self, q: np.ndarray, with_motion: bool = False):
        """World poses (n_links, 4, 4) of all links; optionally the per-batch motions."""
        n = len(self.link_names)
        L = np.empty((n, 4, 4))
        L[0] = np.eye(4)
        motions = []
        for b in self.batches:
            if b.constant is not None:
                L[b.link_idx] = b.constant
                motions.append(None)
                continue
            if b.kind == "revolute":  # Fp @ Rz(q): mix Fp's x and y columns; no motion needed
                th = q[b.q_idx[:, 0]]
                c, s = np.cos(th)[:, None], np.sin(th)[:, None]
                FpM = b.Fp.copy()
                FpM[:, :3, 0] = b.Fp[:, :3, 0] * c + b.Fp[:, :3, 1] * s
                FpM[:, :3, 1] = b.Fp[:, :3, 1] * c - b.Fp[:, :3, 0] * s
                M = None
                X = FpM @ b.Fc_inv
            elif b.kind == "prismatic":  # Fp @ Tz(q): slide Fp's origin along its z column
                FpM = b.Fp.copy()
                FpM[:, :3, 3] += b.Fp[:, :3, 2] * q[b.q_idx[:, 0]][:, None]
                M = None
                X = FpM @ b.Fc_inv
            else:
                M = b.jtype.motion(q[b.q_idx], b.pitch)
                X = b.Fp @ M @ b.Fc_inv
            if b.any_backward:
                X[b.backward] = se3.inverse(X[b.backward])
            L[b.link_idx] = X
            motions.append(M)
        anc = self.parent.copy()
        for _ in range(self.rounds):
            L = L[anc] @ L
            anc = anc[anc]
        return (L, motions) if with_motion else L

    def twists(self, T_world: np.ndarray, q: np.ndarray, motions) -> np.ndarray:
        """World spatial twists S (6, n_dof) of the tree DoF at the configuration of ``fk``."""
        S = np.zeros((6, self.n_dof))
        for b, M in zip(self.batches, motions):
            if b.constant is not None:
                continue
            T_wm = T_world[b.jparent_idx] @ b.Fp
            if b.kind in ("revolute", "prismatic"):  # constant subspace along the mobility z
                z = T_wm[:, :3, 2]
                cols = b.q_idx[:, 0]
                if b.kind == "revolute":
                    S[:3, cols] = np.cross(T_wm[:, :3, 3], z).T
                    S[3:, cols] = z.T
                else:
                    S[:3, cols] = z.T
                continue
            S_mob = b.jtype.subspace(q[b.q_idx], b.pitch, T=M)  # (k, 6, dof)
            S_w = se3.adjoint(T_wm) @ S_mob  # child relative to parent; anc_sign has the direction
            S[:, b.q_idx.reshape(-1)] = S_w.transpose(1, 0, 2).reshape(6, -1)
        return S
