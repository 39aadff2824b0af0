"""The joints' values as the scene stores them (``["vart"]["joints"][name]["q"]``), for
:meth:`.scene.SceneBridge.write_back` and the bake: the closures' q fitted from the solved
poses, the stored values and which joints' q changed (:class:`StoredQ`), and a joint record
with a new q."""
from __future__ import annotations

import numpy as np

from ..solver import se3
from . import checks as CK
from . import schema as S
from .errors import SchemaError


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


def stored_q(ob, joint: str, dof: int) -> tuple:
    """Joint ``joint``'s stored value on its child link ``ob`` as ``dof`` floats, read as
    :mod:`.schema` reads it (a 1-DoF value stored as a plain number is one value), for code
    that reads the value alone at each frame; SchemaError naming the object and field if it
    is missing or not ``dof`` finite numbers."""
    path = (S.KEY, "joints", joint, "q")
    try:
        raw = ob[S.KEY]["joints"][joint]["q"]
    except (KeyError, TypeError):
        raise SchemaError(ob.name, path, "missing") from None
    return CK.numbers(raw.to_list() if hasattr(raw, "to_list") else raw, dof, ob.name, path)


def placement(lk) -> tuple:
    """Where the linkage's links are, in a form any spanning tree of the same links can take
    back (:func:`q_at`): ``(every link's world pose, each tree joint's q)`` (root joints by
    their link, as ``("root", link)``)."""
    qs = {n: j.q.copy() for n, j in lk.joints.items() if j.is_tree}
    qs.update({("root", n): r.q.copy() for n, r in lk.roots.items() if r.is_tree})
    return lk.poses(), qs


def q_at(lk, place: tuple) -> np.ndarray | None:
    """The configuration vector of ``lk`` (its compiled model's layout) that puts its links
    where :func:`placement` found them, in a linkage of the same links whose spanning tree
    may differ: each tree joint's q as it was when it was a tree joint there (exact: no
    half-turn wrapped back), else the fit of its relative pose at those poses (a closure
    that was assembled gives the same poses). None if the links differ."""
    poses, qs = place
    if set(poses) != set(lk.links):
        return None
    model = lk.model()
    q = model.q_from_joints()
    for key, j in [*lk.joints.items(), *((("root", n), r) for n, r in lk.roots.items())]:
        if not (j.is_tree and j.dof):
            continue
        old = qs.get(key)
        if old is None or old.shape != (j.dof,):
            old = j.jtype.fit(lk.relative_pose(j, poses), j.pitch)[0]
        q[model.slice_of(j)] = old
    return q


def with_q(j: S.JointData, q: tuple) -> S.JointData:
    """``dataclasses.replace(j, q=q)`` without re-running the 22-field constructor (a drag
    update patches every moved joint: replace costs ~15 us each)."""
    c = object.__new__(type(j))
    c.__dict__.update(j.__dict__)
    object.__setattr__(c, "q", q)
    return c


class StoredQ:
    """The joints' q as the scene stores them: the records last read (``SceneData``) and the
    stored values of the joints compared last, as one vector that the values written since
    are kept in (patched into the records only when someone asks for them: :meth:`data`).

    A frame of live mode or a drag update writes every moved joint's q. Patching 360 records
    and gathering 360 stored values for the next comparison cost ~0.7 ms a frame on the
    modular tower; here they cost one comparison. No container per joint outlives the write
    either: thousands of them alive across Python's garbage collections get promoted, and then
    a full collection (~80 ms beside a 2,700-link tower) runs every few drag updates."""

    __slots__ = ("_read", "_vector", "_dirty", "_pending")

    def __init__(self, data):
        self._read = data
        self._vector: tuple | None = None  # (joint names, stored q concatenated, starts, sizes)
        self._dirty: set = set()           # joints whose q in the vector was written since
        self._pending: tuple | None = None  # what :meth:`changed` found, until :meth:`wrote`

    def data(self):
        """The records with the q values written since patched in (None if none were read)."""
        if self._dirty:
            assert self._vector is not None  # written values live there
            names, values, starts, sizes = self._vector
            at = {n: k for k, n in enumerate(names)}
            joints = dict(self._read.joints)
            for n in self._dirty:
                k = at[n]
                joints[n] = with_q(joints[n], tuple(values[starts[k]:starts[k] + sizes[k]]
                                                    .tolist()))
            self._read = S.SceneData(links=self._read.links, joints=joints)
            self._dirty = set()
        return self._read

    def copy(self) -> "StoredQ":
        """The same stored values, kept apart from this one's later writes."""
        c = StoredQ(self._read)
        if self._vector is not None:
            names, values, starts, sizes = self._vector
            c._vector = (names, values.copy(), starts, sizes)
            c._dirty = set(self._dirty)
        return c

    def records(self):
        """The records as read, without the q values written since (their q may be old)."""
        return self._read

    def _stored(self, qs: dict) -> tuple:
        names = tuple(qs)
        if self._vector is None or self._vector[0] != names:
            read = self.data().joints  # the written values into the records first
            sizes = np.fromiter((len(qs[n]) for n in names), int, len(names))
            values = np.fromiter((x for n in names for x in read[n].q), float, int(sizes.sum()))
            starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
            self._vector = (names, values, starts, sizes)
        return self._vector

    def changed(self, qs: dict, q_all: np.ndarray, tol: float) -> list:
        """Names of the joints of ``qs`` (name -> q; ``q_all`` their values concatenated)
        whose q differs from the stored one by more than ``tol``, in one comparison of all
        the values (a drag of a 2,700-joint tower writes them all). The caller writes
        :meth:`pending` (:func:`.schema.write_qs`), then says so (:meth:`wrote`)."""
        self._pending = None
        if not qs:
            return []
        names, stored, starts, sizes = self._stored(qs)
        if len(stored) != len(q_all):
            raise ValueError(f"{len(q_all)} joint values for {len(stored)} stored ones")
        far = np.flatnonzero(np.logical_or.reduceat(np.abs(q_all - stored) > tol, starts))
        if not len(far):
            return []
        self._pending = (far, q_all)
        return [names[k] for k in far]

    def pending(self):
        """``(joint, q as a list of floats)`` for each joint :meth:`changed` found, made one at
        a time as they are written."""
        if self._pending is None:
            return
        assert self._vector is not None  # made by changed()
        names, _, starts, sizes = self._vector
        far, q_all = self._pending
        for k, a, b in zip(far.tolist(), starts[far].tolist(), (starts + sizes)[far].tolist()):
            yield names[k], q_all[a:b].tolist()

    def wrote(self) -> None:
        """The values :meth:`changed` found last are stored now."""
        if self._pending is None:
            return
        assert self._vector is not None  # made by changed()
        names, values, starts, sizes = self._vector
        far, q_all = self._pending
        self._pending = None
        hit = np.zeros(len(names), bool)
        hit[far] = True
        where = np.repeat(hit, sizes)
        values[where] = q_all[where]
        self._dirty.update(names[k] for k in far.tolist())
