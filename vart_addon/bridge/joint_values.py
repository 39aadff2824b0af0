"""The joints' values as the scene stores them (``["vart"]["joints"][name]["q"]``), for
:meth:`.scene.SceneBridge.write_back` and the bake: the closures' q fitted from the solved
poses, which joints' q changed, and a joint record with a new q."""
from __future__ import annotations

import numpy as np

from ..solver import se3
from . import schema as S


def closure_qs(lk, poses) -> dict:
    """q of every closure joint with DoF (the fit of its relative pose), one batched fit per
    joint type: what :meth:`Linkage.joint_q` gives joint by joint."""
    groups: dict = {}
    for _n, j in lk.joints.items():
        if j.dof and not j.is_tree:
            groups.setdefault(j.jtype.name, []).append(j)
    out = {}
    eye = np.eye(4)
    for js in groups.values():
        Tp = np.stack([eye if j.parent is None else poses[j.parent] for j in js])
        Fp = np.stack([j.T_parent_mob for j in js])
        Tc = np.stack([poses[j.child] for j in js])
        Fc = np.stack([j.T_child_frame for j in js])
        rel = se3.inverse(Tp @ Fp) @ Tc @ Fc
        q = js[0].jtype.fit(rel, np.array([j.pitch for j in js]))
        for j, row in zip(js, q):
            out[j.name] = row
    return out


def with_q(j: S.JointData, q: tuple) -> S.JointData:
    """``dataclasses.replace(j, q=q)`` without re-running the 22-field constructor (a drag
    update patches every moved joint: replace costs ~15 us each)."""
    c = object.__new__(type(j))
    c.__dict__.update(j.__dict__)
    object.__setattr__(c, "q", q)
    return c


def changed_q(qs: dict, q_all: np.ndarray, data, tol: float) -> list:
    """``(joint, q as a list)`` for the joints of ``qs`` (name -> q; ``q_all`` their values
    concatenated) whose q differs from the stored one (``data``) by more than ``tol``: one
    comparison of all the values at once (a drag of a 2,700-joint tower writes them all)."""
    if not qs:
        return []
    names = list(qs)
    sizes = np.array([len(qs[n]) for n in names])
    stored = np.fromiter((x for n in names for x in data.joints[n].q), float, len(q_all))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    far = np.logical_or.reduceat(np.abs(q_all - stored) > tol, starts)
    values = q_all.tolist()
    return [(names[i], values[starts[i]:starts[i] + sizes[i]]) for i in np.flatnonzero(far)]
