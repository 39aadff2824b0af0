"""Joints of one type posed together (numpy only): their motion subspaces as world twists and
the wrenches they transmit, for the statics (:mod:`.static_model`), in a few array operations
per joint type instead of a loop over joints.

Frames and conventions are the statics': a twist is ``(v, w)`` (the velocity of the point at a
reference point ``o`` and the angular velocity, world), a wrench ``(f, n)`` (a force and its
moment about ``o``); a joint's mobility frame is fixed in its parent (``T_world_mob =
T_world_parent @ T_parent_mob``), its child frame in its child (``T_world_child @
T_child_frame``), and its motion subspace is the catalog's
(:meth:`vart_addon.solver.joint_types.JointType.subspace`: twists in the mobility frame).
"""
from __future__ import annotations

import numpy as np

from ..solver import se3


class JointBatch:
    """Joints ``joints`` of one type between links given as indices into the pose stack the
    caller passes (``index``: link name -> row; a joint's parent ``None``, the ground, is the
    stack's last row, the identity)."""

    def __init__(self, joints, index: dict, ground: int):
        self.joints = list(joints)
        self.jtype = self.joints[0].jtype
        self.parent = np.array([ground if j.parent is None else index[j.parent]
                                for j in self.joints], int)
        self.child = np.array([index[j.child] for j in self.joints], int)
        self.T_parent_mob = np.stack([np.asarray(j.T_parent_mob, float) for j in self.joints])
        self.T_child_frame = np.stack([np.asarray(j.T_child_frame, float) for j in self.joints])
        self.pitch = np.array([float(j.pitch) for j in self.joints])

    def _subspace(self, T):
        """(T_world_mob (k, 4, 4), the motion subspace (k, 6, dof) in the mobility frame)."""
        T_wm = T[self.parent] @ self.T_parent_mob
        T_mc = se3.inverse(T_wm) @ T[self.child] @ self.T_child_frame
        q = self.jtype.fit(T_mc, self.pitch)
        return T_wm, self.jtype.subspace(q, self.pitch, T=T_mc)

    def twists(self, T, o) -> np.ndarray:
        """(k, 6, dof): each joint's motion subspace as world twists about ``o`` (3,), at link
        poses ``T`` (the stack, ground last)."""
        T_wm, S = self._subspace(T)
        R, p = T_wm[:, :3, :3], T_wm[:, :3, 3]
        w = R @ S[:, 3:]
        v = R @ S[:, :3] + np.cross((p - o)[:, :, None], w, axis=1)
        return np.concatenate([v, w], axis=1)

    def wrenches(self, T, o) -> np.ndarray:
        """(k, 6, 6 - dof): a basis of the wrenches each joint transmits to its child (those
        doing no work on its motion), world, about ``o``; orthonormal in ``(f, n)`` about
        the joint's mobility origin (N and N m alike: a 1 m lever)."""
        T_wm, S = self._subspace(T)
        if self.jtype.dof == 0:  # fixed: every wrench
            B = np.broadcast_to(np.eye(6), (len(self.joints), 6, 6))
        else:
            u = np.linalg.svd(S, full_matrices=True)[0]
            B = u[:, :, self.jtype.dof:]  # the orthogonal complement: B^T S = 0
        R, p = T_wm[:, :3, :3], T_wm[:, :3, 3]
        f = R @ B[:, :3]
        n = R @ B[:, 3:] + np.cross((p - o)[:, :, None], f, axis=1)
        return np.concatenate([f, n], axis=1)


def by_type(joints, index: dict, ground: int) -> list[JointBatch]:
    """``joints`` as :class:`JointBatch` es, one per joint type (in first-seen order)."""
    groups: dict = {}
    for j in joints:
        groups.setdefault(j.jtype.name, []).append(j)
    return [JointBatch(js, index, ground) for js in groups.values()]
