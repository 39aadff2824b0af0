"""The batched pieces of :class:`.kinematics.TreeModel`'s forward kinematics: tree joints
of one type (:class:`JointBatch`), every one-axis joint in one fused product (:class:`OneAxis`),
pointer jumping (:func:`jumps`) over the links on moving joints, the whole tree in one array
when that is cheaper (:class:`WholeTree`), and two-level pointer jumping for deep trees
(:class:`Segments`). Units: metres and radians; poses ``T_parent_link`` are 4x4."""
from __future__ import annotations

import numpy as np

from . import se3


class JointBatch:
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

    def transforms(self, M: np.ndarray) -> np.ndarray:
        """(k, 4, 4) transforms of the links from their tree parents, for the joints' motions
        ``M`` (k, 4, 4) (inverted for an edge traversed from the joint's child to its parent)."""
        X = self.Fp @ M @ self.Fc_inv
        if self.any_backward:
            X[self.backward] = se3.inverse(X[self.backward])
        return X


# Rz(theta) Tz(d) = _P0 + cos(theta) _P1 + sin(theta) _P2 + d _PD: linear in (1, c, s, d).
_P0 = np.diag([0.0, 0.0, 1.0, 1.0])
_P1 = np.diag([1.0, 1.0, 0.0, 0.0])
_P2 = np.zeros((4, 4))
_P2[1, 0], _P2[0, 1] = 1.0, -1.0
_PD = np.zeros((4, 4))
_PD[2, 3] = 1.0
EYE4 = np.eye(4)
ONE_AXIS = ("revolute", "prismatic", "helical")


def _combine(C: np.ndarray, v: np.ndarray, A: np.ndarray) -> np.ndarray:
    """``A0 + cos(v) A1 + sin(v) A2 + v A3`` (k, 4, 4) for the coefficient matrices ``A`` (k,
    4, 16) of :class:`OneAxis`: the coefficients ``(1, cos v, sin v, v)`` are written into the
    buffer ``C`` (k, 1, 4), whose first column holds 1; the product is a new array."""
    np.cos(v, out=C[:, 0, 1])
    np.sin(v, out=C[:, 0, 2])
    C[:, 0, 3] = v
    return (C @ A).reshape(-1, 4, 4)


class OneAxis:
    """Every tree joint moving along or about its mobility z only (revolute, prismatic,
    helical), computed together.

    A link's transform from its tree parent is ``Fp @ Rz(theta) Tz(d) @ Fc^-1`` (inverted for
    an edge traversed child to parent), i.e. ``A0 + cos(theta) A1 + sin(theta) A2 + d A3``
    with constant matrices A per joint: one small matrix product gives every transform.
    ``theta = rot * q`` and ``d = lead * q`` (lead 1 for prismatic, pitch / 2 pi for helical).
    Both factors are folded into the A (a joint that does not rotate has cos 0 = 1 and sin 0
    = 0 whatever q is), so the coefficients are ``(1, cos q, sin q, q)`` for every joint.
    ``pre`` (k, 4, 4): constant transforms put in front (see :meth:`.kinematics.TreeModel._plan_fk`).
    """

    def __init__(self, batches, pre):
        joints = [j for b in batches for j in b.joints]
        self.link_idx = np.concatenate([b.link_idx for b in batches])
        qi, rot, lead = [], [], []
        for b in batches:
            n = len(b.joints)
            qi.append(b.q_idx[:, 0])
            rot.append(np.full(n, 1.0 if b.kind in ("revolute", "helical") else 0.0))
            lead.append({"prismatic": np.ones(n), "helical": b.pitch / (2 * np.pi)}.get(
                b.kind, np.zeros(n)))
        self.q_idx = np.concatenate(qi)
        rot, lead = np.concatenate(rot)[:, None, None], np.concatenate(lead)[:, None, None]
        Fp = np.stack([j.T_parent_mob for j in joints])
        Fc = np.stack([j.T_child_frame for j in joints])
        Fp_inv, Fc_inv = se3.inverse(Fp), se3.inverse(Fc)
        back = np.array([j.tree_dir < 0 for j in joints])
        A = np.empty((len(joints), 4, 4, 4))
        for k, (P, sgn) in enumerate(((_P0, 1.0), (_P1, 1.0), (_P2, -1.0), (_PD, -1.0))):
            A[:, k] = Fp @ P @ Fc_inv
            A[back, k] = sgn * (Fc[back] @ P @ Fp_inv[back])  # M^-1: theta, d -> -theta, -d
        A[:, 0] += (1.0 - rot) * A[:, 1]
        A[:, 1] *= rot
        A[:, 2] *= rot
        A[:, 3] *= lead
        self.A = (pre[:, None] @ A).reshape(len(joints), 4, 16)
        self._C = np.ones((len(joints), 1, 4))  # the coefficients (1, cos q, sin q, q)
        # For the twists: the joint's parent link, Fp's z and origin; the joints that are not
        # revolute, a block per batch (prismatic: slices; helical: slices and leads).
        self.jparent_idx = np.concatenate([b.jparent_idx for b in batches])
        self.Fp_zo = Fp[:, :, 2:4].copy()
        self._prismatic, self._helical = [], []
        i = 0
        for b in batches:
            block, i = slice(i, i + len(b.joints)), i + len(b.joints)
            if b.kind == "prismatic":
                self._prismatic.append(block)
            elif b.kind == "helical":
                self._helical.append((block, (b.pitch / (2 * np.pi))[:, None]))

    def transforms(self, q: np.ndarray) -> np.ndarray:
        """(k, 4, 4) transforms of the links from their tree parents."""
        return _combine(self._C, q.take(self.q_idx), self.A)

    def twists(self, T_world: np.ndarray) -> np.ndarray:
        """The world twists (v, w) (k, 6) of the joints, in their order here (columns
        ``q_idx``): ``(o x z, z)`` about the axis z through o, ``(z, 0)`` along it, and
        ``(o x z + lead z, z)`` for a helical joint."""
        zo = T_world.take(self.jparent_idx, axis=0)[:, :3, :] @ self.Fp_zo  # (k, 3, 2): z, o
        z = zo[:, :, 0]
        W = np.concatenate([se3.cross(zo[:, :, 1], z), z], axis=1)
        for block in self._prismatic:
            W[block, :3] = z[block]
            W[block, 3:] = 0.0
        for block, lead in self._helical:
            W[block, :3] += lead * z[block]
        return W


#: :class:`WholeTree` when (pointer-jumping rounds) x (links on fixed joints) is at most this:
#: each round's product costs about 0.05 us more per link, and the four numpy calls it saves
#: about 4 us (a hexapod with 8 feet markers and 4 rounds: 18.5 us instead of 21.2; a chain of
#: four-bars with 22 markers and 5 rounds: 21.9 instead of 21.4).
WHOLE_MAX_FIXED = 64


class WholeTree:
    """:meth:`.kinematics.TreeModel.fk` of a tree whose moving joints are all one-axis joints
    (:class:`OneAxis`) and shallow enough for plain pointer jumping, in fewer numpy calls: one
    array of every link in link order, the links on fixed joints included as rows with a
    constant transform from their base (``pre`` (n_links, 4, 4), see
    :meth:`.kinematics.TreeModel._plan_fk`; their coefficients ``(1, cos, sin, q)`` multiply
    zeros but the first, and come from a slot that is always 0), so no separate product,
    concatenation or reordering is left. Planned only when the fixed links add no pointer-
    jumping round (``rounds``: over each link's base) and are few (:data:`WHOLE_MAX_FIXED`)."""

    def __init__(self, one: OneAxis, pre: np.ndarray, rounds: list[np.ndarray]):
        n = len(pre)
        rows = one.link_idx
        self.A = np.zeros((n, 4, 16))
        self.A[:, 0] = pre.reshape(n, 16)  # the ground's and the fixed links' (I for the ground)
        self.A[rows] = one.A
        n_dof = one.q_idx.size  # (every DoF is a one-axis joint's)
        self.q_idx = np.full(n, n_dof)  # the zero slot after q
        self.q_idx[rows] = one.q_idx
        self._qx = np.zeros(n_dof + 1)
        self._C = np.ones((n, 1, 4))  # the coefficients (see OneAxis)
        self.rounds = rounds  # pointer jumping over each link's base (link order)

    def fk(self, q: np.ndarray) -> np.ndarray:
        """World poses (n_links, 4, 4) in link order."""
        qx = self._qx
        qx[:-1] = q
        L = _combine(self._C, qx.take(self.q_idx), self.A)
        for anc in self.rounds:
            L = L.take(anc, axis=0) @ L
        return L


#: Segment length (moving joints) of :class:`Segments`, used in trees deeper than its square.
SEGMENT = 8


def jumps(anc: np.ndarray, depth: int) -> list[np.ndarray]:
    """Pointer-jumping rounds over a compact array whose parents are ``anc`` (index 0: the
    ground, the identity, its own parent) and at most ``depth`` deep: round r's pointers jump
    2**r links."""
    out = []
    for _ in range(int(np.ceil(np.log2(max(depth, 1))))):
        out.append(anc)
        anc = anc[anc]
    return out


class Segments:
    """Forward kinematics of a deep tree in two levels (a tower: 1,800 joints deep).

    Pointer jumping over n links takes log2(depth) rounds of n products. Cut every chain into
    segments of :data:`SEGMENT` moving joints: the links of each segment are first composed
    from the segment's *base* (the last link of the segment above, or the ground):
    log2(SEGMENT) rounds over n (``within``: the parents, with the first link of each segment
    pointing at the identity). The bases (every link at a depth that is a multiple of
    SEGMENT) then form a tree SEGMENT times shallower and smaller: pointer jumping over it
    alone gives their world poses (``head_jumps``), and one last product over n puts each
    link's base in front (:meth:`world`): about log2(SEGMENT) + 1 rounds over n instead of
    log2(depth)."""

    def __init__(self, anc: np.ndarray, dep: np.ndarray):
        s = SEGMENT
        self.within = np.where((dep - 1) % s == 0, 0, anc)
        self.within[0] = 0
        n = len(anc)
        base = np.zeros(n, dtype=np.intp)  # each link's segment base (compact index)
        for i in range(1, n):
            b = anc[i]
            for _ in range((dep[i] - 1) % s):
                b = anc[b]
            base[i] = b
        heads = np.flatnonzero(dep % s == 0)  # the ground and every base
        slot = np.zeros(n, dtype=np.intp)
        slot[heads] = np.arange(len(heads))
        self.heads = heads
        self.base_slot = slot[base]  # each link's base, in the heads array
        self.head_jumps = jumps(slot[base[heads]], int(dep.max()) // s + 1)

    def world(self, L: np.ndarray) -> np.ndarray:
        """World poses from ``L`` after the rounds over ``within`` (each link from its base)."""
        H = L.take(self.heads, axis=0)
        for anc in self.head_jumps:
            H = H.take(anc, axis=0) @ H
        return H.take(self.base_slot, axis=0) @ L
