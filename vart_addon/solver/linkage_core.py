"""Links, joints and their spanning tree: the data and queries of the solver's model of a
mechanism (:class:`LinkageCore`; :class:`~.linkage.Linkage` adds the edits).

Frames and units: ``T_parent_mob`` is a joint's mobility frame posed in its parent link's frame
(or in the world for a joint to the ground); ``T_child_frame`` is its child-side frame posed in
the child link's frame; ``T_world_child = T_world_parent @ T_parent_mob @ motion(q) @
inv(T_child_frame)`` when the joint holds. Metres, radians, kilograms.

The ground (the world) is written ``None`` (``GROUND``). Every link has an implicit *root joint*:
a general joint from the ground whose configuration is the link's world pose ``(p, log R)``.
Each link has exactly one *tree edge* toward the ground: another joint, or its root joint.
A tree edge is traversed parent-to-child (``tree_dir = +1``) or child-to-parent (``-1``);
every other joint is a *closure* (``tree_dir = 0``). World poses follow from the tree joints'
q by forward kinematics (see :mod:`.kinematics`).

The parts (``Link``, ``Joint``, ``GROUND``) are :mod:`.parts`. Mutations are methods of
:class:`~.linkage.Linkage`, one mix-in per concern in its own module built on
:class:`LinkageCore` (:mod:`.editing`: links and joints, :mod:`.tree_edit`: the spanning
tree, :mod:`.goals_edit`: goals and values, :mod:`.sublinkages`: MSim's hierarchy), so
``linkage.add_joint`` is defined where its code is.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import se3
from .errors import VartError
from .parts import Joint, Link

if TYPE_CHECKING:  # annotations only: sublinkages builds on this module
    from .sublinkages import Sublinkage


class LinkageCore:
    """A mechanism's data and queries (:class:`~.linkage.Linkage` adds the edits): links,
    joints, root joints, the spanning tree and gravity."""

    def __init__(self):
        self.links: dict[str, Link] = {}
        self.joints: dict[str, Joint] = {}
        self.roots: dict[str, Joint] = {}
        self.tree_edge: dict[str, Joint] = {}
        self.gravity: np.ndarray | None = None
        # MSim's hierarchy (.sublinkages): the sublinkages by name, and the sublinkage each
        # assigned link and joint belongs to (None: the top; an unassigned joint follows its
        # child link)
        self.sublinkages: dict[str, Sublinkage] = {}
        self.link_home: dict[str, str | None] = {}
        self.joint_home: dict[str, str | None] = {}
        self.topology_version = 0
        self.goals_version = 0
        self.values_version = 0
        self._model = None
        self._model_version = -1
        # World poses walked while the model is stale (poses_of): link -> (T_world_link, its
        # top link, the link it was composed from), how many were composed from each link, and
        # (pose epoch, values_version) they hold for
        self._walked: dict[str, tuple] = {}
        self._walk_kids: dict[str | None, int] = {}
        self._walk_key: tuple | None = None
        self._pose_epoch = 0

    # ---- lookup ------------------------------------------------------------------------
    def link(self, name: str) -> Link:
        try:
            return self.links[name]
        except (KeyError, TypeError):  # TypeError: an unhashable name (a list, a dict)
            raise VartError(f"link {name!r} does not exist") from None

    def joint(self, name: str) -> Joint:
        try:
            return self.joints[name]
        except (KeyError, TypeError):  # TypeError: an unhashable name (a list, a dict)
            raise VartError(f"joint {name!r} does not exist") from None

    def root(self, link: str) -> Joint:
        self.link(link)
        return self.roots[link]

    def all_joints(self):
        """User joints then root joints."""
        yield from self.joints.values()
        yield from self.roots.values()

    def tree_parent(self, link: str) -> str | None:
        """The link one step nearer the ground along the tree (None: the ground)."""
        e = self.tree_edge[link]
        return e.parent if e.tree_dir > 0 else e.child

    def ancestors(self, link: str | None) -> list[str]:
        """Links from ``link`` (included) up to, not including, the ground."""
        out = []
        while link is not None:
            out.append(link)
            link = self.tree_parent(link)
        return out

    def is_ancestor(self, a: str | None, b: str | None) -> bool:
        """True if ``a`` lies on the tree path from ``b`` to the ground (ground: always)."""
        return a is None or a in self.ancestors(b)

    def joints_of(self, link: str) -> list[Joint]:
        """User joints attached to ``link`` as parent or child."""
        return [j for j in self.joints.values() if link in (j.parent, j.child)]

    # ---- kinematics --------------------------------------------------------------------
    def model(self):
        """The compiled tree model for the current topology (rebuilt only when it changed)."""
        if self._model_version != self.topology_version:
            from .kinematics import TreeModel
            self._model = TreeModel(self)
            self._model_version = self.topology_version
            self._pose_epoch += 1  # a solve may now write q in place: no walked pose holds
        return self._model

    def poses(self) -> dict[str, np.ndarray]:
        """World pose ``T_world_link`` of every link, by forward kinematics of the tree."""
        m = self.model()
        T = m.world_poses(m.q_from_joints())
        return {name: T[i] for i, name in enumerate(m.link_names) if name is not None}

    def pose(self, link: str) -> np.ndarray:
        self.link(link)
        return self.poses_of([link])[link]

    def poses_of(self, links) -> dict[str, np.ndarray]:
        """World poses of some links (None entries are skipped). Uses the compiled model when it
        is current; otherwise composes the tree edges down from the ground for just these links
        and keeps what it composed (:meth:`_walk`), so a sequence of edits (a robot imported,
        a tower built joint by joint, closures between) stays linear in its length."""
        links = [n for n in links if n is not None]
        if self._model_version == self.topology_version:
            m = self._model
            T = m.world_poses(m.q_from_joints())
            return {n: T[m.index[n]] for n in links}
        return {n: self._walk(n)[0] for n in links}

    def _walk(self, link: str, pose: bool = True) -> tuple:
        """``(T_world_link, top)`` of ``link`` by its tree edges (``top``: the link nearest the
        ground on its tree path; ``pose=False``: the top alone, T None), from the nearest link
        on that path walked since the last edit that may have moved a link: what it walks is
        kept for the next walk, so walks down a chain built link by link are not repeated."""
        key = (self._pose_epoch, self.values_version)
        walked, kids = self._walked, self._walk_kids
        if self._walk_key != key:
            walked.clear()
            kids.clear()
            self._walk_key = key
        path = []
        cur: str | None = link
        while cur is not None:
            got = walked.get(cur)
            if got is not None and (not pose or got[0] is not None):
                break
            path.append(cur)
            cur = self.tree_parent(cur)
        T, top = (np.eye(4), None) if cur is None else walked[cur][:2]
        for n in reversed(path):
            if pose:
                e = self.tree_edge[n]
                X = e.T_parent_mob @ e.jtype.motion(e.q, e.pitch)[0] @ \
                    se3.inverse(e.T_child_frame)
                T = T @ (X if e.tree_dir > 0 else se3.inverse(X))
            top = n if top is None else top
            if n not in walked:
                kids[cur] = kids.get(cur, 0) + 1  # (cur: n's tree parent)
            walked[n] = (T if pose else None, top, cur)
            cur = n
        return walked[link][:2]

    def _rewalk(self, link: str):
        """``link``'s tree edge changed, nothing else moved: what was walked of it is dropped
        (everything walked, if some links were walked through it)."""
        if self._walk_kids.get(link):
            self._pose_epoch += 1
        elif link in self._walked:
            parent = self._walked.pop(link)[2]
            self._walk_kids[parent] -= 1

    def _top(self, link: str | None) -> str | None:
        """The link nearest the ground on ``link``'s tree path (None for the ground)."""
        return None if link is None else self._walk(link, pose=False)[1]

    def relative_pose(self, joint: Joint, poses: dict | None = None) -> np.ndarray:
        """``T_mob_childframe`` of a joint, from the links' current world poses."""
        poses = self.poses() if poses is None else poses
        Tp = np.eye(4) if joint.parent is None else poses[joint.parent]
        Tc = poses[joint.child]
        return se3.inverse(Tp @ joint.T_parent_mob) @ Tc @ joint.T_child_frame

    def joint_q(self, joint: Joint, poses: dict | None = None) -> np.ndarray:
        """The configuration of a joint: its own q if tree, else the fit of its relative pose."""
        if joint.is_tree:
            return joint.q.copy()
        return joint.jtype.fit(self.relative_pose(joint, poses), joint.pitch)[0]

    def touch_topology(self, tree: bool = True, moved: bool = True):
        """The joints changed: analyses must be redone. ``tree=False``: only closures did
        (one added), so the compiled tree model, if it was current, stays current: closures
        added in a row fit their q from one forward kinematics, not a walk each.
        ``moved=False``: no link moved (a link or a closure added, a link hung where it stands
        and its walked pose dropped), so the poses walked so far still hold."""
        current = self._model_version == self.topology_version
        self.topology_version += 1
        self.goals_version += 1
        if moved:
            self._pose_epoch += 1
        if current and not tree:
            self._model_version = self.topology_version

    def touch_goals(self):
        """The set of goals changed (one added or removed): solve groups must be re-analysed."""
        self.goals_version += 1

    def touch_values(self):
        """Only goal values or tree q changed: the analysis stays valid (solvers re-read values)."""
        self.values_version += 1
