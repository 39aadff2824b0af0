"""Sidebar panels of the joints: the joint list and the active joint."""

from __future__ import annotations

import bpy
from bpy.props import BoolProperty

from . import common as C
from . import goal_rows, live
from . import rows as R


class VART_UL_joints(bpy.types.UIList):
    """The scene's joints: name, type, parent -> child, real/virtual, tree/closure, locked."""

    bl_idname = "VART_UL_joints"

    filter_selected: BoolProperty(
        name="Selected Links", default=True,
        description="Show only the joints of the selected links (all joints when nothing is "
                    "selected)")

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname,
                  index=0, flt_flag=0):
        if item.error:
            layout.label(text=f"{item.child}: bad data", icon='ERROR')
            return
        if self.layout_type == 'GRID':
            layout.label(text="", icon=C.type_icon(item.jtype))
            return
        split = layout.split(factor=0.5, align=True)
        split.label(text=item.name, icon=C.type_icon(item.jtype))
        row = split.row(align=True)
        row.label(text=f"{item.parent or C.WORLD} \u2192 {item.child}")
        # Flags show only when they differ from the usual (real, tree, free), so a plain
        # joint's row stays quiet and the narrow sidebar keeps room for the names.
        for on, icon in ((item.virtual, 'GHOST_ENABLED'), (not item.tree, 'LINKED'),
                         (item.locked, 'LOCKED')):
            if on:
                row.label(text="", icon=icon)

    def draw_filter(self, context, layout):
        row = layout.row(align=True)
        row.prop(self, "filter_name", text="")
        row.prop(self, "use_filter_invert", text="", icon='ARROW_LEFTRIGHT')
        layout.prop(self, "filter_selected")

    def filter_items(self, context, data, propname):
        items = getattr(data, propname)
        if self.filter_name:
            flags = bpy.types.UI_UL_list.filter_items_by_name(
                self.filter_name, self.bitflag_filter_item, items, "name")
        else:
            flags = [self.bitflag_filter_item] * len(items)
        if self.filter_selected:
            sel = {ob.name for ob in getattr(context, "selected_objects", ())}
            keep = R.filter_flags(items, sel, self.bitflag_filter_item)
            flags = [f & k for f, k in zip(flags, keep)]
        return flags, []


class VART_PT_joints(C.Panel, bpy.types.Panel):
    bl_idname = "VART_PT_joints"
    bl_label = "Joints"
    bl_order = 0

    def draw(self, context):
        layout = self.layout
        sv = C.settings(context)
        wm = context.window_manager
        R.request_refresh(context)
        row = layout.row(align=True)
        C.op(row, "vart.make_links", icon='OBJECT_DATA')
        C.op(row, "vart.add_virtual_link", icon='EMPTY_AXIS')
        row = layout.row()
        row.template_list("VART_UL_joints", "", wm, "vart_joint_rows", sv, "joint_index",
                          rows=5)
        col = row.column(align=True)
        if C.has_operator("vart.add_joint"):
            col.operator_menu_enum("vart.add_joint", "joint_type", text="", icon='ADD')
        C.op(col, "vart.remove_joint", text="", icon='REMOVE')
        col.separator()
        C.op(col, "vart.solve", text="", icon='FILE_REFRESH')
        if not len(wm.vart_joint_rows):
            layout.label(text="No joints: select links and add one", icon='INFO')


def _draw_values(layout, scene, j):
    ui = scene.vart_live
    col = layout.column(align=True)
    for i, (label, angular) in enumerate(C.dof_layout(j.type)):
        col.prop(ui, live.dof_prop_name(i, angular), text=label)
    if j.mimic is not None:
        col.enabled = False
        layout.label(text=f"Follows {j.mimic.leader} (\u00d7{j.mimic.multiplier:g})",
                     icon='LINKED')


def _draw_goals(layout, scene, j):
    angular = [a for _, a in C.dof_layout(j.type)]
    box = layout.box()
    goal_rows.draw(box, scene, j, "joint", angular, j.dof)
    box.label(text="Limits: " + ", ".join(
        "free" if lo == -float("inf") and hi == float("inf")
        else f"{C.fmt(lo, a, scene)} .. {C.fmt(hi, a, scene)}"
        for lo, hi, a in zip(j.lower, j.upper, angular)))
    C.op(box, "vart.set_limits", text="Set Limits")


class VART_PT_active_joint(C.Panel, bpy.types.Panel):
    bl_idname = "VART_PT_active_joint"
    bl_label = "Active Joint"
    bl_order = 1

    def draw(self, context):
        layout = self.layout
        scene = context.scene
        ob, j = live.active_joint_data(context)
        if j is None:
            name = C.settings(context).active_joint
            if ob is not None:
                text, icon = f"{ob.name}: bad data (see the Active Link panel)", 'ERROR'
            elif name:
                text, icon = f"Joint {name!r} not found", 'ERROR'
            else:
                text, icon = "No active joint: pick one in the list", 'INFO'
            layout.label(text=text, icon=icon)
            return
        header = layout.row()
        header.label(text=j.name, icon=C.type_icon(j.type))
        header.label(text=j.type)
        layout.label(text=f"{j.parent or C.WORLD} \u2192 {j.child}", icon='LINKED')
        layout.label(text=", ".join(("virtual" if j.virtual else "real",
                                     "tree" if j.tree else "closure")))
        if j.dof:
            _draw_values(layout, scene, j)
            _draw_goals(layout, scene, j)
        else:
            layout.label(text="A fixed joint has no value to operate", icon='INFO')
        col = layout.column(align=True)
        C.op(col, "vart.set_joint_frame_from_cursor", text="Frame from Cursor",
             icon='PIVOT_CURSOR')
        row = col.row(align=True)
        C.op(row, "vart.change_joint_type", text="Change Type")
        C.op(row, "vart.rename_joint", text="Rename")
        row = col.row(align=True)
        C.op(row, "vart.invert_joint", text="Invert")
        if j.tree:
            C.op(row, "vart.make_closure_joint", text="Make Closure")
        else:
            C.op(row, "vart.make_tree_joint", text="Make Tree")
        row = col.row(align=True)
        C.op(row, "vart.split_link", text="Split Link")
        C.op(row, "vart.merge_joint", text="Merge")


classes = (VART_UL_joints, VART_PT_joints, VART_PT_active_joint)


# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
