"""The scene bridge: a solver :class:`Linkage` kept in step with a Blender scene.

Blender is the source of truth between user actions; the linkage is a cache.
:meth:`SceneBridge.sync` reads and validates the scene (:func:`.schema.read_scene`) and then
rebuilds the linkage only when the structure changed (:func:`.build.structure_key`: link and
joint names, types, ends, frames, tree flags); otherwise it patches goals, tree joints' q and
free links' poses that changed. The sublinkages (collections, :mod:`.sublinkages`) are read on
every sync too, and applied to the linkage when they changed (the next solve re-analyses).
:meth:`solve` runs the solver, :meth:`write_back` (:mod:`.scene_write`) writes the solved poses
to the objects that moved and the joints' q (tree: the solver's; closure: the fit of the
relative pose) into their properties.

Poses: ``T_world_link`` (4x4, metres) is the object's ``matrix_world`` without its scale (see
:mod:`.poses`). Blender keeps matrices in float32, the linkage in float64: a link whose matrix
has not been touched since the bridge last read or wrote it keeps its float64 pose, so repeated
solves neither drift nor rewrite objects that did not move.

Errors: a :class:`SchemaError` (bad properties) or :class:`BridgeError` (bad scene, non-finite
solution) is raised before anything in the scene is changed.
"""
from __future__ import annotations

import bpy
import numpy as np

from ..solver import Linkage, Settings, Solver
from . import build as B
from . import poses as P
from . import schema as S
from . import sublinkages as SL
from .errors import BridgeError
from .joint_values import StoredQ
from .scene_write import LinkState, SceneWriter


def scene_key(scene) -> int:
    """A key for per-scene caches that no other scene of the session can share: the ID's
    ``session_uid`` (a memory address such as ``as_pointer()`` is reused by a scene created
    or loaded later, which would then inherit a stale cache entry)."""
    return getattr(scene, "session_uid", None) or scene.as_pointer()


class SceneBridge(SceneWriter):
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
        self._links: dict[str, LinkState] = {}
        self._stack: tuple | None = None  # _links' T and scale stacked (see _believed)
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
        self._links, self._stack = {}, None

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
            states[n] = LinkState(T, m, scale)
        lk = B.build(data, {n: st.T for n, st in states.items()})
        SL.apply(lk, hierarchy)
        fk = lk.poses()
        for n, st in states.items():  # tree-carried links: the float64 FK pose if it agrees
            if not lk.tree_edge[n].is_root and P.same_pose(fk[n], st.T, P.FLOAT32_TOL):
                st.T = fk[n]
        self.linkage, self.data, self._key, self._links = lk, data, key, states
        self._stack = None
        self.hierarchy = hierarchy
        self.solver = Solver(lk, self.settings)
        self.rebuilds += 1
        self._apply_link_targets()

    def _patch(self, data, seen, rigid, hierarchy):
        lk = self.linkage
        self._stack = None  # poses and scales read again below
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
                {n: LinkState(st.T, st.observed, st.scale) for n, st in self._links.items()},
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
        self._stack = None
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

    # ---- solving (writing: :class:`.scene_write.SceneWriter`) -----------------------------
    def _need(self):
        if self.linkage is None:
            self.sync()

    def solve(self, settings: Settings | None = None, sync: bool = True, **budget):
        """Sync (unless ``sync`` is False: a modal drag that changes only bridge-held targets
        between solves), then solve; returns the solver's SolveStatus. ``budget``:
        ``max_iterations``, ``max_ms``, and ``fresh`` (:meth:`vart_addon.solver.Solver.solve`).
        The scene is not changed until :meth:`write_back`."""
        if sync or self.linkage is None:
            self.sync()
        assert self.solver is not None  # synced: the solver is built with the linkage
        if settings is not None:
            self.settings = self.solver.settings = settings
        return self.solver.solve(**budget)
