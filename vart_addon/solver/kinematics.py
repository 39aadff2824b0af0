"""Vectorized forward kinematics and world motion axes of a linkage's spanning tree.

A :class:`TreeModel` is compiled once per topology. It orders the links (index 0 is the ground),
lays the tree joints' configurations out in one flat vector ``q`` (the solver's variables), and
computes the tree joints together: every revolute, prismatic and helical joint in one fused
pass (:class:`.fk_batches.OneAxis`), the other moving types one numpy call per type (the
batched pieces are in :mod:`.fk_batches`).

* :meth:`TreeModel.fk` gives ``T_world_link`` for all links by *pointer jumping* over the
  links on moving joints: ceil(log2 depth) rounds of one batched 4x4 product each, instead of
  one Python step per joint. Links on fixed joints (markers, rigid attachments) take no part:
  the constant transforms through them are folded into the next moving joint's, and their own
  poses come last, in one product; or, in a tree of one-axis joints with few of them, they
  are rows of the same array from the start (:class:`.fk_batches.WholeTree`: fewer calls).
* :meth:`TreeModel.twists` gives ``S`` (6, n_dof): the world spatial twist ``(v, w)`` (at the
  world origin) that a unit increment of each tree DoF imparts to the links beyond it.
* ``anc_sign`` (n_links, n_dof): +1/-1 where a DoF lies on the tree path from the ground to a
  link (its sign is the edge's traversal direction), else 0. So the world twist Jacobian of
  link i is ``S * anc_sign[i]``.
* :meth:`TreeModel.world_poses` is :meth:`~TreeModel.fk` remembered for the last ``q`` (the
  solver seeds it with its final evaluation's poses).
"""
from __future__ import annotations

import operator

import numpy as np

from . import se3
from .fk_batches import (
    EYE4,
    ONE_AXIS,
    SEGMENT,
    WHOLE_MAX_FIXED,
    JointBatch,
    OneAxis,
    Segments,
    WholeTree,
    jumps,
)

_GET_Q = operator.attrgetter("q")


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
            self.dof_slices[id(e)] = slice(offset, offset + e.dof)
            self.dof_joint.extend([e] * e.dof)
            by_type.setdefault(e.jtype.name, []).append((e, k, offset))
            offset += e.dof
        self.n_dof = offset
        self._fk_q = self._fk_T = None
        self._q_base = self._q_views = None  # see q_to_joints
        self._held = False  # the last q_from_joints found every joint holding its view
        self._moving = [e for e in self.edges[1:] if e.dof]  # in the order of q
        self._moving_slices = [self.dof_slices[id(e)] for e in self._moving]
        self.n_moving_links = len(self._moving)
        self.batches = []
        for items in by_type.values():
            joints = [e for e, _, _ in items]
            jt = joints[0].jtype
            q_idx = [o + d for _, _, o in items for d in range(jt.dof)]
            pidx = [self.index[e.parent] for e in joints]
            self.batches.append(JointBatch(jt, joints, [k for _, k, _ in items], pidx, q_idx))
        self.anc_sign = np.zeros((n, self.n_dof))
        for k in range(1, n):
            e = self.edges[k]
            self.anc_sign[k] = self.anc_sign[self.parent[k]]
            self.anc_sign[k, self.dof_slices[id(e)]] = float(e.tree_dir)
        self.lower = np.concatenate([e.lower for e in self.edges[1:]]) if n > 1 else np.zeros(0)
        self.upper = np.concatenate([e.upper for e in self.edges[1:]]) if n > 1 else np.zeros(0)
        self.limited = bool(np.isfinite(self.lower).any() or np.isfinite(self.upper).any())
        self.angular = np.concatenate([e.jtype.is_angular() for e in self.edges[1:]]) \
            if n > 1 else np.zeros(0, bool)
        self._free_rot = [b for b in self.batches if b.jtype.rot == "free"]
        one = [b for b in self.batches if b.kind in ONE_AXIS]
        self.other_batches = [b for b in self.batches if b.kind not in ONE_AXIS and b.jtype.dof]
        pre, whole_rounds = self._plan_fk(one)
        self.one_axis = OneAxis(one, pre[np.concatenate([b.link_idx for b in one])]) \
            if one else None
        # twists: when the one-axis joints have every DoF, their rows in DoF order (True:
        # already so)
        self._one_axis_rows = None
        if one and len(self.one_axis.q_idx) == self.n_dof:
            order = np.argsort(self.one_axis.q_idx)
            self._one_axis_rows = True if np.array_equal(order, np.arange(self.n_dof)) else order
        for b in self.other_batches:
            b.pre = pre[b.link_idx]
            b.any_pre = bool((b.pre != EYE4).any())
        self._whole = None if whole_rounds is None else WholeTree(self.one_axis, pre, whole_rounds)

    def _plan_fk(self, one) -> tuple[np.ndarray, list[np.ndarray] | None]:
        """Plan :meth:`fk`; returns ``pre`` (n_links, 4, 4): for a link on a moving joint, the
        constant transform from its *base* (nearest ancestor on a moving joint, or the ground)
        to its tree parent, which :meth:`fk` puts in front of the joint's own transform.

        The pointer jumping runs on a compact array of the ground and the links on moving
        joints, in the order :meth:`fk` computes their transforms (the one-axis batches
        ``one``, then the others), each link jumping over its base. A link on a fixed joint
        (a marker, a rigid attachment) is its base's pose times a constant (``_fixed_base``
        in the compact array, ``_fixed_T``): one product at the end for all of them, appended
        to the compact array; ``_unperm`` takes that into link order. When that is dearer
        than one array of every link in link order, each jumping over its base (a tree of
        one-axis joints with few links on fixed joints), the second value returned is its
        pointer-jumping rounds (:class:`.fk_batches.WholeTree`), else None."""
        n = len(self.link_names)
        const = np.tile(EYE4, (n, 1, 1))  # link on a fixed joint: T_parent_link
        for b in self.batches:
            if b.jtype.dof == 0:
                const[b.link_idx] = b.transforms(EYE4)
        moving = np.array([k > 0 and self.edges[k].dof > 0 for k in range(n)])
        base = np.zeros(n, dtype=int)
        depth = np.zeros(n, dtype=int)  # moving joints from the ground
        pre = np.tile(EYE4, (n, 1, 1))  # moving: T_base_parent; fixed: T_base_link
        for k in range(1, n):
            p = self.parent[k]
            if p and not moving[p]:  # rigidly attached parent: through it to its base
                base[k] = base[p]
                pre[k] = pre[p] if moving[k] else pre[p] @ const[k]
            else:
                base[k] = p
                pre[k] = EYE4 if moving[k] else const[k]
            depth[k] = depth[base[k]] + moving[k]
        order = np.concatenate([[0]] + [b.link_idx for b in one + self.other_batches])
        position = np.zeros(n, dtype=int)
        position[order] = np.arange(len(order))
        fixed = np.flatnonzero(~moving)[1:]
        self._fixed_base, self._fixed_T = position[base[fixed]], pre[fixed]
        # Link order from [compact array; fixed links]: None when that is the order already.
        everything = np.concatenate([order, fixed])
        self._unperm = None if np.array_equal(everything, np.arange(n)) else \
            np.argsort(everything)
        anc = position[base[order]]
        dep = depth[order]
        self._segments = None
        if dep.max() > SEGMENT ** 2:
            self._segments = Segments(anc, dep)
            anc = self._segments.within
        # After r rounds each moving link's product spans 2**r moving joints.
        self._jumps = jumps(anc, SEGMENT if self._segments is not None else int(dep.max()))
        if one and not self.other_batches and self._segments is None:
            hops = np.where(moving, depth, depth[base] + 1)  # a fixed link: its base's + 1
            hops[0] = 0
            rounds = jumps(base, int(hops.max()))
            if len(rounds) == len(self._jumps) and len(rounds) * len(fixed) <= WHOLE_MAX_FIXED:
                return pre, rounds
        return pre, None

    # ---- configuration vector ---------------------------------------------------------
    def q_from_joints(self) -> np.ndarray:
        """The flat configuration vector gathered from the tree joints' ``q`` (a new array).
        While every joint still holds the view :meth:`q_to_joints` gave it, that vector is
        current (in-place edits of a view write through to it) and is copied whole."""
        if not self._moving:
            return np.zeros(0)
        qs = list(map(_GET_Q, self._moving))
        self._held = self._q_views is not None and all(map(operator.is_, qs, self._q_views))
        if self._held:
            return self._q_base.copy()
        return np.concatenate(qs).astype(float)

    def q_to_joints(self, q: np.ndarray, held: bool = False):
        """Write a flat configuration vector back into the tree joints' ``q``: each holds a
        view of one private vector. While every joint still holds the view the last call
        gave it, the values are written through those views (in place, as a simulator's
        state vector is: a reference to ``joint.q`` kept across a solve sees the new values);
        else each joint gets a new view. ``held``: no joint's ``q`` was replaced since the
        caller's :meth:`q_from_joints` (a solve), whose look at the views then stands."""
        views = self._q_views
        if views is not None and (held and self._held or all(
                map(operator.is_, map(_GET_Q, self._moving), views))):
            self._q_base[:] = q
            return
        q = np.array(q, dtype=float)
        views = [q[sl] for sl in self._moving_slices]
        for e, v in zip(self._moving, views):
            e.q = v
        self._q_base, self._q_views = q, views

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
    def world_poses(self, q: np.ndarray) -> np.ndarray:
        """:meth:`fk` of ``q``, remembered: the same ``q`` again (the solver's result read by
        the writer, the panel, the overlay) costs a comparison. Read-only."""
        if self._fk_q is not None and np.array_equal(q, self._fk_q):
            return self._fk_T
        return self.remember(q, self.fk(q))

    def remember(self, q: np.ndarray, T: np.ndarray) -> np.ndarray:
        """Record ``T = fk(q)`` (e.g. from the solver's last evaluation) for
        :meth:`world_poses`; the array is made read-only."""
        T.setflags(write=False)
        self._fk_q, self._fk_T = np.array(q, dtype=float), T
        return T

    def fk(self, q: np.ndarray, with_motion: bool = False):
        """World poses (n_links, 4, 4) of all links; optionally the per-batch motions."""
        if self._whole is not None:
            L = self._whole.fk(q)
            return (L, []) if with_motion else L
        L = np.empty((self.n_moving_links + 1, 4, 4))  # the compact array of _plan_fk
        L[0] = EYE4
        i = 1
        if self.one_axis is not None:
            i = 1 + len(self.one_axis.q_idx)
            L[1:i] = self.one_axis.transforms(q)
        motions = []
        for b in self.other_batches:
            M = b.jtype.motion(q.take(b.q_idx), b.pitch)
            X = b.transforms(M)
            L[i:i + len(X)] = b.pre @ X if b.any_pre else X
            i += len(X)
            motions.append(M)
        for anc in self._jumps:
            L = L.take(anc, axis=0) @ L
        if self._segments is not None:
            L = self._segments.world(L)
        if self._fixed_base.size:
            L = np.concatenate([L, L.take(self._fixed_base, axis=0) @ self._fixed_T])
        if self._unperm is not None:
            L = L.take(self._unperm, axis=0)
        return (L, motions) if with_motion else L

    def twists(self, T_world: np.ndarray, q: np.ndarray, motions) -> np.ndarray:
        """World spatial twists S (6, n_dof) of the tree DoF at the configuration of ``fk``."""
        if self._one_axis_rows is not None:  # every DoF is a one-axis joint's
            W = self.one_axis.twists(T_world)
            return (W if self._one_axis_rows is True else W.take(self._one_axis_rows, axis=0)).T
        St = np.empty((self.n_dof, 6))  # built row-wise; S is its transpose (a view)
        if self.one_axis is not None:
            St[self.one_axis.q_idx] = self.one_axis.twists(T_world)
        for b, M in zip(self.other_batches, motions):
            T_wm = T_world.take(b.jparent_idx, axis=0) @ b.Fp
            S_mob = b.jtype.subspace(q.take(b.q_idx), b.pitch, T=M)  # (k, 6, dof)
            S_w = se3.adjoint(T_wm) @ S_mob  # child relative to parent; anc_sign has the direction
            St[b.q_idx.reshape(-1)] = S_w.transpose(0, 2, 1).reshape(-1, 6)
        return St.T
