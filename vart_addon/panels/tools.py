"""The Tool panel of the sidebar: the active link as an arm's tool, and its waypoints (frame,
move, easing) with Key Waypoint, a move chosen per waypoint, and Remove; Check Arm Motion."""

import bpy

from ..bridge import BridgeError
from ..bridge import tools as TL
from ..shared import selection
from . import common as C


class VART_PT_tool(C.Panel, bpy.types.Panel):
    bl_idname = "VART_PT_tool"
    bl_label = "Tool and Waypoints"
    bl_order = 4

    def draw(self, context):
        layout = self.layout
        ob = selection.active_link(context)
        if ob is None:
            layout.label(text="Make a link active (its arm's flange or tool)")
            return
        if not TL.is_tool(ob):
            layout.label(text=f"{ob.name} is not a tool")
            row = layout.row(align=True)
            C.op(row, "vart.mark_tool", text="Mark as Tool", icon='TOOL_SETTINGS', on=True)
            C.op(row, "vart.add_tool", text="Add Tool Frame at Cursor", icon='EMPTY_AXIS')
            return
        row = layout.row(align=True)
        row.label(text=f"Tool: {ob.name}", icon='TOOL_SETTINGS')
        C.op(row, "vart.mark_tool", text="", icon='X', on=False)
        row = layout.row(align=True)
        for move in ("LINEAR", "JOINT"):
            C.op(row, "vart.key_waypoint", text=f"Key {move.title()}", icon='KEYFRAME_HLT',
                 move=move)
        try:
            wp = TL.read_waypoints(ob)
        except BridgeError as e:
            layout.label(text=str(e), icon='ERROR')
            return
        C.op(layout, "vart.check_arm_motion", icon='VIEWZOOM')
        if wp is None:
            layout.label(text="No waypoints: pose the tool, then key one")
            return
        col = layout.column(align=True)
        current = context.scene.frame_current
        for i, f in enumerate(wp.frames):
            row = col.row(align=True)
            here = abs(f - current) < 1e-4
            C.op(row, "vart.go_to_waypoint", text=f"{f:g}",
                 icon='LAYER_ACTIVE' if here else 'LAYER_USED', frame=int(f))
            if i == 0:
                row.label(text="start")
            else:
                for move in ("LINEAR", "JOINT"):
                    C.op(row, "vart.set_waypoint_move", text=move.title(),
                         depress=wp.moves[i] == move, frame=int(f), move=move,
                         ease=bool(wp.eases[i]))
                C.op(row, "vart.set_waypoint_move", text="", icon='IPO_EASE_IN_OUT',
                     depress=bool(wp.eases[i]), frame=int(f), move=wp.moves[i],
                     ease=not wp.eases[i])
            C.op(row, "vart.remove_waypoint", text="", icon='X', frame=int(f))


classes = (VART_PT_tool,)


# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
