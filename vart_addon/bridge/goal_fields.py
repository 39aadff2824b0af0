"""The goal fields a joint stores on its child object, declared once.

Each goal of :mod:`vart_addon.solver.goal_kinds` that a user sets on a joint is stored as a
few keys of ``ob["vart"]["joints"][name]`` (and fields of :class:`~.records.JointData` of the
same names): a switch and its values. :data:`GOAL_FIELDS` lists them; from it come the schema's
known keys and their validation (:func:`read`), the stored form (:func:`stored`), what an edit
writes back from the solver's joint (:func:`from_solver`) and the keys a preset carries.

A new goal field is one row here and a field of the same name on ``JointData`` (a test checks
they agree); how the bridge turns it into a goal of the linkage is
:func:`.build.apply_joint_goals` (one block per goal).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import checks as CK
from .errors import SchemaError

#: The kinds of stored value: a bool; one bool per DoF; one number per DoF in the joint's
#: layout (m, rad; defaults to the joint's q); a number >= 0.
VALUE_KINDS = ("flag", "mask", "config", "scalar")


@dataclass(frozen=True)
class GoalField:
    """One stored goal field: its key, the kind of its value, the solver goal kind it belongs
    to, and for a switch (``flag``) or the spring's ``scalar`` the solver joint field whose
    presence it tells (``from_solver`` reads it back)."""

    key: str
    value: str
    goal: str
    solver_field: str = ""

    def __post_init__(self):
        assert self.value in VALUE_KINDS, self.value


GOAL_FIELDS: tuple[GoalField, ...] = (
    GoalField("locked", "flag", "lock", solver_field="lock_q"),
    GoalField("lock_q", "config", "lock"),
    GoalField("target_mask", "mask", "target", solver_field="target_q"),
    GoalField("target_q", "config", "target"),
    GoalField("has_posture", "flag", "posture", solver_field="posture_q"),
    GoalField("posture_q", "config", "posture"),
    GoalField("stiffness", "scalar", "spring", solver_field="stiffness"),
    GoalField("rest_q", "config", "spring"),
)
#: Every goal key, in the table's order (the keys a preset carries for a real joint).
KEYS: tuple[str, ...] = tuple(f.key for f in GOAL_FIELDS)


def keys_of(value: str) -> tuple[str, ...]:
    """The goal keys holding one kind of value (``"flag"``, ``"config"``, ...)."""
    return tuple(f.key for f in GOAL_FIELDS if f.value == value)


def read(d: dict, q: tuple, jtype: str, n: int, obj: str, path: tuple) -> dict:
    """The validated goal fields of a stored joint dict ``d`` (a ``jtype`` joint of ``n`` DoF
    at configuration ``q``), missing keys at their defaults; :class:`SchemaError` naming
    ``obj`` and the key."""
    out: dict[str, Any] = {}
    for f in GOAL_FIELDS:
        p = path + (f.key,)
        if f.value == "flag":
            out[f.key] = CK.flag(d.get(f.key, False), obj, p)
        elif f.value == "mask":
            out[f.key] = CK.flags(d.get(f.key, (False,) * n), n, obj, p)
        elif f.value == "config":
            out[f.key] = CK.numbers(d.get(f.key, q), n, obj, p)
        else:
            out[f.key] = CK.number(d.get(f.key, 0.0), obj, p, nonneg=True)
            if out[f.key] > 0 and n != 1:
                raise SchemaError(obj, p, f"springs are for 1-DoF joints; a {jtype} joint has "
                                  f"{n}")
    return out


def stored(j) -> dict:
    """The goal fields of ``j`` (a :class:`~.records.JointData`) as plain stored values: bools
    as bools, numbers as floats. Values of the wrong kind pass through, so that validating the
    result reports them."""
    out = {}
    for f in GOAL_FIELDS:
        v = getattr(j, f.key)
        if f.value == "config":
            out[f.key] = CK.plain_floats(v)
        elif f.value == "mask":
            out[f.key] = list(v) if isinstance(v, (list, tuple)) else v
        elif f.value == "scalar":
            out[f.key] = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) \
                else v
        else:
            out[f.key] = v
    return out


def from_solver(j, payload) -> dict:
    """The goal fields of the solver's joint ``j`` as :class:`~.records.JointData` keyword
    arguments. ``payload(value, key)`` gives a configuration field its stored values (the
    goal's values if it is on, else what the store keeps)."""
    out = {}
    for f in GOAL_FIELDS:
        if f.value == "config":
            out[f.key] = payload(getattr(j, f.key), f.key)
        elif f.value == "flag":
            out[f.key] = getattr(j, f.solver_field) is not None
        elif f.value == "mask":
            on = getattr(j, f.solver_field) is not None
            out[f.key] = (tuple(bool(b) for b in getattr(j, f.key)) if on
                          else (False,) * j.dof)
        else:
            out[f.key] = float(getattr(j, f.solver_field))
    return out
