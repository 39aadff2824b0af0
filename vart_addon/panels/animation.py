"""The Animation panel of the sidebar: drag and operate, Key Pose, Bake over the scene's
frame range, trajectory export and import, and the outcome of the last bake."""

import bpy

from . import common as C


def bake_lines(summary: str) -> list[str]:
    """The last bake's summary as short lines (its sentences and unmet goals)."""
    if not summary:
        return []
    head, _, rest = summary.partition(". ")
    lines = [head]
    if rest:
        first, _, goals = rest.partition(": ")
        lines.append(first + (":" if goals else ""))
        lines += ["  " + g.strip() for g in goals.split("; ") if g.strip()]
    return lines


class VART_PT_animation(C.Panel, bpy.types.Panel):
    bl_idname = "VART_PT_animation"
    bl_label = "Animation"
    bl_order = 5

    def draw(self, context):
        layout = self.layout
        scene = context.scene
        row = layout.row(align=True)
        C.op(row, "vart.drag", text="Drag", icon='VIEW_PAN')
        C.op(row, "vart.operate_joint_modal", text="Operate", icon='DRIVER_ROTATIONAL_DIFFERENCE')
        row = layout.row(align=True)
        C.op(row, "vart.key_joint", icon='KEYFRAME_HLT')
        C.op(row, "vart.key_pose", icon='KEYFRAME_HLT')
        col = layout.column(align=True)
        row = col.row(align=True)
        row.prop(scene, "frame_start", text="Start")
        row.prop(scene, "frame_end", text="End")
        C.op(col, "vart.bake", text="Bake Range", icon='RENDER_ANIMATION')
        sv = C.settings(context)
        if sv is not None:
            col.prop(sv, "check_after_bake")
            col.prop(sv, "live", text="Live (solve each frame shown)", icon='PLAY')
        from ..io_trajectory.menus import (
            draw_trajectory_sidebar,  # the File menu's trajectory entries
        )
        draw_trajectory_sidebar(layout)
        summary = getattr(sv, "bake_summary", "")
        if not summary:
            layout.label(text="Not baked yet")
            return
        box = layout.box()
        unmet = "Goals unmet" in summary
        for i, line in enumerate(bake_lines(summary)):
            icon = ('ERROR' if unmet else 'CHECKMARK') if i == 0 else 'BLANK1'
            box.label(text=line, icon=icon)


classes = (VART_PT_animation,)


# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
