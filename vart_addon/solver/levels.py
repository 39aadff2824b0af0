"""Priority levels and goal identifiers.

The solver meets goals in strict priority order, highest first: :data:`Level.INVARIANT`
(closure joints keep their structure; mimic couplings), ``LIMIT`` (closure joints beyond their
limits), ``LOCK``, ``POTENTIAL`` (gravity on link masses, springs), ``TARGET``, ``POSTURE``.
Every goal is named by a :class:`GoalId`: its kind, its owner and its level, so nothing has to
parse a goal's name back into its level.
"""
from __future__ import annotations

from enum import IntEnum


class Level(IntEnum):
    """A priority level; a lower value is a higher priority."""

    INVARIANT = 0
    LIMIT = 1
    LOCK = 2
    POTENTIAL = 3
    TARGET = 4
    POSTURE = 5

    @property
    def label(self) -> str:
        """The level's name in statuses and messages: ``"invariant"``, ..."""
        return self.name.lower()


#: Every level, highest priority first.
LEVELS: tuple[Level, ...] = tuple(Level)
N_LEVELS = len(LEVELS)
LEVEL_NAMES: tuple[str, ...] = tuple(level.label for level in LEVELS)
#: Levels whose unmet goals a solve reports as unmet (the potential is minimised, not met;
#: postures are wishes).
REPORTED = tuple(level for level in LEVELS if level not in (Level.POTENTIAL, Level.POSTURE))


class GoalId(str):
    """A goal's name as messages show it (``"target of joint 'tilt'"``) that also carries its
    parts: ``kind`` ("target"), ``owner`` (``"joint 'tilt'"``, or "" for a goal of the whole
    mechanism such as gravity) and ``level``. It is a ``str``, equal to and hashed like its
    text, so lists of goal names keep working as lists of strings."""

    kind: str
    owner: str
    level: Level

    def __new__(cls, kind: str, owner: str, level: int) -> "GoalId":
        self = super().__new__(cls, f"{kind} of {owner}" if owner else kind)
        self.kind, self.owner, self.level = kind, owner, Level(level)
        return self

    def __reduce__(self):  # pickles (and copies) with its parts, e.g. to a worker process
        return GoalId, (self.kind, self.owner, int(self.level))


def level_of(goal: str, default: Level = Level.TARGET) -> Level:
    """The level of a goal name: a :class:`GoalId`'s own, else ``default``."""
    return goal.level if isinstance(goal, GoalId) else default


#: The levels a goal with a ``level`` value may be set at (a choice): any but the potential's
#: (an energy, not rows to meet).
CHOOSABLE: tuple[str, ...] = tuple(lv.label for lv in LEVELS if lv is not Level.POTENTIAL)


def chosen_level(obj, kind: str, default: Level | None = None) -> Level:
    """The level the ``level`` value of goal ``kind`` on ``obj`` (a joint or link) chose;
    ``default`` for a goal without one (None: it must have one, KeyError else)."""
    goal = obj.goals.get(kind, {})
    if default is not None and "level" not in goal:
        return default
    return Level[goal["level"].upper()]


def by_level(kind: str, owners) -> dict:
    """``{Level: [owners]}``: the joints or links holding goal ``kind``, grouped by the level
    their goal's ``level`` value chose."""
    out: dict = {}
    for obj in owners:
        out.setdefault(chosen_level(obj, kind), []).append(obj)
    return out
