"""The statics model of a linkage's real robot: its physical tree, the degrees of freedom that
must hold it, and per pose their twists and the gravity wrenches (numpy only).

A robot's physics is its **real** links and joints alone: virtual joints say what a motion
should do, nothing holds the robot there. :class:`StaticModel` takes a spanning tree of the
real joints (the linkage's own tree joints first), rooted at the ground when a real joint
attaches a link to it (a fixed base), otherwise at a **floating base**: six passive degrees of
freedom of each connected robot's heaviest link. Real joints left out of the tree close loops
(:attr:`StaticModel.closures`): their constraint wrenches are unknowns of the statics.

Each degree of freedom (:class:`Dof`) is

- ``motor``: a real one-DoF joint (revolute, prismatic, helical) that no mimic drives: its
  torque (N m) or force (N) is what the statics finds, against its ``effort`` limit (0: none
  given);
- ``follower``: a mimic joint, driven by its leader: its leader's motor also supplies
  ``multiplier`` times the follower's torque (what the coupling passes on, by virtual work);
- ``passive``: each DoF of a real joint of several DoF (a ball joint: nothing drives it) and
  of a floating base: its generalized force must be zero.

Per pose, :meth:`StaticModel.frame` gives (:class:`PoseTerms`) each DoF's unit twist in the
world about a reference point ``o`` (the centre of mass), the generalized gravity force on
each DoF (the work gravity does per unit of its motion), and the wrench basis of each closure.

Conventions: a twist is ``(v, w)``, the velocity (m/s) of the point at ``o`` and the angular
velocity (rad/s); a wrench is ``(f, n)``, a force (N) and its moment about ``o`` (N m); their
pairing ``v.f + w.n`` is power. A DoF's twist moves its *far* side (the links it carries away
from the tree's root) relative to the near side; ``sign`` is -1 when the far side is the
joint's parent (the edge is traversed against the joint), so generalized forces keep the
joint's own sign convention (positive along +q of child relative to parent).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..solver import se3
from ..solver.errors import VartError
from ..solver.forest import spanning_forest
from .joint_batches import by_type

#: Standard gravity (m/s^2, world z up).
GRAVITY = (0.0, 0.0, -9.81)
MOTOR, FOLLOWER, PASSIVE = "motor", "follower", "passive"
_BASE_LABELS = ("tx", "ty", "tz", "rx", "ry", "rz")


@dataclass(frozen=True)
class Dof:
    """One degree of freedom: its ``joint`` (the base's link for a floating base's), its
    ``label`` (``knee``, ``ball.wx``, ``base(deck).tz``), ``mode`` (see the module doc),
    ``effort`` (N m or N, 0: none given), whether it is ``angular`` (rad) or linear (m)."""

    joint: str
    label: str
    mode: str
    effort: float = 0.0
    angular: bool = True


@dataclass
class PoseTerms:
    """What :meth:`StaticModel.frame` computes for one pose (see the module doc).

    ``o`` (3,): the reference point (the centre of mass, or the mean link origin of a
    massless robot); ``com`` (3,); ``twist`` (n_dof, 6); ``gravity`` (n_dof,): the
    generalized gravity force on each DoF (N m or N; the motor must supply minus it);
    ``bond_wrench``: per bond (:attr:`StaticModel.bonds`), the basis (6, k) of the wrenches it
    can transmit to its child link (the parent receives the opposite); ``link_pose``
    (n_links, 4, 4)."""

    o: np.ndarray
    com: np.ndarray
    twist: np.ndarray
    gravity: np.ndarray
    bond_wrench: list
    link_pose: np.ndarray


class StaticModel:
    """The statics model of ``lk``'s real robot (see the module doc).

    ``efforts``: joint name -> effort limit (N m or N; missing: none given), e.g. a URDF's
    ``<limit effort>``. ``gravity``: m/s^2 in the world (default :data:`GRAVITY`).
    ``anchored``: real links welded to the ground (a bolted base): the ground may hold them
    with any wrench, and the robot is then on a fixed base. ``passive``: one-DoF joints that
    no motor drives (a linkage's free pivots): their torque must be zero.
    Raises :class:`VartError` when the linkage has no real link.
    """

    def __init__(self, lk, efforts=None, gravity=GRAVITY, anchored=(), passive=()):
        efforts = dict(efforts or {})
        passive = set(passive)
        self.gravity = np.asarray(gravity, float).reshape(3)
        self.links = [n for n, link in lk.links.items() if not link.virtual]
        if not self.links:
            raise VartError("the statics needs a robot: the linkage has no real link")
        self.index = {n: i for i, n in enumerate(self.links)}
        self.mass = np.array([lk.links[n].mass for n in self.links], float)
        self.com_local = np.array([lk.links[n].com for n in self.links], float).reshape(-1, 3)
        self.total_mass = float(self.mass.sum())
        self.weight = self.total_mass * float(np.linalg.norm(self.gravity))
        tree, self.closures = _spanning_tree(lk, self.index)
        self.anchored = [self.index[n] for n in anchored if n in self.index]
        #: What holds links together or to the ground besides the tree: (name, parent link
        #: or None, child link) per closure joint, then per anchored link (welded to the
        #: ground: any wrench).
        self.bonds = [(j.name, j.parent, j.child) for j in self.closures] + \
            [(f"anchor({self.links[i]})", None, self.links[i]) for i in self.anchored]
        self.grounded = bool(self.anchored) or any(None in (j.parent, j.child) for j in tree)
        depth = {n: len(lk.ancestors(n)) for n in self.links}
        self._edges, bases = _orient(tree, sorted(self.links, key=depth.__getitem__),
                                     self.index)
        self.dofs: list[Dof] = []
        self._dof_edge: list = []  # per DoF: (joint or None for a base, column, sign)
        path: dict = {}  # link index -> the DoFs between it and the ground (they move it)
        for base in bases:
            path[base] = []
            for k, label in enumerate(_BASE_LABELS):
                path[base].append(len(self.dofs))
                self.dofs.append(Dof(self.links[base], f"base({self.links[base]}).{label}",
                                     PASSIVE, 0.0, k >= 3))
                self._dof_edge.append((None, k, 1.0))
        for j, far, sign in self._edges:  # breadth first: the near side's path is known
            near = self.index.get(j.parent if sign > 0 else j.child)
            own = list(range(len(self.dofs), len(self.dofs) + j.dof))
            path[far] = (path[near] if near is not None else []) + own
            mode = PASSIVE if j.dof != 1 or j.name in passive else (
                FOLLOWER if j.mimic else MOTOR)
            angular = j.jtype.is_angular()
            for k in range(j.dof):
                label = j.name if j.dof == 1 else f"{j.name}.{j.jtype.layout[k]}"
                self.dofs.append(Dof(j.name, label, mode,
                                     float(efforts.get(j.name, 0.0)) if mode == MOTOR else 0.0,
                                     bool(angular[k])))
                self._dof_edge.append((j, k, sign))
        self.far = np.zeros((len(self.dofs), len(self.links)), bool)
        for link, dofs in path.items():
            self.far[dofs, link] = True
        ground = len(self.links)  # the pose stack's last row: the identity
        first = {}  # joint name -> its first DoF
        for d, (j, k, _) in enumerate(self._dof_edge):
            if j is not None and k == 0:
                first[j.name] = d
        sign = {j.name: s for j, _, s in self._edges}
        self._tree = [(b, np.array([first[j.name] for j in b.joints], int),
                       np.array([sign[j.name] for j in b.joints]))
                      for b in by_type([j for j, _, _ in self._edges if j.dof], self.index,
                                       ground)]
        self._base_dofs = [(d, k) for d, (j, k, _) in enumerate(self._dof_edge) if j is None]
        batches = by_type(self.closures, self.index, ground)
        where = {j.name: (b, i) for b in batches for i, j in enumerate(b.joints)}
        self._closure_batches = batches
        self._closure_at = [where[j.name] for j in self.closures]
        #: joint name -> its child link, for every real joint of the tree and the closures
        self.child_of = {j.name: j.child for j, _, _ in self._edges}
        self.child_of.update({j.name: j.child for j in self.closures})
        self.motors = [d for d, dof in enumerate(self.dofs) if dof.mode == MOTOR]
        self.passive = [d for d, dof in enumerate(self.dofs) if dof.mode == PASSIVE]
        self.coupling = self._coupling(lk)

    # ---- structure -----------------------------------------------------------------------
    def _coupling(self, lk) -> np.ndarray:
        """(n_motors, n_dof): motor torques from the DoFs' required generalized forces (a
        leader supplies its followers' share, multiplied along mimic chains)."""
        C = np.zeros((len(self.motors), len(self.dofs)))
        row = {self.dofs[d].joint: r for r, d in enumerate(self.motors)}
        col = {self.dofs[d].joint: d for d in range(len(self.dofs))
               if self.dofs[d].mode in (MOTOR, FOLLOWER)}
        for name, d in col.items():
            factor, j = 1.0, lk.joints[name]
            while j.mimic is not None and j.mimic[0] in col:
                factor *= float(j.mimic[1])
                j = lk.joints[j.mimic[0]]
            if j.name in row:
                C[row[j.name], d] += factor
        return C

    def labels(self, which) -> list[str]:
        return [self.dofs[d].label for d in which]

    # ---- one pose ------------------------------------------------------------------------
    def frame(self, poses) -> PoseTerms:
        """The pose's terms (see :class:`PoseTerms`) from ``poses``: link name ->
        ``T_world_link`` (4x4) for every real link. Raises :class:`VartError` for a missing
        or non-finite pose."""
        T = np.empty((len(self.links), 4, 4))
        for i, n in enumerate(self.links):
            try:
                T[i] = poses[n]
            except KeyError:
                raise VartError(f"statics: no pose for link {n!r}") from None
        if not np.isfinite(T).all():
            bad = self.links[int(np.flatnonzero(~np.isfinite(T).all(axis=(1, 2)))[0])]
            raise VartError(f"statics: the pose of link {bad!r} is not finite")
        c = np.einsum("lij,lj->li", T[:, :3, :3], self.com_local) + T[:, :3, 3]
        com = (self.mass @ c) / self.total_mass if self.total_mass > 0 else c.mean(axis=0)
        o = com
        stack = np.concatenate([T, np.eye(4)[None]])  # the ground last
        twist = np.zeros((len(self.dofs), 6))
        for d, k in self._base_dofs:
            twist[d, k] = 1.0  # tx ty tz: v = e_k; rx ry rz: w = e_(k-3) about o
        for batch, first, sign in self._tree:
            tw = sign[:, None, None] * batch.twists(stack, o)  # (k, 6, dof)
            dof = tw.shape[2]
            rows = (first[:, None] + np.arange(dof)).ravel()
            twist[rows] = tw.transpose(0, 2, 1).reshape(-1, 6)
        f = self.mass[:, None] * self.gravity  # (n_links, 3)
        wrench = np.concatenate([f, np.cross(c - o, f)], axis=1)
        gravity = np.einsum("dk,dk->d", twist, self.far @ wrench)
        per_batch = {id(b): b.wrenches(stack, o) for b in self._closure_batches}
        bonds = [per_batch[id(b)][i] for b, i in self._closure_at]
        bonds += [np.eye(6) for _ in self.anchored]  # (f, n about o): every wrench
        return PoseTerms(o, com, twist, gravity, bonds, T)

    def _mobility(self, j, T, poses=None):
        """(T_world_mob, T_mob_child) of joint ``j`` at link poses ``T`` (real links; others
        from ``poses``, link name -> ``T_world_link``)."""
        def pose(name):
            if name is None:
                return np.eye(4)
            i = self.index.get(name)
            return T[i] if i is not None else np.asarray(poses[name], float)
        T_wm = pose(j.parent) @ j.T_parent_mob
        T_mc = se3.inverse(T_wm) @ pose(j.child) @ j.T_child_frame
        return T_wm, T_mc

    def guide_wrenches(self, j, terms: PoseTerms, poses) -> np.ndarray:
        """(6, k): what a guide (a virtual joint the caller holds the robot by, see
        :func:`.statics.solve_pose`) can transmit at the pose of ``terms``: its constraint
        wrenches (all six when it is locked), world, about ``terms.o``."""
        return self._constraint_wrenches(j, terms.link_pose, terms.o, poses,
                                         rigid=j.lock_q is not None)

    def _constraint_wrenches(self, j, T, o, poses=None, rigid=False) -> np.ndarray:
        """(6, 6 - dof): a basis of the wrenches closure ``j`` can transmit (those doing no
        work on its motion; ``rigid``: all six), world, about ``o``; orthonormal in
        ``(f, n)`` about the joint's mobility origin (N and N m alike: a 1 m lever)."""
        T_wm, T_mc = self._mobility(j, T, poses)
        q = j.jtype.fit(T_mc, j.pitch)
        S = j.jtype.subspace(q, j.pitch, T=T_mc[None])[0]  # (v, w) pairs with (f, n)
        if rigid:
            S = np.zeros((6, 0))
        u, sv, _ = np.linalg.svd(S, full_matrices=True)
        rank = int((sv > 1e-9 * max(1.0, sv.max(initial=0.0))).sum())
        B = u[:, rank:]  # orthonormal complement: B^T S = 0
        R, p = T_wm[:3, :3], T_wm[:3, 3]
        f = R @ B[:3]
        n = R @ B[3:] + np.cross(p - o, f.T).T
        return np.vstack([f, n])


def _spanning_tree(lk, index):
    """(tree joints, closure joints) among the real joints between real links (or the
    ground): the linkage's tree joints first, then the others in order."""
    real = [j for j in lk.joints.values() if not j.virtual
            and all(e is None or e in index for e in (j.parent, j.child))]
    tree, closures, _ = spanning_forest(sorted(real, key=lambda j: not j.is_tree))
    return tree, closures


def _orient(tree, links, index):
    """Breadth-first from the ground, then, for each robot the ground does not hold, from its
    first link in ``links`` (the caller orders them by their depth in the linkage's tree: an
    imported robot's URDF root first): ``[(joint, far link index, sign)]`` and the floating
    bases (link indices)."""
    adj: dict = {}
    for j in tree:
        for a, b in ((j.parent, j.child), (j.child, j.parent)):
            adj.setdefault(a, []).append((j, b))
    edges, bases, seen = [], [], set()

    def walk(start):
        queue = [start]
        seen.add(start)
        while queue:
            node = queue.pop(0)
            for j, other in adj.get(node, ()):
                if other in seen:
                    continue
                seen.add(other)
                edges.append((j, index[other], 1.0 if other == j.child else -1.0))
                queue.append(other)

    walk(None)
    for n in links:
        if n not in seen:
            bases.append(index[n])
            walk(n)
    return edges, bases
