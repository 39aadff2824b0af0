"""The scene bridge: a solver :class:`Linkage` kept in step with a Blender scene.

Blender is the source of truth between user actions; the linkage is a cache.
:meth:`SceneBridge.sync` reads and validates the scene (:func:`.schema.read_scene`) and then
rebuilds the linkage only when the structure changed (:func:`.build.structure_key`: link and
joint names, types, ends, frames, tree flags); otherwise it patches goals, tree joints' q and
free links' poses that changed. The sublinkages (collections, :mod:`.sublinkages`) are read on
every sync too, and applied to the linkage when they changed (the next solve re-analyses).
:meth:`solve` runs the solver, :meth:`write_back` writes the solved poses to the objects that
moved and the joints' q (tree: the solver's; closure: the fit of the relative pose) into their
properties.

Poses: ``T_world_link`` (4x4, metres) is the object's ``matrix_world`` without its scale (see
:mod:`.poses`). Blender keeps matrices in float32, the linkage in float64: a link whose matrix
has not been touched since the bridge last read or wrote it keeps its float64 pose, so repeated
solves neither drift nor rewrite objects that did not move.

Errors: a :class:`SchemaError` (bad properties) or :class:`BridgeError` (bad scene, non-finite
solution) is raised before anything in the scene is changed.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import bpy
import numpy as np
from mathutils import Matrix

from ..solver import Linkage, Settings, Solver
from . import build as B
from . import poses as P
from . import schema as S
from . import sublinkages as SL
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


def scene_key(scene) -> int:
    """A key for per-scene caches that no other scene of the session can share: the ID's
    ``session_uid`` (a memory address such as ``as_pointer()`` is reused by a scene created
    or loaded later, which would then inherit a stale cache entry)."""
    return getattr(scene, "session_uid", None) or scene.as_pointer()


class _LinkState:
    """What the bridge knows of one link object: the float64 pose it believes the object has,
    the exact float32 matrix it last saw, and the object's scale."""

    __slots__ = ("T", "observed", "scale")

    def __init__(self, T, observed, scale):
        self.T, self.observed, self.scale = T, observed, scale


class SceneBridge:
    """Builds and drives a solver linkage from the link objects of ``scene`` (default: the
    context scene). ``write_tol`` (m and rad) is how much a pose or q must change to be
    written."""

    def __init__(self, scene=None, settings: Settings | None = None, write_tol: float = 1e-12):
        if scene is None:
            scene = bpy.context.scene
            if scene is None:
                raise BridgeError("no scene: pass one (SceneBridge(scene)) or run in a "
                                  "context that has one")
        self.scene: bpy.types.Scene = scene
        self.settings = settings or Settings()
        self.write_tol = write_tol
        self.linkage: Linkage | None = None
        self.solver: Solver | None = None
        self._stored = StoredQ(None)  # the records read (``data``) and the q written since
        self.rebuilds = 0       # how many times the linkage was built from scratch
        self.patches = 0        # how many syncs patched goals instead
        self._key: tuple | None = None
        self._flags_checked: tuple | None = None  # see write_back
        self.hierarchy: SL.Hierarchy = SL.EMPTY  # the sublinkages the linkage holds
        self._links: dict[str, _LinkState] = {}
        self._link_targets: dict[str, tuple] = {}

    # ---- reading ------------------------------------------------------------------------
    @property
    def data(self) -> S.SceneData | None:
        """The link objects' records as last read, with the q values written since."""
        return self._stored.data()

    @data.setter
    def data(self, value: S.SceneData | None) -> None:
        self._stored = StoredQ(value)

    def objects(self) -> dict:
        """Link objects of the scene by name."""
        return {ob.name: ob for ob in self.scene.objects if S.is_link(ob)}

    def _update(self):
        vl = bpy.context.view_layer
        if vl is None or bpy.context.scene != self.scene:
            vl = self.scene.view_layers[0]
        vl.update()

    def invalidate(self):
        """Forget the cached linkage: the next sync rebuilds it."""
        self.linkage = self.solver = self.data = self._key = None
        self._flags_checked = None
        self.hierarchy = SL.EMPTY
        self._links = {}

    def sync(self) -> bool:
        """Bring the linkage in step with the scene; True if it was rebuilt. Raises
        SchemaError/BridgeError (the scene is never changed; the cache is dropped if it may
        have been half-patched)."""
        self._update()
        obs = self.objects()
        data = S.read_scene(obs.values())
        hierarchy = SL.read_hierarchy(self.scene, obs.values())
        seen = {n: P.observe(ob) for n, ob in obs.items()}
        rigid = {}
        for n, m in seen.items():
            st = self._links.get(n)
            if st is None or st.observed != m:
                rigid[n] = P.rigid_and_scale(m, n)
        key = B.structure_key(data)
        if self.linkage is None or key != self._key:
            self._rebuild(data, key, seen, rigid, hierarchy)
            return True
        try:
            self._patch(data, seen, rigid, hierarchy)
        except BaseException:
            self.invalidate()
            raise
        return False

    def sync_objects(self, names) -> bool:
        """:meth:`sync` for the link objects ``names`` alone, when nothing else can have
        changed but their stored goal values (a bake or live mode whose goal fields are
        animated on them): they are read again and the goals that differ are patched. True,
        with nothing patched, when the read changes the structure (then :meth:`sync`).
        Raises SchemaError."""
        if self.linkage is None or self.data is None:
            return self.sync()
        old = self.data
        mine = S.SceneData(links={}, joints={})  # what was read again
        for n in names:
            link, js = S.read_object(self.scene.objects[n])
            mine.links[n] = link
            mine.joints.update((j.name, j) for j in js)
        was = S.SceneData(links={n: old.links.get(n) for n in mine.links},
                          joints={n: j for n, j in old.joints.items() if j.child in mine.links})
        if set(was.joints) != set(mine.joints) or any(
                o is None or B.link_structure(n, o) != B.link_structure(n, mine.links[n])
                for n, o in was.links.items()) or any(
                B.joint_structure(n, o) != B.joint_structure(n, mine.joints[n])
                for n, o in was.joints.items()):
            return True  # the structure changed
        B.patch_goals(self.linkage, was, mine)
        self.data = S.SceneData(links={**old.links, **mine.links},
                                joints={**old.joints, **mine.joints})
        return False

    def _rebuild(self, data, key, seen, rigid, hierarchy):
        states = {}
        for n, m in seen.items():
            T, scale = rigid[n] if n in rigid else (self._links[n].T, self._links[n].scale)
            states[n] = _LinkState(T, m, scale)
        lk = B.build(data, {n: st.T for n, st in states.items()})
        SL.apply(lk, hierarchy)
        fk = lk.poses()
        for n, st in states.items():  # tree-carried links: the float64 FK pose if it agrees
            if not lk.tree_edge[n].is_root and P.same_pose(fk[n], st.T, P.FLOAT32_TOL):
                st.T = fk[n]
        self.linkage, self.data, self._key, self._links = lk, data, key, states
        self.hierarchy = hierarchy
        self.solver = Solver(lk, self.settings)
        self.rebuilds += 1
        self._apply_link_targets()

    def _patch(self, data, seen, rigid, hierarchy):
        lk = self.linkage
        B.patch_goals(lk, self.data, data)
        if hierarchy != self.hierarchy:
            SL.apply(lk, hierarchy)
            self.hierarchy = hierarchy
        for n, m in seen.items():
            st = self._links[n]
            if n in rigid:
                T, scale = rigid[n]
                if not P.same_pose(T, st.T, P.FLOAT32_TOL):
                    st.T = T  # moved outside the bridge
                st.observed, st.scale = m, scale
        poses = lk.poses()
        for n, st in self._links.items():
            if lk.tree_edge[n].is_root and not np.array_equal(poses[n], st.T):
                lk.set_link_pose(n, st.T)
        for j in data.joints.values():
            lj = lk.joint(j.name)
            if lj.is_tree and not np.array_equal(lj.q, j.q):
                B.set_tree_q(lk, j)
        self.data = data
        self.patches += 1

    # ---- goals the bridge holds (not stored in the file) ---------------------------------
    def set_link_target(self, link: str, T_world_link, mask=None):
        """Drag target of a link (its root joint): a world pose, 4x4; ``mask`` over
        (x, y, z, wx, wy, wz). Held by the bridge across syncs until cleared."""
        self._need()
        assert self.linkage is not None  # synced
        with B.blame(link, ()):
            self.linkage.set_link_target(link, np.asarray(T_world_link, float), mask)
        self._link_targets[link] = (np.array(T_world_link, float), mask)

    def clear_link_target(self, link: str):
        self._link_targets.pop(link, None)
        if self.linkage is not None and link in self.linkage.links:
            self.linkage.clear_link_target(link)

    def _apply_link_targets(self):
        for n in list(self._link_targets):
            if n not in self.linkage.links:
                del self._link_targets[n]
                continue
            T, mask = self._link_targets[n]
            self.linkage.set_link_target(n, T, mask)

    # ---- checkpoints (a cancelled drag) ----------------------------------------------------
    def checkpoint(self):
        """The bridge's cached state (configuration, link poses as it believes them, records,
        held link targets), for :meth:`rollback` once the scene itself has been put back as it
        was (a cancelled drag): the cache then matches the scene again to the last bit,
        float64 poses included, with no rebuild. None if nothing is cached."""
        if self.linkage is None:
            return None
        lk = self.linkage
        return (lk, lk.topology_version, lk.model().q_from_joints().copy(),
                {n: _LinkState(st.T, st.observed, st.scale) for n, st in self._links.items()},
                self._stored.copy(), self._key, dict(self._link_targets))

    def rollback(self, cp) -> None:
        """Restore a :meth:`checkpoint` (the scene must be as it was then); if the linkage was
        rebuilt or changed its topology since, the cache is dropped instead (the next sync
        rebuilds it from the scene)."""
        if cp is None or cp[0] is not self.linkage or cp[1] != self.linkage.topology_version:
            self.invalidate()
            self._link_targets = {} if cp is None else dict(cp[6])
            return
        lk, _, q, links, stored, key, targets = cp
        for n in set(self._link_targets) - set(targets):
            self.clear_link_target(n)
        self._link_targets = dict(targets)
        self._apply_link_targets()
        lk.model().q_to_joints(q)
        self._links, self._stored, self._key = links, stored.copy(), key
        self._flags_checked = None

    # ---- link locks (stored in the file) -------------------------------------------------
    def lock_link(self, ob, pose=None):
        """Freeze a link in the world at its current pose (or ``pose``, 4x4): writes the lock
        into its properties and into the linkage (the solver's ``lock_link``)."""
        self._need()
        T = self.linkage.pose(ob.name) if pose is None else np.asarray(pose, float)
        S.update_link(ob, locked=True, lock_pose=tuple(T.reshape(16)))
        self.sync()

    def unlock_link(self, ob):
        S.update_link(ob, locked=False)
        self.sync()

    # ---- solving and writing -------------------------------------------------------------
    def _need(self):
        if self.linkage is None:
            self.sync()

    def solve(self, settings: Settings | None = None, sync: bool = True, **budget):
        """Sync (unless ``sync`` is False: a modal drag that changes only bridge-held targets
        between solves), then solve; returns the solver's SolveStatus. ``budget``:
        ``max_iterations``, ``max_ms``. The scene is not changed until :meth:`write_back`."""
        if sync or self.linkage is None:
            self.sync()
        assert self.solver is not None  # synced: the solver is built with the linkage
        if settings is not None:
            self.settings = self.solver.settings = settings
        return self.solver.solve(**budget)

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

    def _moved(self, names, Ts) -> set:
        """Links whose solved pose differs from the one the bridge believes the object has
        (:func:`.poses.same_pose` with ``write_tol``, all links at once)."""
        if not names:
            return set()
        Bs = np.stack([self._links[n].T for n in names])
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
        scale4 = np.ones((len(idx), 1, 4))
        scale4[:, 0, :3] = [self._links[n].scale for n in order]
        W = Ts[idx] * scale4
        written: set = set()
        stale = False
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
