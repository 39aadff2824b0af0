"""The model file: a linkage, its goals, gravity and solver settings as one versioned JSON
document, written and read without Blender (``"format": "vart-model", "version": 2``;
version 1 files, without sublinkages, are read as well).

What it holds (metres, radians, kilograms, seconds; 4x4 poses as 16 numbers, row-major):

- ``gravity``: the world gravity vector (m/s^2) or null (off);
- ``settings``: every field of :class:`~.solver.Settings` (``max_ms`` null: no time budget);
  a field a file lacks (written before that setting existed) takes its default, so a new
  setting is one field of ``Settings`` and older files keep loading;
- ``links`` (in the linkage's order): ``name``, ``mass``, ``com`` (link frame), ``virtual``,
  and ``root``: the link's root joint (its world pose as a free joint): ``tree`` (the link
  hangs from it), ``q`` (x, y, z, rotation vector: ``T_world_link``; null unless ``tree``),
  and its goals (``lock``, ``target``, ``posture``: a lock or drag target of the link);
- ``joints`` (in the linkage's order): ``name``, ``type`` (the catalog's), ``parent`` (null:
  the world), ``child``, ``T_parent_mob``, ``T_child_frame``, ``pitch`` (m per turn),
  ``virtual``, ``tree`` (1: in the spanning tree carrying its child, -1: carrying its parent,
  0: a closure), ``q`` (a tree joint's value; a closure's is fitted from the poses),
  ``lower`` / ``upper`` (null: no limit), ``mimic`` (``{"leader", "multiplier", "offset"}``
  or null) and the goals: ``lock`` (values or null), ``spring`` (``{"stiffness", "rest"}``,
  N/m or N m/rad, or null), ``target`` (``{"q": [...], "mask": [...]}`` or null),
  ``posture``;
- every goal a user sets (:func:`.goal_kinds.settable`) is one field named after its kind,
  derived from its declaration: null when off, its value when it has one value, else an
  object of its values by name (configurations, vectors and 16-number poses as lists, masks
  as lists of true or false, scalars as numbers, choices as names; a value with a default
  may be missing: read as its default, as in files written before it existed); a link's
  goals beside ``root``;
- ``sublinkages`` (version 2; :mod:`.sublinkages`): ``tree``, each sublinkage in the
  linkage's order as ``{"name", "parent" (null: the top), "disposition"}``; ``links``,
  ``{link: sublinkage}`` for every link assigned to one; ``joints``, ``{joint: sublinkage or
  null}`` for every joint assigned on its own (null: to the top whatever its child link's),
  the others following their child link.

Reading rebuilds exactly the linkage that was written (same link and joint order, spanning
tree, values and goals), so a solve of the read linkage gives the poses the writer's solve
gives. Every field is required but the settings' and the goals' (a goal field a file lacks,
written before that kind of goal existed, is off); a missing one, an unknown one, a wrong type or a file of a
newer version raises :class:`ModelFileError` naming the field (``joints[3].lower``) with
nothing built. Readers refuse later versions: a later version may add sections that an older
reader would silently drop (version 1 readers refuse version 2 files, whose sublinkages they
would lose).
"""
from __future__ import annotations

import dataclasses
import json
import math
from contextlib import contextmanager

import numpy as np

from . import goal_kinds as GK
from . import goal_values as GV
from . import tree_edit
from .errors import VartError
from .linkage import Linkage
from .solver import Settings
from .text import json_error, load_json, show

FORMAT = "vart-model"
VERSION = 2
_TOP_V1 = ("format", "version", "gravity", "settings", "links", "joints")
_TOP = _TOP_V1 + ("sublinkages",)
_SUBS = ("tree", "links", "joints")
#: The settable joint goals a link's root joint (6 DoF) can have in the file.
_ROOT_KINDS = tuple(k for k in GK.settable("joint") if not k.one_dof)
# Each object's fields: its own, then one per settable goal kind (optional when reading: a
# file written before a kind existed has none of it).
_LINK_OWN = ("name", "mass", "com", "virtual", "root")
_LINK = _LINK_OWN + tuple(k.name for k in GK.settable("link"))
_ROOT = ("tree", "q") + tuple(k.name for k in _ROOT_KINDS)
_JOINT_OWN = ("name", "type", "parent", "child", "T_parent_mob", "T_child_frame", "pitch",
              "virtual", "tree", "q", "lower", "upper", "mimic")
_JOINT = _JOINT_OWN + tuple(k.name for k in GK.settable("joint"))


class ModelFileError(VartError):
    """A model file that cannot be read: the message names the file's field at fault."""


# ---- writing ------------------------------------------------------------------------------
def _floats(v) -> list:
    return [float(x) for x in np.asarray(v, dtype=float).reshape(-1)]


def _limit(v) -> list:
    return [float(x) if math.isfinite(x) else None for x in np.asarray(v, float).reshape(-1)]


def _goals(obj, kinds) -> dict:
    """The model file's fields of the goals of ``kinds`` on ``obj`` (null: off; a kind with
    one value: the value; else an object by value name)."""
    out: dict = {}
    for k in kinds:
        vals = k.read(obj)
        if vals is None:
            out[k.name] = None
        elif len(k.values) == 1:
            out[k.name] = GV.plain(k.values[0], vals[k.values[0].name])
        else:
            out[k.name] = {v.name: GV.plain(v, vals[v.name]) for v in k.values}
    return out


def model_dict(lk: Linkage, settings: Settings | None = None) -> dict:
    """The model file's document for linkage ``lk`` (its current values and goals) and the
    solver ``settings`` (default: ``Settings()``)."""
    settings = settings or Settings()
    links = [{"name": n, "mass": float(link.mass), "com": _floats(link.com),
              "virtual": bool(link.virtual),
              "root": {"tree": lk.roots[n].is_tree,
                       "q": _floats(lk.roots[n].q) if lk.roots[n].is_tree else None,
                       **_goals(lk.roots[n], _ROOT_KINDS)},
              **_goals(link, GK.settable("link"))}
             for n, link in lk.links.items()]
    joints = []
    for j in lk.joints.values():
        joints.append({
            "name": j.name, "type": j.jtype.name, "parent": j.parent, "child": j.child,
            "T_parent_mob": _floats(j.T_parent_mob), "T_child_frame": _floats(j.T_child_frame),
            "pitch": float(j.pitch), "virtual": bool(j.virtual), "tree": int(j.tree_dir),
            "q": _floats(j.q) if j.is_tree else None,
            "lower": _limit(j.lower), "upper": _limit(j.upper),
            **_goals(j, GK.settable("joint")),
            "mimic": None if j.mimic is None else
            {"leader": j.mimic[0], "multiplier": float(j.mimic[1]), "offset": float(j.mimic[2])},
        })
    subs = {"tree": [{"name": sub.name, "parent": sub.parent, "disposition": sub.disposition}
                     for sub in lk.sublinkages.values()],
            "links": {n: h for n, h in lk.link_home.items() if h is not None},
            "joints": dict(lk.joint_home)}
    return {"format": FORMAT, "version": VERSION,
            "gravity": None if lk.gravity is None else _floats(lk.gravity),
            "settings": dataclasses.asdict(settings), "links": links, "joints": joints,
            "sublinkages": subs}


def dumps(lk: Linkage, settings: Settings | None = None) -> str:
    """:func:`model_dict` as JSON text (floats written so they read back to the same bits)."""
    return json.dumps(model_dict(lk, settings), indent=1) + "\n"


# ---- reading ------------------------------------------------------------------------------
class _Obj:
    """One JSON object of the file at ``path`` (``joints[3]``): its fields, checked."""

    def __init__(self, value, path: str, keys: tuple, required: tuple | None = None):
        if not isinstance(value, dict):
            raise ModelFileError(f"model file: {path}: expected an object, got {show(value)}")
        missing = [k for k in (keys if required is None else required) if k not in value]
        if missing:
            raise ModelFileError(f"model file: {path}: missing field {missing[0]!r}")
        extra = [k for k in value if k not in keys]
        if extra:
            raise ModelFileError(f"model file: {path}: unknown field {extra[0]!r}")
        self.value, self.path = value, path

    def where(self, key) -> str:
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key, what):
        raise ModelFileError(f"model file: {self.where(key)}: expected {what}, got "
                             f"{show(self.value[key])}")

    def number(self, key) -> float:
        v = self.value[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            self.fail(key, "a finite number")
        return float(v)

    def flag(self, key) -> bool:
        if not isinstance(self.value[key], bool):
            self.fail(key, "true or false")
        return self.value[key]

    def text(self, key, null=False):
        v = self.value[key]
        if (v is None and null) or (isinstance(v, str) and v):
            return v
        self.fail(key, "a name" + (" or null" if null else ""))

    def floats(self, key, n=None, null=False, limits=False):
        v = self.value[key]
        if v is None and null:
            return None
        ok = isinstance(v, list) and (n is None or len(v) == n) and all(
            (x is None and limits) or (not isinstance(x, bool) and isinstance(x, (int, float))
                                       and math.isfinite(x)) for x in v)
        if not ok:
            size = f"{n} " if n is not None else ""
            self.fail(key, f"a list of {size}finite numbers" + (" or nulls" if limits else "")
                      + (", or null" if null else ""))
        return v

    def obj(self, key, keys, null=False, required=None):
        v = self.value[key]
        return None if v is None and null else _Obj(v, self.where(key), keys, required)


@contextmanager
def _blame(path: str):
    """Turn the solver's VartError into a ModelFileError naming the file's field ``path``."""
    try:
        yield
    except ModelFileError:
        raise
    except VartError as e:
        raise ModelFileError(f"model file: {path}: {e}") from None


def _value(v, x, n: int, where: str):
    """Value ``x`` of a goal's :class:`~.goal_values.Value` ``v`` (``n`` numbers) checked for
    its kind; a refusal names the file's field ``where``."""
    def fail(what):
        raise ModelFileError(f"model file: {where}: expected {what}, got {show(x)}")
    if v.kind == "choice":
        if not isinstance(x, str) or x not in v.choices:
            fail("one of " + ", ".join(v.choices))
        return x
    if v.kind == "scalar":
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
            fail("a finite number")
        return float(x)
    if not isinstance(x, list) or len(x) != n:
        fail(f"a list of {n} " + ("true or false" if v.kind == "mask" else "finite numbers"))
    if v.kind == "mask":
        if not all(isinstance(b, bool) for b in x):
            fail(f"a list of {n} true or false")
        return x
    if not all(not isinstance(f, bool) and isinstance(f, (int, float)) and math.isfinite(f)
               for f in x):
        fail(f"a list of {n} finite numbers")
    return np.array(x, float).reshape(4, 4) if v.kind == "pose" else x


def _values(o: _Obj, k, dof: int):
    """The values of goal ``k`` in field ``o.value[k.name]`` (None: off; a missing field, as
    in files written before the kind existed, is off too), each checked for its kind."""
    raw = o.value.get(k.name)
    if raw is None:
        return None
    if len(k.values) == 1:
        v = k.values[0]
        return {v.name: _value(v, raw, v.count(dof), o.where(k.name))}
    g = o.obj(k.name, tuple(v.name for v in k.values),
              required=tuple(v.name for v in k.values if not v.default))
    return {v.name: _value(v, GV.given_or_default(v, g.value, dof), v.count(dof),
                           g.where(v.name)) for v in k.values}


def _apply_goals(lk, o: _Obj, obj, kinds, dof: int):
    """The goals of ``kinds`` in ``o`` set on ``obj`` (a joint, a link's root joint or a
    link), each through its kind's checks, a refusal naming the file's field."""
    for k in kinds:
        values = _values(o, k, dof)
        if values is not None:
            with _blame(o.where(k.name)):
                k.set(lk, obj, values)


def from_dict(doc) -> tuple[Linkage, Settings]:
    """The linkage and settings of a model file's document (see the module doc). Raises
    :class:`ModelFileError` naming the field at fault."""
    if isinstance(doc, dict) and doc.get("format") == FORMAT and \
            isinstance(doc.get("version"), int) and doc["version"] > VERSION:
        raise ModelFileError(f"model file: version: {doc['version']} is newer than this vart "
                             f"reads (version {VERSION}); update vart")
    v1 = isinstance(doc, dict) and doc.get("version") == 1
    top = _Obj(doc, "", _TOP_V1 if v1 else _TOP)
    if doc["format"] != FORMAT:
        top.fail("format", repr(FORMAT))
    if doc["version"] not in (1, VERSION) or isinstance(doc["version"], bool):
        top.fail("version", f"1 or {VERSION}")
    settings = _settings(top)
    lk = Linkage()
    gravity = top.floats("gravity", 3, null=True)
    for key in ("links", "joints"):
        if not isinstance(doc[key], list):
            top.fail(key, "a list")
    links = [_Obj(v, f"links[{i}]", _LINK, _LINK_OWN) for i, v in enumerate(doc["links"])]
    joints = [_Obj(v, f"joints[{i}]", _JOINT, _JOINT_OWN) for i, v in enumerate(doc["joints"])]
    for o in links:
        name = o.text("name")
        with _blame(o.path):
            lk.add_link(name, mass=o.number("mass"), com=o.floats("com", 3),
                        virtual=o.flag("virtual"))
    for o in joints:
        lower, upper = o.floats("lower", limits=True), o.floats("upper", limits=True)
        with _blame(o.path):
            lk.add_joint(o.text("name"), o.text("type"), o.text("parent", null=True),
                         o.text("child"), T_parent_mob=_pose(o, "T_parent_mob"),
                         T_child_frame=_pose(o, "T_child_frame"), tree=False,
                         virtual=o.flag("virtual"), pitch=o.number("pitch"),
                         lower=_no_limit(lower, -1), upper=_no_limit(upper, 1))
    _tree(lk, links, joints)
    for o in links:
        name = o.value["name"]
        _apply_goals(lk, o.obj("root", _ROOT, required=_ROOT[:2]), lk.roots[name],
                     _ROOT_KINDS, 6)
        _apply_goals(lk, o, lk.links[name], GK.settable("link"), 0)
    for o in joints:
        _joint_goals(lk, o)
    with _blame("gravity"):
        lk.set_gravity(gravity)
    if not v1:
        _sublinkages(lk, top.obj("sublinkages", _SUBS))
    lk.touch_topology()
    return lk, settings


def _sublinkages(lk: Linkage, o: _Obj):
    """The ``sublinkages`` section: the sublinkages (nested once all exist), then the links'
    and joints' assignments; the solver's checks name the field at fault."""
    tree = o.value["tree"]
    if not isinstance(tree, list):
        o.fail("tree", "a list")
    subs = [_Obj(v, f"{o.path}.tree[{i}]", ("name", "parent", "disposition"))
            for i, v in enumerate(tree)]
    for s in subs:
        with _blame(s.path):
            lk.add_sublinkage(s.text("name"), None, s.text("disposition"))
    for s in subs:
        with _blame(s.where("parent")):
            lk.set_sublinkage_parent(s.value["name"], s.text("parent", null=True))
    for key, assign in (("links", lk.assign_link), ("joints", lk.assign_joint)):
        homes = o.value[key]
        if not isinstance(homes, dict):
            o.fail(key, "an object {name: sublinkage}")
        for member, home in homes.items():
            if not (home is None and key == "joints") and not (isinstance(home, str) and home):
                o.fail(key, "sublinkage names" + (" or null" if key == "joints" else ""))
            with _blame(f"{o.where(key)}.{member}"):
                assign(member, home)


def _no_limit(values, sign) -> list:
    """Limits as read (null: none) with ``sign`` * infinity for none."""
    return [sign * math.inf if x is None else x for x in values]


def _pose(o: _Obj, key) -> np.ndarray:
    return np.array(o.floats(key, 16), dtype=float).reshape(4, 4)


def _settings(top: _Obj) -> Settings:
    names = tuple(f.name for f in dataclasses.fields(Settings))
    s = _Obj(top.value["settings"], top.where("settings"), names, required=())
    values: dict = {}
    for f in dataclasses.fields(Settings):
        if f.name not in s.value:  # a file older than the setting: its default
            continue
        v = s.value[f.name]
        if f.name == "max_ms" and v is None:
            values[f.name] = None
        elif isinstance(f.default, bool):
            values[f.name] = s.flag(f.name)
        elif isinstance(f.default, int):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                s.fail(f.name, "a whole number >= 1")
            values[f.name] = v
        else:
            x = s.number(f.name)
            if x < 0:
                s.fail(f.name, "a number >= 0")
            values[f.name] = x
    return Settings(**values)


def _tree(lk: Linkage, links: list, joints: list):
    """The spanning tree of the file: its tree flags, then each tree joint's stored q."""
    poses = lk.poses()
    for o in links:
        root = o.obj("root", _ROOT, required=_ROOT[:2])
        lk.roots[o.value["name"]].tree_dir = 1 if root.flag("tree") else 0
    for o in joints:
        t = o.value["tree"]
        if t not in (-1, 0, 1) or isinstance(t, bool):
            o.fail("tree", "-1, 0 or 1")
        lk.joints[o.value["name"]].tree_dir = t
    tree_edit._rebuild_tree(lk, poses)
    for o in joints:
        j = lk.joints[o.value["name"]]
        if j.tree_dir != o.value["tree"]:
            raise ModelFileError(f"model file: {o.where('tree')}: {o.value['tree']} does not "
                                 "give a spanning tree (a cycle, or a link carried twice)")
        if j.is_tree:
            with _blame(o.where("q")):
                lk.set_q(j.name, o.floats("q", j.dof))
        elif o.value["q"] is not None:
            o.fail("q", "null for a closure joint (its value follows from the poses)")
    for o in links:
        root = lk.roots[o.value["name"]]
        if root.is_tree != o.value["root"]["tree"]:
            raise ModelFileError(f"model file: {o.path}.root.tree: the joints' tree flags "
                                 "carry this link already, or none does")
        r = o.obj("root", _ROOT, required=_ROOT[:2])
        if root.is_tree:
            root.q = np.array(r.floats("q", 6), dtype=float)
        elif r.value["q"] is not None:
            r.fail("q", "null when the link does not hang from its root joint")


def _joint_goals(lk: Linkage, o: _Obj):
    name = o.value["name"]
    j = lk.joints[name]
    _apply_goals(lk, o, j, GK.settable("joint"), j.dof)
    mimic = o.obj("mimic", ("leader", "multiplier", "offset"), null=True)
    if mimic is not None:
        with _blame(mimic.path):
            lk.set_mimic(name, mimic.text("leader"), mimic.number("multiplier"),
                         mimic.number("offset"))


def loads(text: str) -> tuple[Linkage, Settings]:
    """The linkage and settings of a model file's JSON text."""
    try:
        doc = load_json(text)
    except json.JSONDecodeError as e:
        line, col, msg = json_error(e)
        raise ModelFileError(f"model file: not JSON: {msg} (line {line}, column {col})") \
            from None
    return from_dict(doc)


def read(path) -> tuple[Linkage, Settings]:
    """The linkage and settings of the model file at ``path``."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ModelFileError(f"model file {str(path)!r}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ModelFileError(f"model file {str(path)!r}: not UTF-8 text") from None
    return loads(text)
