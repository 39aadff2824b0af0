"""Operators on an arm's tool and its waypoints: Add Tool Frame, Mark as Tool, Key Waypoint,
Set Waypoint Move, Go to Waypoint, Remove Waypoint, Check Arm Motion.

A tool is a link marked as one (:mod:`vart_addon.bridge.tools`: URDF imports mark ``tool0``,
``flange`` and ``*_tcp`` frames); its waypoints are its world poses keyed on frames with the
move into each (Linear or Joint, eased or not), which the bake and live mode follow
(:mod:`vart_addon.animation.waypoint_goals`).
"""
import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty

from ..bridge import edits
from ..bridge import poses as P
from ..bridge import tools as TL
from ..shared import bridge_cache, selection
from . import support

MOVE_ITEMS = [("LINEAR", "Linear", "The tool's origin on the straight line from the waypoint "
               "before, its rotation about one axis (slerp)", 0),
              ("JOINT", "Joint", "The arm's joints straight from their values at the waypoint "
               "before to a solution at this one", 1)]
_EASE = "Start and stop with zero speed (else constant speed along the segment)"


def _poll_tool(cls, context) -> bool:
    if not support.poll_link(cls, context):
        return False
    if not TL.is_tool(context.active_object):
        cls.poll_message_set("The active link is not a tool (Vart > Mark as Tool, or Add "
                             "Tool Frame on the flange)")
        return False
    return True


class VART_OT_add_tool(bpy.types.Operator):
    bl_idname = "vart.add_tool"
    vart_menu = (support.MenuItem("links", order=5),)
    bl_label = "Add Tool Frame"
    bl_description = ("Add a tool frame (tool centre point) at the 3D cursor, location and "
                      "rotation: a new link fixed to the active link (the flange), marked as a "
                      "tool. Nothing moves")
    bl_options = {'REGISTER', 'UNDO'}

    name: StringProperty(name="Name", description="Name of the tool link (empty: the active "
                         "link's name with _tcp)")

    @classmethod
    def poll(cls, context):
        return support.poll_link(cls, context)

    def execute(self, context):
        scene, flange = context.scene, context.active_object

        def go():
            res = edits.split_link(scene, flange.name, selection.cursor_pose(scene),
                                   new_name=self.name or f"{flange.name}_tcp", jtype="fixed",
                                   collection=context.collection,
                                   bridge=bridge_cache.bridge_for(scene),
                                   **bridge_cache.solve_kw(scene))
            tool = scene.objects[res.value[0]]
            TL.set_tool(tool)
            for ob in context.selected_objects:
                ob.select_set(False)
            tool.select_set(True)
            context.view_layer.objects.active = tool
            self.report({'INFO'}, f"Added tool {tool.name!r} on {flange.name!r}")
            return {'FINISHED'}
        return support.run(self, go)


class VART_OT_mark_tool(bpy.types.Operator):
    bl_idname = "vart.mark_tool"
    vart_menu = (support.MenuItem("links", text="Mark as Tool", props=(("on", True),),
                                  order=5),)
    bl_label = "Mark as Tool"
    bl_description = ("Mark the active link as a tool (a tool centre point whose waypoints "
                      "can be keyed), or unmark it")
    bl_options = {'REGISTER', 'UNDO'}

    on: BoolProperty(name="Tool", default=True, description="Mark (on) or unmark (off)")

    @classmethod
    def poll(cls, context):
        return support.poll_link(cls, context)

    def execute(self, context):
        TL.set_tool(context.active_object, self.on)
        return {'FINISHED'}


class VART_OT_key_waypoint(bpy.types.Operator):
    bl_idname = "vart.key_waypoint"
    vart_menu = (support.MenuItem("animate", order=5),)
    bl_label = "Key Waypoint"
    bl_description = ("Key the active tool's current world pose as a waypoint on the current "
                      "frame, with the move that reaches it from the waypoint before")
    bl_options = {'REGISTER', 'UNDO'}

    move: EnumProperty(name="Move", items=MOVE_ITEMS, default="LINEAR")
    ease: BoolProperty(name="Eased", default=False, description=_EASE)

    @classmethod
    def poll(cls, context):
        return _poll_tool(cls, context)

    def execute(self, context):
        ob, frame = context.active_object, context.scene.frame_current

        def go():
            T = P.rigid_and_scale(P.observe(ob), ob.name)[0]
            TL.key_waypoint(ob, frame, T, self.move, self.ease)
            self.report({'INFO'}, f"Waypoint of {ob.name!r} on frame {frame} "
                        f"({self.move.title()}{', eased' if self.ease else ''})")
            return {'FINISHED'}
        return support.run(self, go)


class VART_OT_set_waypoint_move(bpy.types.Operator):
    bl_idname = "vart.set_waypoint_move"
    bl_label = "Set Waypoint Move"
    bl_description = ("Change the move into the active tool's waypoint on a frame (its pose "
                      "stays)")
    bl_options = {'REGISTER', 'UNDO'}

    frame: IntProperty(name="Frame", description="The waypoint's frame")
    move: EnumProperty(name="Move", items=MOVE_ITEMS, default="LINEAR")
    ease: BoolProperty(name="Eased", default=False, description=_EASE)

    @classmethod
    def poll(cls, context):
        return _poll_tool(cls, context)

    def execute(self, context):
        ob = context.active_object

        def go():
            wp = TL.read_waypoints(ob)
            hit = [] if wp is None else [i for i, f in enumerate(wp.frames)
                                         if abs(f - self.frame) < 1e-4]
            if not hit:
                self.report({'ERROR'}, f"{ob.name!r} has no waypoint on frame {self.frame}")
                return {'CANCELLED'}
            TL.key_waypoint(ob, self.frame, wp.T[hit[0]], self.move, self.ease)
            return {'FINISHED'}
        return support.run(self, go)


class VART_OT_go_to_waypoint(bpy.types.Operator):
    bl_idname = "vart.go_to_waypoint"
    bl_label = "Go to Waypoint"
    bl_description = "Go to the frame of one of the active tool's waypoints"
    bl_options = {'REGISTER'}

    frame: IntProperty(name="Frame", description="The waypoint's frame")

    @classmethod
    def poll(cls, context):
        return _poll_tool(cls, context)

    def execute(self, context):
        context.scene.frame_set(self.frame)
        return {'FINISHED'}


class VART_OT_remove_waypoint(bpy.types.Operator):
    bl_idname = "vart.remove_waypoint"
    bl_label = "Remove Waypoint"
    bl_description = "Remove the active tool's waypoint on a frame"
    bl_options = {'REGISTER', 'UNDO'}

    frame: IntProperty(name="Frame", description="The waypoint's frame")

    @classmethod
    def poll(cls, context):
        return _poll_tool(cls, context)

    def execute(self, context):
        ob = context.active_object
        if not TL.remove_waypoint(ob, self.frame):
            self.report({'ERROR'}, f"{ob.name!r} has no waypoint on frame {self.frame}")
            return {'CANCELLED'}
        return {'FINISHED'}


class VART_OT_check_arm_motion(bpy.types.Operator):
    bl_idname = "vart.check_arm_motion"
    vart_menu = (support.MenuItem("animate", order=6),)
    bl_label = "Check Arm Motion"
    bl_description = ("Check the active tool's arm over the scene's frame range: joints that "
                      "jump more than a step between frames, changes of configuration "
                      "(shoulder, elbow, wrist) and frames near a singularity")
    bl_options = {'REGISTER'}

    step: FloatProperty(name="Step", description="Largest joint motion between two frames "
                        "(rad, or m for a prismatic joint)", default=0.2, min=1e-6,
                        subtype='ANGLE')
    min_manipulability: FloatProperty(
        name="Least Manipulability", default=0.005, min=0.0, precision=4,
        description="Below this manipulability (Yoshikawa's) the arm is near a singularity")

    @classmethod
    def poll(cls, context):
        return _poll_tool(cls, context)

    def execute(self, context):
        from ..checks.arm_motion import check_arm_motion
        scene, ob = context.scene, context.active_object

        def go():
            rep = check_arm_motion(scene, ob.name, scene.frame_start, scene.frame_end,
                                   step=self.step, min_manipulability=self.min_manipulability)
            self.report({'INFO'} if rep.ok else {'WARNING'}, rep.summary())
            return {'FINISHED'}
        return support.run(self, go)


classes = (VART_OT_add_tool, VART_OT_mark_tool, VART_OT_key_waypoint,
           VART_OT_set_waypoint_move, VART_OT_go_to_waypoint, VART_OT_remove_waypoint,
           VART_OT_check_arm_motion)


# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
