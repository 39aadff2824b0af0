"""Operators on goals: Lock / Unlock (a joint, or a link = its root joint), Set / Clear Target,
Set / Clear Posture (from the current value), Set Limits, Set Stiffness.

Goals are stored on the joint (see :mod:`vart_addon.bridge.schema`) and solved in priority
order: limit, lock, potential (springs, gravity), target, posture. None of these operators
moves anything: the next solve (``vart.solve``, ``vart.operate_joint``, a drag) applies them,
except Set Limits, which clamps a tree joint's value into its new limits and solves.
"""
from typing import TYPE_CHECKING

import bpy
import numpy as np
from bpy.props import EnumProperty, FloatProperty, FloatVectorProperty

from ..bridge import schema as S
from ..shared import selection, units
from . import support

_TARGETS = [('JOINT', "Joint", "The active joint"),
            ('LINK', "Link", "The active link: its root joint (the link is frozen in the world)")]


def _poll_joint_or_link(cls, context) -> bool:
    if not support.object_mode(cls, context):
        return False
    if selection.active_joint(context) is None and selection.active_link(context) is None:
        cls.poll_message_set("Needs an active joint (Vart joint list) or an active link")
        return False
    return True

# The mixins below are only ever combined with bpy.types.Operator: type them as such (their
# bl_options, self.report), while at run time they stay plain classes.
if TYPE_CHECKING:
    _Operator = bpy.types.Operator
else:
    _Operator = object


class _LockBase(_Operator):
    bl_options = {'REGISTER', 'UNDO'}

    target: EnumProperty(name="Target", items=_TARGETS, default='JOINT',
                         description="Lock the active joint, or the active link in the world")

    @classmethod
    def poll(cls, context):
        return _poll_joint_or_link(cls, context)

    def run(self, context, lock: bool):
        if self.target == 'LINK':
            link = selection.active_link(context)
            if link is None:
                self.report({'ERROR'}, "the active object is not a link")
                return {'CANCELLED'}
            name = link.name
            fn = (lambda lk: lk.lock_link(name)) if lock else (lambda lk: lk.unlock_link(name))
        else:
            aj = selection.active_joint(context)
            if aj is None:
                self.report({'ERROR'}, "no active joint")
                return {'CANCELLED'}
            name = aj[1]
            fn = (lambda lk: lk.lock_joint(name)) if lock else (lambda lk: lk.unlock_joint(name))
        return support.apply(self, context, fn)[0]


class VART_OT_lock(_LockBase, bpy.types.Operator):
    bl_idname = "vart.lock"
    vart_menu = (support.MenuItem("goals", "Lock Joint", (("target", 'JOINT'),)),
            support.MenuItem("goals", "Lock Link", (("target", 'LINK'),)))
    bl_label = "Lock"
    bl_description = ("Lock the active joint at its current value, or the active link at its "
                      "current pose in the world (target Link)")

    def execute(self, context):
        return self.run(context, True)


class VART_OT_unlock(_LockBase, bpy.types.Operator):
    bl_idname = "vart.unlock"
    vart_menu = (support.MenuItem("goals", "Unlock Joint", (("target", 'JOINT'),)),
            support.MenuItem("goals", "Unlock Link", (("target", 'LINK'),)))
    bl_label = "Unlock"
    bl_description = "Unlock the active joint, or the active link (target Link)"

    def execute(self, context):
        return self.run(context, False)


class _JointGoal(_Operator):
    """Base: poll for an active joint; ``apply(context, mutate(lk, name))``."""

    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return support.poll_joint(cls, context)

    def apply(self, context, mutate):
        name = selection.active_joint(context)[1]
        return support.apply(self, context, lambda lk: mutate(lk, name))[0]


class VART_OT_set_target(_JointGoal, bpy.types.Operator):
    bl_idname = "vart.set_target"
    vart_menu = (support.MenuItem("goals"),)
    bl_label = "Set Target"
    bl_description = "Set the active joint's target (every DoF) to its current value"

    def execute(self, context):
        return self.apply(context, lambda lk, n: lk.set_target(n, lk.joint_q(lk.joint(n))))


class VART_OT_clear_target(_JointGoal, bpy.types.Operator):
    bl_idname = "vart.clear_target"
    vart_menu = (support.MenuItem("goals"),)
    bl_label = "Clear Target"
    bl_description = "Remove the active joint's target"

    def execute(self, context):
        return self.apply(context, lambda lk, n: lk.clear_target(n))


class VART_OT_set_posture(_JointGoal, bpy.types.Operator):
    bl_idname = "vart.set_posture"
    vart_menu = (support.MenuItem("goals"),)
    bl_label = "Set Posture"
    bl_description = ("Make the active joint's current value its posture: the default pose "
                      "that breaks ties in redundant mechanisms (lowest priority)")

    def execute(self, context):
        return self.apply(context, lambda lk, n: lk.set_posture(n))


class VART_OT_clear_posture(_JointGoal, bpy.types.Operator):
    bl_idname = "vart.clear_posture"
    vart_menu = (support.MenuItem("goals"),)
    bl_label = "Clear Posture"
    bl_description = "Remove the active joint's posture"

    def execute(self, context):
        return self.apply(context, lambda lk, n: lk.clear_posture(n))


class VART_OT_set_limits(_JointGoal, bpy.types.Operator):
    bl_idname = "vart.set_limits"
    vart_menu = (support.MenuItem("goals"),)
    bl_label = "Set Limits"
    bl_description = ("Set the active joint's lower and upper limit per degree of freedom, in "
                      "display units (degrees, scene lengths); beyond +-1e30 means no limit. "
                      "A tree joint's value is clamped into them and the mechanism solved")

    lower: FloatVectorProperty(name="Lower", size=6, default=(-np.inf,) * 6,
                               description="Lower limit per DoF (first DoF first; extra "
                               "entries are ignored)")
    upper: FloatVectorProperty(name="Upper", size=6, default=(np.inf,) * 6,
                               description="Upper limit per DoF")

    def invoke(self, context, event):
        ob, name = selection.active_joint(context)
        jtype = selection.joint_type_of(context, name)
        if jtype is not None:
            try:
                j = next(j for j in S.read_object(ob)[1] if j.name == name)
                self.lower = units.pad6(units.to_display(j.lower, jtype, context.scene), -np.inf)
                self.upper = units.pad6(units.to_display(j.upper, jtype, context.scene), np.inf)
            except (S.SchemaError, StopIteration):
                pass
        return context.window_manager.invoke_props_dialog(self)

    def execute(self, context):
        name = selection.active_joint(context)[1]
        jtype = selection.joint_type_of(context, name)
        if jtype is None:
            self.report({'ERROR'}, f"joint {name!r} has no valid type")
            return {'CANCELLED'}

        ob = selection.active_joint(context)[0]

        def internal(values, sign, key):
            v = np.asarray(units.to_internal(values, jtype, context.scene))
            raw = np.asarray(list(values)[:len(v)], float)
            v[np.abs(raw) >= support.NO_LIMIT] = sign * np.inf
            stored = selection.stored_values(ob, name, key) or ()
            return np.asarray(units.keep_stored(v, raw, stored,
                                            lambda x: units.to_display(x, jtype, context.scene)))

        lo, hi = internal(self.lower, -1, "lower"), internal(self.upper, 1, "upper")
        if np.isnan(lo).any() or np.isnan(hi).any():
            self.report({'ERROR'}, f"joint {name!r}: limits must be numbers, got NaN")
            return {'CANCELLED'}
        return support.apply(self, context, lambda lk: lk.set_limits(name, lo, hi))[0]


class VART_OT_set_stiffness(_JointGoal, bpy.types.Operator):
    bl_idname = "vart.set_stiffness"
    vart_menu = (support.MenuItem("goals"),)
    bl_label = "Set Stiffness"
    bl_description = ("Put a spring on the active (1-DoF) joint: its stiffness (N/m or "
                      "N m/rad; 0 removes it), resting at the current value")

    stiffness: FloatProperty(name="Stiffness", min=0.0, default=1.0,
                             description="N/m for a translation, N m/rad for a rotation")

    def execute(self, context):
        k = float(self.stiffness)
        if not np.isfinite(k):
            self.report({'ERROR'}, "stiffness must be finite")
            return {'CANCELLED'}
        return self.apply(context, lambda lk, n: lk.set_stiffness(n, k))


classes = (VART_OT_lock, VART_OT_unlock, VART_OT_set_target, VART_OT_clear_target,
           VART_OT_set_posture, VART_OT_clear_posture, VART_OT_set_limits,
           VART_OT_set_stiffness)


# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
