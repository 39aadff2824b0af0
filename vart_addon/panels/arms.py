"""The Arm Configurations panel of the sidebar: Find Solutions for the active link's arm, the
list it found (``scene.vart_arm``: branch, distance, manipulability per row; a lower bound),
Preview and Apply of the active row (:mod:`vart_addon.operators.arms`)."""

import bpy

from ..shared import selection
from . import common as C


class VART_UL_arm_solutions(bpy.types.UIList):
    """A solution per row: its branch in words (a check on the branch the arm had), its
    distance from the arm's configuration then (rad and m) and its manipulability."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname,
                  index=0, flt_flag=0):
        row = layout.row(align=True)
        row.label(text=item.name, icon='CHECKMARK' if item.current else 'BLANK1')
        right = row.row(align=True)
        right.alignment = 'RIGHT'
        right.label(text=f"{item.distance:.2f}")
        right.label(text=f"{item.manipulability:.3f}")


class VART_PT_arm(C.Panel, bpy.types.Panel):
    bl_idname = "VART_PT_arm"
    bl_label = "Arm Configurations"
    bl_order = 4  # after Tool and Waypoints, in registration order

    def draw(self, context):
        layout = self.layout
        ob = selection.active_link(context)
        if ob is None:
            layout.label(text="Make a link active (an arm's tool)")
            return
        C.op(layout, "vart.find_solutions", icon='VIEWZOOM')
        arm = getattr(context.scene, "vart_arm", None)
        if arm is None or arm.link != ob.name or not len(arm.solutions):
            return
        n = len(arm.solutions)
        layout.label(text=f"Found {n} (there may be more): distance, manipulability")
        layout.template_list("VART_UL_arm_solutions", "", arm, "solutions", arm, "index",
                             rows=min(max(n, 3), 8))
        row = layout.row(align=True)
        C.op(row, "vart.preview_solution", text="Preview", icon='HIDE_OFF')
        C.op(row, "vart.apply_solution", text="Apply", icon='CHECKMARK')


classes = (VART_UL_arm_solutions, VART_PT_arm)


# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
