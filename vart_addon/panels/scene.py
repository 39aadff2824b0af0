"""Sidebar panels of the active link, the solver (settings and last status) and the scene
(gravity, overlay)."""

import bpy

from ..bridge import SchemaError, schema
from . import common as C
from . import goal_rows


class VART_PT_active_link(C.Panel, bpy.types.Panel):
    bl_idname = "VART_PT_active_link"
    bl_label = "Active Link"
    bl_order = 2

    def draw(self, context):
        layout = self.layout
        ob = context.active_object
        if ob is None:
            layout.label(text="No active object", icon='INFO')
            return
        if not schema.is_link(ob):
            layout.label(text=f"{ob.name} is not a link", icon='INFO')
            C.op(layout, "vart.make_links", icon='OBJECT_DATA')
            return
        try:
            link, joints = schema.read_object(ob)
        except SchemaError as e:
            layout.label(text=f"{ob.name}: bad data", icon='ERROR')
            layout.label(text=str(e))
            return
        layout.label(text=ob.name + ("  (virtual)" if link.virtual else ""),
                     icon='EMPTY_AXIS' if link.virtual else 'OBJECT_DATA')
        ui = context.scene.vart_live
        col = layout.column()
        col.prop(ui, "mass")
        col.prop(ui, "com")
        C.op(layout, "vart.set_mass", text="Set Mass")
        goal_rows.draw(layout, context.scene, link, "link")
        C.op(layout, "vart.make_ground_link", icon='WORLD')
        layout.label(text=f"Joints held: {len(joints)}"
                     + (" (" + ", ".join(j.name for j in joints) + ")" if joints else ""))


class VART_PT_solver(C.Panel, bpy.types.Panel):
    bl_idname = "VART_PT_solver"
    bl_label = "Solver"
    bl_order = 3

    def draw(self, context):
        layout = self.layout
        sv = C.settings(context)
        col = layout.column(align=True)
        col.prop(sv, "max_iterations")
        col.prop(sv, "time_budget_ms")
        col.prop(sv, "damping")
        C.op(layout, "vart.solve", icon='FILE_REFRESH')
        draw_status(layout, sv)


def status_lines(sv) -> list[tuple[str, str]]:
    """(text, icon) lines of the last solve's status, one per priority level, with unmet
    goals by name, then what each sublinkage could not reach."""
    out = []
    if sv.status_summary:
        out.append((sv.status_summary, 'INFO'))
    for lv in sv.status_levels:
        ok = lv.satisfied
        out.append((f"{lv.name}: error {lv.error:.3g}, {lv.iterations} it, {lv.ms:.1f} ms",
                    'CHECKMARK' if ok else 'ERROR'))
        if lv.unmet:
            out.append((f"   unmet: {lv.unmet}", 'BLANK1'))
    for part in filter(None, getattr(sv, "status_unreached", "").split(" | ")):
        home, _, goals = part.partition(": ")
        out.append((f"{home} could not reach: {goals}", 'OUTLINER_COLLECTION'))
    return out


def draw_status(layout, sv):
    lines = status_lines(sv)
    if not lines:
        layout.label(text="Not solved yet")
        return
    box = layout.box()
    for text, icon in lines:
        box.label(text=text, icon=icon)


class VART_PT_scene(C.Panel, bpy.types.Panel):
    bl_idname = "VART_PT_scene"
    bl_label = "Scene"
    bl_order = 4

    def draw(self, context):
        layout = self.layout
        sv = C.settings(context)
        layout.prop(sv, "gravity_enabled")
        col = layout.column()
        col.enabled = sv.gravity_enabled
        col.prop(sv, "gravity")
        layout.prop(sv, "overlay_enabled")
        from ..io_urdf.menus import draw_sidebar  # robots and presets in and out
        draw_sidebar(layout)


classes = (VART_PT_active_link, VART_PT_solver, VART_PT_scene)


# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
