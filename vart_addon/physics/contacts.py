"""Contacts of a MuJoCo replay (:mod:`.replay`): what touches what, with which force, and how
far a touching point slips.

:class:`Contacts` reads MuJoCo's contacts at one instant (after a step): one :class:`Touch` per
pair of geoms in contact, its forces summed over the pair's contact points with
``mujoco.mj_contactForce`` (each point's in its contact frame: the normal force along the
contact normal, pushing the geoms apart, and the tangential (friction) force in the tangent
plane, taken to the world frame and summed as vectors).
Geoms are named by the model (:mod:`.model`: ``<link>__<k>`` for a link's meshes, the ground
``ground``); links by their bodies (the ground's is ``world``).

Its slip (:meth:`Contacts.step`, every :data:`SAMPLE` s of physics steps): per link on the
ground (touching it at this sample or at one within the last :data:`HOLD` s, at the point it
last touched with: MuJoCo's soft contact of a sliding foot chatters on and off from step to
step), how far (m) the link's material at its contact point (the centroid of its contact
points) slides along the ground: the speed of that material point (the link's velocity
there, from MuJoCo's ``cvel``) without its normal component, times the time since the last
sample. A rolling wheel's contact point is at rest (no slip), a dragged one slides at the
drag's speed.
:func:`contact_table` gathers a replay's touches per pair of links over its frames.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import GROUND

#: A link that touched the ground this long ago (s) still counts as on it, for slip.
HOLD = 0.03
#: Slip is sampled this often (s): a few physics steps, not each.
SAMPLE = 0.01


@dataclass(frozen=True)
class Touch:
    """Geoms ``geoms`` (names, the ground :data:`.model.GROUND`) of links ``links`` (body
    names; the ground's ``world``) in contact at ``points`` points: the summed ``normal``
    force (N, >= 0, pushing them apart) and the magnitude of the summed ``tangential``
    (friction) force (N), each point's taken in its contact frame."""

    geoms: tuple
    links: tuple
    normal: float
    tangential: float
    points: int

    @property
    def label(self) -> str:
        """``<link> on ground`` or ``<link> on <link>``, the ground (or world) last."""
        a, b = self.links
        if self.geoms[0] == GROUND or a == "world":
            a, b = b, a
        return f"{a} on {'ground' if GROUND in self.geoms else b}"


class Contacts:
    """Reads a model's contacts (module doc): :meth:`touches` at an instant (:meth:`frame`),
    and the slip per link (:attr:`slip`, m) added up by each :meth:`step`."""

    def __init__(self, mj, model):
        self.mj, self.model = mj, model
        self.geom_name = [model.geom(g).name for g in range(model.ngeom)]
        self.body_name = [model.body(b).name for b in range(model.nbody)]
        self.geom_body = model.geom_bodyid.astype(int)
        self.slip: dict = {}
        self.nbody = int(model.nbody)
        self.root = model.body_rootid.astype(int)
        # per body: where it last touched the ground (body frame, m), the normal, when (s)
        self._point = np.zeros((self.nbody, 3))
        self._normal = np.zeros((self.nbody, 3))
        self._since = np.full(self.nbody, -np.inf)
        self._known = np.zeros(self.nbody, bool)  # where it touches was seen at a sample
        self._wait = 0.0  # s since the last slip sample

    def frame(self, data) -> list[Touch]:
        """The touches of ``data`` (after a step)."""
        c = data.contact
        bodies = self.geom_body[c.geom.astype(int)] if data.ncon else np.zeros((0, 2), int)
        return self.touches(data, bodies)

    def touches(self, data, bodies) -> list[Touch]:
        """The geom pairs in contact in ``data`` (after a step or ``mj_forward``), with their
        forces (module doc), in the order MuJoCo found them; ``bodies``: ncon x 2."""
        pairs: dict = {}
        c = data.contact
        f = np.zeros(6)
        geoms, efc = c.geom.astype(int), c.efc_address
        frames = np.asarray(c.frame, float).reshape(-1, 3, 3)  # rows: normal, tangents
        for i in range(data.ncon):
            if efc[i] < 0:  # excluded or beyond the margin: no force
                continue
            self.mj.mj_contactForce(self.model, data, i, f)
            key = (int(geoms[i, 0]), int(geoms[i, 1]))
            n, t, k = pairs.get(key, (0.0, np.zeros(3), 0))
            pairs[key] = (n + float(f[0]), t + f[1:3] @ frames[i, 1:], k + 1)
        g, b = self.geom_name, self.body_name
        return [Touch((g[g1], g[g2]), (b[self.geom_body[g1]], b[self.geom_body[g2]]), n,
                      float(np.linalg.norm(t)), k) for (g1, g2), (n, t, k) in pairs.items()]

    def step(self, data, h: float) -> None:
        """After each physics step of ``h`` s: every :data:`SAMPLE` s, note which links touch
        the ground and where (their contact points' centroid, in the link's frame), and add
        the slip since the last sample (see the module doc)."""
        self._wait += h
        if self._wait < SAMPLE - 1e-12:
            return
        t = float(data.time)
        if data.ncon:
            geom = data.contact.geom
            b1, b2 = self.geom_body[geom[:, 0]], self.geom_body[geom[:, 1]]
            ground = (b1 == 0) != (b2 == 0)
            body = (b1 + b2)[ground]
            if len(body):
                self._since[body] = t
                self._where(data, body, ground)
        dt, self._wait = self._wait, 0.0
        held = np.flatnonzero((t - self._since <= HOLD) & self._known)
        if not len(held):
            return
        R = data.xmat[held].reshape(-1, 3, 3)
        p = np.einsum("kij,kj->ki", R, self._point[held]) + data.xpos[held]
        n = self._normal[held] / np.linalg.norm(self._normal[held], axis=1)[:, None]
        # cvel: the body's (angular, linear) velocity, the linear at its tree's centre of mass
        w, v0 = data.cvel[held, :3], data.cvel[held, 3:]
        v = v0 + np.cross(w, p - data.subtree_com[self.root[held]])
        vt = v - np.einsum("ij,ij->i", v, n)[:, None] * n
        for b, s_ in zip(held.tolist(), np.linalg.norm(vt, axis=1).tolist()):
            name = self.body_name[b]
            self.slip[name] = self.slip.get(name, 0.0) + dt * s_


    def _where(self, data, body, ground) -> None:
        """The centroid (body frame) and mean normal of each body's ground contacts now."""
        c = data.contact
        pos, normal = c.pos[ground], c.frame[ground, :3]
        k = np.bincount(body, minlength=self.nbody)
        on = k > 0
        for i in range(3):
            self._point[on, i] = np.bincount(body, pos[:, i], self.nbody)[on] / k[on]
            self._normal[on, i] = np.bincount(body, normal[:, i], self.nbody)[on] / k[on]
        R = data.xmat[on].reshape(-1, 3, 3)  # to the bodies' frames: material points
        self._point[on] = np.einsum("kji,kj->ki", R, self._point[on] - data.xpos[on])
        self._known |= on


@dataclass
class ContactRow:
    """One pair of links over a replay: the frame indices it touched at, and the largest
    normal and tangential force (N) there."""

    label: str
    frames: list
    normal: float
    tangential: float


def contact_table(per_frame) -> list[ContactRow]:
    """Per pair of links (:attr:`Touch.label`), over ``per_frame`` (a list per frame of
    :class:`Touch`), the frames it touched at and its peak forces; largest normal first."""
    rows: dict = {}
    for k, frame in enumerate(per_frame):
        seen: dict = {}
        for t in frame:
            n, tg = seen.get(t.label, (0.0, 0.0))
            seen[t.label] = (n + t.normal, tg + t.tangential)
        for label, (n, tg) in seen.items():
            row = rows.setdefault(label, ContactRow(label, [], 0.0, 0.0))
            row.frames.append(k)
            row.normal, row.tangential = max(row.normal, n), max(row.tangential, tg)
    return sorted(rows.values(), key=lambda r: -r.normal)
