"""Where each settable goal lives on its owner, and how it is read, set and cleared.

The four kinds that came first keep their own fields on :class:`~.parts.Joint` (``lock_q``,
``target_q`` and ``target_mask``, ``posture_q``, ``stiffness`` and ``rest_q``): their
accessors are here, one small group per kind. Every later kind is stored generically: its
checked values in the owner's ``goals`` dict under the kind's name (:func:`get`, :func:`put`,
:func:`clear`), so a new kind needs no storage code at all.

Every ``put`` checks first and changes nothing on error; it tells the linkage whether the
set of goals changed (``touch_goals``: the solve groups are rebuilt) or only a value
(``touch_values``: a drag's new target each frame).
"""
from __future__ import annotations

import numpy as np

from . import goal_values as GV
from . import validate as V
from .errors import VartError


def _touch(lk, was_on: bool) -> None:
    lk.touch_values() if was_on else lk.touch_goals()


def current(lk, obj) -> dict:
    """The values *Set* takes from ``obj`` now when a value's source is ``current``: a
    joint's configuration as ``q``."""
    return {"q": lk.joint_q(obj)} if hasattr(obj, "jtype") else {}


# ---- lock and posture: one configuration each ----------------------------------------------
def _one_config(attr: str, what: str):
    """``(get, put, clear)`` of a goal held as one configuration in Joint field ``attr``
    (``put`` without ``q``: the joint's current value)."""
    def get(j):
        v = getattr(j, attr)
        return None if v is None else {"q": v}

    def put(lk, j, values):
        q = values.get("q")
        was = getattr(j, attr) is not None
        setattr(j, attr, lk.joint_q(j) if q is None else V.vec(q, j.dof, f"{j.label()}: {what}"))
        _touch(lk, was)

    def clear(lk, j):
        setattr(j, attr, None)
        lk.touch_goals()
    return get, put, clear


lock_get, lock_put, lock_clear = _one_config("lock_q", "lock value")
posture_get, posture_put, posture_clear = _one_config("posture_q", "posture")


# ---- target ----------------------------------------------------------------------------------
def target_get(j):
    return None if j.target_q is None else {"q": j.target_q, "mask": j.target_mask}


def target_put(lk, j, values, qv=None):
    """Set the target ``values["q"]`` (or the checked vector ``qv``) with ``values["mask"]``
    (every DoF when absent)."""
    if qv is None:
        qv = V.vec(values["q"], j.dof, f"{j.label()}: target")
    mask = values.get("mask")
    m = [True] * j.dof if mask is None else np.array(mask, dtype=bool).reshape(-1).tolist()
    if len(m) != j.dof:
        raise VartError(f"{j.label()}: target mask needs {j.dof} values, got {len(m)}")
    if not any(m):
        raise VartError(f"{j.label()}: target mask selects no degree of freedom")
    same_goal_set = j.target_q is not None and j.target_mask.tolist() == m
    j.target_q = qv
    if same_goal_set:  # a drag's new target value: the analysis stays valid
        lk.touch_values()
    else:
        j.target_mask = np.array(m, dtype=bool)
        lk.touch_goals()


def target_clear(lk, j):
    if j.target_q is None:  # nothing to clear: the goal set (and its analysis) stays
        return
    j.target_q = None
    lk.touch_goals()


# ---- spring ----------------------------------------------------------------------------------
def spring_get(j):
    on = j.stiffness > 0 and j.rest_q is not None
    return {"stiffness": j.stiffness, "rest": j.rest_q} if on else None


def spring_put(lk, j, values):
    """A linear spring on a 1-DoF joint: ``stiffness`` (N/m or N m/rad; 0 removes it) and
    ``rest`` (the current value when absent); the 1-DoF rule is the kind's (``one_dof``)."""
    k = V.amount(values["stiffness"], f"{j.label()}: stiffness", V.MAX_STIFFNESS,
                 "N/m or N m/rad")
    rest = values.get("rest")
    r = lk.joint_q(j) if rest is None else V.vec(rest, 1, f"{j.label()}: rest value")
    j.stiffness, j.rest_q = k, r
    lk.touch_goals()


def spring_clear(lk, j):
    j.stiffness = 0.0
    lk.touch_goals()


# ---- every later kind: the owner's ``goals`` dict ---------------------------------------------
def _dof(obj) -> int:
    return obj.dof if hasattr(obj, "jtype") else 0


def _what(obj) -> str:
    return obj.label() if hasattr(obj, "label") else f"link {obj.name!r}"


def get(kind, obj):
    """The values of goal ``kind`` on ``obj`` (a Joint or Link), or None when it has none."""
    return obj.goals.get(kind.name)


def put(kind, lk, obj, values):
    """Set goal ``kind`` on ``obj`` to ``values`` (checked by :func:`.goal_values.check`)."""
    checked = GV.check(kind.values, values, _dof(obj), f"{_what(obj)}: {kind.name}")
    was = kind.name in obj.goals
    obj.goals[kind.name] = checked
    _touch(lk, was)


def clear(kind, lk, obj):
    """Remove goal ``kind`` from ``obj`` (nothing if it has none)."""
    if obj.goals.pop(kind.name, None) is not None:
        lk.touch_goals()
