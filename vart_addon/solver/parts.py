"""The parts of a linkage: ``Link`` (a rigid body), ``Joint`` (a joint and its goals) and
``GROUND`` (the world, written ``None``). :class:`~.linkage.Linkage` holds them; the edit
modules change them.

Frames and units are those of :mod:`.linkage`: ``T_parent_mob`` is a joint's mobility frame
posed in its parent link's frame (or in the world for a joint to the ground); ``T_child_frame``
is its child-side frame posed in the child link's frame. Metres, radians, kilograms.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .joint_types import JointType

GROUND = None


@dataclass(eq=False)
class Link:
    """A rigid body. ``com`` is the centre of mass in the link frame (m); mass in kg.
    ``goals``: the values of the link's goals of the kinds stored generically, by kind name
    (:mod:`.goal_store`)."""

    name: str
    mass: float = 0.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    virtual: bool = False
    goals: dict = field(default_factory=dict)


@dataclass(eq=False)
class Joint:
    """A joint between ``parent`` (a link name, or None for the ground) and ``child``.

    Goals on the joint: ``lock_q`` (held at the lock level), ``target_q`` with ``target_mask``
    (per-DoF; the target level), ``posture_q`` (the posture level), ``stiffness`` with
    ``rest_q`` (a linear spring, potential level, 1-DoF joints), ``mimic`` = (leader joint
    name, multiplier, offset) enforced at the invariant level. Limits are per DoF.

    A tree joint's ``q`` after a solve is a view of the solver's configuration vector, which
    later solves update in place (copy it to keep a value); assigning a new array is always
    safe.
    """

    name: str
    jtype: JointType
    parent: str | None
    child: str
    T_parent_mob: np.ndarray
    T_child_frame: np.ndarray
    q: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    pitch: float = 0.0
    virtual: bool = False
    is_root: bool = False
    tree_dir: int = 0
    lock_q: np.ndarray | None = None
    target_q: np.ndarray | None = None
    target_mask: np.ndarray | None = None
    posture_q: np.ndarray | None = None
    stiffness: float = 0.0
    rest_q: np.ndarray | None = None
    mimic: tuple[str, float, float] | None = None
    goals: dict = field(default_factory=dict)

    @property
    def dof(self) -> int:
        return self.jtype.dof

    @property
    def is_tree(self) -> bool:
        return self.tree_dir != 0

    @property
    def locked(self) -> bool:
        return self.lock_q is not None

    def label(self) -> str:
        """How messages name this joint: its name, or ``root of 'link'``."""
        return f"root joint of link {self.child!r}" if self.is_root else f"joint {self.name!r}"

    def copy(self) -> "Joint":
        c = Joint(**{k: getattr(self, k) for k in self.__dataclass_fields__})
        for k, v in c.__dict__.items():
            if isinstance(v, np.ndarray):
                setattr(c, k, v.copy())
        c.goals = {k: {n: x.copy() if isinstance(x, np.ndarray) else x for n, x in v.items()}
                   for k, v in self.goals.items()}
        return c
