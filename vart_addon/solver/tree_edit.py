"""Tree-structure mutations of a :class:`~.linkage.LinkageCore`: which joints form the spanning
tree, grounding, inversion, splitting and merging links. Each is validated and atomic, and keeps
every link's world pose (see :mod:`.editing` for links and joints themselves).
"""
from __future__ import annotations

import numpy as np

from . import se3
from . import validate as V
from .errors import VartError
from .goal_kinds import KINDS, Q_FIELDS
from .joint_types import INVERTIBLE, joint_type
from .linkage_core import LinkageCore
from .parts import Joint, Link
from .sublinkages import forget

_GENERAL = joint_type("general")


def inverse_config(jtype, q, pitch: float = 0.0) -> np.ndarray:
    """The configuration of the inverse motion (what :func:`invert_joint` makes of a joint's
    goals, and a keyed value of the joint): ``fit(inverse(motion(q)))``; a rotation about z
    inverts to minus itself, whole turns kept. ``q`` in the joint's layout (m, rad)."""
    q = np.asarray(q, float)
    inv = jtype.fit(se3.inverse(jtype.motion(q, pitch)), pitch)[0]
    if jtype.rz_idx >= 0:
        inv[jtype.rz_idx] = -q[jtype.rz_idx]
    return inv


# ---- helpers ------------------------------------------------------------------------------
def _root_q(T_world_link: np.ndarray) -> np.ndarray:
    return np.concatenate([T_world_link[:3, 3], se3.so3_log(T_world_link[:3, :3])])


def _new_joint(name, jt, parent, child, Tpm, Tcf, **kw) -> Joint:
    inf = np.full(jt.dof, np.inf)
    return Joint(name=name, jtype=jt, parent=parent, child=child, T_parent_mob=Tpm,
                 T_child_frame=Tcf, q=np.zeros(jt.dof), lower=-inf, upper=inf.copy(), **kw)


def _ground(lk, link, poses):
    """make_ground_link's surgery, with the world poses taken before any change."""
    path = []  # (link, its edge) from `link` up to the grounded link
    cur = link
    while cur is not None:
        e = lk.tree_edge[cur]
        path.append((cur, e))
        cur = lk.tree_parent(cur)
    for (_below, e_below), (above, _) in zip(path, path[1:]):
        e_below.tree_dir = -e_below.tree_dir
        lk.tree_edge[above] = e_below
    path[-1][1].tree_dir = 0
    root = lk.roots[link]
    root.q = _root_q(poses[link])
    root.tree_dir = 1
    lk.tree_edge[link] = root


def _type(name, jtype):
    try:
        return joint_type(jtype)
    except ValueError as e:
        raise VartError(f"joint {name!r}: {e}") from None


def _set_root_edge(lk, link, poses):
    root = lk.roots[link]
    root.q = _root_q(poses[link])
    root.tree_dir = 1
    lk.tree_edge[link] = root


def _make_tree(lk, j, poses, parent_below: bool | None = None):
    """Put closure joint ``j`` into the tree, giving up the tree edge of the link it carries;
    returns that link. ``parent_below``: whether ``j``'s parent hangs below its child, if the
    caller knows (else it is found)."""
    a, b = j.parent, j.child
    if parent_below is None:
        parent_below = lk.is_ancestor(b, a)
    if parent_below:  # the parent hangs below the child: carry the parent instead
        old = lk.tree_edge[a]
        old.tree_dir = 0
        j.tree_dir = -1
        lk.tree_edge[a] = j
    else:
        old = lk.tree_edge[b]
        old.tree_dir = 0
        j.tree_dir = 1
        lk.tree_edge[b] = j
    return a if parent_below else b


def _rebuild_tree(lk, poses):
    """Make the tree valid again after surgery, keeping the existing tree edges where possible.

    Walks from the ground along root joints and tree-flagged joints; a flagged joint that would
    close a cycle becomes a closure; a link not reached hangs from its root joint at its pose.
    """
    incident: dict[str | None, list[Joint]] = {n: [] for n in lk.links}
    incident[None] = []
    for j in lk.joints.values():
        if j.is_tree:
            for end in (j.parent, j.child):
                incident[end].append(j)
    seen: set = set()
    stack = [n for n in lk.links if lk.roots[n].is_tree]
    for n in stack:
        lk.tree_edge[n] = lk.roots[n]
    # `reached`: links that already have their tree edge (a link is reached when its edge is
    # chosen, before it is visited, so a second flagged joint to it becomes a closure).
    reached: set = set(stack) | {None}
    stack.append(None)  # the ground first: tree joints from the ground keep carrying their links
    pending = list(lk.links)
    used: set[int] = set()
    while True:
        while stack:
            cur = stack.pop()
            if cur in seen:
                continue
            seen.add(cur)
            for j in incident[cur]:
                if id(j) in used:
                    continue
                other = j.child if j.parent == cur else j.parent
                used.add(id(j))
                if other in reached:
                    j.tree_dir = 0
                    continue
                j.tree_dir = 1 if j.child == other else -1
                lk.tree_edge[other] = j
                reached.add(other)
                stack.append(other)
        rest = [n for n in pending if n not in seen]
        if not rest:
            break
        _set_root_edge(lk, rest[0], poses)
        reached.add(rest[0])
        stack.append(rest[0])
    for j in lk.joints.values():
        if j.is_tree and id(j) not in used:
            j.tree_dir = 0
    for n, r in lk.roots.items():
        if lk.tree_edge[n] is not r:
            r.tree_dir = 0
    lk.touch_topology()




class TreeEditing(LinkageCore):
    """The spanning tree: tree or closure, ground links, inversion, split and merge:
    the :class:`~.linkage.Linkage` methods of this module (a mix-in of it). Each is
    validated and atomic: it raises :class:`VartError` with the linkage unchanged."""

    def make_tree(self, name: str):
        """Make a joint a tree edge. The link it now carries gives up its previous tree edge."""
        j = self.joint(name)
        if j.is_tree:
            return
        poses = self.poses()
        j.q = self.joint_q(j, poses)
        _make_tree(self, j, poses)
        self.touch_topology()

    def make_root_tree(self, link: str):
        """Free a link: its root joint becomes its tree edge (its previous tree edge a closure)."""
        r = self.root(link)
        if r is self.tree_edge[link]:
            return
        poses = self.poses()
        self.tree_edge[link].tree_dir = 0
        _set_root_edge(self, link, poses)  # the root joint's q must be the link's current pose
        self.touch_topology()

    def make_closure(self, name: str):
        """Make a tree joint a closure; the link it carried falls back to its root joint."""
        j = self.joint(name)
        if not j.is_tree:
            return
        poses = self.poses()
        carried = j.child if j.tree_dir > 0 else j.parent
        _set_root_edge(self, carried, poses)
        j.tree_dir = 0
        self.touch_topology()

    def make_ground_link(self, link: str):
        """Hang ``link`` from the ground by its root joint and invert the tree path back to the
        link that was grounded before (whose root joint becomes a closure). Poses are unchanged."""
        self.link(link)
        if self.tree_edge[link].is_root:
            return
        _ground(self, link, self.poses())
        self.touch_topology()

    def invert_joint(self, name: str):
        """Swap a joint's parent and child (its configuration becomes the inverse motion's).

        For a tree joint this re-grounds: the old child becomes the ground side (its root joint
        carries it) and the tree path back is inverted. World poses are unchanged.
        """
        j = self.joint(name)
        if j.jtype.name not in INVERTIBLE:
            raise VartError(f"joint {name!r}: a {j.jtype.name} joint cannot be inverted "
                            "(its inverse motion is not of the same type)")
        if j.parent is None:
            raise VartError(f"joint {name!r}: a joint to the ground cannot be inverted "
                            "(the ground cannot be a child)")
        if j.mimic or any(o.mimic and o.mimic[0] == name for o in self.joints.values()):
            raise VartError(f"joint {name!r}: remove its mimic coupling before inverting it")
        poses = self.poses()
        was_tree = j.is_tree
        M = self.relative_pose(j, poses)
        j.parent, j.child = j.child, j.parent
        j.T_parent_mob, j.T_child_frame = j.T_child_frame, j.T_parent_mob
        lo, hi = j.lower.copy(), j.upper.copy()
        fitted = j.jtype.fit(se3.inverse(M), j.pitch)[0]
        j.q = fitted
        if j.dof and j.jtype.rot != "free":
            j.lower, j.upper = -hi, -lo  # scalar inverses negate (exact for 1-DoF; see notes)
        for attr in Q_FIELDS:
            goal = getattr(j, attr)
            if goal is not None:  # the goal configuration of the inverse motion
                setattr(j, attr, inverse_config(j.jtype, goal, j.pitch))
        for kind in KINDS:  # the configurations of the goals stored generically
            for v in kind.values:
                if v.kind == "config" and kind.name in j.goals:
                    vals = j.goals[kind.name]
                    vals[v.name] = inverse_config(j.jtype, vals[v.name], j.pitch)
        if was_tree:
            j.tree_dir = -j.tree_dir
            # Not make_ground_link: self.poses() would now mix the edited joint with the cached model.
            _ground(self, j.parent, poses)
        self.touch_topology()

    def split_link(self, link: str, new_link: str, joints=(), *, T_link_new=None,
                   joint_name: str | None = None, jtype: str = "fixed") -> Joint:
        """Split ``link``: a new link at ``pose(link) @ T_link_new`` takes over ``joints`` (names of
        joints attached to ``link``), and a new joint (type ``jtype``, frames at the new link's
        origin) connects ``link`` (parent) to it. Returns the new joint. Poses are unchanged."""
        self.link(link)
        V.name(new_link, "link")
        if new_link in self.links:
            raise VartError(f"link {new_link!r} already exists")
        jname = joint_name or f"{link}-{new_link}"
        if jname in self.joints:
            raise VartError(f"joint {jname!r} already exists")
        jt = _type(jname, jtype)
        moving = [self.joint(n) for n in joints]
        for m in moving:
            if link not in (m.parent, m.child):
                raise VartError(f"joint {m.name!r} is not attached to link {link!r}")
        Tln = np.eye(4) if T_link_new is None else V.pose(T_link_new, "split_link: T_link_new")
        poses = self.poses()
        old = self.links[link]
        self.links[new_link] = Link(new_link, 0.0, np.zeros(3), old.virtual)
        root = _new_joint(new_link, _GENERAL, None, new_link, np.eye(4), np.eye(4), is_root=True)
        root.q = _root_q(poses[link] @ Tln)
        self.roots[new_link] = root
        poses[new_link] = poses[link] @ Tln
        inv = se3.inverse(Tln)
        for m in moving:
            if m.parent == link:
                m.parent, m.T_parent_mob = new_link, inv @ m.T_parent_mob
            if m.child == link:
                m.child, m.T_child_frame = new_link, inv @ m.T_child_frame
        conn = _new_joint(jname, jt, link, new_link, Tln, np.eye(4), virtual=old.virtual)
        conn.tree_dir = 1
        self.joints[jname] = conn
        carried_by_moved = self.tree_edge[link] in moving
        if carried_by_moved:
            self.tree_edge[new_link] = self.tree_edge[link]
            conn.tree_dir = -1
            self.tree_edge[link] = conn
        else:
            self.tree_edge[new_link] = conn
        _rebuild_tree(self, poses)
        return conn

    def merge_joint(self, name: str):
        """Remove a joint and weld its child link into its parent (or into the ground).

        The child's other joints move to the parent with their frames re-expressed; masses combine.
        """
        j = self.joint(name)
        if j.mimic or any(o.mimic and o.mimic[0] == name for o in self.joints.values()):
            raise VartError(f"joint {name!r}: remove its mimic coupling before merging it")
        P, C = j.parent, j.child
        for o in self.joints_of(C):  # check everything before changing anything
            if o is j:
                continue
            if o.child == C and P is None:
                raise VartError(f"joint {o.name!r} has link {C!r} as child; it cannot be "
                                "merged into the ground")
            if (P if o.parent == C else o.parent) == (P if o.child == C else o.child):
                raise VartError(f"merging {name!r} would make joint {o.name!r} connect a link to itself")
        poses = self.poses()
        T_P = np.eye(4) if P is None else poses[P]
        T_PC = se3.inverse(T_P) @ poses[C]
        del self.joints[name]
        for o in self.joints_of(C):
            if o.parent == C:
                o.parent, o.T_parent_mob = P, T_PC @ o.T_parent_mob
            if o.child == C:
                assert P is not None  # checked above: nothing else has C as child then
                o.child, o.T_child_frame = P, T_PC @ o.T_child_frame
        if P is not None:
            a, b = self.links[P], self.links[C]
            m = a.mass + b.mass
            if m > 0:
                com_b = T_PC[:3, :3] @ b.com + T_PC[:3, 3]
                a.com = (a.mass * a.com + b.mass * com_b) / m
            a.mass = m
        del self.links[C], self.roots[C], self.tree_edge[C]
        forget(self, links=[C], joints=[name])
        _rebuild_tree(self, poses)
