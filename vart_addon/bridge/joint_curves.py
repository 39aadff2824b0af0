"""A joint's F-curves follow the edits of its joint; a link's follow the link.

Keys on a joint's properties live on its child object at ``["vart"]["joints"]["<name>"][...]``
(its value ``q``, goal values such as ``target_q``, limits...). An edit (:mod:`.edits`) that
changes the joint takes its curves along, so nothing is left pointing at a property that is
gone, and nothing animates a property that now means something else:

- **removed** (or merged, its child welded): its curves are deleted;
- **renamed**: the curves' data paths take the new name;
- **moved to another child object** (a split link's joints): the curves move to the new
  child, keys unchanged;
- **inverted** (parent and child swapped): the curves move to the new child, and every
  per-DoF value is that of the inverse motion (:func:`vart_addon.solver.tree_edit.
  inverse_config`: minus the value for a 1-DoF joint; for more DoF, re-keyed at every keyed
  frame); limits swap and negate as the joint's do;
- **re-typed with another DoF count**: its per-DoF curves (value, goal values, masks, limits)
  are deleted, as the edit clears those goals;
- a **link that stops being a link** (removed, or welded by a merge) loses the curves of its
  ``["vart"]`` properties and the bake's output curves (:data:`.animation.BAKE_GROUP`); keys
  the user made on its transform stay.
"""
from __future__ import annotations

import bpy
import numpy as np

from ..solver.joint_types import CATALOG
from ..solver.tree_edit import inverse_config
from . import animation as A
from . import goal_fields as GF
from .schema import KEY

#: Joint fields with one value per DoF (in the joint's layout); ``CONFIGS`` of them are
#: configurations (values of the joint's motion), the rest masks.
CONFIGS = ("q",) + tuple(GF.keys_of("config"))
PER_DOF = CONFIGS + ("lower", "upper") + tuple(GF.keys_of("mask"))


def joint_prefix(joint: str) -> str:
    """The data-path prefix of a joint's properties on its child object."""
    return f'["{KEY}"]["joints"]["{bpy.utils.escape_identifier(joint)}"]'


def _field_path(joint: str, field: str) -> str:
    return f'{joint_prefix(joint)}["{field}"]'


def joint_curves(ob, joint: str) -> dict:
    """``{field: {index: fcurve}}`` of the F-curves on ``ob`` animating ``joint``'s fields."""
    head = joint_prefix(joint) + '["'
    out: dict = {}
    for fc in A.fcurves_of(ob):
        p = fc.data_path
        if p.startswith(head) and p.endswith('"]'):
            out.setdefault(p[len(head):-2], {})[fc.array_index] = fc
    return out


def _remove(ob, curves: dict) -> int:
    n = 0
    for by_index in curves.values():
        for fc in by_index.values():
            A.remove_fcurve(ob, fc)
            n += 1
    return n


def _rekey_inverse(src, dst, old, new_name: str, field: str, by_index: dict) -> None:
    """Multi-DoF inversion of one configuration field: keys at every frame any DoF is keyed,
    valued as the inverse motion of the (evaluated) configuration there."""
    jt = CATALOG[old.type]
    stored = np.array(getattr(old, field) or old.q, float)
    frames = sorted({round(float(k.co[0]), 4) for fc in by_index.values()
                     for k in fc.keyframe_points})
    Q = np.tile(stored, (len(frames), 1))
    for i, fc in by_index.items():
        Q[:, i] = A.sample(fc, frames)
    inv = np.array([inverse_config(jt, q, old.pitch) for q in Q])
    group = A.group_of(next(iter(by_index.values())))
    for fc in by_index.values():
        A.remove_fcurve(src, fc)
    path = _field_path(new_name, field)
    for i in range(jt.dof):
        fc = A.ensure_fcurve(dst, path, i, group)
        A.write_keys(fc, frames, inv[:, i], interpolation="BEZIER")


def _move(src, dst, old, new_name: str, curves: dict, inverted: bool) -> None:
    """Curves of joint ``old`` on ``src`` to ``new_name`` on ``dst`` (see the module doc)."""
    jt = CATALOG[old.type]
    swap = {"lower": "upper", "upper": "lower"}
    for field, by_index in curves.items():
        if inverted and field in CONFIGS and jt.dof > 1:
            _rekey_inverse(src, dst, old, new_name, field, by_index)
            continue
        negate = inverted and (field in CONFIGS or field in swap)
        target = swap.get(field, field) if inverted else field
        path = _field_path(new_name, target)
        for i, fc in by_index.items():
            if src == dst and not negate and field == target:
                fc.data_path = path  # a rename on the same object: in place
                continue
            A.copy_fcurve(fc, dst, path, i, values=np.negative if negate else None)
            A.remove_fcurve(src, fc)


def follow_edit(old, new, objects: dict, renamed: dict | None = None,
                unlinked=()) -> int:
    """Make the F-curves follow an edit (see the module doc). ``old`` / ``new``: the scene's
    data (:class:`.records.SceneData`) before and after; ``objects``: every object the edit
    saw, by name (also those no longer links); ``renamed``: old joint name -> new;
    ``unlinked``: names of objects that stopped being links. Returns the number of curves
    deleted or moved."""
    renamed = renamed or {}
    n = 0
    for name, o in old.joints.items():
        src = objects.get(o.child)
        if src is None or o.child in unlinked:
            continue
        curves = joint_curves(src, name)
        if not curves:
            continue
        new_name = renamed.get(name, name)
        rec = new.joints.get(new_name)
        if rec is None:
            n += _remove(src, curves)
            continue
        if CATALOG[rec.type].dof != CATALOG[o.type].dof:
            n += _remove(src, {f: c for f, c in curves.items() if f in PER_DOF})
            curves = {f: c for f, c in curves.items() if f not in PER_DOF}
        inverted = rec.child == o.parent and rec.parent == o.child
        if new_name != name or rec.child != o.child:
            _move(src, objects[rec.child], o, new_name, curves, inverted)
            n += sum(len(c) for c in curves.values())
    for nm in unlinked:
        ob = objects.get(nm)
        if ob is None:
            continue
        for fc in A.fcurves_of(ob):
            if fc.data_path.startswith(f'["{KEY}"]') or A.group_of(fc) == A.BAKE_GROUP:
                A.remove_fcurve(ob, fc)
                n += 1
    return n
