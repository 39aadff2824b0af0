"""User edits of the mechanism: a solver mutation applied to the scene's links and joints.

Every edit goes the same way, so the solver's validation applies to what users do in Blender:

1. sync a :class:`~.scene.SceneBridge` (reads and validates the whole scene: a corrupt property
   anywhere refuses the edit, :class:`SchemaError`, before anything changes);
2. apply the mutation to the bridge's :class:`~vart_addon.solver.Linkage` (``mutate(lk)``; its
   :class:`~vart_addon.solver.VartError` becomes a :class:`BridgeError` with the same message);
3. write what the mutated linkage holds into the ID properties, through :mod:`.schema`'s write
   functions, only where it differs (joints that changed child object move between objects,
   links that disappeared lose their ``ob["vart"]``, new links get new objects);
4. sync again (a rebuild from the written properties: what every later reader will see), solve
   when asked (or when the mutation moved a link, e.g. a tree joint snapped onto a new type),
   and write poses back through :meth:`~.scene.SceneBridge.write_back`.

If anything fails after step 3 started, every touched object's ``ob["vart"]``, world matrix and
Blender parent are restored and created objects are removed: an edit either happens completely
or not at all. Poses are ``T_world_link`` 4x4 in metres; joint values in metres and radians.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from typing import Any

import bpy
import numpy as np
from mathutils import Matrix

from ..solver import Settings, SolveStatus, VartError, se3
from ..solver.joint_types import CATALOG
from . import goal_fields as GF
from . import joint_curves as JC
from . import poses as P
from . import schema as S
from .errors import BridgeError
from .records import JointData, LinkData, MimicData
from .scene import SceneBridge

#: Stored floats closer than this (relative to max(1, |x|)) to what the linkage holds are kept
#: as stored: the linkage re-orthonormalizes frames, and a rewrite should not drift.
KEEP_TOL = 1e-12


@dataclass
class EditResult:
    """What an edit did: ``value`` returned by the mutation; names of joints and links whose
    properties were written; links that stopped being links; objects created; objects whose
    world matrix was written; the solve status (None if no solve ran)."""

    value: Any = None
    joints: list = field(default_factory=list)
    links: list = field(default_factory=list)
    removed: list = field(default_factory=list)
    created: list = field(default_factory=list)
    moved: list = field(default_factory=list)
    status: SolveStatus | None = None


# ---- linkage -> records -----------------------------------------------------------------------
def _f(v) -> tuple:
    return tuple(float(x) for x in np.asarray(v, float).reshape(-1))


def _close(a, b) -> bool:
    """Float tuples equal within KEEP_TOL relative to max(1, |entries|) (infinities equal)."""
    if a == b:
        return True
    if len(a) != len(b):
        return False
    scale = max([1.0] + [abs(x) for x in a if math.isfinite(x)])
    tol = KEEP_TOL * scale
    return all(x == y or abs(x - y) <= tol for x, y in zip(a, b))


def _keep(new, old, names):
    """``new`` with each float field of ``names`` replaced by ``old``'s when they are close."""
    if old is None:
        return new
    keep = {k: getattr(old, k) for k in names if _close(getattr(new, k), getattr(old, k))}
    return replace(new, **keep)


def pose_of_root_q(q) -> np.ndarray:
    """``T_world_link`` from a root joint configuration ``(x, y, z, wx, wy, wz)``."""
    q = np.asarray(q, float)
    return se3.make_pose(se3.so3_exp(q[3:]), q[:3])


_LINK_FIELDS = frozenset(f.name for f in fields(LinkData))
_JOINT_FIELDS = frozenset(f.name for f in fields(JointData))


def link_record(lk, name: str, old: LinkData | None) -> LinkData:
    """What the linkage holds for link ``name``, as stored data."""
    link = lk.links[name]

    def payload(key, value):  # a goal that is off keeps what is stored
        return getattr(old, key) if old is not None else GF.default(key, "link")

    own, goals = GF.split(GF.from_solver(lk, name, payload, "link"), _LINK_FIELDS, "link")
    new = LinkData(name=name, mass=float(link.mass), com=_f(link.com), virtual=bool(link.virtual),
                   root_tree=bool(lk.tree_edge[name].is_root), goals=goals, **own)
    if old is not None and _close((new.mass,), (old.mass,)):
        new = replace(new, mass=old.mass)
    return _keep(new, old, ("com", "lock_pose"))


def joint_record(lk, j, poses, old: JointData | None) -> JointData:
    """What the linkage holds for joint ``j`` (a solver Joint), as stored data. Payloads of
    goals that are off keep their stored values (or take q)."""
    q = _f(lk.joint_q(j, poses))
    same = old is not None and CATALOG[old.type].layout == j.jtype.layout

    def payload(key, value):  # a goal that is off keeps what is stored, or takes q
        if same:
            return getattr(old, key)
        return GF.default(key, "joint", j.dof, q)

    own, goals = GF.split(GF.from_solver(lk, j.name, payload, "joint", j.dof),
                          _JOINT_FIELDS, "joint", j.dof, q)
    new = JointData(
        name=j.name, child=j.child, type=j.jtype.name, parent=j.parent,
        parent_name=j.parent or "", T_parent_mob=_f(j.T_parent_mob),
        T_child_frame=_f(j.T_child_frame), q=q, lower=_f(j.lower), upper=_f(j.upper),
        pitch=float(j.pitch), virtual=bool(j.virtual), tree=bool(j.is_tree),
        mimic=None if j.mimic is None else MimicData(j.mimic[0], float(j.mimic[1]),
                                                     float(j.mimic[2])),
        goals=goals, **own)
    if not same:
        return new
    return _keep(new, old, ("T_parent_mob", "T_child_frame", "q", "lower", "upper")
                 + tuple(k for k in GF.keys_of("config") if k in _JOINT_FIELDS))


# ---- Blender helpers --------------------------------------------------------------------------
def unique_object_name(base: str) -> str:
    """``base``, or ``base.001``... the first name no object in ``bpy.data`` has (<= 63)."""
    base = base[:S.MAX_NAME]
    if bpy.data.objects.get(base) is None:
        return base
    for i in range(1, 100000):
        name = f"{base[:S.MAX_NAME - 4]}.{i:03d}"
        if bpy.data.objects.get(name) is None:
            return name
    raise BridgeError(f"no free object name for {base!r}")


def new_empty(name: str, T_world, collection, *, size: float = 0.25):
    """An empty (axes) named ``name`` at world pose ``T_world`` (4x4, m) in ``collection``."""
    ob = bpy.data.objects.new(name, None)
    ob.empty_display_type = 'ARROWS'
    ob.empty_display_size = size
    collection.objects.link(ob)
    ob.matrix_world = Matrix(np.asarray(T_world, float).tolist())
    return ob


def _update(scene) -> None:
    vl = bpy.context.view_layer
    (vl if vl is not None and bpy.context.scene == scene else scene.view_layers[0]).update()


def unique_joint_name(base: str, existing) -> str:
    """``base`` (cut to 63 characters), or ``base.001``... the first not in ``existing``."""
    base = base[:S.MAX_NAME]
    if base not in existing:
        return base
    for i in range(1, 100000):
        name = f"{base[:S.MAX_NAME - 4]}.{i:03d}"
        if name not in existing:
            return name
    raise BridgeError(f"no free joint name for {base!r}")


def _link_ancestor(ob, stop=None) -> bool:
    """True if a Blender ancestor of ``ob`` below ``stop`` is a link (it would move ob)."""
    for a in P.ancestors(ob):
        if a == stop:
            return False
        if S.is_link(a):
            return True
    return False


def _reparent_keep(ob, parent) -> None:
    """Blender-parent ``ob`` to ``parent`` (None: unparent) keeping its world matrix."""
    M = ob.matrix_world.copy()
    ob.parent = parent
    if parent is not None:
        ob.matrix_parent_inverse = parent.matrix_world.inverted()
    ob.matrix_world = M


class _Undo:
    """Restores link properties, local transforms and parents of touched objects on failure
    (the transform channels themselves, exactly: going through matrix_world would round)."""

    _CHANNELS = ("location", "rotation_mode", "rotation_euler", "rotation_quaternion",
                 "rotation_axis_angle", "scale", "parent", "matrix_parent_inverse")

    def __init__(self):
        self.saved = {}
        self.created = []

    def save(self, ob):
        if ob.name in self.saved:
            return
        raw = ob.get(S.KEY)
        chans = {}
        for k in self._CHANNELS:
            v = getattr(ob, k)
            chans[k] = (v.copy() if hasattr(v, "copy") else
                        tuple(v) if k == "rotation_axis_angle" else v)
        self.saved[ob.name] = (ob, raw.to_dict() if hasattr(raw, "to_dict") else raw, chans)

    def restore(self):
        S.touched()
        for ob, props, chans in self.saved.values():
            if props is None:
                if S.KEY in ob.keys():
                    del ob[S.KEY]
            else:
                ob[S.KEY] = props
            for k, v in chans.items():
                setattr(ob, k, v)
        for ob in self.created:
            bpy.data.objects.remove(ob)


# ---- the edit ---------------------------------------------------------------------------------
def edit(mutate, scene=None, *, solve: bool = False, settings: Settings | None = None,
         gravity=None, new_links: dict | None = None, reparent: dict | None = None,
         renamed: dict | None = None, bridge: SceneBridge | None = None,
         one_shot: bool = False) -> EditResult:
    """Apply ``mutate(linkage)`` to the scene (see the module doc). ``solve``: solve after
    writing (with ``settings`` and ``gravity``, m/s^2 or None); ``one_shot``: a solve the
    user asked for once, started without the damping earlier solves left (the solver's
    ``fresh``). ``new_links``: link name ->
    ``factory(T_world_link) -> object`` for links the mutation creates. ``reparent``: link
    name -> the link it was welded into (None: the ground), for links the mutation removes.
    ``renamed``: old joint name -> new, for joints the mutation renames. The F-curves of the
    joints and links the edit changed follow them (:mod:`.joint_curves`). Raises
    SchemaError / BridgeError with nothing changed."""
    bridge = bridge or SceneBridge(scene, settings)
    bridge.sync()
    lk, old = bridge.linkage, bridge.data
    assert lk is not None  # synced
    before = lk.poses()
    try:
        value = mutate(lk)
        after = lk.poses()
    except VartError as e:
        bridge.invalidate()
        raise BridgeError(str(e)) from None
    except BaseException:
        bridge.invalidate()
        raise
    result = EditResult(value=value)
    moved = any(n in before and not P.same_pose(after[n], before[n], KEEP_TOL) for n in after)
    undo = _Undo()
    obs = bridge.objects()
    seen = dict(obs)  # every object of the edit, also those that stop being links
    try:
        _write(lk, old, obs, after, {} if new_links is None else new_links,
               {} if reparent is None else reparent, undo, bridge.scene, result)
        bridge.sync()
        if solve or moved:
            assert bridge.linkage is not None  # synced (maybe rebuilt: not lk)
            bridge.linkage.set_gravity(gravity)
            result.status = bridge.solve(settings, sync=False, fresh=one_shot)
        result.moved = bridge.write_back().links
        seen.update(obs)
        JC.follow_edit(old, bridge.data, seen, renamed, result.removed)
    except VartError as e:
        bridge.invalidate()
        undo.restore()
        raise BridgeError(str(e)) from None
    except BaseException:
        bridge.invalidate()
        undo.restore()
        raise
    return result


def _fields(rec, skip, old=None) -> dict:
    """A record's fields by name, except ``skip`` (and, given ``old``, those equal to it)."""
    return {f.name: getattr(rec, f.name) for f in fields(rec) if f.name not in skip
            and (old is None or getattr(rec, f.name) != getattr(old, f.name))}


def _write(lk, old, obs, poses, new_links, reparent, undo, scene, result):
    """Step 3 of :func:`edit`: the properties from the mutated linkage (checks first)."""
    for n in lk.links:
        if n not in obs and n not in new_links:
            raise BridgeError(f"link {n!r} has no object")
    for jn in lk.joints:
        if len(jn) > S.MAX_NAME:
            raise BridgeError(f"joint name {jn!r} is longer than {S.MAX_NAME} characters")
    links = {n: link_record(lk, n, old.links.get(n)) for n in lk.links}
    joints = {n: joint_record(lk, j, poses, old.joints.get(n)) for n, j in lk.joints.items()}
    for ob in obs.values():
        undo.save(ob)
    for n in lk.links:  # new objects first: joints may point at them
        if n not in obs:
            ob = new_links[n](poses[n])
            undo.created.append(ob)
            if ob.name != n:
                raise BridgeError(f"the new object for link {n!r} got the name {ob.name!r}")
            obs[n] = ob
            result.created.append(n)
    for n, rec in links.items():
        o = old.links.get(n)
        if o is None:
            S.write_link(obs[n], **_fields(rec, ("name",)))
        elif rec != o:
            S.update_link(obs[n], **_fields(rec, ("name",), o))
        else:
            continue
        result.links.append(n)
    for n, o in old.joints.items():  # removed, or moved to another child object
        if n not in joints or joints[n].child != o.child:
            S.remove_joint(obs[o.child], n)
            result.joints.append(n)
    for n, rec in joints.items():
        o = old.joints.get(n)
        if o is not None and o.child == rec.child:
            if rec == o:
                continue
            changes = _fields(rec, ("name", "child", "parent_name"), o)
        else:  # new here: the required keys first, then the rest
            S.write_joint(obs[rec.child], n, rec.type, None if rec.parent is None else
                          obs[rec.parent], q=rec.q, T_parent_mob=rec.T_parent_mob,
                          T_child_frame=rec.T_child_frame)
            changes = _fields(rec, ("name", "child", "parent_name", "type", "q",
                                    "T_parent_mob", "T_child_frame"))
        if "parent" in changes:
            changes["parent"] = None if rec.parent is None else obs[rec.parent]
        if changes:
            S.update_joint(obs[rec.child], n, **changes)
        if n not in result.joints:
            result.joints.append(n)
    gone = [n for n in old.links if n not in lk.links]
    if gone:  # parents' world matrices must be current to reparent keeping transforms
        _update(scene)
    for n in gone:
        ob = obs[n]
        S.remove_link(ob)
        result.removed.append(n)
        if n in reparent:
            into = reparent[n]
            target = None if into is None else obs[into]
            if target is None and _link_ancestor(ob):
                _reparent_keep(ob, None)
            elif target is not None and (target not in P.ancestors(ob)
                                         or _link_ancestor(ob, stop=target)):
                _reparent_keep(ob, target)


# ---- edits that create or remove objects ------------------------------------------------------
def check_linkable(ob) -> None:
    """Refuse (BridgeError/SchemaError) an object that cannot be a link: library data, a
    mirrored or flat object, or one whose existing link data is corrupt."""
    if ob.library is not None or getattr(ob, "override_library", None) is not None:
        raise BridgeError(f"object {ob.name!r} is linked from a library; make it local first")
    P.rigid_and_scale(P.observe(ob), ob.name)  # refuses zero and negative scale
    if S.is_link(ob):
        S.read_object(ob)  # a corrupt link is reported, not silently kept


def make_link(ob, *, virtual: bool = False) -> bool:
    """Make ``ob`` a free link (its geometry is untouched); False if it already is one.
    Checks first (:func:`check_linkable`)."""
    check_linkable(ob)
    if S.is_link(ob):
        return False
    S.write_link(ob, virtual=virtual)
    return True


def add_virtual_link(name: str, T_world, collection):
    """A new virtual link: an empty named ``name`` (made unique) at ``T_world`` (4x4, m)."""
    T = np.asarray(T_world, float)
    if T.shape != (4, 4) or not np.isfinite(T).all():
        raise BridgeError("the pose of a new link must be a finite 4x4 matrix")
    ob = new_empty(unique_object_name(name or "Virtual"), T, collection)
    S.write_link(ob, virtual=True)
    return ob


def split_link(scene, link: str, T_world_new, *, joints=(), new_name: str = "",
               joint_name: str = "", jtype: str = "fixed", collection=None,
               **kw) -> EditResult:
    """Split ``link``: a new link (an empty named ``new_name``, made unique, at world pose
    ``T_world_new``) takes over ``joints`` and is connected to ``link`` (parent) by a new
    joint ``joint_name`` of type ``jtype`` at its origin. Nothing moves. ``value`` of the
    result is ``(new link name, new joint name)``."""
    scene = scene or bpy.context.scene
    collection = collection or scene.collection
    new = unique_object_name(new_name or f"{link}.part")

    def mutate(lk):
        jname = joint_name or unique_joint_name(f"{link}-{new}", lk.joints)
        T_link = lk.pose(link)
        T_new = np.asarray(T_world_new, float)
        if T_new.shape != (4, 4) or not np.isfinite(T_new).all():
            raise VartError("split_link: the new link's pose must be a finite 4x4 matrix")
        lk.split_link(link, new, list(joints), T_link_new=se3.inverse(T_link) @ T_new,
                      joint_name=jname, jtype=jtype)
        return new, jname

    def factory(T):
        return new_empty(new, T, collection)

    return edit(mutate, scene, new_links={new: factory}, **kw)


def rename_joint(scene, name: str, new_name: str, **kw) -> EditResult:
    """Rename joint ``name`` to ``new_name`` (1 to 63 characters, not taken): its
    properties, the mimics that follow it and its F-curves take the new name."""
    if isinstance(new_name, str) and len(new_name) > S.MAX_NAME:
        raise BridgeError(f"joint {name!r}: a joint name must be 1 to {S.MAX_NAME} "
                          f"characters, got {len(new_name)}")
    return edit(lambda lk: lk.rename_joint(name, new_name), scene,
                renamed={name: new_name}, **kw)


def merge_joint(scene, name: str, **kw) -> EditResult:
    """Weld joint ``name``'s child link into its parent (or the ground): the child object
    stops being a link and is Blender-parented to the parent link (keeping its world matrix)
    so it moves with it. ``value`` of the result is the merged link's name."""
    welded = {}  # filled by mutate, read when the properties are written

    def mutate(lk):
        j = lk.joint(name)
        welded[j.child] = j.parent
        lk.merge_joint(name)
        return j.child

    return edit(mutate, scene, reparent=welded, **kw)
