"""Topological mutations of a :class:`~.linkage.LinkageCore`, each validated and atomic.

Every function checks all of its input before touching anything and raises
:class:`~.errors.VartError` naming the problem; on error the linkage is unchanged. Links and
joints here; the spanning tree's restructuring in :mod:`.tree_edit`. A new tree joint whose
invariant does not hold snaps its child side onto the joint. They are also methods of
``LinkageCore`` (``linkage.add_joint(...)`` etc.).
"""
from __future__ import annotations

import numpy as np

from . import se3
from . import validate as V
from .errors import VartError
from .goal_kinds import clear_configuration_goals
from .linkage_core import LinkageCore
from .parts import Joint, Link
from .sublinkages import forget, rename_member
from .tree_edit import _GENERAL, _make_tree, _new_joint, _rebuild_tree, _root_q, _type

# ---- links -------------------------------------------------------------------------------


# ---- joints ------------------------------------------------------------------------------


def _reattach(lk, j, link, side):
    new_parent, new_child = (link, j.child) if side == "parent" else (j.parent, link)
    _check_ends(lk, j.name, new_parent, new_child)
    poses = lk.poses()
    old = j.parent if side == "parent" else j.child
    T_old = np.eye(4) if old is None else poses[old]
    T_new = np.eye(4) if link is None else poses[link]
    rel = se3.inverse(T_new) @ T_old
    if side == "parent":
        j.T_parent_mob = rel @ j.T_parent_mob
        j.parent = link
    else:
        j.T_child_frame = rel @ j.T_child_frame
        j.child = link
    if j.is_tree:
        j.tree_dir = 0
        _rebuild_tree(lk, poses)
    lk.touch_topology()


# ---- helpers ------------------------------------------------------------------------------
def _check_ends(lk, name, parent, child):
    if child is None:
        raise VartError(f"joint {name!r}: the child must be a link, not the ground")
    lk.link(child)
    if parent is not None:
        lk.link(parent)
    if parent == child:
        raise VartError(f"joint {name!r}: parent and child are the same link {child!r}")


def _limits(j, lower, upper):
    lo = j.lower if lower is None else V.vec(lower, j.dof, f"{j.label()}: lower limit", inf_ok=True)
    hi = j.upper if upper is None else V.vec(upper, j.dof, f"{j.label()}: upper limit", inf_ok=True)
    if np.any(lo > hi):
        raise VartError(f"{j.label()}: lower limit {lo.tolist()} > upper limit {hi.tolist()}")
    return lo, hi


def _clear_mimics_of(lk, names):
    for o in lk.joints.values():
        if o.mimic and o.mimic[0] in names:
            o.mimic = None




class LinkageEditing(LinkageCore):
    """Links and joints: add, remove, rename, retype, reframe, reattach:
    the :class:`~.linkage.Linkage` methods of this module (a mix-in of it). Each is
    validated and atomic: it raises :class:`VartError` with the linkage unchanged."""

    def add_link(self, name: str, *, pose=None, mass: float = 0.0, com=(0, 0, 0),
                 virtual: bool = False) -> Link:
        """Add a free link at world pose ``pose`` (4x4, default identity); its root joint is its tree edge."""
        V.name(name, "link")
        if name in self.links:
            raise VartError(f"link {name!r} already exists")
        T = np.eye(4) if pose is None else V.pose(pose, f"link {name!r}: pose")
        link = Link(name, V.amount(mass, f"link {name!r}: mass", V.MAX_MASS, "kg"),
                    V.vec(com, 3, f"link {name!r}: com"), bool(virtual))
        root = _new_joint(name, _GENERAL, None, name, np.eye(4), np.eye(4), is_root=True, tree_dir=1)
        root.q = _root_q(T)
        self.links[name] = link
        self.roots[name] = root
        self.tree_edge[name] = root
        self.touch_topology(moved=False)
        return link

    def remove_link(self, name: str) -> list[str]:
        """Remove a link and every joint attached to it; returns the removed joints' names.

        Links that hung from it through the tree fall back to their root joints, keeping their poses.
        """
        self.link(name)
        poses = self.poses()
        gone = [j.name for j in self.joints_of(name)]
        for jn in gone:
            del self.joints[jn]
        _clear_mimics_of(self, gone)
        del self.links[name], self.roots[name], self.tree_edge[name]
        forget(self, links=[name], joints=gone)
        _rebuild_tree(self, poses)
        return gone

    def set_mass(self, link: str, mass: float, com=None):
        """Mass (kg) and centre of mass (m, link frame) used by gravity."""
        lnk = self.link(link)
        m = V.amount(mass, f"link {link!r}: mass", V.MAX_MASS, "kg")
        c = lnk.com if com is None else V.vec(com, 3, f"link {link!r}: com")
        lnk.mass, lnk.com = m, c
        self.touch_goals()

    def set_gravity(self, gravity):
        """World gravity vector (m/s^2), or None to switch gravity off (the default). The value
        it already has changes nothing (the goals are not analysed again)."""
        g = None if gravity is None else V.vec(gravity, 3, "gravity")
        old = self.gravity
        if (g is None and old is None) or (g is not None and old is not None
                                           and np.array_equal(g, old)):
            return
        self.gravity = g
        self.touch_goals()

    def add_joint(self, name: str, jtype: str, parent: str | None, child: str, *,
                  T_parent_mob=None, T_child_frame=None, world_frame=None, q=None,
                  tree: bool | None = None, virtual: bool = False, pitch: float = 0.0,
                  lower=None, upper=None) -> Joint:
        """Add a joint between ``parent`` (None: the ground) and ``child``.

        Frames: give ``T_parent_mob`` and ``T_child_frame``, or ``world_frame`` (4x4) to place both
        at one world pose (then the joint's current configuration is zero). ``tree``: None makes it
        the child's tree edge when the child hangs from its root joint and no cycle results;
        True forces it into the tree; False keeps it a closure. ``q`` sets a tree joint's value.
        """
        V.name(name, "joint")
        jt = _type(name, jtype)
        if name in self.joints:
            raise VartError(f"joint {name!r} already exists")
        _check_ends(self, name, parent, child)
        qv = None if q is None else V.vec(q, jt.dof, f"joint {name!r}: q")
        # Poses are needed only to place frames or to fit q (keeps building a robot linear).
        fit = qv is None and jt.dof > 0
        poses = self.poses_of([parent, child]) if world_frame is not None or fit else None
        if world_frame is not None:
            if T_parent_mob is not None or T_child_frame is not None:
                raise VartError(f"joint {name!r}: give world_frame or the two frames, not both")
            W = V.pose(world_frame, f"joint {name!r}: world_frame")
            assert poses is not None  # computed above when world_frame is given
            Tp = np.eye(4) if parent is None else poses[parent]
            T_parent_mob = se3.inverse(Tp) @ W
            T_child_frame = se3.inverse(poses[child]) @ W
        Tpm = np.eye(4) if T_parent_mob is None else V.pose(T_parent_mob, f"joint {name!r}: T_parent_mob")
        Tcf = np.eye(4) if T_child_frame is None else V.pose(T_child_frame, f"joint {name!r}: T_child_frame")
        j = _new_joint(name, jt, parent, child, Tpm, Tcf, virtual=bool(virtual),
                       pitch=V.finite(pitch, f"joint {name!r}: pitch"))
        lo, hi = _limits(j, lower, upper)
        j.lower, j.upper = lo, hi
        if qv is not None and (np.any(qv < lo) or np.any(qv > hi)):
            raise VartError(f"joint {name!r}: q {qv.tolist()} outside its limits")
        # the child hangs from its root joint: it lies on the parent's tree path only as the
        # path's top link (:meth:`_top`, kept from walk to walk: no walk to the ground each)
        free = self.tree_edge[child].is_root
        below = free and self._top(parent) == child
        make = (free and not below) if tree is None else bool(tree)
        if qv is not None and not make:
            raise VartError(f"joint {name!r}: q can only be given for a tree joint; "
                            "set a target to drive a closure joint")
        self.joints[name] = j
        j.q = self.joint_q(j, poses) if fit else (np.zeros(0) if qv is None else qv.copy())
        if make:
            # only the link it carries (with what hangs from it) may move: onto the joint, or
            # to ``q``
            self._rewalk(_make_tree(self, j, poses, below if free else None))
            if qv is not None:
                j.q = qv
        # a closure leaves the tree (and its model) as it was
        self.touch_topology(tree=make, moved=False)
        return j

    def remove_joint(self, name: str):
        """Remove a joint; if it was a tree edge, the link beyond it falls back to its root joint."""
        j = self.joint(name)
        poses = self.poses()
        del self.joints[name]
        forget(self, joints=[name])
        _clear_mimics_of(self, [name])
        if j.is_tree:
            _rebuild_tree(self, poses)
        self.touch_topology()

    def rename_joint(self, name: str, new_name: str):
        """Rename a joint (its place in the joint order, its goals and the mimics that follow it
        are kept)."""
        j = self.joint(name)
        V.name(new_name, "joint")
        if new_name == name:
            return
        if new_name in self.joints:
            raise VartError(f"joint {new_name!r} already exists")
        j.name = new_name
        self.joints = {(new_name if n == name else n): o for n, o in self.joints.items()}
        rename_member(self, name, new_name)
        for o in self.joints.values():
            if o.mimic and o.mimic[0] == name:
                o.mimic = (new_name, *o.mimic[1:])
        self.touch_topology()

    def set_joint_type(self, name: str, jtype: str):
        """Change a joint's type; its configuration is refitted from the current relative pose.

        Goals whose layout no longer matches (lock, target, posture, rest) are cleared; limits
        are reset.
        A tree joint whose new type cannot reach the current pose snaps its child side onto it.
        """
        j = self.joint(name)
        jt = _type(name, jtype)
        if j.mimic and jt.dof != 1:
            raise VartError(f"joint {name!r}: a mimic joint must keep one degree of freedom")
        followers = [o.name for o in self.joints.values() if o.mimic and o.mimic[0] == name]
        if followers and jt.dof != 1:
            raise VartError(f"joint {name!r}: joints {followers} mimic it, so it must keep one "
                            "degree of freedom")
        poses = self.poses()
        T = self.relative_pose(j, poses)
        if jt.layout != j.jtype.layout:  # same size is not enough: (wx, wy, wz) is not (tx, ty, rz)
            clear_configuration_goals(j)
        j.jtype = jt
        j.lower, j.upper = np.full(jt.dof, -np.inf), np.full(jt.dof, np.inf)
        j.q = jt.fit(T, j.pitch)[0]
        self.touch_topology()

    def set_frames(self, name: str, T_parent_mob=None, T_child_frame=None):
        """Move a joint's frames (either may be None to keep it); a tree joint keeps its q."""
        j = self.joint(name)
        Tpm = j.T_parent_mob if T_parent_mob is None else V.pose(T_parent_mob, f"joint {name!r}: T_parent_mob")
        Tcf = j.T_child_frame if T_child_frame is None else V.pose(T_child_frame, f"joint {name!r}: T_child_frame")
        j.T_parent_mob, j.T_child_frame = Tpm, Tcf
        self.touch_topology()

    def set_parent(self, name: str, parent: str | None):
        """Attach a joint's parent side to another link (or the ground), keeping its frame in the world."""
        _reattach(self, self.joint(name), parent, "parent")

    def set_child(self, name: str, child: str):
        """Attach a joint's child side to another link, keeping its frame in the world."""
        _reattach(self, self.joint(name), child, "child")
