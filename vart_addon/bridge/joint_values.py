"""The joints' values as the scene stores them (``["vart"]["joints"][name]["q"]``), for
:meth:`.scene.SceneBridge.write_back` and the bake: the closures' q fitted from the solved
poses, the stored values and which joints' q changed (:class:`StoredQ`), and a joint record
with a new q."""
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


class StoredQ:
    """The joints' q as the scene stores them: the records last read (``SceneData``), the
    values written since (patched into the records only when someone asks for them:
    :meth:`data`), and the stored values of the joints compared last, as one vector.

    A frame of live mode or a drag update writes every moved joint's q: patching 360 records
    and gathering 360 stored values for the next comparison cost ~0.7 ms a frame on the
    modular tower; here they cost one comparison."""

    __slots__ = ("_read", "_written", "_vector", "_pending")

    def __init__(self, data):
        self._read = data
        self._written: dict = {}          # joint name -> q tuple written since the read
        self._vector: tuple | None = None  # (joint names, their stored q concatenated)
        self._pending: tuple | None = None  # what :meth:`changed` found, until :meth:`wrote`

    def data(self):
        """The records with the q values written since patched in (None if none were read)."""
        if self._written:
            joints = dict(self._read.joints)
            for n, qt in self._written.items():
                joints[n] = with_q(joints[n], qt)
            self._read = S.SceneData(links=self._read.links, joints=joints)
            self._written = {}
        return self._read

    def copy(self) -> "StoredQ":
        """The same records and written values, kept apart from this one's later writes."""
        c = StoredQ(self._read)
        c._written = dict(self._written)
        return c

    def records(self):
        """The records as read, without the q values written since (their q may be old)."""
        return self._read

    def _stored(self, names: tuple) -> np.ndarray:
        if self._vector is None or self._vector[0] != names:
            read, written = self._read.joints, self._written
            self._vector = (names, np.fromiter(
                (x for n in names for x in written.get(n, read[n].q)), float))
        return self._vector[1]

    def changed(self, qs: dict, q_all: np.ndarray, tol: float) -> list:
        """``(joint, q as a list)`` for the joints of ``qs`` (name -> q; ``q_all`` their
        values concatenated) whose q differs from the stored one by more than ``tol``, in one
        comparison of all the values (a drag of a 2,700-joint tower writes them all). The
        caller writes them (:func:`.schema.write_qs`), then says so (:meth:`wrote`)."""
        self._pending = None
        if not qs:
            return []
        names = tuple(qs)
        stored = self._stored(names)
        sizes = np.fromiter((len(qs[n]) for n in names), int, len(names))
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        far = np.logical_or.reduceat(np.abs(q_all - stored) > tol, starts)
        if not far.any():
            return []
        values = q_all.tolist()
        out = [(names[i], values[starts[i]:starts[i] + sizes[i]]) for i in np.flatnonzero(far)]
        self._pending = (out, np.repeat(far, sizes), q_all)
        return out

    def wrote(self) -> None:
        """The values :meth:`changed` returned last are stored now."""
        if self._pending is None:
            return
        out, where, q_all = self._pending
        self._pending = None
        assert self._vector is not None  # made by changed()
        self._vector[1][where] = q_all[where]
        self._written.update((n, tuple(ql)) for n, ql in out)
