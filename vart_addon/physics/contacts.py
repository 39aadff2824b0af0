"""Contacts of a MuJoCo replay (:mod:`.replay`): what touches what, with which force, and how
far a touching point slips.

:class:`Contacts` reads MuJoCo's contacts at one instant (after a step): one :class:`Touch` per
pair of geoms in contact, its forces summed over the pair's contact points with
``mujoco.mj_contactForce`` (each point's in its contact frame: the normal force along the
contact normal, pushing the geoms apart, and the tangential (friction) force in the tangent
plane, taken to the world frame and summed as vectors).
Geoms are named by the model (:mod:`.model`: ``<link>__<k>`` for a link's meshes, the ground
``ground``); links by their bodies (the ground's is ``world``).

Its slip: per link touching the ground, how far (m, horizontally) the point of the link
that touched the ground at one frame has moved by the next while still touching, summed over
the frames. :func:`contact_table` gathers a replay's touches per pair of links over its frames.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import GROUND


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
    """Reads a model's contacts (module doc): :meth:`touches` at an instant, and the slip
    per link (:attr:`slip`, m) added up by each :meth:`frame`."""

    def __init__(self, mj, model):
        self.mj, self.model = mj, model
        self.geom_name = [model.geom(g).name for g in range(model.ngeom)]
        self.body_name = [model.body(b).name for b in range(model.nbody)]
        self.geom_body = model.geom_bodyid.astype(int)
        self.slip: dict = {}
        self._before: dict = {}

    def frame(self, data) -> list[Touch]:
        """The touches of ``data`` (after a step) and the slip since the last call."""
        c = data.contact
        bodies = self.geom_body[c.geom.astype(int)] if data.ncon else np.zeros((0, 2), int)
        self._slip(data, bodies, np.asarray(c.pos, float).reshape(-1, 3))
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

    def _slip(self, data, bodies, points) -> None:
        """Per link touching the ground (the world body), the horizontal motion since the
        last frame of the point that touched it then (module doc)."""
        now: dict = {}
        for (b1, b2), p_world in zip(bodies, points):
            body = b2 if b1 == 0 else b1 if b2 == 0 else None
            if body is None or body in now:
                continue
            R, p = data.xmat[body].reshape(3, 3), data.xpos[body]
            now[body] = (R.T @ (p_world - p), p_world)
        for body, (p_local, p_world) in self._before.items():
            if body in now:
                R, p = data.xmat[body].reshape(3, 3), data.xpos[body]
                d = float(np.linalg.norm((R @ p_local + p - p_world)[:2]))
                name = self.body_name[body]
                self.slip[name] = self.slip.get(name, 0.0) + d
        self._before = now


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
