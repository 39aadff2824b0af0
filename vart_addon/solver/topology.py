"""Topology analysis: goal supports, coupling into independent solve groups, goal batches.

The *support* of a goal is the set of tree DoF that can change it: for a joint between two
links, the tree joints on the paths from their lowest common ancestor to each link (the
signed ancestry difference); for a tree joint, its own DoF; for a mass, the path from the
ground. Goals whose supports overlap are coupled (union-find over DoF); disjoint groups are
solved apart. The analysis is redone only when the linkage's topology or goal set changes.
"""
from __future__ import annotations

import numpy as np

from . import goals as G
from .planar import IN_PLANE, is_planar_closure


class GroupSpec:
    """One solve group: its DoF columns (indices into the model's q) and goal batches per level."""

    def __init__(self, cols: np.ndarray, batches: list, tau: float, gravity):
        self.cols = cols
        self.batches = batches
        self.levels = [[b for b in batches if b.level == k] for k in range(6)]
        self.tau = tau
        self.gravity = gravity


class _Atom:
    __slots__ = ("kind", "obj", "support", "extra")

    def __init__(self, kind, obj, support, extra=None):
        self.kind, self.obj, self.support, self.extra = kind, obj, support, extra


def _support(model, j) -> np.ndarray:
    if j.is_tree:
        s = np.zeros(model.n_dof, bool)
        s[model.slice_of(j)] = True
        return s
    a = model.anc_sign[model.index[j.child]]
    b = model.anc_sign[model.index[j.parent]]
    return (a - b) != 0


def _atoms(linkage, model) -> list[_Atom]:
    atoms = []
    for j in linkage.all_joints():
        sup = None

        def add(kind, extra=None, support=None):
            nonlocal sup
            if support is None:
                sup = _support(model, j) if sup is None else sup
                support = sup
            atoms.append(_Atom(kind, j, support, extra))

        if not j.is_tree and j.jtype.n_invariants:
            add("invariant")
        if not j.is_tree and (np.isfinite(j.lower).any() or np.isfinite(j.upper).any()):
            add("limit")
        if j.lock_q is not None:
            add("lock")
        if j.target_q is not None:
            add("target")
        if j.posture_q is not None:
            add("posture")
        if j.stiffness > 0 and j.rest_q is not None:
            add("spring")
        if j.mimic is not None:
            leader = linkage.joints[j.mimic[0]]
            add("mimic", leader, _support(model, j) | _support(model, leader))
    if linkage.gravity is not None and np.any(linkage.gravity):
        for link in linkage.links.values():
            if link.mass > 0:
                atoms.append(_Atom("gravity", link, model.anc_sign[model.index[link.name]] != 0))
    return atoms


def _groups(atoms, n_dof):
    """Union-find of atoms sharing a DoF -> list of atom index lists."""
    parent = list(range(len(atoms)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner = np.full(n_dof, -1)
    for i, a in enumerate(atoms):
        for d in np.flatnonzero(a.support):
            if owner[d] < 0:
                owner[d] = i
            else:
                ri, rd = find(i), find(owner[d])
                if ri != rd:
                    parent[ri] = rd
    out: dict[int, list[int]] = {}
    for i, a in enumerate(atoms):
        if a.support.any():
            out.setdefault(find(i), []).append(i)
    return list(out.values())


def analyse(linkage, model) -> tuple[list[GroupSpec], list[str]]:
    """Solve groups of the linkage's active goals, and the names of goals no DoF can move."""
    atoms = _atoms(linkage, model)
    stuck = [f"{a.kind} of {a.obj.label()}" for a in atoms
             if not a.support.any() and a.kind != "gravity"]
    gravity = None if linkage.gravity is None else np.asarray(linkage.gravity, float)
    T_world = model.world_poses(model.q_from_joints())  # for the planar loops' test
    specs = []
    for members in _groups(atoms, model.n_dof):
        group = [atoms[i] for i in members]
        cols = np.flatnonzero(np.any([a.support for a in group], axis=0))
        tau = _tau(group, gravity)
        specs.append(GroupSpec(cols, _batches(model, group, cols, gravity, tau, T_world), tau,
                              gravity))
    return specs, stuck


def _tau(group, gravity) -> float:
    """Scale of the potential rows: a push of about 0.1 m on the heaviest mass (see GravityBatch)."""
    masses = [a.obj.mass for a in group if a.kind == "gravity"]
    if masses and gravity is not None:
        return 0.1 / (max(masses) * float(np.linalg.norm(gravity)))
    ks = [a.obj.stiffness for a in group if a.kind == "spring"]
    return 1.0 / max(ks) if ks else 1.0


def _batches(model, group, cols, gravity, tau, T_world):
    by_key: dict[tuple, list] = {}
    for a in group:
        j = a.obj
        key = (a.kind,) if a.kind in ("gravity", "mimic") else (a.kind, j.jtype.name, j.is_tree)
        by_key.setdefault(key, []).append(a)
    out = []
    for key, items in by_key.items():
        kind = key[0]
        js = [a.obj for a in items]
        if kind == "invariant":
            planar = [is_planar_closure(model, j, T_world) for j in js]
            for flag, part in ((False, [j for j, p in zip(js, planar) if not p]),
                               (True, [j for j, p in zip(js, planar) if p])):
                if part:
                    out.append(G.InvariantBatch(model, part, cols, IN_PLANE if flag else None))
        elif kind == "limit":
            out.append(G.LimitBatch(model, js, cols))
        elif kind == "lock":
            out.append(G.ConfigBatch(G.LOCK, "lock", model, js, cols,
                                     "lock_q", np.ones((len(js), js[0].dof))))
        elif kind == "target":
            out.append(G.ConfigBatch(G.TARGET, "target", model, js, cols,
                                     "target_q", [j.target_mask for j in js]))
        elif kind == "posture":
            out.append(G.ConfigBatch(G.POSTURE, "posture", model, js, cols,
                                     "posture_q", np.ones((len(js), js[0].dof))))
        elif kind == "spring":
            w = np.sqrt(tau * np.array([j.stiffness for j in js]))
            b = G.ConfigBatch(G.POTENTIAL, "spring", model, js, cols, "rest_q",
                              np.ones((len(js), 1)), weight=w)
            out.append(b)
        elif kind == "mimic":
            pairs = [(a.obj, a.extra, a.obj.mimic[1], a.obj.mimic[2]) for a in items]
            out.append(G.MimicBatch(model, pairs, cols))
        elif kind == "gravity":
            out.append(G.GravityBatch(model, js, cols, gravity, tau))
    return out
