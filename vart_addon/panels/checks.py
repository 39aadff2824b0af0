"""The Will It Run? panel of the sidebar: the clearance check of the frame range (its ground
and tolerance, Check Clearance) and what the last check found, pair by pair; Replay in
MuJoCo and what the last replay measured."""

import bpy

from . import common as C
from .animation import bake_lines


class VART_PT_checks(C.Panel, bpy.types.Panel):
    bl_idname = "VART_PT_checks"
    bl_label = "Will It Run?"
    bl_order = 5  # after Animation, in registration order

    def draw(self, context):
        layout = self.layout
        sv = C.settings(context)
        col = layout.column(align=True)
        col.prop(sv, "clearance_ground", text="Ground")
        col.prop(sv, "clearance_tolerance")
        C.op(col, "vart.check_clearance", icon='MOD_PHYSICS')
        _outcome(layout, getattr(sv, "clearance_summary", ""), "Contacts on",
                 "Not checked yet")
        C.op(layout, "vart.replay_physics", icon='PHYSICS')
        _outcome(layout, getattr(sv, "replay_summary", ""), "effort limit",
                 "Not replayed yet")


def _outcome(layout, summary: str, bad: str, none: str):
    """A summary as short lines in a box; an error icon when it holds ``bad`` or a fall."""
    if not summary:
        layout.label(text=none)
        return
    box = layout.box()
    warn = bad in summary or "FALLS" in summary
    for i, line in enumerate(bake_lines(summary)):
        icon = ('ERROR' if warn else 'CHECKMARK') if i == 0 else 'BLANK1'
        box.label(text=line, icon=icon)


classes = (VART_PT_checks,)


# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
