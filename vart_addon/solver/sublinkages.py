"""Sublinkages: MSim's nested hierarchy of a linkage, and the solve order it gives.

A *sublinkage* is a named group of links and joints inside its *parent* (another sublinkage,
or ``None``: the linkage itself, the *top*). Each has a *disposition* in its parent, which
says when its goals are solved relative to the parent's:

- ``"driving"``: it (with everything nested in it) is solved *before* its parent; the parent
  then cannot move its degrees of freedom;
- ``"driven"``: it (with everything nested in it) is solved *after* its parent, which it
  cannot move; if it cannot reach what the parent decided (a closure it cannot close), it is
  solved to its nearest least-squares configuration and the solve reports it
  (:attr:`.SolveStatus.unreached`);
- ``"simultaneous"``: it is solved together with its parent (one stage).

Membership: a link belongs to the sublinkage it was assigned to (else the top); a joint to
the one it was assigned to, else to its child link's (where a scene stores it). A tree joint's
degrees of freedom (a floating link's root joint's too) belong to the joint's sublinkage; a
goal (a joint's lock, target, closure invariant, mimic ...; a link's gravity or target)
belongs to its joint's or link's sublinkage.

Solve order: the containment graph's ordering edges (driving: every sublinkage in the child's
subtree before the parent; driven: the parent before every one in the child's subtree;
simultaneous: both ways between child and parent) are cut into strongly connected components,
the *stages*, taken in topological order (:func:`solve_order`). A stage's goals are solved over
the stage's own degrees of freedom only: solve groups (:mod:`.topology`) never cross a
driving/driven boundary, and a goal whose every DoF lies in other stages is only evaluated
(met or reported, never moved).

Edits here are validated and atomic like those of :mod:`.editing` (:class:`~.errors.VartError`
naming the object and field, the linkage unchanged) and are also ``LinkageCore`` methods. Each
marks the goals changed, so the next solve analyses the groups again. Without any sublinkage a
linkage solves exactly as before (one stage).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import validate as V
from .errors import VartError
from .linkage_core import LinkageCore
from .parts import Joint

#: The dispositions of a sublinkage in its parent.
DISPOSITIONS = ("driving", "driven", "simultaneous")
TOP = None  # the linkage itself, parent of the outermost sublinkages


@dataclass(eq=False)
class Sublinkage:
    """One sublinkage: its ``name``, its ``parent`` (a sublinkage name, or None: the top) and
    its ``disposition`` in the parent (one of :data:`DISPOSITIONS`)."""

    name: str
    parent: str | None
    disposition: str


# ---- edits -----------------------------------------------------------------------------------


def forget(lk: LinkageCore, links=(), joints=()) -> None:
    """Drop the memberships of removed links and joints (called by the edits that remove
    them, so a later link or joint of the same name starts at the top)."""
    for n in links:
        lk.link_home.pop(n, None)
    for n in joints:
        lk.joint_home.pop(n, None)


def rename_member(lk: LinkageCore, old: str, new: str) -> None:
    """A renamed joint keeps its membership (called by :meth:`.editing.LinkageEditing.rename_joint`)."""
    if old in lk.joint_home:
        lk.joint_home[new] = lk.joint_home.pop(old)


def _check_disposition(name, disposition):
    if disposition not in DISPOSITIONS:
        raise VartError(f"sublinkage {name!r}: disposition must be one of {list(DISPOSITIONS)}, "
                        f"got {disposition!r}")


def _check_parent(lk, name, parent):
    if parent is None:
        return
    sublinkage(lk, parent)
    p: str | None = parent
    while p is not None:
        if p == name:
            raise VartError(f"sublinkage {name!r}: parent {parent!r} lies inside it")
        p = lk.sublinkages[p].parent


# ---- queries ---------------------------------------------------------------------------------
def sublinkage(lk: LinkageCore, name: str) -> Sublinkage:
    """The sublinkage called ``name`` (VartError if there is none)."""
    try:
        return lk.sublinkages[name]
    except (KeyError, TypeError):
        raise VartError(f"sublinkage {name!r} does not exist") from None


def home_of_link(lk: LinkageCore, link: str) -> str | None:
    """The sublinkage a link belongs to (None: the top)."""
    return lk.link_home.get(link)


def home_of_joint(lk: LinkageCore, joint: Joint) -> str | None:
    """The sublinkage a joint belongs to: its own assignment, else its child link's (a root
    joint: its link's)."""
    if not joint.is_root and joint.name in lk.joint_home:
        return lk.joint_home[joint.name]
    return lk.link_home.get(joint.child)


def members(lk: LinkageCore, name: str | None) -> tuple[list[str], list[str]]:
    """The links and joints directly in sublinkage ``name`` (None: the top), not in nested
    ones: (link names, joint names)."""
    links = [n for n in lk.links if home_of_link(lk, n) == name]
    joints = [j.name for j in lk.joints.values() if home_of_joint(lk, j) == name]
    return links, joints


def subtree(lk: LinkageCore, name: str) -> list[str]:
    """``name`` and every sublinkage nested in it, at any depth."""
    out = [name]
    for n in out:
        out.extend(s.name for s in lk.sublinkages.values() if s.parent == n)
    return out


def solve_order(lk: LinkageCore) -> list[tuple[str | None, ...]]:
    """The stages, first solved first: each a tuple of sublinkage names (None: the top) solved
    together. The strongly connected components of the ordering edges (see the module doc) in
    topological order; among unordered stages, the earlier-added sublinkage first."""
    nodes: list[str | None] = [TOP, *lk.sublinkages]
    after: dict[str | None, list[str | None]] = {n: [] for n in nodes}  # a -> solved after a
    for sub in lk.sublinkages.values():
        if sub.disposition == "simultaneous":
            after[sub.name].append(sub.parent)
            after[sub.parent].append(sub.name)
            continue
        for inner in subtree(lk, sub.name):
            if sub.disposition == "driving":
                after[inner].append(sub.parent)
            else:
                after[sub.parent].append(inner)
    return _topological_sccs(nodes, after)


def _topological_sccs(nodes, after):
    """Tarjan's strongly connected components of the graph ``after`` (iterative), returned
    first-to-last in topological order."""
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    out: list[tuple] = []
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(after[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(after[w])))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    order = {n: i for i, n in enumerate(nodes)}
                    out.append(tuple(sorted(comp, key=order.__getitem__)))
    out.reverse()  # Tarjan emits a component after every one it leads to
    return out


class StagePlan:
    """The stages of a linkage for one compiled tree model.

    ``order``: :func:`solve_order`; ``dof_stage`` (n_dof,): the stage of each tree DoF;
    :meth:`stage_of_joint` and :meth:`stage_of_link`: the stage of a goal's owner."""

    def __init__(self, lk: LinkageCore, model):
        self.linkage = lk
        self.order = solve_order(lk)
        self.stage = {name: s for s, names in enumerate(self.order) for name in names}
        self.dof_stage = np.zeros(model.n_dof, dtype=int)
        for e in model.edges[1:]:
            if e.dof:
                self.dof_stage[model.slice_of(e)] = self.stage_of_joint(e)

    def stage_of_joint(self, joint: Joint) -> int:
        return self.stage[home_of_joint(self.linkage, joint)]

    def stage_of_link(self, link: str) -> int:
        return self.stage[home_of_link(self.linkage, link)]

    def home_of(self, obj) -> str | None:
        """The sublinkage of a goal's owner (a joint, or a link)."""
        if hasattr(obj, "jtype"):
            return home_of_joint(self.linkage, obj)
        return home_of_link(self.linkage, obj.name)


def plan(lk: LinkageCore, model) -> StagePlan | None:
    """The linkage's :class:`StagePlan`, or None when it has no sublinkage (one stage)."""
    return StagePlan(lk, model) if lk.sublinkages else None


__all__ = ["DISPOSITIONS", "Sublinkage", "SublinkageEditing", "sublinkage", "home_of_link",
           "home_of_joint", "members", "subtree", "solve_order", "plan", "StagePlan"]


class SublinkageEditing(LinkageCore):
    """MSim's hierarchy: sublinkages, dispositions, assignments:
    the :class:`~.linkage.Linkage` methods of this module (a mix-in of it). Each is
    validated and atomic: it raises :class:`VartError` with the linkage unchanged."""

    def add_sublinkage(self, name: str, parent: str | None = None,
                       disposition: str = "simultaneous", links=(), joints=()) -> Sublinkage:
        """Add a sublinkage inside ``parent`` (None: the top) with ``disposition``; ``links``
        and ``joints`` (names) are moved into it from wherever they were."""
        V.name(name, "sublinkage")
        if name in self.sublinkages:
            raise VartError(f"sublinkage {name!r} already exists")
        _check_parent(self, name, parent)
        _check_disposition(name, disposition)
        links, joints = list(links), list(joints)
        for n in links:
            self.link(n)
        for n in joints:
            self.joint(n)
        sub = Sublinkage(name, parent, disposition)
        self.sublinkages[name] = sub
        self.link_home.update((n, name) for n in links)
        self.joint_home.update((n, name) for n in joints)
        self.touch_goals()
        return sub

    def remove_sublinkage(self, name: str) -> None:
        """Dissolve a sublinkage: its links, joints and nested sublinkages go to its parent."""
        sub = sublinkage(self, name)
        for d in (self.link_home, self.joint_home):
            for member, home in list(d.items()):
                if home == name:
                    d[member] = sub.parent
        for other in self.sublinkages.values():
            if other.parent == name:
                other.parent = sub.parent
        del self.sublinkages[name]
        self.touch_goals()

    def set_disposition(self, name: str, disposition: str) -> None:
        """Set a sublinkage's disposition in its parent (one of :data:`DISPOSITIONS`)."""
        sub = sublinkage(self, name)
        _check_disposition(name, disposition)
        if sub.disposition != disposition:
            sub.disposition = disposition
            self.touch_goals()

    def set_sublinkage_parent(self, name: str, parent: str | None) -> None:
        """Nest a sublinkage in another (None: the top); it may not end up inside itself."""
        sub = sublinkage(self, name)
        _check_parent(self, name, parent)
        if sub.parent != parent:
            sub.parent = parent
            self.touch_goals()

    def assign_link(self, link: str, name: str | None) -> None:
        """Move a link into sublinkage ``name`` (None: the top)."""
        self.link(link)
        if name is not None:
            sublinkage(self, name)
        if self.link_home.get(link) != name:
            self.link_home[link] = name
            self.touch_goals()

    def assign_joint(self, joint: str, name: str | None) -> None:
        """Move a joint into sublinkage ``name`` (None: the top), whatever its child link's is."""
        self.joint(joint)
        if name is not None:
            sublinkage(self, name)
        if joint not in self.joint_home or self.joint_home[joint] != name:
            self.joint_home[joint] = name
            self.touch_goals()

    def unassign_joint(self, joint: str) -> None:
        """Let a joint follow its child link's sublinkage again (the default)."""
        self.joint(joint)
        if joint in self.joint_home:
            del self.joint_home[joint]
            self.touch_goals()
