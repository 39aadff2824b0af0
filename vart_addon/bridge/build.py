"""From validated scene data (:mod:`.schema`) to a solver :class:`Linkage`, and patches to it.

The spanning tree is rebuilt from the stored flags, tolerantly and deterministically:

1. from the world along ``tree`` joints to the world (by name), then along ``tree`` joints
   between links (both directions, breadth first, by name);
2. links not reached: links with ``root_tree`` first, then the others (by name), each hangs from
   its root joint and the search goes on from it.

A ``tree`` joint that would close a cycle becomes a closure; a ``root_tree`` flag on a link that
a tree joint already reaches is ignored. The bridge writes the resolved flags back
(:meth:`~.scene.SceneBridge.write_back`), so a consistent scene is a fixed point.
Tree joints take their stored q; links hanging from their root joints take their scene poses;
closure joints' q are derived.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ..solver import Linkage, VartError
from . import goal_fields as GF
from .errors import SchemaError
from .schema import KEY, JointData, LinkData, SceneData


@contextmanager
def blame(obj: str, path: tuple):
    """Turn a solver VartError into a SchemaError naming the object and key."""
    try:
        yield
    except VartError as e:
        raise SchemaError(obj, path, str(e)) from None


def _jp(j: JointData, key: str) -> tuple:
    return (KEY, "joints", j.name, key)


def _lp(key: str) -> tuple:
    return (KEY, "link", key)


def M(t16) -> np.ndarray:
    """16 floats row-major -> 4x4."""
    return np.array(t16, dtype=float).reshape(4, 4)


# ---- keys that decide what a change needs ---------------------------------------------------
def structure_key(data: SceneData) -> tuple:
    """Everything whose change needs a rebuild (names, types, ends, frames, tree flags...)."""
    return (tuple(link_structure(n, l) for n, l in data.links.items()),
            tuple(joint_structure(n, j) for n, j in data.joints.items()))


def resolved_structure_key(data: SceneData, lk: Linkage) -> tuple:
    """:func:`structure_key` with the spanning tree ``lk`` was built with (its joints' tree
    directions and links' root flags, as :func:`resolve_tree` resolved them) in place of the
    stored flags: equal for two scenes whose flags differ only where they resolve alike (a
    tree flag that would close a cycle is a closure either way), whose linkages hold their
    values in the same layout."""
    return (tuple((n, l.virtual, lk.tree_edge[n].is_root) for n, l in data.links.items()),
            tuple(joint_structure(n, j)[:-1] + (lk.joints[n].tree_dir,)
                  for n, j in data.joints.items()))


def link_structure(name: str, link: LinkData) -> tuple:
    """A link's part of :func:`structure_key`."""
    return (name, link.virtual, link.root_tree)


def joint_structure(name: str, j: JointData) -> tuple:
    """A joint's part of :func:`structure_key`."""
    return (name, j.child, j.type, j.parent, j.T_parent_mob, j.T_child_frame, j.pitch,
            j.virtual, j.tree)


def joint_goal_key(j: JointData) -> tuple:
    return (j.lower, j.upper, j.mimic) + GF.goal_key(j, "joint")


def link_goal_key(link: LinkData) -> tuple:
    return (link.mass, link.com) + GF.goal_key(link, "link")


# ---- spanning tree ------------------------------------------------------------------------
def resolve_tree(data: SceneData) -> list[tuple]:
    """Components of the spanning tree: ``(root link, ground joint or None, [(joint, carried
    link), ...] breadth first)``. Joints in no component's list are closures."""
    adj: dict[str, list[JointData]] = {n: [] for n in data.links}
    ground = []
    for j in data.joints.values():
        if not j.tree:
            continue
        if j.parent is None:
            ground.append(j)
        else:
            adj[j.parent].append(j)
            adj[j.child].append(j)
    seen: set[str] = set()

    def search(root):
        seen.add(root)
        edges, queue, i = [], [root], 0
        while i < len(queue):
            cur = queue[i]
            i += 1
            for j in adj[cur]:
                far = j.child if j.parent == cur else j.parent
                if far not in seen:
                    seen.add(far)
                    edges.append((j.name, far))
                    queue.append(far)
        return edges

    comps = []
    for g in ground:
        if g.child not in seen:
            comps.append((g.child, g.name, search(g.child)))
    order = [n for n, l in data.links.items() if l.root_tree]
    order += [n for n, l in data.links.items() if not l.root_tree]
    for n in order:
        if n not in seen:
            comps.append((n, None, search(n)))
    return comps


def _add_joint(lk: Linkage, j: JointData, tree: bool):
    """Add a stored joint; a tree joint gets its stored q at once (no pose fit, so building a
    long chain stays linear)."""
    q = _tree_q(j) if tree and len(j.q) else None
    with blame(j.child, (KEY, "joints", j.name)):
        lk.add_joint(j.name, j.type, j.parent, j.child, T_parent_mob=M(j.T_parent_mob),
                     T_child_frame=M(j.T_child_frame), tree=tree, virtual=j.virtual,
                     pitch=j.pitch, lower=j.lower, upper=j.upper, q=q)


def build(data: SceneData, poses: dict) -> Linkage:
    """A linkage of every link (at ``poses[name]``, 4x4 T_world_link, for links hanging from
    their root joints) and joint in ``data``, with their goals. Raises SchemaError."""
    lk = Linkage()
    for n, link in data.links.items():
        with blame(n, (KEY, "link")):
            lk.add_link(n, pose=poses[n], mass=link.mass, com=link.com, virtual=link.virtual)
    in_tree = set()
    for root, ground_joint, edges in resolve_tree(data):
        for jname, far in edges:
            j = data.joints[jname]
            if far == j.parent:  # the joint carries its parent: hang the built part from it
                lk.make_ground_link(j.child)
            _add_joint(lk, j, True)
            in_tree.add(jname)
        lk.make_ground_link(root)
        if ground_joint is not None:
            _add_joint(lk, data.joints[ground_joint], True)
            in_tree.add(ground_joint)
    lk.model()  # the tree is complete: closures fit their q from its poses (one FK for all)
    for j in data.joints.values():
        if j.name not in in_tree:
            _add_joint(lk, j, False)
    for n in data.links:
        if lk.tree_edge[n].is_root:
            lk.set_link_pose(n, poses[n])
    for j in data.joints.values():
        if j.name in in_tree:
            set_tree_q(lk, j)
    for link in data.links.values():
        apply_link_goals(lk, link)
    for j in data.joints.values():
        apply_joint_goals(lk, j)
    return lk


# ---- values and goals ----------------------------------------------------------------------
def _tree_q(j: JointData) -> np.ndarray:
    """A tree joint's stored q, which must respect its limits (else SchemaError)."""
    q = np.array(j.q)
    if np.any(q < np.array(j.lower)) or np.any(q > np.array(j.upper)):
        raise SchemaError(j.child, _jp(j, "q"), f"{list(j.q)} is outside the joint's limits "
                          f"[{list(j.lower)}, {list(j.upper)}]")
    return q


def set_tree_q(lk: Linkage, j: JointData):
    """A tree joint's configuration from its stored q (which must respect its limits)."""
    q = _tree_q(j)
    with blame(j.child, _jp(j, "q")):
        lk.set_q(j.name, q)


def apply_link_goals(lk: Linkage, link: LinkData):
    with blame(link.name, _lp("mass")):
        lk.set_mass(link.name, link.mass, link.com)
    GF.apply(lk, link, link.name, "link", lambda key: blame(link.name, _lp(key)))


def apply_joint_goals(lk: Linkage, j: JointData, limits: bool = False):
    """Set every goal of a joint from its data (``limits`` too when asked: a patch)."""
    cur = lk.joint(j.name)
    if limits:
        with blame(j.child, _jp(j, "lower")):
            lk.set_limits(j.name, j.lower, j.upper)
    GF.apply(lk, j, j.name, "joint", lambda key: blame(j.child, _jp(j, key)))
    with blame(j.child, _jp(j, "mimic")):
        if j.mimic is not None:
            lk.set_mimic(j.name, j.mimic.leader, j.mimic.multiplier, j.mimic.offset)
        elif cur.mimic is not None:
            lk.clear_mimic(j.name)


def patch_goals(lk: Linkage, old: SceneData, new: SceneData) -> int:
    """Re-apply the goals that differ between ``old`` and ``new`` (same structure). Returns
    how many links and joints were patched."""
    n = 0
    for name, link in new.links.items():
        if link_goal_key(link) != link_goal_key(old.links[name]):
            apply_link_goals(lk, link)
            n += 1
    for name, j in new.joints.items():
        o = old.joints[name]
        if joint_goal_key(j) != joint_goal_key(o):
            apply_joint_goals(lk, j, limits=(j.lower, j.upper) != (o.lower, o.upper))
            n += 1
    return n
