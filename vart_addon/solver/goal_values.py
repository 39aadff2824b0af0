"""The values a user sets for a goal, declared by kind: what each value is and how it is
checked and written.

A :class:`Value` is one named value of a goal kind (:attr:`.goal_kinds.GoalKind.values`):

- ``config``: one number per DoF of the owning joint, in its layout (m, rad);
- ``mask``: one bool per DoF of the owning joint;
- ``scalar``: one number (``nonneg``: >= 0), in ``unit`` (``"a|b"``: ``a`` on a joint that
  translates, ``b`` on one that rotates, e.g. a spring's ``"N/m|N m/rad"``);
- ``vector``: ``size`` numbers (a point, or with ``direction`` a direction: normalised when
  set unless within rounding of unit length, a zero vector refused; or with ``signs`` signs,
  each -1, 0 or +1: the sides an arm's branch keeps), in ``unit``, in ``frame`` (a
  world-frame vector is a point);
- ``pose``: a 4x4 rigid transform (m), in ``frame``;
- ``choice``: one of the names in ``choices`` (a goal's priority level, say).

``frame`` is ``"world"`` (a preset moves it with the robot it is placed on), ``"link"`` (the
owning link's frame) or ``""`` (a configuration). ``source`` says where *Set* in the sidebar
takes the value from: ``"current"`` (the owner's value now, :attr:`GoalKind.current`), ``"ask"``
(the operator asks, starting at ``default``) or ``"cursor"`` (the 3D cursor's location, world).

:func:`check` turns user values into the solver's (numpy arrays, floats), :func:`plain` the
solver's into JSON values (lists of floats or bools, floats, 16 floats for a pose).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import validate as V
from .errors import VartError

#: The kinds of value a goal can hold.
VALUE_KINDS = ("config", "mask", "scalar", "vector", "pose", "choice")


@dataclass(frozen=True)
class Value:
    """One value of a goal kind (see the module doc)."""

    name: str
    kind: str
    label: str = ""
    unit: str = ""
    size: int = 3
    nonneg: bool = False
    frame: str = ""
    source: str = "current"
    default: tuple = ()
    direction: bool = False
    signs: bool = False
    choices: tuple = ()

    def __post_init__(self):
        assert self.kind in VALUE_KINDS, self.kind
        assert (self.kind == "choice") == bool(self.choices), self.choices
        assert self.source in ("current", "ask", "cursor"), self.source
        assert self.frame in ("", "world", "link"), self.frame

    def unit_for(self, angular: bool) -> str:
        """The unit on a joint whose first DoF is ``angular`` (see ``scalar``)."""
        linear, _, rotating = self.unit.partition("|")
        return rotating if angular and rotating else linear

    def count(self, dof: int) -> int:
        """How many numbers the value holds for an owner of ``dof`` DoF (a pose: 16)."""
        return {"config": dof, "mask": dof, "scalar": 1, "vector": self.size,
                "pose": 16, "choice": 1}[self.kind]

    def zero(self, dof: int) -> tuple:
        """The stored value of a goal that was never set (``default``, else zeros, False,
        the identity pose)."""
        if self.default:
            return tuple(self.default)
        if self.kind == "choice":
            return (self.choices[0],)
        if self.kind == "mask":
            return (False,) * dof
        if self.kind == "pose":
            return tuple(np.eye(4).reshape(-1).tolist())
        return (0.0,) * self.count(dof)


def check_one(v: Value, raw, dof: int, what: str):
    """Value ``raw`` of ``v`` for an owner of ``dof`` DoF as the solver keeps it (a float
    array, a bool array, a float or a 4x4 array); :class:`VartError` naming ``what`` and the
    value if it is the wrong size, not finite or (``nonneg``) negative."""
    label = f"{what}: {v.name}"
    if v.kind == "choice":
        if not isinstance(raw, str) or raw not in v.choices:
            raise VartError(f"{label}: one of {', '.join(v.choices)}, got {raw!r}")
        return raw
    if v.kind == "scalar":
        return V.nonneg(raw, label) if v.nonneg else V.finite(raw, label)
    if v.kind == "pose":
        return V.pose(raw, label)
    if v.kind == "mask":
        m = np.array(raw, dtype=bool).reshape(-1) if not isinstance(raw, np.ndarray) \
            else raw.astype(bool).reshape(-1)
        if m.size != dof:
            raise VartError(f"{label}: needs {dof} values, got {m.size}")
        return m
    out = V.vec(raw, v.count(dof), label)
    if v.kind == "vector" and v.nonneg and np.any(out < 0):
        raise VartError(f"{label}: must be >= 0")
    if v.signs and not np.isin(out, (-1.0, 0.0, 1.0)).all():
        raise VartError(f"{label}: each entry -1, 0 or +1, got {out.tolist()}")
    if v.direction:
        norm = float(np.linalg.norm(out))
        if norm < 1e-9:
            raise VartError(f"{label}: a direction cannot be zero")
        if abs(norm - 1.0) > V.ROUNDED:  # a unit vector it gave is given back as it is
            out = out / norm
    return out


def given_or_default(v: Value, raw: dict, dof: int):
    """``raw[v.name]``, or when it is missing and ``v`` has a ``default``, that default (a
    scalar's or a choice's one value, a vector's tuple)."""
    if v.name in raw or not v.default:
        return raw[v.name]
    d = v.zero(dof)
    return d[0] if v.kind in ("scalar", "choice") else d


def check(values: tuple[Value, ...], raw: dict, dof: int, what: str) -> dict:
    """Every value of a goal (``raw``: name -> value) checked by :func:`check_one`; a value
    with a ``default`` may be left out (its default); another missing, or an unknown name, is
    a :class:`VartError` naming ``what``."""
    if not isinstance(raw, dict):
        raise VartError(f"{what}: expected the values {[v.name for v in values]}, got "
                        f"{type(raw).__name__}")
    extra = [k for k in raw if k not in {v.name for v in values}]
    if extra:
        raise VartError(f"{what}: unknown value {extra[0]!r} (its values: "
                        + ", ".join(v.name for v in values) + ")")
    missing = [v.name for v in values if v.name not in raw and not v.default]
    if missing:
        raise VartError(f"{what}: missing value {missing[0]!r}")
    return {v.name: check_one(v, given_or_default(v, raw, dof), dof, what) for v in values}


def plain(v: Value, value):
    """The JSON form of a value the solver keeps: floats, bools, lists; a pose as 16 floats
    row-major."""
    if v.kind == "scalar":
        return float(value)
    if v.kind == "choice":
        return str(value)
    if v.kind == "mask":
        return [bool(b) for b in np.asarray(value).reshape(-1)]
    return [float(x) for x in np.asarray(value, dtype=float).reshape(-1)]
