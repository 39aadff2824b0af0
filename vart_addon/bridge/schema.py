"""The custom-property layout of links and joints: the only module that knows the keys.

Everything is a plain ID property (visible in Object > Custom Properties, kept by files opened
without vart, by appending and by glTF extras). A link is an object with ``ob["vart"]``::

    ob["vart"] = {
      "version": 1,                      # int; files from a newer vart are refused
      "link": {
        "mass": 0.0,                     # kg, >= 0
        "com": [0.0, 0.0, 0.0],          # centre of mass, m, in the link frame
        "virtual": False,                # bool: a virtual link (an empty expressing intent)
        "root_tree": True,               # bool: hangs from its root joint (the implicit general
                                         #   joint to the world) in the spanning tree
        "locked": False,                 # bool: frozen in the world at lock_pose
        "lock_pose": [16 floats],        # T_world_link when locked, row-major 4x4, m
      },
      "joints": {                        # joints whose CHILD is this link, keyed by name
        "knee": {
          "type": "revolute",            # a solver catalog name (12 types, and "fixed")
          "parent": <Object> or None,    # ID pointer to the parent link; None = the world
          "parent_name": "Thigh",        # the parent's name when written ("" = the world);
                                         #   tells a deleted parent from the world, see below
          "T_parent_mob": [16 floats],   # mobility frame in the parent link frame (world if
                                         #   no parent), row-major, m
          "T_child_frame": [16 floats],  # child-side frame in this link's frame, row-major, m
          "q": [dof floats],             # configuration (m, rad; layout of the joint type);
                                         #   keyframeable: '["vart"]["joints"]["knee"]["q"]'
          "lower": [dof], "upper": [dof],# per-DoF limits; -inf / +inf for none (stored as is)
          "pitch": 0.0,                  # helical: m per turn
          "virtual": False, "tree": True,# bools; tree = wanted in the spanning tree
          "locked": False, "lock_q": [dof],
          "target_mask": [dof bools], "target_q": [dof],  # no DoF selected = no target
          "has_posture": False, "posture_q": [dof],
          "stiffness": 0.0, "rest_q": [dof],   # N/m or N m/rad; 0 = no spring (1-DoF only)
          "mimic": {"leader": "hip", "multiplier": 1.0, "offset": 0.0},  # optional
        }}}

The goal keys (``locked`` / ``lock_q`` ... above, the link's ``locked`` / ``lock_pose``, and
``<kind>`` / ``<kind>_<value>`` of every later goal kind) are not listed here by hand: they
come from the goal kinds' declarations (:mod:`.goal_fields`).

Decisions (each tested in ``tests/blender/test_bridge_*.py``):

- Bools are stored as real bools (Blender >= 4.0 has a boolean ID property type); the ints 0/1
  of hand edits are read as bools. Floats are always written as floats, never ints (an int
  property keys as steps); ints typed by hand are read as floats.
- ``+-inf`` limits are stored as they are: Blender keeps them through save and reload.
- The parent is an ID pointer (it follows renames). ``bpy.data.objects.remove`` clears such a
  pointer to None, which alone would read as "the world", so ``parent_name`` keeps the name:
  a None pointer with a non-empty ``parent_name`` is a deleted parent and is refused. A
  pointer also counts as a user of the parent, so ``bpy.ops.object.delete`` leaves the parent
  alive in ``bpy.data`` but outside the scene: also refused ("not in this scene").
- Joint names are unique in a scene (the solver names joints globally); a duplicate (e.g. after
  Shift+D of a link) is refused naming both objects. Names are at most 63 characters (Blender's
  limit for ID property keys).
- Keys not in this layout are refused (a typo in a hand edit must not be silently ignored).
  Missing optional keys take their defaults; ``type``, ``T_parent_mob``, ``T_child_frame`` and
  ``q`` are required.
- A closure joint's stored ``q`` is output only (the fit of its relative pose, refreshed by
  :meth:`~.scene.SceneBridge.write_back`); a tree joint's ``q`` is read.
"""
from __future__ import annotations

from dataclasses import fields, replace

import bpy
import numpy as np

from ..solver.joint_types import CATALOG
from . import checks as CK
from . import goal_fields as GF
from .errors import SchemaError
from .records import IDENTITY16, JointData, LinkData, MimicData, SceneData

KEY = "vart"
VERSION = 1
MAX_NAME = 63
_TOP_KEYS = ("version", "link", "joints")
_LINK_KEYS = ("mass", "com", "virtual", "root_tree") + GF.keys("link")
_JOINT_KEYS = ("type", "parent", "parent_name", "T_parent_mob", "T_child_frame", "q", "lower",
               "upper", "pitch", "virtual", "tree") + GF.keys("joint") + ("mimic",)
_LINK_FIELDS = frozenset(f.name for f in fields(LinkData))
_JOINT_FIELDS = frozenset(f.name for f in fields(JointData))
_MIMIC_KEYS = ("leader", "multiplier", "offset")

#: How many times link or joint data was written other than a joint's q (see :func:`edits`).
_EDITS = [0]


def edits() -> int:
    """A count that grows whenever this module writes a link's or joint's fields, other than
    a joint's ``q`` (:func:`write_q`): what reads every link's properties to notice an edit
    (live mode, at each frame) reads them again only when it changed. Code that writes
    ``ob["vart"]`` itself calls :func:`touched`."""
    return _EDITS[0]


def touched() -> None:
    """Count a write of link or joint data made outside this module (see :func:`edits`)."""
    _EDITS[0] += 1


# ---- paths --------------------------------------------------------------------------------
def q_data_path(joint: str) -> str:
    """The RNA path of a joint's q on its child object, for keyframes and drivers."""
    return f'["{KEY}"]["joints"]["{bpy.utils.escape_identifier(joint)}"]["q"]'


def is_link(ob) -> bool:
    """True if the object carries vart data (valid or not)."""
    return ob is not None and KEY in ob


# ---- reading ------------------------------------------------------------------------------
def _top(ob) -> dict:
    raw = ob.get(KEY)
    d = raw.to_dict() if hasattr(raw, "to_dict") else raw
    d = CK.group(d, ob.name, (KEY,))
    CK.known_keys(d, _TOP_KEYS, ob.name, (KEY,))
    version = CK.integer(d.get("version", VERSION), ob.name, (KEY, "version"))
    if version > VERSION:
        raise SchemaError(ob.name, (KEY, "version"), f"written by a newer vart (schema "
                          f"{version}; this one reads {VERSION}): update the extension")
    return d


def _link_from(d: dict, name: str) -> LinkData:
    p = (KEY, "link")
    d = CK.group(d, name, p)
    CK.known_keys(d, _LINK_KEYS, name, p)
    g = d.get
    own, goals = GF.split(GF.read(d, name, p, "link"), _LINK_FIELDS, "link")
    return LinkData(
        name=name,
        mass=CK.number(g("mass", 0.0), name, p + ("mass",), nonneg=True),
        com=CK.numbers(g("com", (0.0, 0.0, 0.0)), 3, name, p + ("com",)),
        virtual=CK.flag(g("virtual", False), name, p + ("virtual",)),
        root_tree=CK.flag(g("root_tree", True), name, p + ("root_tree",)),
        goals=goals, **own)


def _joint_from(d: dict, jname: str, obj: str) -> JointData:
    """Validate one joint's plain dict (everything that needs no other object)."""
    p = (KEY, "joints", jname)
    d = CK.group(d, obj, p)
    if len(jname) > MAX_NAME or not jname.strip():
        raise SchemaError(obj, p, f"a joint name must be 1 to {MAX_NAME} characters")
    CK.known_keys(d, _JOINT_KEYS, obj, p)
    for req in ("type", "T_parent_mob", "T_child_frame", "q"):
        if req not in d:
            raise SchemaError(obj, p + (req,), "missing")
    jtype = CK.text(d["type"], obj, p + ("type",))
    if jtype not in CATALOG:
        raise SchemaError(obj, p + ("type",), f"unknown joint type {jtype!r}; known types: "
                          + ", ".join(CATALOG))
    n = CATALOG[jtype].dof
    g = d.get
    parent_ob = CK.object_or_none(g("parent"), obj, p + ("parent",))
    parent_name = CK.text(g("parent_name", ""), obj, p + ("parent_name",), empty_ok=True)
    q = CK.numbers(d["q"], n, obj, p + ("q",))
    inf = (float("inf"),) * n
    lower = CK.numbers(g("lower", tuple(-x for x in inf)), n, obj, p + ("lower",), inf_ok=True)
    upper = CK.numbers(g("upper", inf), n, obj, p + ("upper",), inf_ok=True)
    for i, (lo, hi) in enumerate(zip(lower, upper)):
        if lo > hi or lo == float("inf") or hi == -float("inf"):
            raise SchemaError(obj, p + ("lower",), f"entry {i}: lower limit {lo} must be "
                              f"below upper limit {hi}")
    own, goals = GF.split(GF.read(d, obj, p, "joint", q, jtype, n), _JOINT_FIELDS, "joint",
                          n, q)
    mimic = None
    if "mimic" in d:
        m = CK.group(d["mimic"], obj, p + ("mimic",))
        CK.known_keys(m, _MIMIC_KEYS, obj, p + ("mimic",))
        if "leader" not in m:
            raise SchemaError(obj, p + ("mimic", "leader"), "missing")
        mimic = MimicData(CK.text(m["leader"], obj, p + ("mimic", "leader")),
                          CK.number(m.get("multiplier", 1.0), obj, p + ("mimic", "multiplier")),
                          CK.number(m.get("offset", 0.0), obj, p + ("mimic", "offset")))
        if n != 1:
            raise SchemaError(obj, p + ("mimic",), f"only 1-DoF joints can mimic; a {jtype} "
                              f"joint has {n}")
    return JointData(
        name=jname, child=obj, type=jtype,
        parent=None if parent_ob is None else parent_ob.name,
        parent_name=parent_name,
        T_parent_mob=CK.pose(d["T_parent_mob"], obj, p + ("T_parent_mob",)),
        T_child_frame=CK.pose(d["T_child_frame"], obj, p + ("T_child_frame",)),
        q=q, lower=lower, upper=upper,
        pitch=CK.number(g("pitch", 0.0), obj, p + ("pitch",)),
        virtual=CK.flag(g("virtual", False), obj, p + ("virtual",)),
        tree=CK.flag(g("tree", True), obj, p + ("tree",)),
        mimic=mimic, goals=goals, **own)


#: The last validated read of each link object, by name: (its plain dict, the read). A read
#: depends only on the dict, the object's name and its joints' parent objects' names, so an
#: equal dict (and unchanged parent names) gives the same read without validating it again:
#: a bake whose goals are animated syncs the scene at every frame, and most objects do not
#: change. (Dicts holding NaN never compare equal: they are read, and refused, again.)
_LAST_READ: dict[str, tuple] = {}
_LAST_READ_MAX = 200_000


def _same_parents(js) -> bool:
    try:
        return all(p is None or not hasattr(p, "name") or p.name == j.parent for j, p in js)
    except ReferenceError:  # a parent object was deleted
        return False


def _read_object(ob):
    d = _top(ob)
    last = _LAST_READ.get(ob.name)
    if last is not None and last[0] == d and _same_parents(last[1][1]):
        return last[1]
    if len(_LAST_READ) >= _LAST_READ_MAX:
        _LAST_READ.clear()
    read = _parse_object(ob, d)
    _LAST_READ[ob.name] = (d, read)
    return read


def _parse_object(ob, d):
    """(link, [(joint, its parent object or None), ...]) of an object's plain dict ``d``;
    a joint whose dict is as at the object's last read keeps its read (one animated goal
    field re-reads its joint only)."""
    last = _LAST_READ.get(ob.name)
    kept = {} if last is None else {j.name: (last[0]["joints"][j.name], j, p)
                                    for j, p in last[1][1]}
    link = _link_from(d.get("link", {}), ob.name)
    joints = CK.group(d.get("joints", {}), ob.name, (KEY, "joints"))
    out = []
    for jn, jd in joints.items():
        k = kept.get(jn)
        if k is not None and k[0] == jd and _same_parents([k[1:]]):
            out.append(k[1:])
            continue
        j = _joint_from(jd, jn, ob.name)
        out.append((j, jd.get("parent") if isinstance(jd, dict) else None))
    return link, out


def read_object(ob) -> tuple[LinkData, list[JointData]]:
    """One link object's data, validated on its own (no cross-object checks)."""
    link, js = _read_object(ob)
    return link, [j for j, _ in js]


def read_scene(objects) -> SceneData:
    """Read and validate every link among ``objects`` (objects without ``ob["vart"]`` are
    skipped). Raises :class:`SchemaError` naming the object and key path of the first problem:
    wrong type or size, NaN/inf, unknown joint type or key, a parent that is deleted, not in
    ``objects``, not a link or the child itself, a duplicate joint name, a missing mimic leader.
    """
    links: dict[str, LinkData] = {}
    joints: dict[str, JointData] = {}
    obs: dict[str, bpy.types.Object] = {}
    for ob in objects:
        if not is_link(ob):
            continue
        if ob.name in obs and obs[ob.name] != ob:
            raise SchemaError(ob.name, (), "two link objects share this name (one is linked "
                              "from a library); rename one")
        obs[ob.name] = ob
    for name in sorted(obs):
        ob = obs[name]
        link, js = _read_object(ob)
        links[name] = link
        for j, parent_ob in js:
            if j.name in joints:
                raise SchemaError(name, (KEY, "joints", j.name), "duplicate joint name: object "
                                  f"{joints[j.name].child!r} has a joint with the same name "
                                  "(joint names must be unique in a scene)")
            _check_parent(j, parent_ob, ob, obs)
            joints[j.name] = j
    for j in joints.values():
        if j.mimic is not None:
            p = (KEY, "joints", j.name, "mimic", "leader")
            lead = joints.get(j.mimic.leader)
            if lead is None:
                raise SchemaError(j.child, p, f"no joint named {j.mimic.leader!r}")
            if lead.dof != 1 or lead is j:
                raise SchemaError(j.child, p, f"joint {lead.name!r} cannot be a leader here "
                                  "(it must be another 1-DoF joint)")
    return SceneData(links=links, joints=dict(sorted(joints.items())))


def _check_parent(j: JointData, parent_ob, child_ob, obs: dict):
    p = (KEY, "joints", j.name, "parent")
    if parent_ob is None:
        if j.parent_name:
            raise SchemaError(j.child, p, f"the parent object {j.parent_name!r} no longer "
                              "exists (deleted, or not appended with this object)")
        return
    if parent_ob == child_ob:
        raise SchemaError(j.child, p, "a joint cannot connect a link to itself")
    if not is_link(parent_ob):
        raise SchemaError(j.child, p, f"the parent object {parent_ob.name!r} is not a link "
                          f"(it has no [\"{KEY}\"] property)")
    if obs.get(parent_ob.name) != parent_ob:
        raise SchemaError(j.child, p, f"the parent object {parent_ob.name!r} is not in this "
                          "scene (deleted, or not appended with this object)")


# ---- writing ------------------------------------------------------------------------------
def _flat16(M, what=None):
    """A 4x4 matrix (nested, numpy, mathutils) or 16 numbers -> 16 floats row-major. Values
    that are not numbers are passed through for the validator to report."""
    return _floats(M)


_floats = CK.plain_floats  # (short name: used in many places below)


def _link_dict(link: LinkData) -> dict:
    return {"mass": _num(link.mass), "com": _floats(link.com), "virtual": link.virtual,
            "root_tree": link.root_tree, **GF.stored(link, "link")}


_BOOL_KEYS = ("virtual", "tree")
_FLOAT_KEYS = ("pitch",)
_ARRAY_KEYS = ("T_parent_mob", "T_child_frame", "q", "lower", "upper")


def _num(v):
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v


def _joint_dict(j: JointData, parent_ob) -> dict:
    """The stored form of a joint: floats as floats, bools as bools. Values of the wrong kind
    are passed through unchanged, so that validating the result reports them."""
    d = {"type": j.type, "parent": parent_ob, "parent_name": j.parent_name}
    for k in _ARRAY_KEYS:
        d[k] = _floats(getattr(j, k))
    for k in _FLOAT_KEYS:
        d[k] = _num(getattr(j, k))
    for k in _BOOL_KEYS:
        d[k] = getattr(j, k)
    d.update(GF.stored(j, "joint"))
    if j.mimic is not None:
        d["mimic"] = {"leader": j.mimic.leader, "multiplier": _num(j.mimic.multiplier),
                      "offset": _num(j.mimic.offset)}
    return d


def _check_parent_arg(child_ob, name, parent):
    if parent is None:
        return
    p = (KEY, "joints", name, "parent")
    if parent == child_ob:
        raise SchemaError(child_ob.name, p, "a joint cannot connect a link to itself")
    if not is_link(parent):
        raise SchemaError(child_ob.name, p, f"the parent object {parent.name!r} is not a link")


def _ensure(ob):
    if not isinstance(ob, bpy.types.Object):
        raise SchemaError(None, (), f"expected an object, got {type(ob).__name__}")
    if KEY not in ob.keys():
        ob[KEY] = {"version": VERSION, "link": _link_dict(LinkData(ob.name)), "joints": {}}
    else:
        _top(ob)  # refuses garbage and newer files before we write into them
        if "joints" not in ob[KEY]:
            ob[KEY]["joints"] = {}


def _goal_keys(ob, given: dict, owner: str, joint: str | None = None) -> dict:
    """``given`` checked to be stored goal keys of a link (or joint ``joint``)."""
    known = GF.keys(owner)
    for k in given:
        if k not in known:
            path = (KEY, "link") if joint is None else (KEY, "joints", joint)
            raise SchemaError(getattr(ob, "name", None), path + (k,),
                              "unknown field (known goal keys: " + ", ".join(known) + ")")
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in given.items()}


def write_link(ob, *, mass: float = 0.0, com=(0.0, 0.0, 0.0), virtual: bool = False,
               root_tree: bool = True, locked: bool = False, lock_pose=None,
               goals: tuple = (), **goal_keys) -> LinkData:
    """Make ``ob`` a link (or rewrite its link fields, keeping its joints). Validates first.
    ``goal_keys`` (and ``goals``, a record's pairs): stored keys of the link's other goals
    (:func:`.goal_fields.keys`)."""
    d = {"mass": mass, "com": _floats(com), "virtual": virtual, "root_tree": root_tree,
         "locked": locked, "lock_pose": IDENTITY16 if lock_pose is None else
         _flat16(lock_pose, "lock_pose"),
         **_goal_keys(ob, {**dict(goals), **goal_keys}, "link")}
    link = _link_from(d, ob.name)
    touched()
    _ensure(ob)
    ob[KEY]["link"] = _link_dict(link)
    ob[KEY]["version"] = VERSION
    return link


def update_link(ob, **changes) -> LinkData:
    """Change some link fields (names of :class:`LinkData` fields); validates first."""
    if not is_link(ob):
        raise SchemaError(ob.name, (KEY,), "not a link")
    link, _ = read_object(ob)
    now = {f.name: getattr(link, f.name) for f in fields(LinkData)
           if f.name not in ("name", "goals")}
    return write_link(ob, **{**now, "goals": link.goals, **changes})


def write_joint(child_ob, name: str, jtype: str, parent=None, *, T_parent_mob=None,
                T_child_frame=None, q=None, lower=None, upper=None, pitch: float = 0.0,
                virtual: bool = False, tree: bool = True, locked: bool = False, lock_q=None,
                target_q=None, target_mask=None, posture_q=None, stiffness: float = 0.0,
                rest_q=None, mimic=None, goals: tuple = (), **goal_keys) -> JointData:
    """Write (or replace) joint ``name`` on its child link ``child_ob``; ``parent`` is the parent
    link object or None for the world. Frames are 4x4 (identity by default), see the module
    doc. ``target_q`` without a mask targets every DoF; ``posture_q`` sets the posture;
    ``mimic`` is ``(leader, multiplier, offset)``; ``goal_keys`` (and ``goals``, a record's
    pairs): stored keys of the joint's other goals (:func:`.goal_fields.keys`). Validates everything first; on error
    nothing is written. Scene-wide checks (unique names, mimic leader) happen in
    :func:`read_scene`.
    """
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        raise SchemaError(getattr(child_ob, "name", None), (KEY, "joints", name),
                          f"a joint name must be 1 to {MAX_NAME} characters")
    if jtype not in CATALOG:
        raise SchemaError(child_ob.name, (KEY, "joints", name, "type"),
                          f"unknown joint type {jtype!r}; known types: " + ", ".join(CATALOG))
    n = CATALOG[jtype].dof
    _check_parent_arg(child_ob, name, parent)
    qv = _floats(np.zeros(n) if q is None else q)
    inf = [float("inf")] * n
    d = {"type": jtype, "parent": parent, "parent_name": "" if parent is None else parent.name,
         "T_parent_mob": _flat16(np.eye(4) if T_parent_mob is None else T_parent_mob,
                                 "T_parent_mob"),
         "T_child_frame": _flat16(np.eye(4) if T_child_frame is None else T_child_frame,
                                  "T_child_frame"),
         "q": qv, "lower": [-x for x in inf] if lower is None else _floats(lower),
         "upper": inf if upper is None else _floats(upper), "pitch": pitch,
         "virtual": virtual, "tree": tree, "locked": locked,
         "lock_q": qv if lock_q is None else _floats(lock_q),
         "target_mask": [target_q is not None] * n if target_mask is None else
         np.asarray(target_mask).reshape(-1).tolist(),
         "target_q": qv if target_q is None else _floats(target_q),
         "has_posture": posture_q is not None,
         "posture_q": qv if posture_q is None else _floats(posture_q),
         "stiffness": stiffness, "rest_q": qv if rest_q is None else _floats(rest_q),
         **_goal_keys(child_ob, {**dict(goals), **goal_keys}, "joint", name)}
    if mimic is not None:
        leader, mult, off = (tuple(mimic) + (1.0, 0.0))[:3]
        d["mimic"] = {"leader": leader, "multiplier": mult, "offset": off}
    j = _joint_from(d, name, child_ob.name)
    touched()
    _ensure(child_ob)
    child_ob[KEY]["joints"][name] = _joint_dict(j, parent)
    return j


def update_joint(child_ob, name: str, **changes) -> JointData:
    """Change some fields of an existing joint (names of :class:`JointData` fields; ``parent``
    takes an object or None). Validates the result first; writes only the changed keys."""
    _, js = read_object(child_ob)
    old = next((j for j in js if j.name == name), None)
    if old is None:
        raise SchemaError(child_ob.name, (KEY, "joints", name), "no such joint")
    grp = child_ob[KEY]["joints"][name]
    parent_ob = grp.get("parent")
    if "parent" in changes:
        parent_ob = changes.pop("parent")
        _check_parent_arg(child_ob, name, parent_ob)
        changes["parent"] = None if parent_ob is None else parent_ob.name
        changes["parent_name"] = changes["parent"] or ""
    if changes.get("mimic") is not None and not isinstance(changes["mimic"], MimicData):
        changes["mimic"] = MimicData(*changes["mimic"])
    own = {k: v for k, v in changes.items() if k in _JOINT_FIELDS}
    goals = {k: v for k, v in changes.items() if k not in _JOINT_FIELDS}
    if goals:
        own["goals"] = tuple(sorted({**dict(old.goals), **goals}.items()))
    d = _joint_dict(replace(old, **own), parent_ob)
    checked = _joint_from(d, name, child_ob.name)
    cur = grp.to_dict()
    touched()
    for k, v in d.items():
        if repr(cur.get(k)) != repr(v):  # repr: 1 and 1.0 differ, so ints get rewritten
            grp[k] = v
    if "mimic" not in d and "mimic" in grp:
        del grp["mimic"]
    return checked


def write_q(child_ob, name: str, q) -> None:
    """Store a joint's configuration (floats). The caller has validated size and finiteness."""
    child_ob[KEY]["joints"][name]["q"] = _floats(q)


def write_qs(child_obs: dict, joints) -> None:
    """:func:`write_q` of many joints: ``joints`` gives ``(child object name, joint name, q
    as a list of Python floats)`` (any iterable), ``child_obs`` the objects by name. Each child's joint group
    is looked up once (a frame of a 2,700-joint tower writes every q)."""
    groups: dict = {}
    for child, name, q in joints:
        grp = groups.get(child)
        if grp is None:
            grp = groups[child] = child_obs[child][KEY]["joints"]
        grp[name]["q"] = q


def remove_joint(child_ob, name: str) -> None:
    """Delete a joint from its child link (its F-curves, if any, are left to the caller)."""
    joints = child_ob[KEY]["joints"]
    if name not in joints:
        raise SchemaError(child_ob.name, (KEY, "joints", name), "no such joint")
    touched()
    del joints[name]


def remove_link(ob) -> None:
    """Remove all vart data from ``ob`` (joints on other links that point at it become errors)."""
    if KEY in ob.keys():
        touched()
        del ob[KEY]
