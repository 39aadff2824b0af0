"""Plain validated data read from the scene (see :mod:`.schema` for the stored layout).

Frozen dataclasses of tuples, so they compare with ``==`` (a save/reload round trip gives equal
values) and hash. Frames are 16 floats, row-major 4x4; lengths in metres, angles in radians.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..solver.joint_types import CATALOG
from . import goal_fields

IDENTITY16 = (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0)


class _Goals:
    """Reads the stored goal keys kept in ``goals`` (sorted ``(key, value)`` pairs: the keys of
    goal kinds declared after the first ones, see :mod:`.goal_fields`) as attributes; a key a
    record does not hold reads as the goal off (:func:`.goal_fields.default`)."""

    goals: tuple

    def __getattr__(self, key: str) -> Any:
        if key.startswith("__") or key == "goals":
            raise AttributeError(key)
        for k, v in self.goals:
            if k == key:
                return v
        if isinstance(self, JointData):
            return goal_fields.default(key, "joint", self.dof, self.q)
        return goal_fields.default(key, "link")


@dataclass(frozen=True)
class LinkData(_Goals):
    """A link's stored fields (validated). ``lock_pose`` is T_world_link, 16 floats row-major;
    ``goals``: the keys of later link goal kinds (read as attributes)."""

    name: str
    mass: float = 0.0
    com: tuple = (0.0, 0.0, 0.0)
    virtual: bool = False
    root_tree: bool = True
    locked: bool = False
    lock_pose: tuple = IDENTITY16
    goals: tuple = ()


@dataclass(frozen=True)
class MimicData:
    """``q = multiplier * q_leader + offset`` (both joints 1-DoF)."""

    leader: str
    multiplier: float = 1.0
    offset: float = 0.0


@dataclass(frozen=True)
class JointData(_Goals):
    """A joint's stored fields (validated). ``child`` is the object holding it; ``parent`` the
    parent link's object name or None for the world. Frames: 16 floats row-major. ``goals``:
    the keys of later joint goal kinds (read as attributes)."""

    name: str
    child: str
    type: str
    parent: str | None
    T_parent_mob: tuple
    T_child_frame: tuple
    q: tuple
    lower: tuple
    upper: tuple
    pitch: float = 0.0
    virtual: bool = False
    tree: bool = True
    locked: bool = False
    lock_q: tuple = ()
    target_mask: tuple = ()
    target_q: tuple = ()
    has_posture: bool = False
    posture_q: tuple = ()
    stiffness: float = 0.0
    rest_q: tuple = ()
    mimic: MimicData | None = None
    parent_name: str = ""
    goals: tuple = ()

    @property
    def dof(self) -> int:
        return CATALOG[self.type].dof

    @property
    def has_target(self) -> bool:
        return any(self.target_mask)


@dataclass(frozen=True)
class SceneData:
    """Every link and joint of a set of objects, validated together. Dicts are sorted by name."""

    links: dict
    joints: dict
