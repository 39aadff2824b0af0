"""The Study panel of the sidebar: the joint a study varies and how (a range or a
distribution, samples), its contacts (support points of the stability margin), where its
table goes; Run Study and the last study's outcome (:mod:`vart_addon.studies.keyed`)."""

import bpy

from . import common as C


class VART_UL_study_contacts(bpy.types.UIList):
    """A contact per row: its joint, and whether it supports only at a limit."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname,
                  index=0, flt_flag=0):
        row = layout.row(align=True)
        row.label(text=item.name, icon='SNAP_FACE')
        row.prop(item, "at_limit", text="At Limit")


class VART_PT_study(C.Panel, bpy.types.Panel):
    bl_idname = "VART_PT_study"
    bl_label = "Study"
    bl_order = 6  # after Will It Run?
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        layout = self.layout
        sv = C.settings(context)
        st = sv.study
        col = layout.column(align=True)
        rows = getattr(context.window_manager, "vart_joint_rows", None)
        if rows is not None:
            col.prop_search(st, "joint", context.window_manager, "vart_joint_rows")
        else:
            col.prop(st, "joint")
        col.prop(st, "dof")
        col = layout.column(align=True)
        col.prop(st, "sampling")
        if st.sampling in ('NORMAL', 'TRUNCNORMAL'):
            col.prop(st, "mean")
            col.prop(st, "std")
        if st.sampling != 'NORMAL':
            col.prop(st, "start", text="Start" if st.sampling == 'GRID' else "Low")
            col.prop(st, "stop", text="Stop" if st.sampling == 'GRID' else "High")
        col.prop(st, "samples")
        if st.sampling != 'GRID':
            col.prop(st, "seed")
        layout.label(text="Contacts (support points):")
        row = layout.row()
        row.template_list("VART_UL_study_contacts", "", st, "contacts", st, "contact_index",
                          rows=3)
        side = row.column(align=True)
        C.op(side, "vart.study_add_contact", text="", icon='ADD')
        C.op(side, "vart.study_remove_contact", text="", icon='REMOVE')
        col = layout.column(align=True)
        col.prop(st, "first_frame")
        col.prop(st, "chunk")
        col.prop(st, "output")
        col.prop(st, "trace")
        C.op(layout, "vart.run_study", icon='PLAY')
        if sv.study_summary:
            box = layout.box()
            for line in sv.study_summary.split("; "):
                box.label(text=line)
        else:
            layout.label(text="Not run yet")


classes = (VART_UL_study_contacts, VART_PT_study)

# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
