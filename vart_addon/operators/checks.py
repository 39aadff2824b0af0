"""Will it run? ``vart.check_clearance``: the clearance check of a baked range
(:func:`vart_addon.checks.clearance.check_clearance`), with Blender's progress indicator,
reported, stored in ``scene.vart.clearance_summary`` and marked on the timeline."""

import bpy
from bpy.props import BoolProperty, FloatProperty, IntProperty, StringProperty

from ..bridge import schema as S
from . import support


class VART_OT_check_clearance(bpy.types.Operator):
    bl_idname = "vart.check_clearance"
    bl_label = "Check Clearance"
    bl_description = ("Step through the frame range and find where a link's geometry goes "
                      "into the ground or into another link it is not jointed to: pairs, "
                      "frames and depth, with a timeline marker where each contact begins")
    bl_options = {'REGISTER', 'UNDO'}

    frame_start: IntProperty(name="Start", description="First frame to check (default: the "
                             "scene's start)", default=1, options={'SKIP_SAVE'})
    frame_end: IntProperty(name="End", description="Last frame to check (default: the scene's "
                           "end)", default=250, options={'SKIP_SAVE'})
    ground: StringProperty(name="Ground", description="Name of the ground's mesh object "
                           "(default: the Vart setting; empty: the plane z = 0)",
                           options={'SKIP_SAVE'})
    tolerance: FloatProperty(name="Tolerance", description="Ground penetration below this "
                             "depth is not a contact (default: the Vart setting)",
                             default=1e-4, min=0.0, unit='LENGTH', precision=4,
                             options={'SKIP_SAVE'})
    markers: BoolProperty(name="Markers", description="Put a timeline marker at the first "
                          "frame of each contact (replacing the last check's)", default=True)

    @classmethod
    def poll(cls, context):
        if not support.object_mode(cls, context):
            return False
        if not any(S.is_link(ob) for ob in context.scene.objects):
            cls.poll_message_set("The scene has no links (Vart > Make Links)")
            return False
        return True

    def _defaults(self, context):
        scene, is_set = context.scene, self.properties.is_property_set
        if not is_set("frame_start"):
            self.frame_start = scene.frame_start
        if not is_set("frame_end"):
            self.frame_end = scene.frame_end
        if not is_set("ground"):
            ob = scene.vart.clearance_ground
            self.ground = ob.name if ob is not None else ""
        if not is_set("tolerance"):
            self.tolerance = scene.vart.clearance_tolerance

    def execute(self, context):
        from ..checks.clearance import check_clearance, put_markers
        self._defaults(context)
        scene = context.scene
        wm = context.window_manager
        wm.progress_begin(0, max(self.frame_end - self.frame_start + 1, 1))
        try:
            res = check_clearance(scene, self.frame_start, self.frame_end,
                                  ground=self.ground or None, tolerance=self.tolerance,
                                  progress=lambda done, total: wm.progress_update(done))
        except support.ERRORS as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        finally:
            wm.progress_end()
        if self.markers:
            put_markers(scene, res)
        scene.vart.clearance_summary = res.summary()
        self.report({'WARNING'} if res.depth else {'INFO'}, res.summary(most=3))
        return {'FINISHED'}


classes = (VART_OT_check_clearance,)

# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
