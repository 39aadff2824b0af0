"""Live fields of the sidebar: one slider per DoF of the active joint, the active link's mass
and centre of mass.

They are properties of a runtime group ``Scene.vart_live`` whose values are never stored:
each has a ``get`` that reads the scene through the bridge and a ``set`` that changes it, so
the sliders always show the joint's current value (also after a solve, undo or file load)
and there is nothing to keep in sync.

Why this design (and not an ``update`` callback on stored values, or buttons):

- Dragging a DoF slider operates the joint live: each step of the drag calls
  ``bpy.ops.vart.operate_joint(value=q)`` (the operator owns the semantics: set the value,
  solve, write back; for a closure joint it sets its target). Called from Python an operator
  pushes no undo step, so a drag does not flood the undo stack.
- The group lives on the Scene (an ID with undo), so Blender's UI pushes one undo step when
  the slider is released: one drag = one undo step.
- Display units come from the property subtypes: ANGLE (degrees or radians, per the scene's
  Rotation unit), DISTANCE (the scene's length unit and scale), MASS.

Mass and centre of mass are written through the bridge (``schema.update_link``), which
validates them (a refused value changes nothing and is printed: a setter cannot report).
Values arrive through float32 properties and are written as the decimal that was typed.
"""
from __future__ import annotations

import math

import bpy
from bpy.props import FloatProperty, FloatVectorProperty, PointerProperty

from ..bridge import SchemaError, schema
from ..shared import selection, units
from ..solver.text import float32_clean
from . import common as C

MAX_DOF = 6


def active_joint_data(context=None):
    """(child object, JointData) of the joint the operators act on (``scene.vart.active_joint``,
    or the single joint of the active link), or (None, None); (ob, None) if its data does not
    validate."""
    context = context if context is not None else bpy.context
    if C.settings(context) is None:
        return None, None
    found = selection.active_joint(context)
    if found is None:
        return None, None
    ob, name = found
    return ob, C.find_joint(context.scene, name, ob.name)[1]


def operate(scene, joint, q) -> str:
    """Operate ``joint`` (JointData, the active joint) to configuration ``q`` (m, rad) through
    ``vart.operate_joint``, whose ``value`` is in display units (6 entries). Returns "" on
    success, else why it did not happen (also printed: a property setter has no report
    area)."""
    if not C.has_operator("vart.operate_joint"):
        return "the Operate Joint operator is not available"
    kw = {"value": units.pad6(units.to_display(q, joint.type, scene))}
    try:
        result = bpy.ops.vart.operate_joint(**kw)  # type: ignore[attr-defined]  # add-on's ops
    except RuntimeError as e:  # the operator reported an error
        msg = str(e).strip()
        print(f"vart: operating {joint.name!r} failed: {msg}")
        return msg or "failed"
    return "" if 'FINISHED' in result else f"operator returned {set(result)}"


def _dof_get(i: int):
    def get(self):
        _, j = active_joint_data()
        if j is None or i >= len(j.q):
            return 0.0
        return float(j.q[i])
    return get


def _dof_set(i: int):
    def set_(self, value):
        scene = bpy.context.scene
        _, j = active_joint_data()
        if j is None or i >= len(j.q) or not math.isfinite(value):
            return
        if abs(float(j.q[i]) - value) <= 0.0:
            return
        q = list(j.q)
        q[i] = float32_clean(value)
        operate(scene, j, q)
    return set_


def _link_of(scene):
    ob = C.view_layer_of(scene).objects.active
    return ob if schema.is_link(ob) else None


def _link_get(field: str, default):
    def get(self):
        ob = _link_of(self.id_data)
        if ob is None:
            return default
        try:
            link, _ = schema.read_object(ob)
        except SchemaError:
            return default
        value = getattr(link, field)
        return tuple(value) if isinstance(default, tuple) else float(value)
    return get


def _link_set(field: str):
    def set_(self, value):
        ob = _link_of(self.id_data)
        if ob is None:
            return
        value = tuple(map(float32_clean, value)) if field == "com" else float32_clean(value)
        try:
            schema.update_link(ob, **{field: value})
        except SchemaError as e:
            print(f"vart: {e}")
    return set_


def _dof_props():
    ann = {}
    for i in range(MAX_DOF):
        ann[f"ang{i}"] = FloatProperty(
            name=f"Angle {i}", description="Joint value (drag to operate the joint)",
            subtype='ANGLE', get=_dof_get(i), set=_dof_set(i), options=set(), precision=2,
            step=100)
        ann[f"len{i}"] = FloatProperty(
            name=f"Length {i}", description="Joint value (drag to operate the joint)",
            subtype='DISTANCE', unit='LENGTH', get=_dof_get(i), set=_dof_set(i),
            options=set(), precision=4, step=1)
    return ann


class VART_PG_live(bpy.types.PropertyGroup):
    """Runtime sidebar fields; values are read from and written to the scene's links and
    joints (see the module doc), never stored here."""

    __annotations__ = {
        **_dof_props(),
        "mass": FloatProperty(name="Mass", description="Mass of the active link",
                              unit='MASS', min=0.0, get=_link_get("mass", 0.0),
                              set=_link_set("mass"), options=set()),
        "com": FloatVectorProperty(name="Centre of Mass",
                                   description="Centre of mass in the link's frame",
                                   size=3, subtype='TRANSLATION', unit='LENGTH',
                                   get=_link_get("com", (0.0, 0.0, 0.0)),
                                   set=_link_set("com"), options=set()),
    }


def dof_prop_name(i: int, angular: bool) -> str:
    """The ``Scene.vart_live`` property of DoF ``i``."""
    return f"{'ang' if angular else 'len'}{i}"


classes = (VART_PG_live,)


def register():
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.Scene.vart_live = PointerProperty(type=VART_PG_live, options=set())


def unregister():
    del bpy.types.Scene.vart_live
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
