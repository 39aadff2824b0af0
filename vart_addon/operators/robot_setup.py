"""Setting a robot up in the scene: ``vart.place_on_ground`` (the lowest point of the active
link's robot on z = 0) and the clearance check's ignored pairs (``scene.vart.clearance_ignored``,
the *Will It Run?* panel's list): ``vart.add_ignored_pair`` (the two selected links),
``vart.remove_ignored_pair`` (the active row) and ``vart.clear_ignored_pairs``."""

import bpy

from ..bridge import schema as S
from ..io_urdf import robot_objects as RO
from ..io_urdf.exporter import depsgraph_of, robot_components
from ..shared import selection
from ..shared.bridge_cache import bridge_for
from . import support


class VART_OT_place_on_ground(bpy.types.Operator):
    bl_idname = "vart.place_on_ground"
    bl_label = "Place on Ground"
    bl_description = ("Move the active link's robot (the links real joints connect to it) up "
                      "or down so that the lowest point of its geometry lies on z = 0")
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return support.poll_link(cls, context)

    def execute(self, context):
        scene = context.scene
        active = selection.active_link(context)
        try:
            bridge = bridge_for(scene)
            bridge.sync()
        except support.ERRORS as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        lk, obs = bridge.linkage, bridge.objects()
        name = next(n for n, ob in obs.items() if ob == active)
        robot = next((c for c in robot_components(lk) if name in c), {name})
        held = sorted(j.name for j in lk.joints.values()
                      if j.parent is None and j.child in robot)
        if held:
            self.report({'ERROR'}, f"the robot of {active.name!r} is held to the world by "
                        f"joint {held[0]!r}: it is not moved (remove or unlock that joint)")
            return {'CANCELLED'}
        moved = RO.place_on_ground([obs[n] for n in sorted(robot)],
                                   lambda: depsgraph_of(context, scene))
        self.report({'INFO'}, f"moved the robot of {active.name!r} {moved * 1e3:+.1f} mm: its "
                    "lowest point is on z = 0")
        return {'FINISHED'}


def _link_of(ob):
    while ob is not None and not S.is_link(ob):
        ob = ob.parent
    return ob


class VART_OT_add_ignored_pair(bpy.types.Operator):
    bl_idname = "vart.add_ignored_pair"
    bl_label = "Ignore Pair"
    bl_description = ("Leave the two selected links (or the links of two selected objects) "
                      "out of the clearance check: pairs that touch by design")
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return support.object_mode(cls, context)

    def execute(self, context):
        links = []
        for ob in context.selected_objects:
            link = _link_of(ob)
            if link is not None and link not in links:
                links.append(link)
        if len(links) != 2:
            self.report({'ERROR'}, f"select the two links of the pair (the selection holds "
                        f"{len(links)} link{'s' if len(links) != 1 else ''})")
            return {'CANCELLED'}
        a, b = sorted(links, key=lambda ob: ob.name)
        if not RO.add_ignored(context.scene, a, b, "by hand"):
            self.report({'INFO'}, f"{a.name} / {b.name} is ignored already")
            return {'CANCELLED'}
        context.scene.vart.clearance_ignored_index = len(context.scene.vart.clearance_ignored) - 1
        self.report({'INFO'}, f"the clearance check leaves out {a.name} / {b.name}")
        return {'FINISHED'}


class VART_OT_remove_ignored_pair(bpy.types.Operator):
    bl_idname = "vart.remove_ignored_pair"
    bl_label = "Check Pair Again"
    bl_description = "Take the active row's pair back into the clearance check"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        sv = context.scene.vart
        if not 0 <= sv.clearance_ignored_index < len(sv.clearance_ignored):
            cls.poll_message_set("No ignored pair is active in the list")
            return False
        return True

    def execute(self, context):
        sv = context.scene.vart
        sv.clearance_ignored.remove(sv.clearance_ignored_index)
        sv.clearance_ignored_index = max(0, min(sv.clearance_ignored_index,
                                                len(sv.clearance_ignored) - 1))
        return {'FINISHED'}


class VART_OT_clear_ignored_pairs(bpy.types.Operator):
    bl_idname = "vart.clear_ignored_pairs"
    bl_label = "Check Every Pair"
    bl_description = "Empty the list of ignored pairs: the clearance check takes every pair"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        if not len(context.scene.vart.clearance_ignored):
            cls.poll_message_set("No pair is ignored")
            return False
        return True

    def execute(self, context):
        n = len(context.scene.vart.clearance_ignored)
        context.scene.vart.clearance_ignored.clear()
        context.scene.vart.clearance_ignored_index = 0
        self.report({'INFO'}, f"{n} pairs are checked again")
        return {'FINISHED'}


classes = (VART_OT_place_on_ground, VART_OT_add_ignored_pair, VART_OT_remove_ignored_pair,
           VART_OT_clear_ignored_pairs)

# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
