"""Export Vart Model: the scene's linkage, goals, gravity and solver settings as a model file
(:mod:`vart_addon.studies.model_export`), which ``python -m vart_addon.analysis`` reads
without Blender. Run Study: the study set up in the sidebar, solved and keyed over frames
(:mod:`vart_addon.studies.keyed`), a chunk of samples per timer tick (progress bar, Esc)."""
from collections.abc import Callable

import bpy
from bpy.props import BoolProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from ..studies.model_export import export_model
from . import support
from .frame_steps import FrameSteps


class VART_OT_export_model(bpy.types.Operator, ExportHelper):  # type: ignore[misc]
    bl_idname = "vart.export_model"
    bl_label = "Export Vart Model"
    bl_description = ("Write the scene's links, joints, goals, gravity and solver settings as "
                      "a model file (JSON) for studies run without Blender")
    bl_options = {'REGISTER'}

    filename_ext = ".json"
    filter_glob: StringProperty(default="*.json", options={'HIDDEN'})

    @classmethod
    def poll(cls, context):
        return support.poll_links(cls, context)

    def execute(self, context):
        try:
            path = export_model(context.scene, self.filepath)
        except (OSError, *support.ERRORS) as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        self.report({'INFO'}, f"Wrote the model file {path!r}")
        return {'FINISHED'}


class VART_OT_run_study(FrameSteps, bpy.types.Operator):
    bl_idname = "vart.run_study"
    bl_label = "Run Study"
    bl_description = ("Solve the scene quasistatically at each sample of the study (Vart > "
                      "Study) and key it over frames, one sample per frame: links, joint "
                      "values, the recorded quantities (object 'Vart Study') and the limits "
                      "found (markers)")
    bl_options = {'REGISTER', 'UNDO'}
    verb = "Running the study"

    @classmethod
    def poll(cls, context):
        if not support.object_mode(cls, context):
            return False
        if not context.scene.vart.study.joint:
            cls.poll_message_set("Choose the joint to vary (Vart > Study > Joint)")
            return False
        return True

    def _defaults(self, context):
        """A study has no frame range to default (its frames follow from its samples)."""

    def _start(self, context):
        """Plan the study (its checks run here), solve the first chunk, begin the progress."""
        from ..studies.keyed import study_steps
        self._steps = study_steps(context.scene)
        self._done, self._total = next(self._steps)
        context.window_manager.progress_begin(0, self._total)

    def _stopped_text(self) -> str:
        return f"Study stopped after {self._done} of {self._total} samples: nothing was keyed"

    def _finish(self, context, out):
        from ..studies.keyed import results_object
        scene = context.scene
        scene.vart.study_summary = out.summary
        ob = results_object(scene)
        if ob.name in context.view_layer.objects:  # its curves in the Graph Editor
            ob.select_set(True)
        failed = out.results.failed() > 0
        self.report({'WARNING'} if failed else {'INFO'}, f"Study: {out.summary}")
        return {'FINISHED'}

    def execute(self, context):
        from ..studies.keyed import run_study
        try:
            out = run_study(context.scene)
        except support.ERRORS as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        return self._finish(context, out)


class VART_OT_study_add_contact(bpy.types.Operator):
    bl_idname = "vart.study_add_contact"
    bl_label = "Add Contact"
    bl_description = ("Add the active joint's child-side frame as a support point of the "
                      "study's stability margin")
    bl_options = {'REGISTER', 'UNDO'}

    at_limit: BoolProperty(name="At Limit", description="A support only while the joint is "
                           "at a limit (a point-slider that touched down)", default=False)

    @classmethod
    def poll(cls, context):
        sv = context.scene.vart
        if not sv.active_joint:
            cls.poll_message_set("Pick a joint in the Joints list first")
            return False
        if sv.active_joint in sv.study.contacts:
            cls.poll_message_set(f"{sv.active_joint!r} is a contact already")
            return False
        return True

    def execute(self, context):
        st = context.scene.vart.study
        c = st.contacts.add()
        c.name, c.at_limit = context.scene.vart.active_joint, self.at_limit
        st.contact_index = len(st.contacts) - 1
        return {'FINISHED'}


class VART_OT_study_remove_contact(bpy.types.Operator):
    bl_idname = "vart.study_remove_contact"
    bl_label = "Remove Contact"
    bl_description = "Remove the selected contact from the study"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        st = context.scene.vart.study
        if not 0 <= st.contact_index < len(st.contacts):
            cls.poll_message_set("Select a contact in the list")
            return False
        return True

    def execute(self, context):
        st = context.scene.vart.study
        st.contacts.remove(st.contact_index)
        st.contact_index = max(0, min(st.contact_index, len(st.contacts) - 1))
        return {'FINISHED'}


classes = (VART_OT_export_model, VART_OT_run_study, VART_OT_study_add_contact,
           VART_OT_study_remove_contact)

_unregister: Callable[[], None]
register, _unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]


def unregister() -> None:
    _unregister()
