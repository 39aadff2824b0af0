"""Operate Joint and Solve: the operators that run the solver and write the solved poses.

Both use the scene's solver settings and gravity (``scene.vart``, :mod:`vart_addon.properties`)
and record the solve's status there; unmet goals are reported as a warning (the best
least-squares pose is still written, and the warning names the unmet goals).
"""
from collections.abc import Callable

import bpy
import numpy as np
from bpy.props import FloatVectorProperty

from ..bridge import schema
from ..shared import bridge_cache, selection, units
from . import support


class VART_OT_operate_joint(bpy.types.Operator):
    bl_idname = "vart.operate_joint"
    vart_menu = (support.MenuItem("solve"),)
    bl_label = "Operate Joint"
    bl_description = ("Set the active joint's value (display units: degrees, scene lengths): "
                      "it gets a target at that value and every other joint follows through "
                      "the solver, within limits and locks")
    bl_options = {'REGISTER', 'UNDO'}

    value: FloatVectorProperty(name="Value", size=6, description="Value per DoF in display "
                               "units (first DoF first; extra entries are ignored)")

    @classmethod
    def poll(cls, context):
        return support.poll_joint(cls, context)

    def invoke(self, context, event):
        ob, name = selection.active_joint(context)
        q = selection.dialog_q(ob, name, selection.joint_type_of(context, name), context.scene)
        if q is not None:
            self.value = q
        return context.window_manager.invoke_props_dialog(self)

    def execute(self, context):
        scene = context.scene
        ob, name = selection.active_joint(context)
        jtype = selection.joint_type_of(context, name)
        if jtype is None:  # the schema names the object and key of what is wrong
            try:
                schema.read_object(ob)
            except support.ERRORS as e:
                self.report({'ERROR'}, str(e))
            else:
                self.report({'ERROR'}, f"object {ob.name!r}: joint {name!r} has no valid type")
            return {'CANCELLED'}
        q = units.to_internal(self.value, jtype, scene)
        if not q:
            self.report({'ERROR'}, f"joint {name!r} is {jtype}: it has no value to operate")
            return {'CANCELLED'}
        if not np.isfinite(q).all():
            self.report({'ERROR'}, f"joint {name!r}: the value must be finite, got {q}")
            return {'CANCELLED'}

        return support.apply(self, context, lambda lk: lk.set_target(name, q), solve=True,
                             quiet=False, one_shot=True)[0]


class VART_OT_solve(bpy.types.Operator):
    bl_idname = "vart.solve"
    vart_menu = (support.MenuItem("solve"),)
    bl_label = "Solve"
    bl_description = ("Move every joint so that the goals hold in priority order (invariant, "
                      "limit, lock, potential, target, posture) and write the poses")
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return support.object_mode(cls, context)

    def execute(self, context):
        return support.apply(self, context, lambda lk: None, solve=True, quiet=False,
                             one_shot=True)[0]


classes = (VART_OT_operate_joint, VART_OT_solve)


# The stubs declare register_classes_factory -> None; it returns (register, unregister).
_unregister_classes: Callable[[], None]
register, _unregister_classes = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]


def unregister() -> None:
    bridge_cache.clear_bridge_cache()
    _unregister_classes()
