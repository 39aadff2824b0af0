"""The goals a link or joint stores on its object, derived from the solver's declarations.

Every goal kind a user sets (:func:`vart_addon.solver.goal_kinds.settable`) is stored as a few
keys of ``ob["vart"]["joints"][name]`` (a joint goal) or ``ob["vart"]["link"]`` (a link
goal): a switch and one key per value (:class:`StoredGoal`). :func:`joint_goals` and
:func:`link_goals` list them; from them come the schema's known keys and their validation
(:func:`read`), the stored form (:func:`stored`), what an edit writes back from the solver
(:func:`from_solver`), how a sync sets them on the linkage (:func:`apply`), the keys a preset
carries, the sidebar rows and the *Set* / *Clear* operators.

The first kinds keep the key names they were stored under (``locked``, ``lock_q``,
``target_mask``...); a later kind ``k`` with values ``a``, ``b`` is stored as ``k`` (a bool)
and ``k_a``, ``k_b``. A link's *lock* is its root joint's lock seen as a world pose
(``locked``, ``lock_pose``): the one stored goal declared here by hand.

Record fields: the keys of the first kinds are fields of :class:`~.records.JointData` and
:class:`~.records.LinkData`; a later kind's keys live in their ``goals`` (read as attributes
all the same). Values: a bool per mask entry, floats otherwise, a pose as 16 floats row-major.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np

from ..solver import goal_kinds as GK
from ..solver import se3
from ..solver.goal_values import Value
from . import checks as CK
from .errors import SchemaError

#: Keys the first kinds were stored under: (switch key or "" when the first mask, else the
#: first scalar, switches it; one key per value).
_LEGACY = {("joint", "lock"): ("locked", ("lock_q",)),
           ("joint", "target"): ("", ("target_q", "target_mask")),
           ("joint", "posture"): ("has_posture", ("posture_q",)),
           ("joint", "spring"): ("", ("stiffness", "rest_q"))}


@dataclass(frozen=True)
class StoredGoal:
    """One goal kind as stored on an object: its solver kind, owner ("joint" or "link"), the
    switch key ("" when a mask or scalar value switches it), its values and their keys.
    ``read(lk, name)``, ``write(lk, name, values)``, ``drop(lk, name)``: the goal on the
    linkage (default: the kind's on the owner object)."""

    kind: GK.GoalKind
    owner: str
    switch: str
    values: tuple[Value, ...]
    keys: tuple[str, ...]
    view: Optional[tuple[Callable, Callable, Callable]] = field(default=None, compare=False)

    @property
    def name(self) -> str:
        return self.kind.name

    @property
    def all_keys(self) -> tuple[str, ...]:
        return ((self.switch,) if self.switch else ()) + self.keys

    def _obj(self, lk, name):
        return lk.joint(name) if self.owner == "joint" else lk.link(name)

    def read(self, lk, name: str):
        """The goal's values on the linkage (solver form), or None when it is off."""
        return self.view[0](lk, name) if self.view else self.kind.read(self._obj(lk, name))

    def write(self, lk, name: str, values: dict) -> None:
        if self.view:
            self.view[1](lk, name, values)
        else:
            self.kind.set(lk, self._obj(lk, name), values)

    def drop(self, lk, name: str) -> None:
        if self.view:
            self.view[2](lk, name)
        else:
            self.kind.unset(lk, self._obj(lk, name))

    def is_on(self, rec) -> bool:
        """Whether record ``rec`` (JointData or LinkData) has this goal on."""
        if self.switch:
            return bool(getattr(rec, self.switch))
        for v, k in zip(self.values, self.keys):
            if v.kind == "mask":
                return any(getattr(rec, k))
        return next(getattr(rec, k) > 0 for v, k in zip(self.values, self.keys)
                    if v.kind == "scalar")

    def values_of(self, rec) -> dict:
        """The stored values of ``rec`` in the solver's form (a pose as a 4x4 array)."""
        return {v.name: (np.array(getattr(rec, k), float).reshape(4, 4) if v.kind == "pose"
                         else getattr(rec, k)) for v, k in zip(self.values, self.keys)}


def _stored_goal(kind, owner: str) -> StoredGoal:
    switch, keys = _LEGACY.get((owner, kind.name),
                               (kind.name, tuple(f"{kind.name}_{v.name}" for v in kind.values)))
    return StoredGoal(kind, owner, switch, kind.values, keys)


def _root_lock_read(lk, name):
    q = lk.root(name).lock_q
    return None if q is None else {
        "pose": se3.make_pose(se3.so3_exp(np.asarray(q[3:], float)), q[:3])}


#: A link's lock: its root joint's lock, stored as the link's world pose.
LINK_LOCK = StoredGoal(
    GK.KIND["lock"], "link", "locked",
    (Value("pose", "pose", "Pose", "m", frame="world"),), ("lock_pose",),
    view=(_root_lock_read, lambda lk, n, v: lk.lock_link(n, v["pose"]),
          lambda lk, n: lk.unlock_link(n)))


class _Tables:
    """The stored goals and their keys per owner, derived from ``KINDS`` when it is first
    asked for and again only if ``KINDS`` is another tuple (a test may declare a kind):
    asked for per record and per frame, so never hashed or rebuilt otherwise."""

    kinds: tuple = ()
    goals: dict = {}
    keys: dict = {}
    field_keys: dict = {}


def _tables() -> type[_Tables]:
    t = _Tables
    if t.kinds is not GK.KINDS:
        kinds = GK.KINDS
        t.goals = {"joint": tuple(_stored_goal(k, "joint") for k in kinds
                                  if k.values and k.owner == "joint"),
                   "link": (LINK_LOCK,) + tuple(_stored_goal(k, "link") for k in kinds
                                                if k.values and k.owner == "link")}
        t.keys = {o: tuple(k for g in gs for k in g.all_keys) for o, gs in t.goals.items()}
        # the goal keys that are fields of the records (the first kinds' and the link's lock)
        t.field_keys = {o: tuple(k for g in gs if (o, g.name) in _LEGACY or g is LINK_LOCK
                                 for k in g.all_keys) for o, gs in t.goals.items()}
        t.kinds = kinds
    return t


def joint_goals() -> tuple[StoredGoal, ...]:
    """The goals a joint stores, in :data:`~vart_addon.solver.goal_kinds.KINDS` order."""
    return _tables().goals["joint"]


def link_goals() -> tuple[StoredGoal, ...]:
    """The goals a link stores: its lock, then the link kinds in ``KINDS`` order."""
    return _tables().goals["link"]


def goals_of(owner: str) -> tuple[StoredGoal, ...]:
    return _tables().goals[owner]


def keys(owner: str = "joint") -> tuple[str, ...]:
    """Every stored goal key of a joint (or a link), in the tables' order."""
    return _tables().keys[owner]


def goal_key(rec, owner: str = "joint") -> tuple:
    """Every goal value of record ``rec`` as one comparable tuple (two records have the same
    goals exactly when their keys are equal): its goal fields and its ``goals``; per frame
    of a bake, without reading each later key through the record's defaults."""
    return tuple(getattr(rec, k) for k in _tables().field_keys[owner]) + (rec.goals,)


def keys_of(value: str, owner: str = "joint") -> tuple[str, ...]:
    """The goal keys holding one kind of value (``"flag"`` for switches, ``"config"``...)."""
    if value == "flag":
        return tuple(g.switch for g in goals_of(owner) if g.switch)
    return tuple(k for g in goals_of(owner) for v, k in zip(g.values, g.keys)
                 if v.kind == value)


def _read_value(v: Value, raw, n: int, q: tuple, obj, p, switched: bool):
    """A stored value, or when missing its value as never set (``switched``: a goal with a
    switch key; else a missing scalar reads 0, as a spring's stiffness does when off)."""
    if v.kind == "mask":
        return CK.flags(raw if raw is not None else (False,) * n, n, obj, p)
    if v.kind == "choice":
        x = CK.text(raw if raw is not None else v.zero(n)[0], obj, p)
        if x not in v.choices:
            raise SchemaError(obj, p, f"one of {', '.join(v.choices)}, got {x!r}")
        return x
    if v.kind == "config":
        return CK.numbers(raw if raw is not None else q, n, obj, p)
    if v.kind == "scalar":
        missing = v.zero(n)[0] if switched else 0.0
        return CK.number(raw if raw is not None else missing, obj, p, nonneg=v.nonneg)
    if v.kind == "pose":
        return CK.pose(raw if raw is not None else v.zero(n), obj, p)
    out = CK.numbers(raw if raw is not None else v.zero(n), v.size, obj, p)
    if v.nonneg and any(x < 0 for x in out):
        raise SchemaError(obj, p, "must be >= 0")
    return out


def default(key: str, owner: str, dof: int = 0, q: tuple = ()):
    """The value of goal key ``key`` of a record that does not hold it (a record made in code
    without it): off, its values as when never set (a configuration: ``q``)."""
    for g in goals_of(owner):
        if key == g.switch:
            return False
        for v, k in zip(g.values, g.keys):
            if k == key:
                if v.kind == "scalar":  # as read when missing (see _read_value)
                    return v.zero(dof)[0] if g.switch else 0.0
                if v.kind == "choice":
                    return v.zero(dof)[0]
                return q if v.kind == "config" else v.zero(dof)
    raise AttributeError(f"no goal key {key!r} on a {owner}")


def read(d: dict, obj: str, path: tuple, owner: str = "joint", q: tuple = (),
         jtype: str = "", n: int = 0) -> dict:
    """The validated goal keys of a stored dict ``d`` (of a ``jtype`` joint of ``n`` DoF at
    configuration ``q``, or of a link), missing keys at their defaults; :class:`SchemaError`
    naming ``obj`` and the key."""
    out: dict[str, Any] = {}
    for g in goals_of(owner):
        if g.switch:
            out[g.switch] = CK.flag(d.get(g.switch, False), obj, path + (g.switch,))
        for v, k in zip(g.values, g.keys):
            out[k] = _read_value(v, d.get(k), n, q, obj, path + (k,), bool(g.switch))
        if g.kind.one_dof and n != 1 and g.is_on(_Rec(out)):
            raise SchemaError(obj, path + (g.keys[0],), f"{g.kind.label.lower() or g.name}s "
                              f"are for 1-DoF joints; a {jtype} joint has {n}")
    return out


class _Rec:
    """Attribute access to a dict of stored keys (for :meth:`StoredGoal.is_on`)."""

    def __init__(self, d):
        self.__dict__.update(d)


def split(values: dict, explicit, owner: str = "joint", dof: int = 0,
          q: tuple = ()) -> tuple[dict, tuple]:
    """``values`` (stored goal keys) as the record's explicit fields (names in ``explicit``)
    and its ``goals`` tuple (sorted key, value pairs) of the rest, but for those at their
    :func:`default` (a record holds only what differs from a goal never set, so records of
    the same data compare equal however they were made)."""
    own = {k: v for k, v in values.items() if k in explicit}
    rest = tuple(sorted((k, v) for k, v in values.items()
                        if k not in explicit and v != default(k, owner, dof, q)))
    return own, rest


def stored(rec, owner: str = "joint") -> dict:
    """The goal keys of ``rec`` (JointData or LinkData) as plain stored values: bools as
    bools, numbers as floats. Values of the wrong kind pass through, so that validating the
    result reports them."""
    out = {}
    for g in goals_of(owner):
        if g.switch:
            out[g.switch] = getattr(rec, g.switch)
        for v, k in zip(g.values, g.keys):
            x = getattr(rec, k)
            if v.kind == "mask":
                out[k] = list(x) if isinstance(x, (list, tuple)) else x
            elif v.kind == "scalar":
                out[k] = float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) \
                    else x
            elif v.kind == "choice":
                out[k] = x
            else:
                out[k] = CK.plain_floats(x)
    return out


def _plain(v: Value, x) -> Any:
    if v.kind == "scalar":
        return float(x)
    if v.kind == "choice":
        return str(x)
    if v.kind == "mask":
        return tuple(bool(b) for b in np.asarray(x).reshape(-1))
    return tuple(float(f) for f in np.asarray(x, float).reshape(-1))


def from_solver(lk, name: str, payload, owner: str = "joint", dof: int = 0) -> dict:
    """The goal keys of joint (or link) ``name`` as the linkage holds them, record values.
    ``payload(key, value)`` gives a value of a goal that is off its stored value (what the
    store keeps: a configuration not set keeps the stored one, or takes q)."""
    out: dict[str, Any] = {}
    for g in goals_of(owner):
        vals = g.read(lk, name)
        if g.switch:
            out[g.switch] = vals is not None
        for v, k in zip(g.values, g.keys):
            if vals is not None:
                out[k] = _plain(v, vals[v.name])
            elif not g.switch and v.kind in ("mask", "scalar"):  # the switching value: off
                out[k] = (False,) * dof if v.kind == "mask" else 0.0
            else:
                out[k] = payload(k, v)
    return out


def apply(lk, rec, name: str, owner: str, blame) -> None:
    """Set every stored goal of record ``rec`` on joint (or link) ``name`` of the linkage,
    and clear those it has that ``rec`` has off; ``blame(key)`` is a context naming the
    object and key a refusal is about."""
    for g in goals_of(owner):
        with blame(g.keys[0]):
            if g.is_on(rec):
                g.write(lk, name, g.values_of(rec))
            elif g.read(lk, name) is not None:
                g.drop(lk, name)


def any_on(rec, owner: str = "joint") -> bool:
    """Whether ``rec`` has any stored goal on."""
    return any(g.is_on(rec) for g in goals_of(owner))
