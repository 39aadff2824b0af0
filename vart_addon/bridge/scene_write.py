"""The writing half of :class:`.scene.SceneBridge`: solved poses into the link objects that
moved and the joints' q, tree and ``root_tree`` flags into their properties
(:meth:`SceneWriter.write_back`).

Poses as in :mod:`.scene`. The bridge keeps, per link, the float64 pose it believes the
object has (:class:`LinkState`): a link whose solved pose is within ``write_tol`` of it is not
written.

Nothing written here makes Python containers per link or joint that outlive the write:
thousands of them alive across Python's young-generation garbage collections get promoted, and
then a full collection (~80 ms beside a 2,700-link tower) runs every few drag updates.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from mathutils import Matrix

from ..solver import Linkage
from . import build as B
from . import poses as P
from . import schema as S
from .errors import BridgeError
from .joint_values import StoredQ, closure_qs


@dataclass
class WriteReport:
    """What :meth:`SceneBridge.write_back` changed: link (object) names whose matrix_world was
    written, joint names whose q was written, and names of joints and links whose tree /
    ``root_tree`` flag was normalized or whose ``parent_name`` was refreshed."""

    links: list = field(default_factory=list)
    joints: list = field(default_factory=list)
    flags: list = field(default_factory=list)
    closure_q: dict = field(default_factory=dict)  # the closures' fitted q (joint -> array)


class LinkState:
    """What the bridge knows of one link object: the float64 pose it believes the object has,
    the exact float32 matrix it last saw, and the object's scale."""

    __slots__ = ("T", "observed", "scale")

    def __init__(self, T, observed, scale):
        self.T, self.observed, self.scale = T, observed, scale


class SceneWriter:
    """Writing for :class:`.scene.SceneBridge` (its base class): what it reads of the bridge is
    declared here."""

    linkage: Linkage | None
    data: S.SceneData | None
    write_tol: float
    _key: tuple | None
    _flags_checked: tuple | None
    _links: dict[str, LinkState]
    _stack: tuple | None
    _stored: StoredQ

    # SceneBridge's own methods
    objects: Callable[[], dict]
    invalidate: Callable[[], None]
    _update: Callable[[], None]

    def write_back(self, evaluate: bool = True, values: bool = True, obs: dict | None = None,
                   closure_q: dict | None = None) -> WriteReport:
        """Write solved poses to the link objects that moved (parent objects first, so
        Blender-parented links get the right world matrix) and the joints' q, tree and
        ``root_tree`` flags into their properties where they changed. Refuses (BridgeError,
        nothing written) if any pose or q is not finite or an object has gone.

        ``evaluate=False`` (a drag's updates) skips the final view-layer update that makes
        the written matrices readable at once (the viewport's redraw evaluates them anyway):
        the bridge then forgets the float32 matrices it last saw of the written links, and
        the next :meth:`sync` re-reads them (keeping its float64 poses where they agree).
        ``values=False`` (also a drag's updates) skips fitting and writing the closure joints'
        q (output only, the costly part); the drag's final full write brings them up to date.
        ``obs``: the scene's link objects by name, if the caller has just read them;
        ``closure_q``: the closures' fit if the caller knows it (``WriteReport.closure_q`` of
        an earlier write of the same configuration: a frame live mode remembers)."""
        if self.linkage is None:
            raise BridgeError("nothing to write: the scene has not been synced")
        lk, data = self.linkage, self._stored.records()  # all but q, which is not read here
        assert data is not None  # read with the linkage
        # tree joints: their own q (not copied: only read here); closures: the fit
        qs = {n: j.q for n, j in lk.joints.items() if j.tree_dir and j.jtype.dof}
        fits = {}
        if values:
            fits = closure_qs(lk, lk.poses()) if closure_q is None else closure_q
            qs.update(fits)
        m = lk.model()
        names = m.link_names[1:]  # poses' order: the model's links after the ground
        Ts = m.world_poses(m.q_from_joints())[1:]
        bad = [] if np.isfinite(Ts).all() else \
            [n for n, T in zip(names, Ts) if not np.isfinite(T).all()]
        q_all = np.concatenate(list(qs.values())) if qs else np.zeros(0)
        if not np.isfinite(q_all).all():
            bad += [n for n, q in qs.items() if not np.isfinite(q).all()]
        if bad:
            self.invalidate()
            raise BridgeError(f"the solution is not finite for {', '.join(sorted(bad))}; "
                              "nothing was written")
        obs = self.objects() if obs is None else obs
        if set(obs) != set(data.links):
            self.invalidate()
            raise BridgeError("the scene's links changed since the last sync; nothing was "
                              "written")
        report = WriteReport(closure_q=fits)
        moved = self._moved(names, Ts)
        self._write_poses(obs, names, Ts, moved, report, evaluate)
        report.joints += self._stored.changed(qs, q_all, self.write_tol)
        S.write_qs(obs, ((data.joints[n].child, n, ql) for n, ql in self._stored.pending()))
        self._stored.wrote()
        # tree flags and parent names: they can differ only after a structure change (of the
        # linkage's tree, or of the data read: a rename changes the parent in its key)
        flags_key = (lk.topology_version, self._key)
        if flags_key != self._flags_checked:
            self._write_flags(obs, report)
            self._flags_checked = None if report.flags else flags_key
        if report.flags:  # the properties now say what the linkage holds
            self.data = S.read_scene(obs.values())
            self._key = B.structure_key(self.data)
        return report

    def _write_flags(self, obs, report):
        """Write the tree and ``root_tree`` flags and parent names that differ from the
        linkage's (``report.flags`` names them)."""
        lk, data = self.linkage, self.data
        for n, j in data.joints.items():
            if j.tree != lk.joints[n].is_tree:
                S.update_joint(obs[j.child], n, tree=lk.joints[n].is_tree)
                report.flags.append(n)
            if j.parent is not None and j.parent_name != j.parent:
                S.update_joint(obs[j.child], n, parent=obs[j.parent])
                report.flags.append(n)
        for n, link in data.links.items():
            if link.root_tree != lk.tree_edge[n].is_root:
                S.update_link(obs[n], root_tree=lk.tree_edge[n].is_root)
                report.flags.append(n)

    def _believed(self, names) -> tuple:
        """``(names, T, scale)``: the :class:`LinkState` poses and scales of the links
        ``names`` stacked ((n, 4, 4), (n, 3)), kept between writes (stacking 2,700 costs
        ~4 ms) and forgotten by whatever else changes them (a sync, a rollback)."""
        key = tuple(names)
        if self._stack is None or self._stack[0] != key:
            self._stack = (key, np.stack([self._links[n].T for n in names]),
                           np.array([self._links[n].scale for n in names], float))
        return self._stack

    def _moved(self, names, Ts) -> set:
        """Links whose solved pose differs from the one the bridge believes the object has
        (:func:`.poses.same_pose` with ``write_tol``, all links at once)."""
        if not names:
            return set()
        _, Bs, _ = self._believed(names)
        scale = np.maximum(1.0, np.maximum(np.abs(Ts).max(axis=(1, 2)),
                                           np.abs(Bs).max(axis=(1, 2))))
        diff = np.abs(Ts - Bs).max(axis=(1, 2))
        return {n for n, m in zip(names, diff > self.write_tol * scale) if m}

    def _write_poses(self, obs, names, Ts, moved, report, evaluate=True):
        """World matrices of the moved links, and of links below a written one in Blender's
        parenting (moving a parent moved them), parents first. ``Ts`` (n, 4, 4): the solved
        poses of ``names``."""
        if not moved:
            if evaluate:
                for n, ob in obs.items():
                    self._links[n].observed = P.observe(ob)
            return
        at = {n: i for i, n in enumerate(names)}
        parented = any(ob.parent is not None for ob in obs.values())
        if parented:  # Blender parenting: parents first, and what is below a written one
            order = self._parents_first(obs, moved)
        else:  # the objects are independent: only the moved ones, in any order
            order = sorted(moved)
        # the written world matrices (pose with the object's scale) in one product; each
        # becomes nested lists only as it is written: lists made for all of them at once
        # (13,500 on a 2,700-link tower) outlive a few garbage collections and are promoted,
        # which makes Python run a full collection (~80 ms there) every few drag updates
        idx = [at[n] for n in order]
        stack = self._believed(names)
        _, believed, scales = stack
        scale4 = np.ones((len(idx), 1, 4))
        scale4[:, 0, :3] = scales[idx]
        W = Ts[idx] * scale4
        written: set = set()
        stale = False
        self._stack = None  # until every pose below is written
        for k, n in enumerate(order):
            ob = obs[n]
            if stale and parented and any(a.name in written for a in P.ancestors(ob)) \
                    and (ob.parent.name not in written or ob.parent_type != 'OBJECT'):
                self._update()  # a non-link object in between: let Blender re-evaluate it
                stale = False
            written.add(n)
            ob.matrix_world = Matrix(W[k].tolist())
            self._links[n].T = Ts[idx[k]]
            stale = True
        believed[idx] = Ts[idx]
        self._stack = stack
        report.links += order
        if not evaluate:
            for n in order:
                self._links[n].observed = None  # unknown until Blender evaluates it
            return
        self._update()
        for n, ob in obs.items():
            self._links[n].observed = P.observe(ob)

    @staticmethod
    def _parents_first(obs, moved) -> list:
        """The links to write when some are parented in Blender: the moved ones and every
        link below one of them (moving a parent moves its children), parents first."""
        out = []
        written: set = set()
        for n in sorted(obs, key=lambda n: (P.depth(obs[n]), n)):
            under = bool(written) and any(a.name in written for a in P.ancestors(obs[n]))
            if n in moved or under:
                out.append(n)
                written.add(n)
        return out
