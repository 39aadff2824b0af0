"""Setting and clearing goals on joints and links (locks, targets, postures, springs, limits).

A link's goals are those of its root joint (configuration ``(x, y, z, wx, wy, wz)``: its world
position in metres and rotation vector in radians). Joint configurations are in the joint's
layout (see :mod:`.joint_types`). All functions validate first and change nothing on error.
"""
from __future__ import annotations

import numpy as np

from . import goal_store as GS
from . import se3
from . import validate as V
from .errors import VartError
from .goal_kinds import KIND
from .linkage_core import LinkageCore
from .parts import Joint


def _joint(lk: LinkageCore, name: str) -> Joint:
    return lk.joint(name)


def _pose_q(T: np.ndarray) -> np.ndarray:
    """The free joint configuration (x, y, z, rotation vector) of a checked pose (plain
    floats: a drag sets a link target every frame)."""
    q = _rows_q(T[:3].tolist())
    if q is None:  # near a half turn
        q = np.concatenate([T[:3, 3], se3.so3_log(T[:3, :3])])
    return q


def _rows_q(rows):
    """:func:`_pose_q` of a checked pose's rows (plain floats), or None near a half turn."""
    (r00, r01, r02, x), (r10, r11, r12, y), (r20, r21, r22, z) = rows[:3]
    w = se3.so3_log_floats([r00, r01, r02, r10, r11, r12, r20, r21, r22])
    return None if w is None else np.array([x, y, z, *w])




class GoalsEditing(LinkageCore):
    """Goals and values: locks, targets, postures, limits, springs, q, mimics:
    the :class:`~.linkage.Linkage` methods of this module (a mix-in of it). Each is
    validated and atomic: it raises :class:`VartError` with the linkage unchanged."""

    def lock_joint(self, name: str, q=None):
        """Hold a joint at its current configuration (or ``q``) at the lock level."""
        GS.lock_put(self, _joint(self, name), {"q": q})

    def lock_link(self, link: str, pose=None):
        """Freeze a link in the world at its current pose (or ``pose``): locks its root joint."""
        q = None if pose is None else _pose_q(V.pose(pose, f"link {link!r}: lock pose"))
        GS.lock_put(self, self.root(link), {"q": q})

    def unlock_joint(self, name: str):
        GS.lock_clear(self, _joint(self, name))

    def unlock_link(self, link: str):
        GS.lock_clear(self, self.root(link))

    def set_target(self, name: str, q, mask=None):
        """Drive a joint toward ``q`` at the target level; ``mask`` (bools per DoF) selects DoFs."""
        j = _joint(self, name)
        GS.target_put(self, j, {"q": q, "mask": mask})

    def set_link_target(self, link: str, pose, mask=None):
        """Drive a link toward a world pose ``T_world_link``; ``mask`` over (x, y, z, wx, wy, wz)."""
        T, rows, dev = V.pose_rows(pose, f"link {link!r}: target pose")
        # A drag's pose every frame: rigid to the last bits, its q from the checked rows (the
        # array made rigid and its rows read again cost as much as the checks)
        q = _rows_q(rows) if dev <= V.ROUNDED else None
        j = self.root(link)
        if q is None:
            q = _pose_q(V.rigid(T, dev))
        GS.target_put(self, j, {"mask": mask},
                      q if j.dof == q.size else V.vec(q, j.dof, f"{j.label()}: target"))

    def clear_target(self, name: str):
        GS.target_clear(self, _joint(self, name))

    def clear_link_target(self, link: str):
        GS.target_clear(self, self.root(link))

    def set_posture(self, name: str, q=None):
        """Default pose of a joint (its current configuration if ``q`` is None), the lowest level."""
        GS.posture_put(self, _joint(self, name), {"q": q})

    def clear_posture(self, name: str):
        GS.posture_clear(self, _joint(self, name))

    def set_limits(self, name: str, lower, upper):
        """Per-DoF limits (m or rad; +-inf for none). Tree joints respect them strictly."""
        j = _joint(self, name)
        lo = V.vec(lower, j.dof, f"{j.label()}: lower limit", inf_ok=True)
        hi = V.vec(upper, j.dof, f"{j.label()}: upper limit", inf_ok=True)
        if np.any(lo > hi):
            raise VartError(f"{j.label()}: lower limit {lo.tolist()} > upper limit {hi.tolist()}")
        j.lower, j.upper = lo, hi
        if j.is_tree:
            j.q = np.clip(j.q, lo, hi)
        self.touch_topology()

    def set_stiffness(self, name: str, stiffness: float, rest=None):
        """A linear spring on a 1-DoF joint: stiffness (N/m or N m/rad) and rest value."""
        KIND["spring"].set(self, _joint(self, name), {"stiffness": stiffness, "rest": rest})

    def goal_owner(self, kind: str, name: str):
        """The solver object goal ``kind`` (a name of :data:`.goal_kinds.KINDS`) of ``name``
        lives on: joint ``name`` for a joint goal, link ``name`` for a link goal."""
        k = KIND.get(kind) if isinstance(kind, str) else None
        if k is None or not k.values:
            raise VartError(f"no settable goal kind {kind!r}; settable: "
                            + ", ".join(n for n, g in KIND.items() if g.values))
        return k, (_joint(self, name) if k.owner == "joint" else self.link(name))

    def set_goal(self, kind: str, name: str, values: dict):
        """Set goal ``kind`` on joint or link ``name`` to ``values`` (by value name, as its
        :class:`~.goal_kinds.GoalKind` declares them); validated, atomic."""
        k, obj = self.goal_owner(kind, name)
        k.set(self, obj, values)

    def clear_goal(self, kind: str, name: str):
        """Remove goal ``kind`` from joint or link ``name``."""
        k, obj = self.goal_owner(kind, name)
        k.unset(self, obj)

    def goal(self, kind: str, name: str):
        """The values of goal ``kind`` on joint or link ``name``, or None."""
        k, obj = self.goal_owner(kind, name)
        return k.read(obj)

    def set_q(self, name: str, q):
        """Set a tree joint's configuration directly (no solve): its subtree moves rigidly."""
        j = _joint(self, name)
        if not j.is_tree:
            raise VartError(f"{j.label()} is a closure joint; set a target to drive it")
        qv = V.vec(q, j.dof, f"{j.label()}: q")
        if np.any(qv < j.lower) or np.any(qv > j.upper):
            raise VartError(f"{j.label()}: q {qv.tolist()} outside its limits")
        j.q = qv
        self.touch_values()

    def set_link_pose(self, link: str, pose):
        """Place a link hanging from its root joint at a world pose (no solve)."""
        r = self.root(link)
        if not r.is_tree:
            raise VartError(f"link {link!r} hangs from joint {self.tree_edge[link].name!r}; "
                            "set a target to move it")
        r.q = _pose_q(V.pose(pose, f"link {link!r}: pose"))
        self.touch_values()

    def set_mimic(self, name: str, leader: str, multiplier: float = 1.0, offset: float = 0.0):
        """Couple a 1-DoF joint to another: ``q = multiplier * q_leader + offset`` (invariant level)."""
        j = _joint(self, name)
        lead = _joint(self, leader)
        if lead is j:
            raise VartError(f"joint {name!r} cannot mimic itself")
        if j.dof != 1 or lead.dof != 1:
            raise VartError(f"mimic needs two 1-DoF joints: {name!r} has {j.dof}, "
                            f"{leader!r} has {lead.dof}")
        cur = lead
        while cur.mimic:
            if cur.mimic[0] == name:
                raise VartError(f"joint {name!r} mimicking {leader!r} would form a mimic cycle")
            cur = self.joint(cur.mimic[0])
        j.mimic = (leader, V.finite(multiplier, f"joint {name!r}: mimic multiplier"),
                   V.finite(offset, f"joint {name!r}: mimic offset"))
        self.touch_goals()

    def clear_mimic(self, name: str):
        _joint(self, name).mimic = None
        self.touch_goals()
